package runner

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/catalogspec/catalogspec"
	"github.com/cucumber/godog"
)

// How a run goes, besides the target (target.go). The same variables
// configure `make conformance`, `go test ./steps` and `catalogspec run`.
//
//	| variable                 | meaning                                  | default               |
//	|--------------------------|------------------------------------------|-----------------------|
//	| CATALOGSPEC_TAGS         | godog tag expression selecting scenarios | all                   |
//	| CATALOGSPEC_DISABLE      | capabilities switched off, comma-separated | none                |
//	| CATALOGSPEC_FAIL_ON      | lowest level whose failure fails the run: must, should or may | must; should for the reference |
//	| CATALOGSPEC_BASELINE     | file of scenarios known to fail on the target | none               |
//	| CATALOGSPEC_CONCURRENCY  | scenarios run at once                    | 4                     |
//	| CATALOGSPEC_SEED         | seed of the random scenario order        | random, printed       |
//	| CATALOGSPEC_FORMAT       | what goes to stdout: pretty or progress  | pretty when run one at a time, else progress |
//	| CATALOGSPEC_REPORTS_DIR  | where the reports and logs go            | reports               |
//	| CATALOGSPEC_FAIL_FAST    | stop at the first failing scenario (1)   | off                   |
const (
	envTags        = "CATALOGSPEC_TAGS"
	EnvDisable     = "CATALOGSPEC_DISABLE"
	envFailOn      = "CATALOGSPEC_FAIL_ON"
	envBaseline    = "CATALOGSPEC_BASELINE"
	envConcurrency = "CATALOGSPEC_CONCURRENCY"
	envSeed        = "CATALOGSPEC_SEED"
	envFormat      = "CATALOGSPEC_FORMAT"
	EnvReports     = "CATALOGSPEC_REPORTS_DIR"
	EnvFailFast    = "CATALOGSPEC_FAIL_FAST"
)

// Exit codes of a run.
const (
	ExitConformant = 0 // no failure at or above the fail-on level, beyond the baseline
	ExitFailed     = 1 // at least one such failure, or a stale baseline entry
	ExitConfig     = 2 // the harness or its configuration is wrong: nothing was judged
)

// Config is one run's settings. Getenv also supplies the target's
// variables (target.go).
type Config struct {
	Tags        string
	Disabled    []string
	FailOn      string // "" picks must, or should for the reference
	Baseline    string
	Concurrency int
	Seed        int64
	Format      string
	ReportsDir  string
	FailFast    bool

	// Only, when set, narrows the selection to the scenarios whose names
	// it accepts (go test -run 'TestFeatures/<pattern>').
	Only func(name string) bool

	Getenv   func(string) string
	Stdout   io.Writer
	Color    bool
	TestingT *testing.T // when set, each scenario is a subtest of it
}

