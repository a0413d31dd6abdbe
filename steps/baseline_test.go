package steps

import (
	"os"
	"slices"
	"testing"

	"go.yaml.in/yaml/v3"
)

// baseline is a file of baselines/: the @should scenarios a target is known
// to fail, each with why and where that target's source shows it.
type baseline struct {
	Target   string `yaml:"target"`
	Failures []struct {
		Scenario string `yaml:"scenario"`
		Why      string `yaml:"why"`
		Source   string `yaml:"source"`
		Flaky    bool   `yaml:"flaky"`
	} `yaml:"failures"`
}

// TestBaselinesNameShouldScenarios keeps baselines/datahub.yaml honest: each
// entry names a scenario that exists, is a recommendation (@should) rather
// than the floor (@must), says why and cites a source, and appears once.
func TestBaselinesNameShouldScenarios(t *testing.T) {
	b, err := os.ReadFile("../baselines/datahub.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var bl baseline
	if err := yaml.Unmarshal(b, &bl); err != nil {
		t.Fatalf("baselines/datahub.yaml: %v", err)
	}
	if bl.Target == "" || len(bl.Failures) == 0 {
		t.Fatalf("baselines/datahub.yaml names no target or no failures")
	}
	tags := map[string][]string{}
	for _, p := range pickles(t) {
		for _, tag := range p.Tags {
			tags[p.Name] = append(tags[p.Name], tag.Name)
		}
	}
	seen := map[string]bool{}
	for _, f := range bl.Failures {
		switch ts, ok := tags[f.Scenario]; {
		case !ok:
			t.Errorf("baselines/datahub.yaml: no scenario is called %q", f.Scenario)
		case !slices.Contains(ts, "@should"):
			t.Errorf("baselines/datahub.yaml: %q is not a @should scenario; a @must failure is a finding, not a baseline", f.Scenario)
		}
		if f.Why == "" || f.Source == "" {
			t.Errorf("baselines/datahub.yaml: %q needs both why and source", f.Scenario)
		}
		if seen[f.Scenario] {
			t.Errorf("baselines/datahub.yaml: %q is listed twice", f.Scenario)
		}
		seen[f.Scenario] = true
	}
}
