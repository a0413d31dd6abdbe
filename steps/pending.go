package steps

import (
	"fmt"
	"regexp"
)

// Waits that overlap. A step that grants a privilege, takes one away or
// switches what every user may do makes the change and leaves the wait for
// it to show pending; the scenario waits for everything pending before its
// first step that is not setup (setupSteps): so "Ann is granted X, Bob is
// granted Y, no policy lets every user Z" wait once, for the slowest, not
// three times in a row. Against a target that applies changes at a
// periodic refresh, that is one refresh instead of three.

// pendingWait is a wait left for later: what it waits for, and the wait.
type pendingWait struct {
	what string
	wait func() error
}

// waitLater leaves a wait pending until the scenario's next step that is not
// setup.
func (w *world) waitLater(what string, wait func() error) {
	w.pending = append(w.pending, pendingWait{what: what, wait: wait})
}

// flush waits for everything pending, in the order it was left.
func (w *world) flush() error {
	pending := w.pending
	w.pending = nil
	for _, p := range pending {
		if err := p.wait(); err != nil {
			return w.failed(fmt.Errorf("before this step, waiting for %s: %w", p.what, err))
		}
	}
	return nil
}

// setupSteps are the steps that neither need a change a scenario has left
// pending nor observe one: they make users, tokens, tags and policies as
// the administrator, sign people in, or make such changes themselves. Every
// other step waits for what is pending first.
var setupSteps = compileAll(
	`^`+who+` holds a personal access token$`,
	`^`+who+` is a user$`,
	`^`+who+` is a user known only by `+own+` user name$`,
	`^`+who+` has a password$`,
	`^`+who+` is signed in to the frontend in (?:a|another) browser$`,
	`^a tag exists$`,
	`^the service runs with authentication disabled$`,
	`^the administrator suspends `+who+`$`,
	`^the administrator has made (?:a tag|a policy|an INACTIVE policy granting .+|two policies whose names share no word)$`,
	`^the administrator has created (?:a personal access token for `+who+`|three tokens for `+who+` that last different times)$`,
	// The changes to privileges, which leave their waits pending.
	`^`+who+` is granted `+priv+`(?: on .+| by a policy with .+)?$`,
	`^the policy granting `+who+` `+priv+` has been (?:set INACTIVE|deleted)$`,
	switchOffPattern,
	switchOnPattern,
)

func compileAll(patterns ...string) []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(patterns))
	for i, p := range patterns {
		out[i] = regexp.MustCompile(p)
	}
	return out
}

// isSetupStep says whether the step text is one of setupSteps.
func isSetupStep(text string) bool {
	for _, re := range setupSteps {
		if re.MatchString(text) {
			return true
		}
	}
	return false
}