// ConfigFromEnv reads a run's settings from the environment.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := Config{
		Tags:        strings.TrimSpace(getenv(envTags)),
		Concurrency: 4,
		ReportsDir:  "reports",
		Baseline:    strings.TrimSpace(getenv(envBaseline)),
		Getenv:      getenv,
		Stdout:      os.Stdout,
	}
	for _, d := range strings.Split(getenv(EnvDisable), ",") {
		if d = strings.TrimPrefix(strings.TrimSpace(d), "@cap:"); d != "" {
			if !slices.Contains(knownCapabilities, d) {
				return c, fmt.Errorf("%s names %q, which is not a capability; the capabilities are %s", EnvDisable, d, strings.Join(knownCapabilities, ", "))
			}
			c.Disabled = append(c.Disabled, d)
		}
	}
	switch v := strings.TrimPrefix(strings.ToLower(strings.TrimSpace(getenv(envFailOn))), "@"); v {
	case "", levelMust, levelShould, levelMay:
		c.FailOn = v
	default:
		return c, fmt.Errorf("%s=%q: want must, should or may", envFailOn, v)
	}
	if v := getenv(envConcurrency); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return c, fmt.Errorf("%s=%q: want a whole number of at least 1", envConcurrency, v)
		}
		c.Concurrency = n
	}
	if v := getenv(envSeed); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n == 0 || n == -1 {
			return c, fmt.Errorf("%s=%q: want a whole number other than 0 and -1", envSeed, v)
		}
		c.Seed = n
	} else {
		var b [8]byte
		_, _ = rand.Read(b[:])
		c.Seed = int64(binary.BigEndian.Uint64(b[:])>>2) + 1 // positive, never 0
	}
	// godog's pretty output mixes up the example rows of concurrent
	// scenario outlines; progress stays readable.
	c.Format = "progress"
	if c.Concurrency == 1 {
		c.Format = "pretty"
	}
	if v := getenv(envFormat); v != "" {
		if v != "pretty" && v != "progress" {
			return c, fmt.Errorf("%s=%q: want pretty or progress", envFormat, v)
		}
		c.Format = v
	}
	if v := getenv(EnvReports); v != "" {
		c.ReportsDir = v
	}
	switch v := getenv(EnvFailFast); v {
	case "", "0", "false":
	case "1", "true":
		c.FailFast = true
	default:
		return c, fmt.Errorf("%s=%q: want 1 or 0", EnvFailFast, v)
	}
	c.Color = getenv("NO_COLOR") == "" && isTerminal(os.Stdout)
	return c, nil
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Steps is what a run needs of the step definitions: package steps
// provides them (steps.New), and imports the runner, never the other way.
type Steps interface {
	// Load reads what the steps send (the GraphQL documents).
	Load() error
	// Preflight checks the target before any scenario runs, so that a
	// wrong URL or token ends the run in seconds with one message, and
	// notes what the target serves (its Pages).
	Preflight(ctx context.Context, t *Target) error
	// ThrowsSwitch says whether a step changes what every user may do:
	// its scenario runs in the exclusive window (schedule.go).
	ThrowsSwitch(step string) bool
	// Scenarios returns the initializer that wires the hooks and steps
	// into each scenario of the run.
	Scenarios(s *Suite) func(*godog.ScenarioContext)
}

