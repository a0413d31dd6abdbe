package runner

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/cucumber/godog"
	"github.com/cucumber/godog/colors"
	"github.com/cucumber/godog/formatters"
	messages "github.com/cucumber/messages/go/v34"
)

// The console of a run in the progress format: one character per step
// that ran (. passed, F failed, U undefined, P pending, A ambiguous),
// seventy to a line, and at the end each failing step with its error.
// godog's own progress formatter also prints a dash for every skipped
// step: a run skips every step of a scenario it does not start (one the
// target lacks a capability for, one after an interrupt), and an
// interrupted run printed some two thousand dashes. Here a skipped step
// prints nothing; the summary (results.go) counts the scenarios that did
// not run, and says why.

// quietProgressFormat is the name the run gives godog for it.
const quietProgressFormat = "catalogspec-progress"

// consoleFormat is the godog formatter that writes the console of a run
// whose format is named (pretty or progress).
func consoleFormat(name string) string {
	if name == "progress" {
		return quietProgressFormat
	}
	return name
}

func init() {
	godog.Format(quietProgressFormat, "One character per step that ran; nothing for a skipped step.", func(_ string, out io.Writer) godog.Formatter {
		return &quietProgress{out: out}
	})
}

// stepsPerLine is how many characters quietProgress prints to a line.
const stepsPerLine = 70

type quietProgress struct {
	out io.Writer

	mu       sync.Mutex
	steps    int       // characters printed
	failures []failure // the failing steps, for the end
}

type failure struct{ scenario, uri, step, err string }

func (f *quietProgress) mark(c string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fmt.Fprint(f.out, c)
	f.steps++
	if f.steps%stepsPerLine == 0 {
		fmt.Fprintf(f.out, " %d\n", f.steps)
	}
}

func (f *quietProgress) TestRunStarted()                                                       {}
func (f *quietProgress) Feature(*messages.GherkinDocument, string, []byte)                     {}
func (f *quietProgress) Pickle(*messages.Pickle)                                               {}
func (f *quietProgress) Defined(*messages.Pickle, *messages.PickleStep, *godog.StepDefinition) {}
func (f *quietProgress) Skipped(*messages.Pickle, *messages.PickleStep, *godog.StepDefinition) {}

func (f *quietProgress) Passed(*messages.Pickle, *messages.PickleStep, *godog.StepDefinition) {
	f.mark(colors.Green("."))
}

func (f *quietProgress) Undefined(*messages.Pickle, *messages.PickleStep, *godog.StepDefinition) {
	f.mark(colors.Yellow("U"))
}

func (f *quietProgress) Pending(*messages.Pickle, *messages.PickleStep, *godog.StepDefinition) {
	f.mark(colors.Yellow("P"))
}

func (f *quietProgress) Ambiguous(_ *messages.Pickle, _ *messages.PickleStep, _ *godog.StepDefinition, _ error) {
	f.mark(colors.Yellow("A"))
}

func (f *quietProgress) Failed(p *messages.Pickle, st *messages.PickleStep, _ *godog.StepDefinition, err error) {
	f.mark(colors.Red("F"))
	f.mu.Lock()
	defer f.mu.Unlock()
	msg := "(no error)"
	if err != nil {
		msg = err.Error()
	}
	f.failures = append(f.failures, failure{scenario: p.Name, uri: p.Uri, step: st.Text, err: msg})
}

// Summary ends the last line of characters and lists the failing steps.
func (f *quietProgress) Summary() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.steps%stepsPerLine != 0 {
		if f.steps > stepsPerLine {
			fmt.Fprint(f.out, strings.Repeat(" ", stepsPerLine-f.steps%stepsPerLine))
		}
		fmt.Fprintf(f.out, " %d\n", f.steps)
	}
	if len(f.failures) == 0 {
		return
	}
	fmt.Fprintln(f.out, "\n--- "+colors.Red("Failed steps:")+"\n")
	for _, x := range f.failures {
		fmt.Fprintf(f.out, "  %s %s\n    %s\n      %s %s\n\n", colors.Red("Scenario: "+x.scenario), colors.Black("# "+x.uri), colors.Red(x.step), colors.Red("Error:"), colors.Bold(colors.Red)(x.err))
	}
}

var _ formatters.Formatter = (*quietProgress)(nil)
