package runner

import (
	"bytes"
	"fmt"
	"os"

	"go.yaml.in/yaml/v3"
)

// Baseline is a file of baselines/: the scenarios a target is known to
// fail, each with why and where that target's source shows it. A run given
// a baseline (CATALOGSPEC_BASELINE) passes when exactly those fail.
type Baseline struct {
	Target   string          `yaml:"target"`
	Failures []baselineEntry `yaml:"failures"`
}

type baselineEntry struct {
	ID       string `yaml:"id"`
	Scenario string `yaml:"scenario"` // optional: one example row of an outline
	Why      string `yaml:"why"`
	Source   string `yaml:"source"`
	Flaky    bool   `yaml:"flaky"`
}

func (e baselineEntry) covers(s ScenarioInfo) bool {
	return e.ID == s.ID && (e.Scenario == "" || e.Scenario == s.Name)
}

func (e baselineEntry) String() string {
	if e.Scenario != "" {
		return e.ID + " (" + e.Scenario + ")"
	}
	return e.ID
}

// readBaseline reads a baseline and checks that each entry names a
// scenario of the catalog.
func readBaseline(path string, catalog []ScenarioInfo) (*Baseline, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var bl Baseline
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&bl); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	for _, e := range bl.Failures {
		found := false
		for _, s := range catalog {
			found = found || e.covers(s)
		}
		if !found {
			return nil, fmt.Errorf("%s: the entry %s names no scenario of this suite", path, e)
		}
	}
	return &bl, nil
}

// Entry returns the baseline entry that covers s, if any.
func (bl *Baseline) Entry(s ScenarioInfo) (baselineEntry, bool) {
	if bl == nil {
		return baselineEntry{}, false
	}
	for _, e := range bl.Failures {
		if e.covers(s) {
			return e, true
		}
	}
	return baselineEntry{}, false
}