// Run checks the target against the features with the step definitions
// defs and writes the reports; it returns the exit code.
func Run(ctx context.Context, cfg Config, defs Steps) int {
	out := cfg.Stdout
	if out == nil {
		out = os.Stdout
	}
	if cfg.Getenv == nil {
		cfg.Getenv = os.Getenv
	}
	stop := func(format string, args ...any) int {
		fmt.Fprintf(out, "catalogspec: "+format+"\n", args...)
		return ExitConfig
	}

	catalog, err := readCatalog(catalogspec.Features(), "features")
	if err != nil {
		return stop("reading the features: %v", err)
	}
	if problems := checkCatalog(catalog); len(problems) > 0 {
		return stop("the features are not well formed:\n  %s", strings.Join(problems, "\n  "))
	}
	expr := tagExpression(cfg.Tags)
	if unknown := expr.unknownTags(catalog); len(unknown) > 0 {
		return stop("%s=%q names %s, which no scenario carries; the tags in use are %s",
			envTags, cfg.Tags, strings.Join(unknown, ", "), strings.Join(tagsInUse(catalog), " "))
	}
	var selected []ScenarioInfo
	for _, s := range catalog {
		if expr.matches(s.Tags) && (cfg.Only == nil || cfg.Only(s.Name)) {
			selected = append(selected, s)
		}
	}
	if len(selected) == 0 {
		if cfg.Only != nil {
			return stop("no scenario matches both %s=%q and go test's -run pattern: nothing would be checked", envTags, cfg.Tags)
		}
		return stop("%s=%q selects no scenario: nothing would be checked", envTags, cfg.Tags)
	}
	var base *Baseline
	if cfg.Baseline != "" {
		if base, err = readBaseline(cfg.Baseline, catalog); err != nil {
			return stop("%s: %v", envBaseline, err)
		}
	}
	if err := defs.Load(); err != nil {
		return stop("%v", err)
	}
	reportsDir, err := filepath.Abs(cfg.ReportsDir)
	if err == nil {
		err = os.MkdirAll(reportsDir, 0o755)
	}
	if err != nil {
		return stop("reports directory %s: %v", cfg.ReportsDir, err)
	}
	// Reports of an earlier run must not pass for this one's.
	for _, name := range reportFiles {
		_ = os.Remove(filepath.Join(reportsDir, name))
	}
	_ = os.RemoveAll(filepath.Join(reportsDir, "screenshots"))

	// A first Ctrl-C stops starting scenarios and lets the running ones
	// finish, so that the reports are written whole; a second one kills.
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	var interrupted atomic.Bool
	go func() {
		select {
		case <-signals:
			interrupted.Store(true)
			fmt.Fprintln(out, "\ncatalogspec: interrupted: finishing the running scenarios and writing the reports (interrupt again to stop at once)")
			signal.Stop(signals) // a second signal kills as usual
			cancel()
		case <-runCtx.Done():
			signal.Stop(signals)
		}
	}()

	tgt, err := newTarget(runCtx, cfg.Getenv, reportsDir)
	if err != nil {
		return stop("no target: %v", err)
	}
	defer func() {
		stopCtx, cancelStop := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancelStop()
		if err := tgt.close(stopCtx); err != nil {
			fmt.Fprintf(out, "catalogspec: stopping the reference: %v\n", err)
		}
	}()
	failOn := cfg.FailOn
	if failOn == "" {
		failOn = levelMust
		if tgt.Reference {
			failOn = levelShould // the reference follows every recommendation
		}
	}
	fmt.Fprintf(out, "catalogspec %s (spec %s): target %s\n", Version, catalogspec.SpecVersion, tgt.describe())
	if err := defs.Preflight(runCtx, tgt); err != nil {
		return stop("preflight: %v", err)
	}
	var b *Browser
	if needsBrowser(selected, cfg.Disabled, tgt) {
		path, err := findBrowser(cfg.Getenv)
		if err != nil {
			return stop("the @ui scenarios drive a browser, and there is none: %v; or leave them out with %s='~@ui' or %s=ui", err, envTags, EnvDisable)
		}
		b = &Browser{path: path}
	}
	fmt.Fprintf(out, "catalogspec: %d of %d scenarios selected (%s=%q), failing on %s and above, seed %d (set %s=%d to repeat the order), concurrency %d\n",
		len(selected), len(catalog), envTags, cfg.Tags, failOn, cfg.Seed, envSeed, cfg.Seed, cfg.Concurrency)
	if b != nil {
		fmt.Fprintf(out, "catalogspec: the @ui scenarios drive %s (headless)\n", b.path)
	}

	sched := newScheduler(selected, cfg.Concurrency, cfg.Seed, defs.ThrowsSwitch)
	fmt.Fprintf(out, "catalogspec: in this order: %s\n", sched.describe())
	s := &Suite{
		Target:     tgt,
		Ctx:        runCtx,
		FailOn:     failOn,
		Disabled:   cfg.Disabled,
		Base:       base,
		Results:    newResults(catalog),
		ReportsDir: reportsDir,
		Sched:      sched,
		FailFast:   cfg.FailFast,
	}
	s.Browser = b
	if b != nil {
		defer b.close()
		// Started beside the first scenarios (it takes seconds), once
		// those that must run on a quiet machine are done.
		go func() {
			select {
			case <-sched.quiet:
				_ = b.start()
			case <-runCtx.Done():
			}
		}()
	}
	cucumberPartial := filepath.Join(reportsDir, "cucumber.json.partial")
	cucumberFile, err := os.Create(cucumberPartial)
	if err != nil {
		return stop("reports: %v", err)
	}
	defer cucumberFile.Close()
	cucumberOut.Store(&writerBox{cucumberFile})
	// godog's cucumber formatter panics at the end of a run stopped at the
	// first failure (it looks for the results of scenarios never started),
	// so a fail-fast run writes no cucumber.json.
	format := cfg.Format + "," + cucumberFormat
	if cfg.FailFast {
		format = cfg.Format
	}
	started := time.Now()
	s.Began = started
	status := godog.TestSuite{
		Name:                "catalogspec",
		ScenarioInitializer: defs.Scenarios(s),
		Options: &godog.Options{
			Format: format,
			FS:     catalogspec.Features(),
			Paths:  []string{"."},
			Tags:   cfg.Tags,
			Strict: true,
			// Every scenario is started at once and waits for the
			// scheduler's leave: it runs cfg.Concurrency at a time.
			Concurrency:   len(selected),
			Randomize:     cfg.Seed,
			StopOnFailure: cfg.FailFast,
			Output:        &summaryFilter{w: out},
			NoColors:      !cfg.Color,
			TestingT:      cfg.TestingT,
		},
	}.Run()
	elapsed := time.Since(started)
	if status == 2 {
		return stop("godog could not run the features (see above)")
	}
	if err := cucumberFile.Close(); err != nil {
		return stop("reports: %v", err)
	}

	res := s.Results.finish(selected, interrupted.Load(), cfg.FailFast)
	code := ExitConformant
	if res.judge(base) {
		code = ExitFailed
	}
	var werrs []error
	written := "report.html, results.json, junit.xml, cucumber.json"
	if cfg.FailFast {
		written = "report.html, results.json, junit.xml; no cucumber.json when stopping at the first failure"
		werrs = append(werrs, os.Remove(cucumberPartial))
	} else {
		werrs = append(werrs, os.Rename(cucumberPartial, filepath.Join(reportsDir, "cucumber.json")))
	}
	werrs = append(werrs, res.writeJSON(filepath.Join(reportsDir, "results.json"), tgt, failOn, elapsed, &s.Waits))
	werrs = append(werrs, res.writeJUnit(filepath.Join(reportsDir, "junit.xml"), elapsed))
	werrs = append(werrs, res.writeHTML(filepath.Join(reportsDir, "report.html"), tgt, failOn, elapsed))
	res.printSummary(out, failOn, elapsed, cfg.Color)
	fmt.Fprintf(out, "catalogspec: %s\n", s.Waits.summary())
	if err := errors.Join(werrs...); err != nil {
		fmt.Fprintf(out, "catalogspec: writing the reports: %v\n", err)
		return ExitConfig
	}
	fmt.Fprintf(out, "catalogspec: reports in %s (%s)\n", reportsDir, written)
	if interrupted.Load() {
		return ExitConfig // not everything was judged
	}
	return code
}

// needsBrowser says whether a run will drive a browser: it selected @ui
// scenarios, has not switched them off, and the target serves the pages.
func needsBrowser(selected []ScenarioInfo, disabled []string, t *Target) bool {
	if slices.Contains(disabled, "ui") || !t.Pages {
		return false
	}
	for _, s := range selected {
		if slices.Contains(s.Capabilities, "ui") {
			return true
		}
	}
	return false
}

// reportFiles are the files a run writes into the reports directory.
var reportFiles = []string{"junit.xml", "cucumber.json", "results.json", "report.html"}

// Version is the suite's version; the binary's build may set it.
var Version = "dev"

// cucumberFormat is godog's cucumber formatter writing to the run's
// cucumber.json.partial: godog's own "cucumber:<path>" cannot name a path
// with a comma in it, and would leave an empty file behind on a crash.
const cucumberFormat = "catalogspec-cucumber"

type writerBox struct{ io.Writer }

var cucumberOut atomic.Pointer[writerBox]

func init() {
	cucumber := godog.FindFmt("cucumber")
	godog.Format(cucumberFormat, "godog's cucumber JSON, written where the run says", func(suite string, _ io.Writer) godog.Formatter {
		return cucumber(suite, cucumberOut.Load())
	})
}
