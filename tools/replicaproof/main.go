// Command replicaproof shows that the replica scenarios judge what they
// claim whatever the load: it builds catalogd broken as a real replica might
// be (one that never applies a revocation made through another instance:
// its cache goes on trusting a token record another instance deleted), runs
// the whole suite against it several times, and requires replica-01 to fail
// in every run. Under load a careful cache stops trusting what it holds and
// reads through, and then the broken replica answers right: the suite runs
// the scenarios that compare instances alone (runner/schedule.go), so that
// what they check is what runs.
//
//	go run ./tools/replicaproof -runs 5        # make replica-proof
//
// It needs what `make conformance` needs (Go, PostgreSQL, Chromium for the
// @ui scenarios). The work tree is never touched: the fault is a build
// overlay.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/catalogspec/catalogspec/reference/catalogdtest"
)

// The fault: in the cache's apply, a notification of a change to an access
// token (its deletion, when another instance revokes it) is counted but not
// applied.
const (
	cacheFile = "reference/postgres/cache.go"
	site      = "\tcase seq == c.seen+1:\n\t\tc.invalidateLocked(entityType, urn)\n"
	broken    = "\tcase seq == c.seen+1:\n\t\tif entityType != reference.EntityAccessToken { // FAULT: others' revocations never applied\n\t\t\tc.invalidateLocked(entityType, urn)\n\t\t}\n"
	catching  = "replica-01"
)

func main() {
	runs := flag.Int("runs", 5, "whole-suite runs against the broken reference")
	tags := flag.String("tags", "", "CATALOGSPEC_TAGS for each run (default: the whole suite)")
	suite := flag.String("suite", "", "a built catalogspec to run (default: built from this tree), e.g. an older one to compare")
	flag.Parse()
	if err := run(*runs, *tags, *suite); err != nil {
		fmt.Fprintln(os.Stderr, "replicaproof:", err)
		os.Exit(1)
	}
}

func run(runs int, tags, given string) error {
	src, err := os.ReadFile(cacheFile)
	if err != nil {
		return fmt.Errorf("%v (run it from the module root)", err)
	}
	if n := strings.Count(string(src), site); n != 1 {
		return fmt.Errorf("%s holds the fault's site %d times, expected once: update this tool to where the cache applies a notification", cacheFile, n)
	}
	work, err := os.MkdirTemp("", "replicaproof-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	abs, err := filepath.Abs(cacheFile)
	if err != nil {
		return err
	}
	mutated := filepath.Join(work, "cache.go")
	if err := os.WriteFile(mutated, []byte(strings.Replace(string(src), site, broken, 1)), 0o644); err != nil {
		return err
	}
	overlay := filepath.Join(work, "overlay.json")
	b, _ := json.Marshal(map[string]map[string]string{"Replace": {abs: mutated}})
	if err := os.WriteFile(overlay, b, 0o644); err != nil {
		return err
	}
	catalogd, err := catalogdtest.Build(context.Background(), work, "-overlay", overlay)
	if err != nil {
		return err
	}
	suite := given
	if suite == "" {
		suite = filepath.Join(work, "catalogspec")
		if out, err := exec.Command("go", "build", "-o", suite, "./cmd/catalogspec").CombinedOutput(); err != nil {
			return fmt.Errorf("go build ./cmd/catalogspec: %v\n%s", err, out)
		}
	}
	fmt.Printf("replicaproof: catalogd broken so that a replica never applies a revocation made through another instance; %d whole-suite runs, each must fail %s\n", runs, catching)
	var missed []int
	for i := 1; i <= runs; i++ {
		reports := filepath.Join(work, fmt.Sprintf("reports-%d", i))
		cmd := exec.Command(suite, "run")
		cmd.Env = append(os.Environ(), "CATALOGSPEC_CATALOGD="+catalogd, "CATALOGSPEC_REPORTS_DIR="+reports, "CATALOGSPEC_TAGS="+tags, "NO_COLOR=1")
		began := time.Now()
		out, _ := cmd.CombinedOutput()
		failed, total, err := failedIDs(filepath.Join(reports, "results.json"))
		if err != nil {
			return fmt.Errorf("run %d: %v\n%s", i, err, catalogdtest.LastLines(string(out), 30))
		}
		caught := false
		for _, id := range failed {
			caught = caught || id == catching
		}
		load, _ := os.ReadFile("/proc/loadavg")
		fmt.Printf("run %d: %d scenarios in %s, failed: %s; caught: %t (load average %s)\n",
			i, total, time.Since(began).Round(100*time.Millisecond), strings.Join(failed, " "), caught, strings.Join(strings.Fields(string(load))[:3], " "))
		if !caught {
			missed = append(missed, i)
		}
	}
	if len(missed) > 0 {
		return fmt.Errorf("%s passed against the broken replica in run(s) %v of %d", catching, missed, runs)
	}
	fmt.Printf("replicaproof: caught in %d of %d runs\n", runs, runs)
	return nil
}

// failedIDs reads the ids of the failed scenarios from results.json.
func failedIDs(path string) ([]string, int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, errors.New("the run wrote no results.json")
	}
	var res struct {
		Scenarios []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, 0, err
	}
	var failed []string
	for _, s := range res.Scenarios {
		if s.Status == "failed" && (len(failed) == 0 || failed[len(failed)-1] != s.ID) {
			failed = append(failed, s.ID)
		}
	}
	return failed, len(res.Scenarios), nil
}
