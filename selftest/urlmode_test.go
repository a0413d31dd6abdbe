package selftest

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/catalogspec/catalogspec/internal/syncbuf"
	"github.com/catalogspec/catalogspec/reference/catalogdtest"
)

// TestURLMode checks the suite as a third party uses it: the catalogspec
// binary, pointed by URL at a `catalogd serve` started here with an admin
// token minted by `catalogd token create`. A correct target passes; each
// configuration mistake a user makes ends the run with exit code 2 and one
// line that says what to fix, before any scenario runs.
func TestURLMode(t *testing.T) {
	if testing.Short() {
		t.Skip("starts catalogd and runs the whole suite")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	catalogspec := filepath.Join(work, "catalogspec")
	goBuild(t, root, "build", "-o", catalogspec, "./cmd/catalogspec")
	ctx := t.Context()
	gmsURL, frontendURL, admin := startReference(t, work)
	gms, frontend := gmsURL.String(), frontendURL.String()

	run := func(t *testing.T, env ...string) (int, string, string) {
		t.Helper()
		reports := filepath.Join(t.TempDir(), "reports")
		cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(cctx, catalogspec, "run")
		cmd.Env = append(cleanEnv(), append([]string{"CATALOGSPEC_REPORTS_DIR=" + reports, "NO_COLOR=1",
			"CATALOGSPEC_PROPAGATION_TIMEOUT=5s"}, env...)...)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("running catalogspec: %v", err)
		}
		text := mask(string(out), admin)
		if strings.Contains(string(out), admin) {
			t.Errorf("the admin token appears in the output")
		}
		return code, text, reports
	}
	target := func(g, f, tok string) []string {
		return []string{"CATALOGSPEC_GMS_URL=" + g, "CATALOGSPEC_FRONTEND_URL=" + f, "CATALOGSPEC_ADMIN_TOKEN=" + tok}
	}

	t.Run("a correct server passes, recommendations included", func(t *testing.T) {
		// The browser pages run through the selftest's proxy, also by URL;
		// here they are switched off, as a vendor may, and say so.
		code, out, reports := run(t, append(target(gms, frontend, admin), "CATALOGSPEC_FAIL_ON=should", "CATALOGSPEC_DISABLE=ui")...)
		if code != 0 {
			t.Fatalf("exit %d, want 0:\n%s", code, catalogdtest.LastLines(out, 60))
		}
		var res struct {
			Counts    map[string]int `json:"counts"`
			Scenarios []struct {
				Status string `json:"status"`
				Reason string `json:"reason"`
			} `json:"scenarios"`
		}
		b, err := os.ReadFile(filepath.Join(reports, "results.json"))
		if err == nil {
			err = json.Unmarshal(b, &res)
		}
		if err != nil {
			t.Fatalf("results.json: %v", err)
		}
		if res.Counts["passed"] < 100 || res.Counts["failed"] != 0 || res.Counts["warning"] != 0 {
			t.Errorf("counts %v: want 100 or more passed and nothing failed", res.Counts)
		}
		// No auth-disabled or later-clock instance was given: those
		// scenarios are skipped, and say why.
		if res.Counts["disabled"] < 20 {
			t.Errorf("counts %v: the @ui scenarios were not reported as disabled", res.Counts)
		}
		if res.Counts["skipped"] == 0 {
			t.Errorf("counts %v: the scenarios needing an auth-disabled or later-clock instance were not skipped", res.Counts)
		}
		for _, s := range res.Scenarios {
			if s.Status == "skipped" && !strings.Contains(s.Reason, "CATALOGSPEC_") {
				t.Errorf("a skipped scenario does not say which variable would run it: %q", s.Reason)
			}
		}
		for _, want := range []string{"passed", "skipped", "reports in"} {
			if !strings.Contains(out, want) {
				t.Errorf("the output does not say %q:\n%s", want, catalogdtest.LastLines(out, 20))
			}
		}
		for _, name := range []string{"report.html", "junit.xml", "cucumber.json", "results.json"} {
			if fi, err := os.Stat(filepath.Join(reports, name)); err != nil || fi.Size() == 0 {
				t.Errorf("%s not written: %v", name, err)
			}
		}
	})

	t.Run("an interrupted run says so, and lists no skipped step", func(t *testing.T) {
		code, out, reports := interrupt(t, catalogspec, append(cleanEnv(), append(target(gms, frontend, admin),
			"NO_COLOR=1", "CATALOGSPEC_PROPAGATION_TIMEOUT=5s", "CATALOGSPEC_DISABLE=ui")...))
		if code != 2 {
			t.Errorf("exit %d, want 2: an interrupted run is not judged", code)
		}
		checkInterrupted(t, out, reports)
	})

	// Each mistake: exit 2, one line naming what to fix, no scenario run.
	mistakes := []struct {
		name string
		env  []string
		want string
	}{
		{"nothing listens at the URLs", target("http://127.0.0.1:1", "http://127.0.0.1:2", admin), "CATALOGSPEC_GMS_URL=http://127.0.0.1:1 does not answer"},
		{"the admin token is not valid", target(gms, frontend, "not-a-token"), "CATALOGSPEC_ADMIN_TOKEN is refused"},
		{"the two URLs are swapped", target(frontend, gms, admin), "is it the frontend's URL?"},
		{"the frontend URL ends in /api/", target(gms, frontend+"/api/", admin), "CATALOGSPEC_FRONTEND_URL"},
		{"the tag expression has a typo", append(target(gms, frontend, admin), "CATALOGSPEC_TAGS=@smok"), `names @smok, which no scenario carries`},
		{"the tag expression selects nothing", append(target(gms, frontend, admin), "CATALOGSPEC_TAGS=@smoke && @should"), "selects no scenario"},
		{"a capability is misspelt", append(target(gms, frontend, admin), "CATALOGSPEC_DISABLE=policy"), "is not a capability"},
		{"no browser for the @ui scenarios", append(target(gms, frontend, admin), "CATALOGSPEC_TAGS=@ui", "CATALOGSPEC_BROWSER=/no/such/chromium"), "the @ui scenarios drive a browser, and there is none"},
	}
	for _, m := range mistakes {
		t.Run(m.name, func(t *testing.T) {
			began := time.Now()
			code, out, reports := run(t, m.env...)
			if code != 2 {
				t.Fatalf("exit %d, want 2:\n%s", code, catalogdtest.LastLines(out, 30))
			}
			var errorLines []string
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				if strings.HasPrefix(line, "catalogspec: ") {
					errorLines = append(errorLines, line)
				}
			}
			if len(errorLines) != 1 || !strings.Contains(errorLines[0], m.want) {
				t.Errorf("want one line saying %q, got:\n%s", m.want, out)
			}
			if took := time.Since(began); took > 20*time.Second {
				t.Errorf("took %s to say so", took)
			}
			if _, err := os.Stat(filepath.Join(reports, "results.json")); err == nil {
				t.Errorf("results.json was written, but nothing was judged")
			}
			t.Logf("exit 2: %s", errorLines)
		})
	}
}

