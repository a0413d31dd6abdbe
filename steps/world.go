package steps

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/catalogspec/catalogspec/runner"
	"github.com/cucumber/godog"
	"github.com/gavv/httpexpect/v2"
)

// suite is what every scenario of a run shares: the run's side (Suite:
// the target, the schedule, the results) and the steps' (Definitions: the
// GraphQL documents, the starting policies), the exclusive window's
// switches, and the steps compiled once.
type suite struct {
	*runner.Suite
	*Definitions
	// switches are what the exclusive window changes for every user, by
	// name (switches.go).
	switchMu sync.Mutex
	switches map[string]*bootSwitch
	// invites is whether the target's invite tokens have settled to one
	// (native_users.go).
	invites invitePool
	// steps are the step definitions, compiled once (outcome.go).
	steps compiledSteps
}

// world is the state of one scenario. It lives in the scenario's context
// and dies with it.
type world struct {
	suite     *suite
	name      string // the scenario's name
	id        string // a random suffix that makes this scenario's names unique
	exclusive bool   // tagged @exclusive: runs in the exclusive window
	admitted  bool   // the scheduler let it start; it must leave
	started   time.Time
	waited    time.Duration // spent waiting for changes to show
	pending   []pendingWait // waits left for the next step that is not setup
	// windowErr is what putting back the exclusive window's switches
	// went wrong with, when this scenario was the window's last.
	windowErr error
	info      runner.ScenarioInfo
	// notRun is the status of a scenario that did not run (skipped,
	// disabled, not run), with why; "" when it ran.
	notRun, notRunReason string
	// tolerated is what a failure of this scenario counts as when it does
	// not fail the run (warning, known); "" when it does.
	tolerated, toleratedReason string
	step                       string // the text of the current step
	failedStep                 string // the step that failed
	failure                    error  // its error
	failCurl                   string // a curl line repeating its last request
	noAuth                     bool   // talks to the auth-disabled deployment
	later                      bool   // tokens are sent to the instance whose clock runs ahead
	native                     bool   // @cap:native-users: people sign up with an invite token
	ui                         bool   // @ui: drives a browser
	stepBegan                  time.Time
	seq                        int // numbers the things this scenario makes

	http *httpexpect.Expect

	mu        sync.Mutex // guards what the reporter and recorder write
	failures  []string
	exchanges []exchange
	stepStart int // index of the current step's first exchange
	secrets   []string

	people map[string]*person // who the scenario names (people.go)
	last   *answer            // the answer to the last attempt

	// Each capability's own state, kept beside its steps.
	policyState                   // policies.go
	tagState                      // tags.go
	tokenState                    // tokens.go
	datasetState                  // ingestion.go
	entityState                   // entities.go
	graphqlState                  // graphql_http.go
	hostileState                  // hostile.go
	uiState                       // ui.go
	nativeState                   // native_users.go
	sdkState                      // sdk.go, restli.go, openapi.go
	patchState                    // patching.go
	deletionState                 // deletion.go
	searchState                   // search.go
	tokenFilterState              // token_filters.go
	seriesState                   // timeseries.go
	registryState                 // entity_registry.go
	runState                      // ingestion_runs.go
	securityState                 // security.go
	auditState                    // read_only_audit.go
	paged            *pagedTokens // token_requests.go
	shots            int          // screenshots taken of failing steps
	worldTrace                    // trace.go: what the scenario recorded in the run's journal

	cleanups []cleanup
}

// cleanup undoes something the scenario did; After runs them in reverse.
type cleanup struct {
	what string
	do   func() error
}

type worldKey struct{}

func worldFrom(ctx context.Context) *world {
	w, _ := ctx.Value(worldKey{}).(*world)
	return w
}

// theWorld returns the scenario's world; steps call it first.
func theWorld(ctx context.Context) *world {
	w := worldFrom(ctx)
	if w == nil {
		// Only a step run outside the suite's hooks gets here.
		panic("catalogspec: no world in the step's context")
	}
	return w
}

func newWorld(s *suite, sc *godog.Scenario) *world {
	w := &world{
		suite:       s,
		name:        sc.Name,
		id:          randomID(8),
		people:      map[string]*person{},
		policyState: policyState{policies: map[string]*policyRecord{}},
	}
	for _, t := range sc.Tags {
		switch t.Name {
		case "@exclusive":
			w.exclusive = true
		case "@cap:native-users":
			w.native = true
		case "@ui":
			w.ui = true
		}
	}
	w.http = newExpect(w)
	w.secret(s.Target.AdminToken)
	return w
}

// initScenario wires the hooks and steps into each scenario.
func (s *suite) initScenario(sc *godog.ScenarioContext) {
	sc.Before(s.before)
	sc.After(s.after)
	sc.StepContext().Before(s.beforeStep)
	sc.StepContext().After(s.afterStep)
	registerSteps(guardedSteps{sc: sc, steps: s.steps})
}

