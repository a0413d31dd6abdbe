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
//	| CATALOGSPEC_CONCURRENCY  | scenarios run at once, and half as many @ui ones beside them | 4          |
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
	// Hold says how the run takes the target (hold.go): the lease of its
	// lock and how long it waits for another run.
	Hold HoldOptions
	// ReadOnly makes the run a read-only audit (catalogspec audit): it
	// runs only the scenarios tagged @read-only, which write nothing to
	// the target, with at most a user's token (CATALOGSPEC_TOKEN) and no
	// administrator's; the others it selects are reported as skipped. It
	// takes no lock on the target and writes no journal there.
	ReadOnly bool

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
	var err error
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
	if c.Hold, err = holdOptions(getenv); err != nil {
		return c, err
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
	// Hold takes the target for the run, after the preflight (hold.go):
	// it waits for or refuses another run that holds it, and first puts
	// back what runs that died there left.
	Hold(ctx context.Context, t *Target, o HoldOptions) (Hold, error)
	// Cleanup does on demand what Hold does first: it puts back what runs
	// that died left on the target, and lets the target go.
	Cleanup(ctx context.Context, t *Target, o HoldOptions) (Tally, error)
}

// Run checks the target against the features with the step definitions
// defs and writes the reports; it returns the exit code. Each stage is a
// function below, in the order a run goes through them.
func Run(ctx context.Context, cfg Config, defs Steps) int {
	if cfg.Stdout == nil {
		cfg.Stdout = os.Stdout
	}
	if cfg.Getenv == nil {
		cfg.Getenv = os.Getenv
	}
	out := cfg.Stdout
	stop := func(err error) int {
		fmt.Fprintf(out, "catalogspec: %v\n", err)
		return ExitConfig
	}

	catalog, selected, err := selectScenarios(cfg)
	if err != nil {
		return stop(err)
	}
	// What godog runs: in a read-only audit, only what writes nothing.
	torun := selected
	if cfg.ReadOnly {
		torun = slices.DeleteFunc(slices.Clone(selected), func(s ScenarioInfo) bool { return !slices.Contains(s.Tags, TagReadOnly) })
		if len(torun) == 0 {
			return stop(fmt.Errorf("%s=%q selects no scenario tagged %s: the read-only audit would check nothing", envTags, cfg.Tags, TagReadOnly))
		}
	}
	var base *Baseline
	if cfg.Baseline != "" {
		if base, err = readBaseline(cfg.Baseline, catalog); err != nil {
			return stop(fmt.Errorf("%s: %w", envBaseline, err))
		}
	}
	if err := defs.Load(); err != nil {
		return stop(err)
	}
	reportsDir, err := clearReports(cfg.ReportsDir)
	if err != nil {
		return stop(err)
	}
	runCtx, interrupted, cancel := onInterrupt(ctx, out)
	defer cancel()

	tgt, err := newTarget(runCtx, cfg.Getenv, reportsDir, cfg.ReadOnly)
	if err != nil {
		return stop(fmt.Errorf("no target: %w", err))
	}
	defer stopTarget(ctx, tgt, out)
	failOn := failOnFor(cfg.FailOn, tgt)
	// An audit's target says whom its token stands for, which preflight
	// asks.
	if !tgt.ReadOnly {
		fmt.Fprintf(out, "catalogspec %s (spec %s): target %s\n", Version, catalogspec.SpecVersion, tgt.describe())
	}
	if err := defs.Preflight(runCtx, tgt); err != nil {
		return stop(fmt.Errorf("preflight: %w", err))
	}
	if tgt.ReadOnly {
		fmt.Fprintf(out, "catalogspec %s (spec %s): %s\n", Version, catalogspec.SpecVersion, tgt.describe())
	}
	b, err := browserFor(cfg, torun, tgt)
	if err != nil {
		return stop(err)
	}
	hold, err := takeHold(runCtx, cfg, defs, tgt, out)
	if err != nil {
		return stop(err)
	}
	released := false
	var tally Tally
	release := func() {
		if hold != nil && !released {
			released = true
			tally = releaseHold(ctx, hold)
		}
	}
	defer func() {
		if hold != nil && !released {
			release()
			fmt.Fprintf(out, "catalogspec: the run %s\n", tally.Summary())
		}
	}()
	selection := fmt.Sprintf("%d of %d scenarios selected (%s=%q),", len(selected), len(catalog), envTags, cfg.Tags)
	if cfg.ReadOnly {
		selection = fmt.Sprintf("read-only audit: %d of the %d scenarios selected (%s=%q) write nothing (%s) and run; the other %d write or need an administrator's token, and are reported as skipped;",
			len(torun), len(selected), envTags, cfg.Tags, TagReadOnly, len(selected)-len(torun))
	}
	fmt.Fprintf(out, "catalogspec: %s judged at @%s (a %s failure fails the run), seed %d (set %s=%d to repeat the order), concurrency %d\n",
		selection, failOn, listed(judgedLevels(failOn), "or"), cfg.Seed, envSeed, cfg.Seed, cfg.Concurrency)
	if b != nil {
		fmt.Fprintf(out, "catalogspec: the @ui scenarios drive %s (headless)\n", b.path)
	}
	if n := irreversibleAmong(selected); n > 0 && !tgt.Reference {
		fmt.Fprintf(out, "catalogspec: %d of them %s @irreversible: %s a new invite token, which replaces the target's for good; leave them out with %s='~@irreversible'\n",
			n, plural(n, "is", "are"), plural(n, "it makes", "they make"), envTags)
	}

	prof, err := openProfile(cfg.Getenv(EnvProfile))
	if err != nil {
		return stop(fmt.Errorf("%s: %w", EnvProfile, err))
	}
	defer prof.Close()
	if b != nil {
		b.profile = prof
	}
	sched := newScheduler(torun, cfg.Concurrency, cfg.Seed, defs.ThrowsSwitch)
	fmt.Fprintf(out, "catalogspec: in this order: %s\n", sched.describe())
	lost := stopWhenLost(runCtx, hold, sched)
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
		Browser:    b,
		ReadOnly:   cfg.ReadOnly,
		Profile:    prof,
	}
	if b != nil {
		defer b.close()
		startWhenQuiet(runCtx, b, sched)
	}
	cucumber, err := openCucumber(reportsDir)
	if err != nil {
		return stop(err)
	}
	defer cucumber.Close()
	elapsed, err := runScenarios(cfg, defs, s, len(torun))
	if err != nil {
		return stop(err)
	}
	if err := cucumber.Close(); err != nil {
		return stop(fmt.Errorf("reports: %w", err))
	}

	// What the scenarios left goes before the reports are written, so
	// that a failure to remove it is in the summary's last line.
	release()
	end := runEnd{FailFast: cfg.FailFast, ReadOnly: cfg.ReadOnly}
	if sig := interrupted.Load(); sig != nil {
		end.Signal = *sig
	}
	if end.Signal == "" && lost.Load() {
		end.Signal = "the loss of its hold on the target"
	}
	res := s.Results.finish(selected, end)
	code := ExitConformant
	if res.judge(base) {
		code = ExitFailed
	}
	ok := writeReports(out, cfg, res, s, elapsed)
	if hold != nil {
		fmt.Fprintf(out, "catalogspec: the run %s\n", tally.Summary())
	}
	if lost.Load() {
		fmt.Fprintf(out, "catalogspec: the run lost its hold on the target (%s): its verdict does not count\n", hold.LostWhy())
		return ExitConfig
	}
	if !ok || end.Signal != "" {
		return ExitConfig // not everything was judged
	}
	return code
}

