package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/cucumber/godog"
	junit "github.com/joshdk/go-junit"
)

// cutShort is a run of five selected scenarios of which two passed before
// it ended, and three never started.
func cutShort(how runEnd, failed bool) *runReport {
	r := newResults(nil)
	var selected []ScenarioInfo
	for i, name := range []string{"a", "b", "c", "d", "e"} {
		info := ScenarioInfo{ID: "x-0" + string(rune('1'+i)), Name: name, Feature: "features/x.feature", Line: 3 + i, Level: levelMust, Capabilities: []string{"tokens"}, Tags: []string{"@must"}}
		selected = append(selected, info)
		switch {
		case i < 2:
			r.Record(&Outcome{ScenarioInfo: info, Status: StatusPassed})
		case i == 2 && failed:
			r.Record(&Outcome{ScenarioInfo: info, Status: StatusFailed, Step: "it fails", Message: "it failed"})
		}
	}
	return r.finish(selected, how)
}

// TestACutShortRunNeverReadsAsConformant: a run stopped by a signal, or at
// the first failure, says so in its verdict, and never that the target
// conforms; its exit status stays what it was (judged by Run).
func TestACutShortRunNeverReadsAsConformant(t *testing.T) {
	cases := []struct {
		name    string
		rep     *runReport
		want    []string
		notWant []string
	}{
		{"interrupted by SIGINT, nothing failed", cutShort(runEnd{Signal: "SIGINT"}, false),
			[]string{"Interrupted by SIGINT", "not judged", "3 of 5 selected scenarios did not run"}, []string{"Conformant", "conformant at"}},
		{"interrupted by SIGTERM after a failure", cutShort(runEnd{Signal: "SIGTERM"}, true),
			[]string{"Interrupted by SIGTERM", "not conformant at @must: 1 must scenario failed", "2 of 5 selected scenarios did not run"}, []string{"Conformant"}},
		{"stopped at the first failure", cutShort(runEnd{FailFast: true}, true),
			[]string{"Stopped at the first failure", EnvFailFast, "not conformant at @must", "2 of 5 selected scenarios did not run"}, []string{"Conformant"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := c.rep.verdict(levelMust)
			for _, w := range c.want {
				if !strings.Contains(v, w) {
					t.Errorf("verdict %q does not say %q", v, w)
				}
			}
			for _, w := range c.notWant {
				if strings.Contains(v, w) {
					t.Errorf("verdict %q says %q", v, w)
				}
			}
			if c.rep.conformant() {
				t.Errorf("a run cut short counts as conformant")
			}
			var out bytes.Buffer
			c.rep.printSummary(&out, levelMust, time.Second, false)
			if last := lastLine(out.String()); last != "catalogspec: "+v {
				t.Errorf("the summary ends %q, want the verdict", last)
			}
		})
	}
	// A run that ran to the end is judged as before.
	if v := cutShort(runEnd{}, false).verdict(levelMust); !strings.HasPrefix(v, "Conformant at @must") {
		t.Errorf("a run that was not cut short: %q", v)
	}
}

// TestEveryReportSaysTheRunWasInterrupted: results.json, junit.xml and
// report.html of an interrupted run each say so, and none reads as a pass.
func TestEveryReportSaysTheRunWasInterrupted(t *testing.T) {
	dir := t.TempDir()
	rep := cutShort(runEnd{Signal: "SIGINT"}, false)
	tgt := &Target{GMS: "http://gms", Frontend: "http://fe"}

	if err := rep.writeJSON(filepath.Join(dir, "results.json"), tgt, levelMust, time.Second, nil); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Outcome     string `json:"outcome"`
		Verdict     string `json:"verdict"`
		Interrupted string `json:"interrupted_by"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "results.json"))
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if res.Outcome != "interrupted" || res.Interrupted != "SIGINT" || !strings.HasPrefix(res.Verdict, "Interrupted by SIGINT") {
		t.Errorf("results.json says outcome %q, interrupted_by %q, verdict %q", res.Outcome, res.Interrupted, res.Verdict)
	}

	path := filepath.Join(dir, "junit.xml")
	if err := rep.writeJUnit(path, levelMust, time.Second); err != nil {
		t.Fatal(err)
	}
	suites, err := junit.IngestFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var errored []string
	for _, s := range suites {
		for _, tc := range s.Tests {
			if tc.Status == junit.StatusError || tc.Status == junit.StatusFailed {
				errored = append(errored, tc.Name+": "+tc.Message)
			}
		}
	}
	if len(errored) != 1 || !strings.Contains(errored[0], "interrupted by SIGINT") {
		t.Errorf("junit.xml: want one error saying the run was interrupted by SIGINT, got %q", errored)
	}

	if err := rep.writeHTML(filepath.Join(dir, "report.html"), tgt, levelMust, time.Second); err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	for _, want := range []string{"<title>catalogspec report: interrupted</title>", "Interrupted by SIGINT", `class="verdict interrupted"`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if strings.Contains(string(page), `class="verdict ok"`) {
		t.Error("report.html shows an interrupted run's verdict as a pass")
	}
}

// TestTheConsoleShowsNoSkippedStep runs godog with the console format of a
// run over scenarios that pass, fail and are skipped (before their first
// step, as a run does with those it does not start): each step that ran
// is one character, a skipped one none.
func TestTheConsoleShowsNoSkippedStep(t *testing.T) {
	features := fstest.MapFS{"x.feature": {Data: []byte(`Feature: x
  Scenario: passes
    Given it passes
    Then it passes
  Scenario: fails
    Given it passes
    When it fails
    Then it passes
  @skip
  Scenario: skipped
    Given it passes
    Then it passes
  @skip
  Scenario: skipped too
    Given it passes
    Then it passes
`)}}
	var out bytes.Buffer
	godog.TestSuite{
		Name: "x",
		ScenarioInitializer: func(sc *godog.ScenarioContext) {
			sc.Before(func(ctx context.Context, s *godog.Scenario) (context.Context, error) {
				for _, tag := range s.Tags {
					if tag.Name == "@skip" {
						return ctx, godog.ErrSkip
					}
				}
				return ctx, nil
			})
			sc.Step(`^it passes$`, func() error { return nil })
			sc.Step(`^it fails$`, func() error { return errors.New("it failed") })
		},
		Options: &godog.Options{Format: consoleFormat("progress"), FS: features, Paths: []string{"."}, Output: &out, NoColors: true, Concurrency: 1},
	}.Run()
	got := out.String()
	progress, _, _ := strings.Cut(got, "\n\n")
	if strings.Contains(progress, "-") {
		t.Errorf("the console shows skipped steps:\n%s", got)
	}
	if first := strings.SplitN(got, "\n", 2)[0]; first != "...F 4" {
		t.Errorf("the first line is %q, want one character per step that ran: \"...F 4\"\n%s", first, got)
	}
	if !strings.Contains(got, "it failed") {
		t.Errorf("the console does not show the failure:\n%s", got)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}