func (s *suite) before(ctx context.Context, sc *godog.Scenario) (context.Context, error) {
	w := newWorld(s, sc)
	ctx = context.WithValue(ctx, worldKey{}, w)
	w.started = time.Now()
	w.info = s.Results.Info(sc.Name)
	// Reported as what happened, never as passed.
	switch {
	case s.Ctx != nil && s.Ctx.Err() != nil:
		w.notRun, w.notRunReason = runner.StatusNotRun, "the run was interrupted"
	case s.DisabledCapability(w.info) != "":
		w.notRun, w.notRunReason = runner.StatusDisabled, "capability "+s.DisabledCapability(w.info)+" is switched off ("+runner.EnvDisable+")"
	case s.Target.Lacks(sc) != "":
		w.notRun, w.notRunReason = runner.StatusSkipped, s.Target.Lacks(sc)
	}
	if w.notRun == "" && s.Sched != nil {
		runCtx := s.Ctx
		if runCtx == nil {
			runCtx = context.Background()
		}
		admitStart := time.Now()
		why := s.Sched.Admit(runCtx, w.name)
		s.Profile.Record(w.name, w.ui, "admit", "", admitStart)
		if why != "" {
			w.notRun, w.notRunReason = runner.StatusNotRun, why
		} else {
			w.admitted = true
		}
	}
	if w.notRun != "" {
		if s.Sched != nil {
			s.Sched.Leave(w.name, false, func() { s.closeWindow(w) })
			if w.windowErr != nil {
				// The window's last to leave was this scenario, which did
				// not run: its report has no place for the error.
				fmt.Fprintf(os.Stderr, "catalogspec: %s\n", w.masked(w.windowErr.Error()))
			}
		}
		w.finishTrace(w.windowErr)
		return ctx, godog.ErrSkip
	}
	w.started = time.Now() // the time it waited to start is not its own
	if e, ok := s.Base.Entry(w.info); ok {
		w.tolerated, w.toleratedReason = runner.StatusKnown, e.Why
	} else if runner.LevelRank(w.info.Level) > runner.LevelRank(s.FailOn) {
		w.tolerated = runner.StatusWarning
	}
	return ctx, nil
}

func (s *suite) after(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
	w := worldFrom(ctx)
	if w == nil {
		return ctx, nil
	}
	cleanupErr := w.cleanUp()
	if w.admitted {
		s.Profile.Record(w.name, w.ui, "scenario", "", w.started)
		w.admitted = false
		// The window's last scenario puts its switches back here.
		s.Sched.Leave(w.name, true, func() { s.closeWindow(w) })
		if w.windowErr != nil {
			cleanupErr = errors.Join(cleanupErr, w.windowErr)
		}
	}
	w.finishTrace(cleanupErr)
	o := w.outcome(err, cleanupErr)
	s.Results.Record(o)
	if s.FailFast && o.Status == runner.StatusFailed && s.Sched != nil {
		s.Sched.Stop("the run stopped at the first failure (" + runner.EnvFailFast + ")")
	}
	return ctx, cleanupErr
}

func (s *suite) beforeStep(ctx context.Context, st *godog.Step) (context.Context, error) {
	if w := worldFrom(ctx); w != nil {
		w.step = st.Text
		w.stepBegan = time.Now()
		w.mu.Lock()
		w.stepStart = len(w.exchanges)
		w.failures = nil
		w.mu.Unlock()
		if !isSetupStep(st.Text) {
			if err := w.flush(); err != nil {
				return ctx, err
			}
		}
	}
	return ctx, nil
}

// afterStep turns failures httpexpect reported during the step, and that
// the step did not collect itself, into the step's error.
func (s *suite) afterStep(ctx context.Context, st *godog.Step, _ godog.StepResultStatus, err error) (context.Context, error) {
	w := worldFrom(ctx)
	if w == nil {
		return ctx, nil
	}
	s.Profile.Record(w.name, w.ui, "step", st.Text, w.stepBegan)
	failures := w.takeFailures()
	if len(failures) == 0 {
		return ctx, nil
	}
	if err != nil {
		// The step's own error already shows its exchanges.
		return ctx, errors.New(w.masked("also: " + strings.Join(failures, "\n")))
	}
	return ctx, w.fail("%s", strings.Join(failures, "\n"))
}

// cleanUp runs the cleanups in reverse order, all of them, and reports
// those that failed.
func (w *world) cleanUp() error {
	w.cleaning = true
	defer func() { w.cleaning = false }()
	var errs []string
	for i := len(w.cleanups) - 1; i >= 0; i-- {
		c := w.cleanups[i]
		w.takeFailures()
		began := time.Now()
		err := c.do()
		w.suite.Profile.Record(w.name, w.ui, "cleanup", c.what, began)
		if f := w.takeFailures(); len(f) > 0 {
			err = errors.Join(err, errors.New(strings.Join(f, "\n")))
		}
		if err != nil {
			errs = append(errs, fmt.Sprintf("cleaning up (%s): %v", c.what, err))
		}
	}
	w.cleanups = nil
	if len(errs) > 0 {
		return errors.New(w.masked(strings.Join(errs, "\n")) + w.exchangeLog())
	}
	return nil
}