// irreversibleAmong counts the selected scenarios tagged @irreversible:
// what they change on the target cannot be put back.
func irreversibleAmong(selected []ScenarioInfo) int {
	n := 0
	for _, s := range selected {
		if slices.Contains(s.Tags, "@irreversible") {
			n++
		}
	}
	return n
}

// takeHold takes the target for the run (hold.go), unless the run is
// read-only; nil when it takes none.
func takeHold(ctx context.Context, cfg Config, defs Steps, tgt *Target, out io.Writer) (Hold, error) {
	if cfg.ReadOnly {
		return nil, nil
	}
	o := cfg.Hold
	if o.Lease == 0 {
		o.Lease = DefaultLease
	}
	o.Say = func(line string) { fmt.Fprintf(out, "catalogspec: %s\n", line) }
	return defs.Hold(ctx, tgt, o)
}

// releaseHold lets the target go, also when the run was interrupted.
func releaseHold(ctx context.Context, h Hold) Tally {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
	defer cancel()
	return h.Release(ctx)
}

// stopWhenLost stops the schedule when the run loses its hold on the
// target; the flag says it did.
func stopWhenLost(ctx context.Context, h Hold, sched *Scheduler) *atomic.Bool {
	lost := new(atomic.Bool)
	if h == nil {
		return lost
	}
	go func() {
		select {
		case <-h.Lost():
			lost.Store(true)
			sched.Stop("the run lost its hold on the target: " + h.LostWhy())
		case <-ctx.Done():
		}
	}()
	return lost
}

