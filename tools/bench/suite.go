package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/catalogspec/catalogspec/reference/catalogdtest"
)

// The suite's own time: how long a run takes against the reference as it
// is (immediate), and against the reference lagging as DataHub does with
// DataHub's defaults (policies refreshed every 120 s, lists 4 s behind), the
// must-level scenarios each; and the whole suite, browser included, against
// the immediate reference. Each run starts its own reference and database
// (the harness does), one after the other.

// suiteRun is one run of the suite to time.
type suiteRun struct {
	name string
	env  []string
	// bound says what bounds the run's time.
	bound string
}

// suiteResult is what a run's results.json says of it.
type suiteResult struct {
	Seconds float64        `json:"duration_seconds"`
	Counts  map[string]int `json:"counts"`
	Waits   *struct {
		Count          int64   `json:"count"`
		TotalSeconds   float64 `json:"total_seconds"`
		LongestSeconds float64 `json:"longest_seconds"`
		WindowSeconds  float64 `json:"window_seconds"`
	} `json:"waits"`
}

// timeSuite runs the suite as each of runs and returns a summary row for
// each; catalogd is the binary the harness starts.
func timeSuite(ctx context.Context, work, catalogd string, runs []suiteRun) ([]row, error) {
	suite := filepath.Join(work, "catalogspec")
	fmt.Println("building catalogspec ...")
	if out, err := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", suite, "./cmd/catalogspec").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build ./cmd/catalogspec: %v\n%s", err, out)
	}
	var rows []row
	for i, r := range runs {
		reports := filepath.Join(work, fmt.Sprintf("suite-%d", i))
		fmt.Printf("suite: %s ...\n", r.name)
		cmd := exec.CommandContext(ctx, suite, "run")
		cmd.Env = append(append(cleanSuiteEnv(), "CATALOGSPEC_CATALOGD="+catalogd, "CATALOGSPEC_REPORTS_DIR="+reports, "NO_COLOR=1"), r.env...)
		load := loadAverage()
		began := time.Now()
		out, err := cmd.CombinedOutput()
		wall := time.Since(began)
		var res suiteResult
		b, rerr := os.ReadFile(filepath.Join(reports, "results.json"))
		if rerr == nil {
			rerr = json.Unmarshal(b, &res)
		}
		if err != nil || rerr != nil {
			return rows, fmt.Errorf("%s: %v %v\n%s", r.name, err, rerr, catalogdtest.LastLines(string(out), 30))
		}
		passed, total := res.Counts["passed"], 0
		for _, n := range res.Counts {
			total += n
		}
		value := fmt.Sprintf("%d/%d passed in %s (%s with the harness's start), load average before %s", passed, total,
			time.Duration(res.Seconds*float64(time.Second)).Round(100*time.Millisecond), wall.Round(100*time.Millisecond), load)
		if w := res.Waits; w != nil && w.Count > 0 {
			value += fmt.Sprintf("; %d waits for a change to show, %s in all, the longest %s (each bounded by the window of %s)",
				w.Count, time.Duration(w.TotalSeconds*float64(time.Second)).Round(time.Second),
				time.Duration(w.LongestSeconds*float64(time.Second)).Round(100*time.Millisecond), time.Duration(w.WindowSeconds*float64(time.Second)))
		} else {
			value += "; no step waited"
		}
		if m := seedLine.FindStringSubmatch(string(out)); m != nil {
			value += "; seed " + m[1]
		}
		if m := orderLine.FindStringSubmatch(string(out)); m != nil {
			value += "; " + m[1]
		}
		fmt.Printf("      %s\n", value)
		rows = append(rows, row{r.name, value, r.bound})
	}
	return rows, nil
}

var (
	seedLine  = regexp.MustCompile(`, seed (\d+) `)
	orderLine = regexp.MustCompile(`catalogspec: in this order: (.+)`)
)

// cleanSuiteEnv is the environment without anything that would point the
// suite elsewhere or change how it runs.
func cleanSuiteEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CATALOGSPEC_") && !strings.HasPrefix(kv, "CATALOGD_") && !strings.HasPrefix(kv, "DATABASE_URL=") {
			env = append(env, kv)
		}
	}
	return env
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
