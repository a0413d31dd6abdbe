package runner

import (
	"slices"
	"testing"

	"github.com/catalogspec/catalogspec"
)

func TestEveryScenarioIsTagged(t *testing.T) {
	catalog, err := ReadScenarios(catalogspec.Features(), "features")
	if err != nil {
		t.Fatal(err)
	}
	// An id, exactly one level, known capabilities; ids unique.
	for _, p := range checkCatalog(catalog) {
		t.Error(p)
	}
	depths := []string{"@smoke", "@core"}
	for _, s := range catalog {
		if !slices.ContainsFunc(s.Tags, func(tag string) bool { return slices.Contains(depths, tag) }) {
			t.Errorf("%s: scenario %q has no depth tag (one of %v)", s.Where(), s.Name, depths)
		}
		if s.Line == 0 {
			t.Errorf("scenario %q: no line", s.Name)
		}
	}
	if len(catalog) < 100 {
		t.Errorf("only %d scenarios read", len(catalog))
	}
}
