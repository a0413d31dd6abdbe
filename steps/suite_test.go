package steps

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cucumber/godog"
)

// How a run goes, besides the target (target.go):
//
//	| variable                 | meaning                                  | default               |
//	|--------------------------|------------------------------------------|-----------------------|
//	| CATALOGSPEC_TAGS         | godog tag expression selecting scenarios | all                   |
//	| CATALOGSPEC_CONCURRENCY  | scenarios run at once                    | 4                     |
//	| CATALOGSPEC_SEED         | seed of the random scenario order        | random, printed       |
//	| CATALOGSPEC_FORMAT       | what goes to stdout: pretty or progress  | pretty when run one at a time, else progress |
//	| CATALOGSPEC_REPORTS_DIR  | where junit.xml, cucumber.json and logs go | ../reports          |
//	| CATALOGSPEC_FAIL_FAST    | stop at the first failing scenario (1)   | off                   |
const (
	envTags        = "CATALOGSPEC_TAGS"
	envConcurrency = "CATALOGSPEC_CONCURRENCY"
	envSeed        = "CATALOGSPEC_SEED"
	envFormat      = "CATALOGSPEC_FORMAT"
	envReports     = "CATALOGSPEC_REPORTS_DIR"
	envFailFast    = "CATALOGSPEC_FAIL_FAST"
)

// runOptions are the settings of a run.
type runOptions struct {
	tags        string
	concurrency int
	seed        int64
	format      string
	reportsDir  string
	failFast    bool
}

func runOptionsFromEnv(getenv func(string) string) (runOptions, error) {
	o := runOptions{tags: getenv(envTags), concurrency: 4, reportsDir: "../reports"}
	if v := getenv(envConcurrency); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return o, fmt.Errorf("%s=%q: want a whole number of at least 1", envConcurrency, v)
		}
		o.concurrency = n
	}
	if v := getenv(envSeed); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n == 0 || n == -1 {
			return o, fmt.Errorf("%s=%q: want a whole number other than 0 and -1", envSeed, v)
		}
		o.seed = n
	} else {
		var b [8]byte
		_, _ = rand.Read(b[:])
		o.seed = int64(binary.BigEndian.Uint64(b[:])>>2) + 1 // positive, never 0
	}
	// godog's pretty output mixes up the example rows of concurrent
	// scenario outlines; progress stays readable.
	o.format = "progress"
	if o.concurrency == 1 {
		o.format = "pretty"
	}
	if v := getenv(envFormat); v != "" {
		if v != "pretty" && v != "progress" {
			return o, fmt.Errorf("%s=%q: want pretty or progress", envFormat, v)
		}
		o.format = v
	}
	if v := getenv(envReports); v != "" {
		o.reportsDir = v
	}
	switch v := getenv(envFailFast); v {
	case "", "0", "false":
	case "1", "true":
		o.failFast = true
	default:
		return o, fmt.Errorf("%s=%q: want 1 or 0", envFailFast, v)
	}
	dir, err := filepath.Abs(o.reportsDir)
	if err != nil {
		return o, err
	}
	o.reportsDir = dir
	return o, nil
}

// TestFeatures runs every feature against the target, as one test.
func TestFeatures(t *testing.T) {
	opts, err := runOptionsFromEnv(os.Getenv)
	if err != nil {
		t.Fatalf("catalogspec: %v", err)
	}
	if err := os.MkdirAll(opts.reportsDir, 0o755); err != nil {
		t.Fatalf("catalogspec: reports directory: %v", err)
	}
	docs, err := loadDocuments("../fixtures/graphql")
	if err != nil {
		t.Fatalf("catalogspec: %v", err)
	}

	ctx := context.Background()
	tgt, err := newTarget(ctx, os.Getenv, opts.reportsDir)
	if err != nil {
		t.Fatalf("catalogspec: no target: %v", err)
	}
	t.Cleanup(func() {
		stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		if err := tgt.close(stopCtx); err != nil {
			t.Errorf("catalogspec: stopping the reference: %v", err)
		}
	})

	s := &suite{target: tgt, docs: docs}
	fmt.Printf("catalogspec: target %s\n", tgt.describe())
	fmt.Printf("catalogspec: seed %d (set %s=%d to run in the same order), concurrency %d, tags %q\n",
		opts.seed, envSeed, opts.seed, opts.concurrency, opts.tags)

	status := godog.TestSuite{
		Name:                "catalogspec",
		ScenarioInitializer: s.initScenario,
		Options: &godog.Options{
			Format: strings.Join([]string{
				opts.format,
				"junit:" + filepath.Join(opts.reportsDir, "junit.xml"),
				"cucumber:" + filepath.Join(opts.reportsDir, "cucumber.json"),
			}, ","),
			Paths:         []string{"../features"},
			Tags:          opts.tags,
			Strict:        true,
			Concurrency:   opts.concurrency,
			Randomize:     opts.seed,
			StopOnFailure: opts.failFast,
			Output:        os.Stdout,
			NoColors:      os.Getenv("NO_COLOR") != "",
		},
	}.Run()

	if n := s.skipped.Load(); n > 0 {
		// godog counts a scenario whose steps were all skipped among the
		// passed ones in its summary; this line says what really happened,
		// and the JUnit report is corrected to list them as skipped.
		var reasons []string
		s.skipReasons.Range(func(k, _ any) bool { reasons = append(reasons, k.(string)); return true })
		slices.Sort(reasons)
		reason := "the target lacks a capability: " + strings.Join(reasons, "; ")
		fmt.Printf("catalogspec: %d scenario(s) were SKIPPED, not passed: %s\n", n, reason)
		if err := markSkippedScenarios(filepath.Join(opts.reportsDir, "junit.xml"), reason); err != nil {
			t.Errorf("catalogspec: marking skipped scenarios in junit.xml: %v", err)
		}
	}
	fmt.Printf("catalogspec: reports in %s\n", opts.reportsDir)
	if status != 0 {
		t.Fatalf("catalogspec: the features failed (godog status %d); see %s", status, filepath.Join(opts.reportsDir, "junit.xml"))
	}
}