// Cleanup puts back what runs that died left on the target, as the steps
// defs do it at the start of a run, and says what it did (catalogspec
// cleanup). Its exit code: 0 when everything was put back, 1 when something
// could not be, 2 when the target is held by a live run or the
// configuration is wrong.
func Cleanup(ctx context.Context, cfg Config, defs Steps) int {
	out := cfg.Stdout
	if out == nil {
		out = os.Stdout
	}
	if cfg.Getenv == nil {
		cfg.Getenv = os.Getenv
	}
	stop := func(err error) int {
		fmt.Fprintf(out, "catalogspec: %v\n", err)
		return ExitConfig
	}
	if cfg.Getenv(EnvGMS) == "" {
		return stop(fmt.Errorf("cleanup needs a target: set %s, %s and %s as for run", EnvGMS, EnvFrontend, EnvAdmin))
	}
	if err := defs.Load(); err != nil {
		return stop(err)
	}
	tgt, err := newTarget(ctx, cfg.Getenv, os.TempDir(), false)
	if err != nil {
		return stop(fmt.Errorf("no target: %w", err))
	}
	if err := defs.Preflight(ctx, tgt); err != nil {
		return stop(fmt.Errorf("preflight: %w", err))
	}
	o := cfg.Hold
	if o.Lease == 0 {
		o.Lease = DefaultLease
	}
	o.Say = func(line string) { fmt.Fprintf(out, "catalogspec: %s\n", line) }
	t, err := defs.Cleanup(ctx, tgt, o)
	if err != nil {
		return stop(err)
	}
	if !t.Clean() {
		return ExitFailed
	}
	return ExitConformant
}

// TagReadOnly marks the scenarios that write nothing to the target: the
// read-only audit runs them alone.
const TagReadOnly = "@read-only"

// godogTags is the tag expression godog runs: the run's, and in a
// read-only audit only what is tagged @read-only besides.
func godogTags(cfg Config) string {
	if !cfg.ReadOnly {
		return cfg.Tags
	}
	if strings.TrimSpace(cfg.Tags) == "" {
		return TagReadOnly
	}
	var alts []string
	for _, alt := range strings.Split(cfg.Tags, ",") {
		alts = append(alts, strings.TrimSpace(alt)+" && "+TagReadOnly)
	}
	return strings.Join(alts, ",")
}

