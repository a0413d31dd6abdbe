package runner

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
	Target *Target

	// Ctx ends when the run is interrupted: no scenario starts after.
	Ctx context.Context
	// FailOn is the lowest level whose failures fail the run; a failure
	// below it is a warning.
	FailOn   string
	Disabled []string  // capabilities switched off
	Base     *Baseline // scenarios known to fail on the target; nil for none
	Results  *Results
	// Browser drives the @ui scenarios; nil when the run has none of them.
	Browser *Browser
	// ReportsDir is where reports go, screenshots of failing pages among
	// them.
	ReportsDir string

	// Sched admits the scenarios (schedule.go); nil runs each at once.
	Sched *Scheduler
	// FailFast stops the run at the first failure.
	FailFast bool
	// Waits counts the waits for a change to show (waits.go).
	Waits waitStats
	// Began is when the scenarios began to run.
	Began time.Time
	// Profile records where the run's time goes; nil when off
	// (EnvProfile).
	Profile *Profile
	// ReadOnly: a read-only audit (Config.ReadOnly); the steps send
	// nothing that would write to a target that works.
	ReadOnly bool
}

// DisabledCapability names the first capability of s that the user
// switched off, "" when none.
func (s *Suite) DisabledCapability(info ScenarioInfo) string {
	for _, c := range info.Capabilities {
		if slices.Contains(s.Disabled, c) {
			return c
		}
	}
	return ""
}