// interrupt runs `catalogspec run` with env, sends it SIGINT once the
// first line of its progress is out (a few seconds in, with most of the
// suite still to run), and returns its exit code, its output and its
// reports directory.
func interrupt(t *testing.T, catalogspec string, env []string) (int, string, string) {
	t.Helper()
	reports := filepath.Join(t.TempDir(), "reports")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, catalogspec, "run")
	cmd.Env = append(env, "CATALOGSPEC_REPORTS_DIR="+reports)
	var out syncbuf.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(90 * time.Second); !strings.Contains(out.String(), " 70\n"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("no line of progress after 90 s:\n%s", out.String())
		}
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running catalogspec: %v", err)
	}
	return code, out.String(), reports
}

// progressOfSkippedSteps is a line of godog's progress that shows skipped
// steps, one dash each ("..--F--- 70"); a line that only holds a flag
// ("--expired-token-file") is none.
var progressOfSkippedSteps = regexp.MustCompile(`^[-.FUPA]*--[-.FUPA]*( +\d+)?$`)

// checkInterrupted checks what an interrupted run shows: its verdict line
// and every report say it was interrupted, nothing reads as conformant,
// and the console has no line of skipped steps.
func checkInterrupted(t *testing.T, out, reports string) {
	t.Helper()
	var verdict string
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "onformant") && strings.HasPrefix(line, "catalogspec: ") {
			verdict = line
		}
		if progressOfSkippedSteps.MatchString(line) {
			t.Errorf("the console shows skipped steps: %q", line)
		}
	}
	if !strings.Contains(out, "catalogspec: Interrupted by SIGINT: not judged") {
		t.Errorf("no verdict says the run was interrupted:\n%s", catalogdtest.LastLines(out, 20))
	}
	if verdict != "" {
		t.Errorf("the console says %q", verdict)
	}
	b, err := os.ReadFile(filepath.Join(reports, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Outcome, Verdict string
		Counts           map[string]int
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if res.Outcome != "interrupted" || !strings.HasPrefix(res.Verdict, "Interrupted by SIGINT") || res.Counts["not run"] == 0 {
		t.Errorf("results.json: outcome %q, verdict %q, counts %v", res.Outcome, res.Verdict, res.Counts)
	}
	junitXML, _ := os.ReadFile(filepath.Join(reports, "junit.xml"))
	if !strings.Contains(string(junitXML), `<error message="the run was interrupted by SIGINT`) {
		t.Errorf("junit.xml has no error saying the run was interrupted")
	}
	page, _ := os.ReadFile(filepath.Join(reports, "report.html"))
	if !strings.Contains(string(page), "<title>catalogspec report: interrupted</title>") || !strings.Contains(string(page), "Interrupted by SIGINT") {
		t.Errorf("report.html does not say the run was interrupted")
	}
}
