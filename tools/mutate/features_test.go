package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The features as the suite has them: every scenario outside the @ui tier
// in exactly one feature's selection, and no @ui one in any.
func TestSuiteFeaturesSelectEveryScenarioButTheBrowsers(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	fs, err := suiteFeatures(root)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, f := range fs {
		if len(f.ids) == 0 {
			t.Errorf("%s: no scenario selected", f.file)
		}
		for _, id := range f.ids {
			if !strings.HasPrefix(id, "@id:") {
				t.Errorf("%s: %q is not an id tag", f.file, id)
			}
			if other, ok := seen[id]; ok {
				t.Errorf("%s is selected by %s and %s", id, other, f.file)
			}
			seen[id] = f.file
		}
	}
	for _, ui := range []string{"@id:signin-01", "@id:giql-01"} {
		if f, ok := seen[ui]; ok {
			t.Errorf("the browser scenario %s is selected by %s", ui, f)
		}
	}
	for _, id := range []string{"@id:restli-27", "@id:tag-04", "@id:audit-01"} {
		if _, ok := seen[id]; !ok {
			t.Errorf("%s is in no feature's selection", id)
		}
	}
}

func TestSelectForNamesTheFeaturesThatRanTheLine(t *testing.T) {
	ran := func(hit bool) profile {
		return profile{"reference/a.go": {{startLine: 10, startCol: 1, endLine: 20, endCol: 1, hit: hit}}}
	}
	r := &runner{}
	r.cov.features = []featureRun{
		{file: "features/a.feature", ids: []string{"@id:a-01", "@id:a-02"}, ran: ran(true)},
		{file: "features/b.feature", ids: []string{"@id:b-01"}, ran: ran(false)},
		{file: "features/c.feature", ids: []string{"@id:c-01"}, ran: ran(true)},
	}
	m := &Mutant{File: "reference/a.go", Line: 12, Col: 3}
	tags, files, part := r.selectFor(m)
	if !part || tags != "@id:a-01,@id:a-02,@id:c-01" || !slices.Equal(files, []string{"a.feature", "c.feature"}) {
		t.Errorf("selectFor = %q, %v, %v; want a's and c's scenarios, part of the suite", tags, files, part)
	}
	// Run by every feature: the selection is the whole suite.
	r.cov.features[1].ran = ran(true)
	if _, _, part := r.selectFor(m); part {
		t.Error("a line every feature ran must select the whole suite")
	}
	// Run by none (only the whole suite's run reached it): none selected.
	for i := range r.cov.features {
		r.cov.features[i].ran = ran(false)
	}
	if tags, files, part := r.selectFor(m); !part || tags != "" || len(files) != 0 {
		t.Errorf("a line no feature ran: selectFor = %q, %v, %v; want nothing selected", tags, files, part)
	}
	// Without -select: the whole suite.
	r.cov.features = nil
	if _, _, part := r.selectFor(m); part {
		t.Error("without feature coverage the suite must run whole")
	}
}
