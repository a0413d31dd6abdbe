// Package steps holds the step definitions of catalogspec's features: what
// each sentence of a .feature file does against the target, written with
// godog and httpexpect.
//
// # One feature, one file
//
// steps/x.go holds the steps of features/x.feature and registers them in a
// function of its own, registerXSteps. steps.go only lists those functions,
// in the order of features/ (featureSteps). A step that several features
// use may sit in the file of one of them, or in a file of shared
// vocabulary (sharedSteps):
//
//	people.go      who people are, their tokens and passwords
//	privileges.go  what people are granted, and what that lets them do
//	things.go      the things scenarios act on (a tag)
//	judging.go     how an answer is judged: statuses and refusals
//	pages.go       the browser's pages
//	sdk.go         what DataHub's SDK sends, for restli and openapi
//
// The rest is support, named in layout_test.go: the world a scenario lives
// in (world.go), the client the steps talk through (client.go), sessions
// (sessions.go), waiting for a change to show (pending.go), and leaving no
// trace on the target: the run's lock and journal there (journal.go), what
// each scenario records and removes (trace.go), and the administrator's
// client outside any scenario (target_client.go). The tests in
// layout_test.go keep the rule: every feature has its file, a feature's
// file registers only steps its feature uses, and a shared file none that
// only one feature uses.
//
// # Adding a feature or a step
//
// A new feature features/x.feature gets steps/x.go with
//
//	// registerXSteps registers the steps of features/x.feature.
//	func registerXSteps(s stepRegistrar) {
//		s.Step(`^`+who+` does something$`, doesSomething)
//	}
//
// and a line {"x", registerXSteps} in featureSteps, where x falls in the
// order of features/. A new step goes in the file of the one feature that
// uses it; when a second feature starts to use it, it may stay, or move to
// the shared file of its subject. Every pattern is anchored (^...$), and a
// step's function takes the context and the pattern's captures (strings or
// ints) and returns an error: start it with w := theWorld(ctx), and judge
// the effect, not the status alone (read back what a change claims to have
// done, and that a refusal changed nothing).
package steps