// selectScenarios reads the features and picks the scenarios the run's
// tags (and go test's -run pattern) select: the whole catalog, and the
// selection.
func selectScenarios(cfg Config) (catalog, selected []ScenarioInfo, err error) {
	catalog, err = ReadScenarios(catalogspec.Features(), "features")
	if err != nil {
		return nil, nil, fmt.Errorf("reading the features: %w", err)
	}
	if problems := checkCatalog(catalog); len(problems) > 0 {
		return nil, nil, fmt.Errorf("the features are not well formed:\n  %s", strings.Join(problems, "\n  "))
	}
	expr := tagExpression(cfg.Tags)
	if unknown := expr.unknownTags(catalog); len(unknown) > 0 {
		return nil, nil, fmt.Errorf("%s=%q names %s, which no scenario carries; the tags in use are %s",
			envTags, cfg.Tags, strings.Join(unknown, ", "), strings.Join(tagsInUse(catalog), " "))
	}
	for _, s := range catalog {
		if expr.matches(s.Tags) && (cfg.Only == nil || cfg.Only(s.Name)) {
			selected = append(selected, s)
		}
	}
	if len(selected) == 0 {
		if cfg.Only != nil {
			return nil, nil, fmt.Errorf("no scenario matches both %s=%q and go test's -run pattern: nothing would be checked", envTags, cfg.Tags)
		}
		return nil, nil, fmt.Errorf("%s=%q selects no scenario: nothing would be checked", envTags, cfg.Tags)
	}
	return catalog, selected, nil
}

// clearReports makes the reports directory and removes an earlier run's
// reports from it, which must not pass for this one's; it returns the
// directory's absolute path.
func clearReports(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err == nil {
		err = os.MkdirAll(abs, 0o755)
	}
	if err != nil {
		return "", fmt.Errorf("reports directory %s: %w", dir, err)
	}
	for _, name := range reportFiles {
		_ = os.Remove(filepath.Join(abs, name))
	}
	_ = os.RemoveAll(filepath.Join(abs, "screenshots"))
	return abs, nil
}

// onInterrupt returns a context that a first Ctrl-C (or SIGTERM) ends: no
// scenario starts after it and the running ones finish, so that the
// reports are written whole; a second one kills. interrupted holds the
// name of the signal once one came.
func onInterrupt(ctx context.Context, out io.Writer) (runCtx context.Context, interrupted *atomic.Pointer[string], cancel context.CancelFunc) {
	runCtx, cancel = context.WithCancel(ctx)
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	interrupted = new(atomic.Pointer[string])
	go func() {
		select {
		case sig := <-signals:
			name := "SIGINT"
			if sig == syscall.SIGTERM {
				name = "SIGTERM"
			}
			interrupted.Store(&name)
			fmt.Fprintf(out, "\ncatalogspec: interrupted by %s: finishing the running scenarios and writing the reports (interrupt again to stop at once)\n", name)
			signal.Stop(signals) // a second signal kills as usual
			cancel()
		case <-runCtx.Done():
			signal.Stop(signals)
		}
	}()
	return runCtx, interrupted, cancel
}

// stopTarget stops what the harness started for the target, even when the
// run was interrupted.
func stopTarget(ctx context.Context, tgt *Target, out io.Writer) {
	stopCtx, cancelStop := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancelStop()
	if err := tgt.close(stopCtx); err != nil {
		fmt.Fprintf(out, "catalogspec: stopping the reference: %v\n", err)
	}
}

// failOnFor is the lowest level whose failure fails the run: the one
// asked for, else must, or should for the reference, which follows every
// recommendation.
func failOnFor(asked string, tgt *Target) string {
	if asked != "" {
		return asked
	}
	if tgt.Reference {
		return levelShould
	}
	return levelMust
}

// browserFor finds the browser the run's @ui scenarios drive; nil when it
// drives none (needsBrowser).
func browserFor(cfg Config, selected []ScenarioInfo, tgt *Target) (*Browser, error) {
	if !needsBrowser(selected, cfg.Disabled, tgt) {
		return nil, nil
	}
	path, err := findBrowser(cfg.Getenv)
	if err != nil {
		return nil, fmt.Errorf("the @ui scenarios drive a browser, and there is none: %w; or leave them out with %s='~@ui' or %s=ui", err, envTags, EnvDisable)
	}
	return &Browser{path: path}, nil
}