// undo registers a cleanup for the end of the scenario.
func (w *world) undo(what string, do func() error) {
	w.cleanups = append(w.cleanups, cleanup{what: what, do: do})
}

// unique returns a name no other scenario or run uses.
func (w *world) unique(kind string) string {
	w.seq++
	return fmt.Sprintf("catalogspec-%s-%s-%d", kind, w.id, w.seq)
}

// secret registers a value the suite must never print.
func (w *world) secret(s string) {
	if s == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.secrets = append(w.secrets, s)
}

func (w *world) masked(s string) string {
	w.mu.Lock()
	secrets := append([]string(nil), w.secrets...)
	w.mu.Unlock()
	return runner.Mask(s, secrets...)
}

func (w *world) addFailure(msg string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.failures = append(w.failures, msg)
}

func (w *world) takeFailures() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	f := w.failures
	w.failures = nil
	return f
}

func (w *world) recordRequest(x exchange) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.exchanges = append(w.exchanges, x)
}

func (w *world) recordResponse(dump string, elapsed time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if n := len(w.exchanges); n > 0 && w.exchanges[n-1].response == "" {
		w.exchanges[n-1].response = dump
		w.exchanges[n-1].elapsed = elapsed
		return
	}
	w.exchanges = append(w.exchanges, exchange{response: dump, elapsed: elapsed})
}

// shownExchanges is how many exchanges a failing step shows.
const shownExchanges = 4

// exchangeLog renders the last exchanges of the current step (or, when it
// made none, of the scenario), masked.
func (w *world) exchangeLog() string {
	w.mu.Lock()
	xs := w.exchanges[w.stepStart:]
	heading := "requests this step made"
	if len(xs) == 0 {
		xs = w.exchanges
		heading = "this step made no requests; the scenario's last ones"
		if len(xs) > 2 {
			xs = xs[len(xs)-2:]
		}
	}
	if len(xs) > shownExchanges {
		heading += fmt.Sprintf(" (last %d of %d)", shownExchanges, len(xs))
		xs = xs[len(xs)-shownExchanges:]
	}
	var b strings.Builder
	for _, x := range xs {
		b.WriteString("\n")
		b.WriteString(x.String())
	}
	w.mu.Unlock()
	if len(xs) == 0 {
		return ""
	}
	return w.masked("\n\n" + heading + ":" + b.String())
}

// stepError is a step's failure, with the exchanges that led to it.
type stepError struct{ text string }

func (e *stepError) Error() string { return e.text }

// fail returns a step error that shows the step's exchanges, masked.
func (w *world) fail(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if f := w.takeFailures(); len(f) > 0 {
		msg += "\n" + strings.Join(f, "\n")
	}
	return &stepError{text: w.masked(msg) + w.exchangeLog()}
}

// failed wraps err as a step error; nil stays nil.
func (w *world) failed(err error) error {
	if err == nil {
		return nil
	}
	var se *stepError
	if errors.As(err, &se) {
		return err
	}
	return w.fail("%v", err)
}

// checkpoint returns a step error when httpexpect reported failures.
func (w *world) checkpoint() error {
	w.mu.Lock()
	n := len(w.failures)
	w.mu.Unlock()
	if n == 0 {
		return nil
	}
	return w.fail("the request did not go as expected:")
}

// eventually runs try until it reports done, an error other than a miss,
// or the target's propagation window passes: for what DataHub lets lag (a
// policy change reaching its authorizer's cache, a token reaching its search
// index). try returns done=false with the reason while the change has not
// shown yet; the last reason is the step's failure when time runs out. On a
// target that is immediate, the first try is done and nothing waits.
func (w *world) eventually(what string, try func() (done bool, miss error)) error {
	began := time.Now()
	deadline := began.Add(w.suite.Target.Propagation)
	pause := 20 * time.Millisecond
	waited := false
	defer func() {
		if waited {
			d := time.Since(began)
			w.waited += d
			w.suite.Waits.Add(d)
		}
	}()
	for attempt := 1; ; attempt++ {
		w.takeFailures()
		done, miss := try()
		if done {
			return nil
		}
		if time.Now().Add(pause).After(deadline) {
			if miss == nil {
				miss = w.fail("%s did not happen", what)
			}
			return w.fail("%s did not happen within the propagation window of %s (%s, %d attempts): %v",
				what, w.suite.Target.Propagation, runner.EnvPropagation, attempt, miss)
		}
		waited = true
		w.sleep(pause)
		pause = min(2*pause, 2*time.Second)
	}
}

// sleep waits d, its slot given to another scenario meanwhile.
func (w *world) sleep(d time.Duration) {
	defer w.suite.Profile.Record(w.name, w.ui, "pause", w.step, time.Now())
	if w.admitted && w.suite.Sched != nil {
		w.suite.Sched.Pause(w.name)
		defer w.suite.Sched.Resume(w.name)
	}
	time.Sleep(d)
}

// randomID returns n random lowercase letters and digits.
func randomID(n int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail
	}
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}
