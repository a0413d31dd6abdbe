package runner

import (
	"slices"
	"testing"

	"github.com/catalogspec/catalogspec"
)

// TestBaselinesNameShouldScenarios keeps baselines/datahub.yaml honest: each
// entry names a scenario that exists, is a recommendation (@should) rather
// than the floor (@must), says why and cites a source, and appears once.
func TestBaselinesNameShouldScenarios(t *testing.T) {
	catalog, err := ReadScenarios(catalogspec.Features(), "features")
	if err != nil {
		t.Fatal(err)
	}
	bl, err := readBaseline("../baselines/datahub.yaml", catalog)
	if err != nil {
		t.Fatal(err)
	}
	if bl.Target == "" || len(bl.Failures) == 0 {
		t.Fatalf("baselines/datahub.yaml names no target or no failures")
	}
	seen := map[string]bool{}
	for _, e := range bl.Failures {
		for _, s := range catalog {
			if e.covers(s) && s.Level != levelShould {
				t.Errorf("baselines/datahub.yaml: %s (%s) is not a @should scenario; a @must failure is a finding, not a baseline", e, s.Name)
			}
		}
		if e.Why == "" || e.Source == "" {
			t.Errorf("baselines/datahub.yaml: %s needs both why and source", e)
		}
		if seen[e.String()] {
			t.Errorf("baselines/datahub.yaml: %s is listed twice", e)
		}
		seen[e.String()] = true
	}
	if !slices.ContainsFunc(bl.Failures, func(e baselineEntry) bool { return e.Scenario == "" || e.ID != "" }) {
		t.Error("no entry names an id")
	}
}

// TestBaselineJudgement: a listed failure passes the run, an unlisted one
// fails it, and an entry whose scenario passes is stale and fails it too.
func TestBaselineJudgement(t *testing.T) {
	a := ScenarioInfo{ID: "x-01", Name: "A", Level: levelMust}
	b := ScenarioInfo{ID: "x-02", Name: "B", Level: levelMust}
	base := &Baseline{Failures: []baselineEntry{{ID: "x-01", Why: "w", Source: "s"}}}
	run := func(sa, sb string) *runReport {
		rep := &runReport{counts: map[string]int{}}
		for _, o := range []*Outcome{{ScenarioInfo: a, Status: sa}, {ScenarioInfo: b, Status: sb}} {
			rep.outcomes = append(rep.outcomes, o)
			rep.counts[o.Status]++
		}
		return rep
	}
	if rep := run(StatusKnown, StatusPassed); rep.judge(base) {
		t.Errorf("a listed failure failed the run (stale: %v)", rep.stale)
	}
	if rep := run(StatusKnown, StatusFailed); !rep.judge(base) {
		t.Error("a new failure passed the run")
	}
	if rep := run(StatusPassed, StatusPassed); !rep.judge(base) || len(rep.stale) != 1 {
		t.Errorf("a listed scenario that passes was not reported stale: %v", rep.stale)
	}
	if rep := run(StatusDisabled, StatusPassed); rep.judge(base) {
		t.Error("a listed scenario that did not run was reported stale")
	}
	base.Failures[0].Flaky = true
	if rep := run(StatusPassed, StatusPassed); rep.judge(base) {
		t.Error("a flaky entry was reported stale")
	}
}