// startWhenQuiet starts the browser beside the first scenarios (it takes
// seconds), and makes its first pages ahead, once those that must run on a
// quiet machine are done.
func startWhenQuiet(ctx context.Context, b *Browser, sched *Scheduler) {
	go func() {
		select {
		case <-sched.quiet:
			if b.start() == nil {
				b.makeSpares()
			}
		case <-ctx.Done():
		}
	}()
}

// openCucumber creates the run's cucumber.json.partial, which godog's
// cucumber formatter writes (cucumberFormat); writeReports renames it.
func openCucumber(reportsDir string) (*os.File, error) {
	f, err := os.Create(filepath.Join(reportsDir, "cucumber.json.partial"))
	if err != nil {
		return nil, fmt.Errorf("reports: %w", err)
	}
	cucumberOut.Store(&writerBox{f})
	return f, nil
}

// runScenarios runs the selected scenarios through godog, each admitted by
// the schedule, and returns how long they took.
func runScenarios(cfg Config, defs Steps, s *Suite, selected int) (time.Duration, error) {
	// godog's cucumber formatter panics at the end of a run stopped at the
	// first failure (it looks for the results of scenarios never started),
	// so a fail-fast run writes no cucumber.json.
	format := consoleFormat(cfg.Format) + "," + cucumberFormat
	if cfg.FailFast {
		format = consoleFormat(cfg.Format)
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
			Tags:   godogTags(cfg),
			Strict: true,
			// Every scenario is started at once and waits for the
			// scheduler's leave: it runs cfg.Concurrency at a time.
			Concurrency:   selected,
			Randomize:     cfg.Seed,
			StopOnFailure: cfg.FailFast,
			Output:        &summaryFilter{w: cfg.Stdout},
			NoColors:      !cfg.Color,
			TestingT:      cfg.TestingT,
		},
	}.Run()
	elapsed := time.Since(started)
	if status == 2 {
		return elapsed, errors.New("godog could not run the features (see above)")
	}
	return elapsed, nil
}

// writeReports writes results.json, junit.xml, report.html and (but when
// stopping at the first failure) cucumber.json, and prints the summary; it
// says whether every report was written.
func writeReports(out io.Writer, cfg Config, res *runReport, s *Suite, elapsed time.Duration) bool {
	reportsDir, tgt, failOn := s.ReportsDir, s.Target, s.FailOn
	cucumberPartial := filepath.Join(reportsDir, "cucumber.json.partial")
	var werrs []error
	written := "report.html, results.json, junit.xml, cucumber.json"
	if cfg.FailFast {
		written = "report.html, results.json, junit.xml; no cucumber.json when stopping at the first failure"
		werrs = append(werrs, os.Remove(cucumberPartial))
	} else {
		werrs = append(werrs, os.Rename(cucumberPartial, filepath.Join(reportsDir, "cucumber.json")))
	}
	werrs = append(werrs, res.writeJSON(filepath.Join(reportsDir, "results.json"), tgt, failOn, elapsed, &s.Waits))
	werrs = append(werrs, res.writeJUnit(filepath.Join(reportsDir, "junit.xml"), failOn, elapsed))
	werrs = append(werrs, res.writeHTML(filepath.Join(reportsDir, "report.html"), tgt, failOn, elapsed))
	res.printSummary(out, failOn, elapsed, cfg.Color)
	fmt.Fprintf(out, "catalogspec: %s\n", s.Waits.summary())
	if err := errors.Join(werrs...); err != nil {
		fmt.Fprintf(out, "catalogspec: writing the reports: %v\n", err)
		return false
	}
	fmt.Fprintf(out, "catalogspec: reports in %s (%s)\n", reportsDir, written)
	return true
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
