package steps

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"time"

	"github.com/catalogspec/catalogspec/runner"
	"github.com/cucumber/godog"
)

// guardedSteps registers each step wrapped so that a failure is recorded
// with its step, and a failure that does not fail the run (a warning below
// the fail-on level, or a failure the baseline lists) ends the scenario as
// skipped in godog's eyes and is reported as what it is. godog has no
// other way to keep such a failure from failing a Go subtest.
type guardedSteps struct {
	sc    *godog.ScenarioContext
	steps compiledSteps // each step compiled and wrapped once for the run
}

// compiledSteps are the run's steps, by pattern, each compiled and wrapped
// once before any scenario starts: godog registers every step for every
// scenario, and compiling some 250 patterns 350 times over took most of
// the suite's own time. Read-only once built.
type compiledSteps map[string]compiledStep

type compiledStep struct {
	re      *regexp.Regexp
	wrapped any
}

// compileSteps compiles and wraps every step registerSteps registers.
func compileSteps() compiledSteps {
	c := compiledSteps{}
	registerSteps(stepCompiler(c))
	return c
}

// stepCompiler is a stepRegistrar that fills a compiledSteps.
type stepCompiler compiledSteps

func (c stepCompiler) Step(expr, stepFunc any) {
	pattern, ok := expr.(string)
	if !ok {
		panic(fmt.Sprintf("a step's pattern is a string, not %T", expr))
	}
	c[pattern] = compiledStep{re: regexp.MustCompile(pattern), wrapped: guard(stepFunc)}
}

var errorType = reflect.TypeOf((*error)(nil)).Elem()

func (g guardedSteps) Step(expr, stepFunc any) {
	if pattern, ok := expr.(string); ok {
		if c, ok := g.steps[pattern]; ok {
			g.sc.Step(c.re, c.wrapped)
			return
		}
	}
	g.sc.Step(expr, guard(stepFunc))
}

// guard wraps a step function so that settle judges what it returns.
func guard(stepFunc any) any {
	fn := reflect.ValueOf(stepFunc)
	wrapped := reflect.MakeFunc(fn.Type(), func(args []reflect.Value) []reflect.Value {
		out := fn.Call(args)
		ctx, _ := args[0].Interface().(context.Context)
		err, _ := out[0].Interface().(error)
		err = settle(ctx, err)
		if err == nil {
			return []reflect.Value{reflect.Zero(errorType)}
		}
		return []reflect.Value{reflect.ValueOf(&err).Elem()}
	})
	return wrapped.Interface()
}

// settle turns what went wrong in a step into its result.
func settle(ctx context.Context, err error) error {
	w := worldFrom(ctx)
	if w == nil {
		return err
	}
	if err == nil {
		// Failures httpexpect reported that the step did not collect.
		if f := w.takeFailures(); len(f) > 0 {
			err = w.fail("%s", strings.Join(f, "\n"))
		}
	}
	if err == nil || errors.Is(err, godog.ErrSkip) || errors.Is(err, godog.ErrPending) {
		return err
	}
	if shot := w.screenshotOnFailure(); shot != "" {
		err = &stepError{text: err.Error() + shot}
	}
	w.failedStep, w.failure, w.failCurl = w.step, err, w.curlOfLastRequest()
	if w.tolerated != "" {
		return godog.ErrSkip
	}
	return err
}

// outcome is the scenario's result, once it has ended. stepErr is what
// godog passed to the After hook; cleanupErr what cleaning up reported.
func (w *world) outcome(stepErr, cleanupErr error) *runner.Outcome {
	o := &runner.Outcome{ScenarioInfo: w.info, Duration: time.Since(w.started).Seconds(), Waited: w.waited.Seconds()}
	if !w.suite.Began.IsZero() {
		o.Start = w.started.Sub(w.suite.Began).Seconds()
	}
	if w.notRun != "" {
		o.Status, o.Reason, o.Duration = w.notRun, w.notRunReason, 0
		return o
	}
	if stepErr != nil && !errors.Is(stepErr, godog.ErrSkip) && w.failure == nil {
		// A failure that no step reported (godog's own, or a hook's).
		w.failedStep, w.failure, w.failCurl = w.step, stepErr, w.curlOfLastRequest()
	}
	switch {
	case w.failure != nil && w.tolerated != "":
		o.Status, o.Reason = w.tolerated, w.toleratedReason
	case w.failure != nil:
		o.Status = runner.StatusFailed
	case cleanupErr != nil:
		o.Status = runner.StatusFailed
		w.failedStep, w.failure, w.failCurl = "(cleaning up after the scenario)", cleanupErr, w.curlOfLastRequest()
	default:
		o.Status = runner.StatusPassed
		return o
	}
	o.Step = w.failedStep
	o.Message = w.masked(w.failure.Error())
	o.Curl = w.failCurl
	return o
}

// curlOfLastRequest is a curl command that sends the last request made so
// far (at a failure: the failing step's) again, tokens replaced by $TOKEN.
func (w *world) curlOfLastRequest() string {
	w.mu.Lock()
	var x *exchange
	for i := len(w.exchanges) - 1; i >= 0 && x == nil; i-- {
		if w.exchanges[i].method != "" {
			x = &w.exchanges[i]
		}
	}
	w.mu.Unlock()
	if x == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "curl -sS -i -X %s %s", x.method, shellQuote(x.url))
	for _, h := range x.headers {
		fmt.Fprintf(&b, " -H %s", shellQuote(h))
	}
	if x.body != "" {
		fmt.Fprintf(&b, " --data-raw %s", shellQuote(x.body))
	}
	return w.masked(b.String())
}

func shellQuote(s string) string {
	if strings.Contains(s, "$TOKEN") {
		// Let the shell expand the token the reader supplies.
		return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "`", "\\`").Replace(s) + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
