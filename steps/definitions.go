package steps

import (
	"context"

	"github.com/catalogspec/catalogspec"
	"github.com/catalogspec/catalogspec/runner"
	"github.com/cucumber/godog"
)

// Definitions are the suite's steps as a run takes them (runner.Steps):
// what they send, the check of the target before any scenario, and each
// scenario's hooks and steps.
type Definitions struct {
	docs documents
	// startingPolicies is every policy as the administrator listed it
	// before any scenario ran (preflight), by URN; startingPoliciesErr
	// says why there is no listing.
	startingPolicies    map[string]editableView
	startingPoliciesErr error
	// trace is the run's hold on the target and its journal there
	// (journal.go); nil for a run that takes none (read-only).
	trace *trace
}

// New returns the suite's step definitions, for a run.
func New() *Definitions { return &Definitions{} }

// Load reads the GraphQL documents the steps send.
func (d *Definitions) Load() error {
	docs, err := loadDocuments(catalogspec.GraphQLDocuments())
	if err != nil {
		return err
	}
	d.docs = docs
	return nil
}

// Preflight checks the target before any scenario runs (preflight.go).
func (d *Definitions) Preflight(ctx context.Context, t *runner.Target) error {
	return preflight(ctx, t, d)
}

// ThrowsSwitch says whether a step changes what every user may do
// (switches.go): its scenario runs in the exclusive window.
func (d *Definitions) ThrowsSwitch(step string) bool {
	for _, re := range switchSteps {
		if re.MatchString(step) {
			return true
		}
	}
	return false
}

// Hold takes the target for the run: it waits for or refuses another run
// that holds it, and first puts back what runs that died there left
// (journal.go).
func (d *Definitions) Hold(ctx context.Context, t *runner.Target, o runner.HoldOptions) (runner.Hold, error) {
	tr := newTrace(t, &d.docs, o)
	if err := tr.hold(ctx, o); err != nil {
		return nil, err
	}
	d.trace = tr
	return tr, nil
}

// Cleanup puts back what runs that died left on the target (journal.go).
func (d *Definitions) Cleanup(ctx context.Context, t *runner.Target, o runner.HoldOptions) (runner.Tally, error) {
	return newTrace(t, &d.docs, o).cleanup(ctx, o)
}

// Scenarios returns the initializer that wires the hooks and steps into
// each scenario of the run r.
func (d *Definitions) Scenarios(r *runner.Suite) func(*godog.ScenarioContext) {
	s := &suite{Suite: r, Definitions: d, steps: compileSteps()}
	return s.initScenario
}
