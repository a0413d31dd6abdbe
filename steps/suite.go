package steps

import (
	"context"
	"slices"
	"time"
)

// Suite is what every scenario of a run shares on the runner's side: the
// target, the schedule and the gate that lets @exclusive scenarios run
// alone, the results. Run builds it once; it never changes afterwards,
// except for the schedule, the results and the waits.
type Suite struct {
	target *target

	// ctx ends when the run is interrupted: no scenario starts after.
	ctx context.Context
	// failOn is the lowest level whose failures fail the run; a failure
	// below it is a warning.
	failOn   string
	disabled []string  // capabilities switched off
	base     *baseline // scenarios known to fail on the target; nil for none
	results  *results
	// browser drives the @ui scenarios; nil when the run has none of them.
	browser *browser
	// reportsDir is where reports go, screenshots of failing pages among
	// them.
	reportsDir string

	// sched admits the scenarios (schedule.go); nil runs each at once.
	sched *scheduler
	// failFast stops the run at the first failure.
	failFast bool
	// waits counts the waits for a change to show (waits.go).
	waits waitStats
	// began is when the scenarios began to run.
	began time.Time
}

// disabledCapability names the first capability of s that the user
// switched off, "" when none.
func (s *Suite) disabledCapability(info scenarioInfo) string {
	for _, c := range info.Capabilities {
		if slices.Contains(s.disabled, c) {
			return c
		}
	}
	return ""
}
