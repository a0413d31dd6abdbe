package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	junit "github.com/joshdk/go-junit"
)

// sampleReport has one scenario of each status.
func sampleReport() *runReport {
	rep := &runReport{counts: map[string]int{}}
	for i, st := range statusOrder {
		o := &Outcome{
			ScenarioInfo: ScenarioInfo{ID: "x-0" + string(rune('1'+i)), Name: "Scenario " + st, Feature: "features/x.feature", Line: 10 + i, Level: levelMust, Capabilities: []string{"tokens"}},
			Status:       st, Duration: 0.25,
		}
		switch st {
		case StatusFailed, StatusWarning, StatusKnown:
			o.Step = "Ann's token is refused"
			o.Message = "answered 200, expected 401 <script>"
			o.Curl = `curl -sS -i -X POST 'http://gms/api/graphql' -H "Authorization: Bearer $TOKEN"`
		case StatusSkipped, StatusDisabled, StatusNotRun:
			o.Reason = "why " + st
		}
		rep.outcomes = append(rep.outcomes, o)
		rep.counts[st]++
	}
	return rep
}

// TestJUnitReadsAsIntended reads junit.xml with a JUnit parser: one test
// case per scenario; only failures fail; skips of every kind are skips.
func TestJUnitReadsAsIntended(t *testing.T) {
	path := filepath.Join(t.TempDir(), "junit.xml")
	if err := sampleReport().writeJUnit(path, levelMust, time.Second); err != nil {
		t.Fatal(err)
	}
	suites, err := junit.IngestFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(suites) != 1 {
		t.Fatalf("%d suites, want one per feature (1)", len(suites))
	}
	got := map[junit.Status]int{}
	for _, tc := range suites[0].Tests {
		got[tc.Status]++
		if !strings.Contains(tc.Name, "@id:") {
			t.Errorf("test case %q does not carry its id", tc.Name)
		}
	}
	want := map[junit.Status]int{junit.StatusPassed: 1, junit.StatusFailed: 1, junit.StatusSkipped: 5}
	for st, n := range want {
		if got[st] != n {
			t.Errorf("%s: %d, want %d (all: %v)", st, got[st], n, got)
		}
	}
	if suites[0].Totals.Tests != len(statusOrder) {
		t.Errorf("%d tests, want %d", suites[0].Totals.Tests, len(statusOrder))
	}
}

func TestResultsAndHTMLReport(t *testing.T) {
	dir := t.TempDir()
	rep := sampleReport()
	tgt := &Target{GMS: "http://gms", Frontend: "http://fe"}
	if err := rep.writeJSON(filepath.Join(dir, "results.json"), tgt, levelMust, time.Second, nil); err != nil {
		t.Fatal(err)
	}
	var res resultsFile
	b, _ := os.ReadFile(filepath.Join(dir, "results.json"))
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Scenarios) != len(statusOrder) || res.Counts[StatusFailed] != 1 || res.Scenarios[1].ID == "" {
		t.Errorf("results.json: %+v", res)
	}
	if err := rep.writeHTML(filepath.Join(dir, "report.html"), tgt, levelMust, time.Second); err != nil {
		t.Fatal(err)
	}
	html, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	for _, want := range []string{"Not conformant", "Ann&#39;s token is refused", "curl -sS", "@id:x-02", "features/x.feature:11", "&lt;script&gt;"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if strings.Contains(string(html), "<script>") {
		t.Error("report.html does not escape what the target answered")
	}
	for _, name := range []string{"results.json", "report.html"} {
		if _, err := os.Stat(filepath.Join(dir, name+".partial")); err == nil {
			t.Errorf("%s.partial left behind", name)
		}
	}
}

func TestTagExpressions(t *testing.T) {
	catalog := []ScenarioInfo{{Tags: []string{"@must", "@smoke", "@cap:tokens"}}, {Tags: []string{"@should", "@core"}}}
	cases := []struct {
		expr string
		tags []string
		want bool
	}{
		{"", []string{"@must"}, true},
		{"@must", []string{"@must"}, true},
		{"@must", []string{"@should"}, false},
		{"~@must", []string{"@should"}, true},
		{"@must && @smoke", []string{"@must", "@core"}, false},
		{"@must && ~@smoke", []string{"@must", "@core"}, true},
		{"@smoke,@should", []string{"@should"}, true},
		{"@cap:tokens", []string{"@cap:tokens"}, true},
	}
	for _, c := range cases {
		if got := tagExpression(c.expr).matches(c.tags); got != c.want {
			t.Errorf("%q on %v: %v, want %v", c.expr, c.tags, got, c.want)
		}
	}
	if u := tagExpression("@smok && ~@shuld,@must").unknownTags(catalog); strings.Join(u, " ") != "@smok @shuld" {
		t.Errorf("unknown tags: %v", u)
	}
	if u := tagExpression("@cap:tokens && ~@core").unknownTags(catalog); len(u) != 0 {
		t.Errorf("unknown tags: %v", u)
	}
}

func TestSummaryFilterDropsGodogsCounts(t *testing.T) {
	var b strings.Builder
	f := &summaryFilter{w: &b}
	_, _ = f.Write([]byte("... 12\n\n\n3 scenarios (3 passed)\n12 steps (12 passed)\n1.5s\n\nRandomized with seed: 5\nnext\n"))
	if got := b.String(); got != "... 12\n\nnext\n" {
		t.Errorf("got %q", got)
	}
}

// TestVerdictReadsAsOne keeps the verdict one sentence that says whether
// the target conforms, at which level, and why.
func TestVerdictReadsAsOne(t *testing.T) {
	o := func(level, status string) *Outcome {
		return &Outcome{ScenarioInfo: ScenarioInfo{Level: level}, Status: status}
	}
	report := func(stale []string, os ...*Outcome) *runReport {
		rep := &runReport{counts: map[string]int{}, stale: stale, outcomes: os}
		for _, o := range os {
			rep.counts[o.Status]++
		}
		return rep
	}
	cases := []struct {
		rep    *runReport
		failOn string
		want   string
	}{
		{report(nil, o(levelMust, StatusPassed), o(levelShould, StatusPassed), o(levelMay, StatusWarning)), levelShould,
			"Conformant at @should: every selected must and should scenario passed"},
		{report(nil, o(levelMust, StatusPassed), o(levelShould, StatusWarning)), levelMust,
			"Conformant at @must: every selected must scenario passed"},
		{report(nil, o(levelMust, StatusPassed), o(levelMust, StatusSkipped), o(levelMust, StatusKnown)), levelMust,
			"Conformant at @must: no selected must scenario failed (1 passed, 1 known, 1 skipped)"},
		{report(nil, o(levelShould, StatusWarning)), levelMust,
			"Conformant at @must: no must scenario was selected"},
		{report(nil, o(levelMust, StatusPassed), o(levelShould, StatusFailed), o(levelMay, StatusFailed)), levelMay,
			"Not conformant at @may: 2 must, should or may scenarios failed"},
		{report([]string{"x-01"}, o(levelMust, StatusFailed)), levelShould,
			"Not conformant at @should: 1 must or should scenario failed; 1 baseline entry is stale (x-01)"},
	}
	for _, c := range cases {
		if got := c.rep.verdict(c.failOn); got != c.want {
			t.Errorf("verdict = %q\nwant      %q", got, c.want)
		}
	}
}
