package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/catalogspec/catalogspec/reference/pgprovider"
)

const catalogdPkg = "./reference/cmd/catalogd"

// status is what became of a mutant.
type status int

const (
	statusKilled      status = iota // the suite failed
	statusTimeout                   // the suite ran past -timeout: counted as killed
	statusSurvived                  // the suite passed
	statusNotViable                 // it does not compile
	statusToolError                 // the tool could not judge it (database, exec)
	statusInterrupted               // Ctrl-C
)

func (s status) String() string {
	return [...]string{"killed", "killed (timeout)", "SURVIVED", "not viable", "TOOL ERROR", "interrupted"}[s]
}

// result is one mutant's outcome.
type result struct {
	m      *Mutant
	status status
	build  time.Duration
	suite  time.Duration
	detail string // what failed, the compiler's complaint, the tool's error
	// stage is what killed it: "" for the suite, stageBrowser,
	// stageHardening or stageUnit when the suite passed and a later stage
	// failed.
	stage string
	// resumed: the verdict of an earlier run of the same snapshot, taken
	// from the journal.
	resumed bool
}

// The stages that run after the suite lets a mutant through.
const (
	// stageBrowser: the suite's @ui scenarios, which drive a browser and
	// take a minute; the suite runs without them first, since its other
	// scenarios kill most mutants in seconds.
	stageBrowser   = "browser"
	stageHardening = "hardening"
	stageUnit      = "unit"
)

// Without the browser, and only the browser: the two parts of the suite.
var (
	withoutBrowser = []string{"CATALOGSPEC_DISABLE=ui"}
	browserOnly    = []string{"CATALOGSPEC_TAGS=@ui"}
)

func (r *result) total() time.Duration { return r.build + r.suite }

// cleanRunError is the unmutated reference failing the suite.
type cleanRunError struct {
	detail, log string
}

func (e *cleanRunError) Error() string {
	return fmt.Sprintf("clean run: %s\nthe suite's output (%s), last lines:\n%s", e.detail, e.log, tail(e.log, 40))
}

// runner builds and runs mutants.
type runner struct {
	root     string // the module, as the user has it: never written to
	src      string // the snapshot of it that is built and tested
	o        options
	work     string // temporary directory for everything the run makes
	stepsBin string
	// faultsBin is the compiled fault test (reference/hardening), run on
	// each mutant the suite lets through; "" with -faults=false.
	faultsBin string
	// unitDeps maps each package of unitPackages to the import paths its
	// tests depend on; nil with -unit=false.
	unitDeps map[string]map[string]bool
	// testFiles maps each package of unitPackages to its tests' files (by
	// test name, the file's base name).
	testFiles  map[string]map[string]string
	modulePath string
	cov        coverage     // what each stage ran in the clean run
	schema     *schemaBuild // the one build holding most mutants; nil: each is built on its own
	db         *pgprovider.Database
	started    time.Time
	env        []string // the suite's environment, without the per-run variables
	revision   string   // git revision of the module when it was snapshotted
	snapshot   string   // digest of the snapshot's files: what a journal is for
	journal    *journal // results as they come, to resume an interrupted run; nil without

	mu sync.Mutex // serialises progress lines
}

// snapshotSkip are the top-level entries of the module not copied: history
// and what builds and runs leave behind.
var snapshotSkip = map[string]bool{".git": true, "bin": true, "reports": true, ".catalogd": true, "mutation": true}

// newRunner copies the module into a temporary directory. Every build and
// every run uses that snapshot, so edits made to the working tree while the
// tool runs (the features, the steps, the reference) cannot mix into it.
func newRunner(root string, o options) (_ *runner, err error) {
	r := &runner{root: root, o: o, started: time.Now()}
	r.work, err = os.MkdirTemp("", "catalogspec-mutate-")
	if err != nil {
		return nil, err
	}
	r.src = filepath.Join(r.work, "src")
	r.revision = gitRevision(root)
	if r.snapshot, err = copyTree(root, r.src); err != nil {
		r.close()
		return nil, fmt.Errorf("copying the module: %w", err)
	}
	return r, nil
}

// copyTree copies the regular files and directories under from to to, and
// returns a digest of what it copied (paths, modes and contents).
func copyTree(from, to string) (string, error) {
	h := sha256.New()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		if d.IsDir() && (snapshotSkip[rel] || d.Name() == "node_modules") {
			// node_modules: npm's working copy; the build embeds what
			// make assets copied out of it, which is digested.
			return filepath.SkipDir
		}
		dst := filepath.Join(to, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, 0o755)
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%s\x00%o\x00%d\x00", filepath.ToSlash(rel), info.Mode().Perm(), len(b))
			h.Write(b)
			return os.WriteFile(dst, b, info.Mode().Perm())
		}
		return nil // symlinks, sockets: nothing the build needs
	})
	return hex.EncodeToString(h.Sum(nil))[:16], err
}

// start builds the suite's test binary and gets PostgreSQL.
func (r *runner) start(ctx context.Context) error {
	t := time.Now()
	r.stepsBin = filepath.Join(r.work, "steps.test")
	if out, err := r.goCmd(ctx, "test", "-c", "-trimpath", "-o", r.stepsBin, "./steps").CombinedOutput(); err != nil {
		return fmt.Errorf("building the suite (go test -c ./steps): %v\n%s", err, out)
	}
	fmt.Printf("suite built in %.1fs\n", time.Since(t).Seconds())
	if r.o.faults {
		t = time.Now()
		r.faultsBin = filepath.Join(r.work, "hardening.test")
		if out, err := r.goCmd(ctx, "test", "-c", "-trimpath", "-o", r.faultsBin, "./reference/hardening").CombinedOutput(); err != nil {
			return fmt.Errorf("building the fault test (go test -c ./reference/hardening): %v\n%s", err, out)
		}
		fmt.Printf("fault test built in %.1fs\n", time.Since(t).Seconds())
	}

	out, err := r.goCmd(ctx, "list", "-m").Output()
	if err != nil {
		return fmt.Errorf("go list -m: %w", err)
	}
	r.modulePath = strings.TrimSpace(string(out))
	if r.o.unit {
		if err := r.listUnitDeps(ctx); err != nil {
			return err
		}
	}

	t = time.Now()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	r.db, err = pgprovider.Provide(ctx, pgprovider.Options{Logger: logger})
	if err != nil {
		return err
	}
	fmt.Printf("PostgreSQL (%s) ready in %.1fs\n", r.db.Source, time.Since(t).Seconds())

	// The harness must start the reference: drop whatever names another
	// target, and the variables set per run.
	drop := map[string]bool{
		"DATABASE_URL": true, "CATALOGSPEC_CATALOGD": true, "CATALOGSPEC_REPORTS_DIR": true, "CATALOGSPEC_FORMAT": true,
		"CATALOGSPEC_GMS_URL": true, "CATALOGSPEC_FRONTEND_URL": true, "CATALOGSPEC_ADMIN_TOKEN": true,
		"CATALOGSPEC_NOAUTH_GMS_URL": true, "CATALOGSPEC_NOAUTH_FRONTEND_URL": true, "CATALOGSPEC_LATER_GMS_URL": true, "CATALOGSPEC_REPLICA_GMS_URL": true,
	}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !drop[k] {
			r.env = append(r.env, kv)
		}
	}
	r.env = append(r.env, "NO_COLOR=1", "CATALOGSPEC_FORMAT=progress", "CATALOGSPEC_FAIL_FAST=1")
	for _, k := range passedVariables {
		if v := os.Getenv(k); v != "" {
			fmt.Printf("note: %s=%s is passed to every run\n", k, v)
		}
	}
	return nil
}

// passedVariables are the suite's settings a person may give a run; every
// mutant's suite gets them.
var passedVariables = []string{"CATALOGSPEC_TAGS", "CATALOGSPEC_SEED", "CATALOGSPEC_CONCURRENCY", "CATALOGSPEC_PROPAGATION_TIMEOUT"}

func (r *runner) close() {
	if r.db != nil {
		if err := r.db.Close(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, "mutate: stopping PostgreSQL:", err)
		}
	}
	if r.work == "" {
		return
	}
	if r.o.keep {
		fmt.Printf("work directory kept: %s\n", r.work)
		return
	}
	_ = os.RemoveAll(r.work)
}

func (r *runner) goCmd(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = r.src
	return cmd
}

// runAll runs the clean reference, then the mutants, jobs at a time, until
// the budget is spent.
func (r *runner) runAll(ctx context.Context, ms []*Mutant) (*report, error) {
	rep := &report{opts: r.o, started: r.started, root: r.root, revision: r.revision}

	// Verdicts that earlier runs of this snapshot reached stand.
	results := make([]*result, len(ms))
	taken := 0
	for i, m := range ms {
		if res, ok := r.journal.taken(m); ok {
			results[i] = res
			taken++
		}
	}
	if r.journal != nil {
		rep.earlierElapsed, rep.earlierRuns, rep.firstStarted = r.journal.earlierElapsed, r.journal.earlierRuns, r.journal.firstStarted
		rep.taken = taken
		if taken > 0 {
			fmt.Printf("journal %s: %d verdict(s) from %d earlier run(s) of this snapshot since %s; %d mutant(s) left\n",
				r.journal.path, taken, r.journal.earlierRuns, r.journal.firstStarted, len(ms)-taken)
		}
	}
	if taken == len(ms) {
		fmt.Println("every selected mutant has its verdict: nothing to run")
	} else {
		if err := r.cleanRun(ctx, rep); err != nil {
			return nil, err
		}
		if r.o.schema {
			var left []*Mutant
			for i, m := range ms {
				if results[i] == nil {
					left = append(left, m)
				}
			}
			if err := r.startSchema(ctx, left); err != nil {
				return nil, err
			}
		}
	}
	fmt.Printf("running %d mutant(s), %d at a time, budget %s, timeout %s each\n\n", len(ms)-taken, r.o.jobs, budgetText(r.o.budget), r.o.timeout)

	// Each worker takes the next mutant, unless the budget is spent or the
	// run interrupted: no mutant starts after that.
	nextIndex, done := 0, taken
	take := func() (int, bool) {
		r.mu.Lock()
		defer r.mu.Unlock()
		for nextIndex < len(ms) && results[nextIndex] != nil {
			nextIndex++
		}
		switch {
		case nextIndex >= len(ms):
			return 0, false
		case ctx.Err() != nil:
			rep.stopped = "interrupted"
			return 0, false
		case r.o.budget > 0 && time.Since(r.started) >= r.o.budget:
			if rep.stopped == "" {
				rep.stopped = "budget " + r.o.budget.String() + " spent"
				fmt.Printf("budget of %s spent: %d mutant(s) not started\n", r.o.budget, len(ms)-nextIndex)
			}
			return 0, false
		}
		nextIndex++
		return nextIndex - 1, true
	}
	var wg sync.WaitGroup
	for w := 0; w < r.o.jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i, ok := take()
				if !ok {
					return
				}
				res := r.mutant(ctx, ms[i])
				if err := r.journal.record(res); err != nil {
					fmt.Fprintln(os.Stderr, "mutate:", err)
				}
				r.mu.Lock()
				results[i] = res
				done++
				r.progress(done, len(ms), res)
				r.mu.Unlock()
			}
		}()
	}
	wg.Wait()

	for i, res := range results {
		if res == nil {
			rep.notStarted = append(rep.notStarted, ms[i])
			continue
		}
		rep.results = append(rep.results, res)
	}
	rep.elapsed = time.Since(r.started)
	if err := r.journal.end(rep.elapsed); err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
	}
	return rep, nil
}

func budgetText(d time.Duration) string {
	if d <= 0 {
		return "none"
	}
	return d.String()
}

func (r *runner) progress(done, n int, res *result) {
	m := res.m
	line := fmt.Sprintf("[%*d/%d] %s %-36s %-44s %-16s %5.1fs (build %4.1fs)", len(strconv.Itoa(n)), done, n,
		m.Name(), fmt.Sprintf("%s:%d", m.File, m.Line), m.Desc, res.status, res.total().Seconds(), res.build.Seconds())
	if res.detail != "" {
		line += "  " + res.detail
	}
	fmt.Println(line)
}

// mutant builds one mutant and runs the suite against it.
func (r *runner) mutant(ctx context.Context, m *Mutant) *result {
	res := &result{m: m}
	dir := filepath.Join(r.work, m.Name())
	defer func() {
		if !r.o.keep {
			_ = os.RemoveAll(dir)
		}
	}()
	toolErr := func(err error) *result {
		res.status, res.detail = statusToolError, err.Error()
		if ctx.Err() != nil {
			res.status, res.detail = statusInterrupted, ""
		}
		return res
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return toolErr(err)
	}

	// The mutated copy, and an overlay that puts it in place of the file.
	orig := filepath.Join(r.src, filepath.FromSlash(m.File))
	src, err := os.ReadFile(orig)
	if err != nil {
		return toolErr(err)
	}
	mutated := filepath.Join(dir, filepath.Base(orig))
	if err := os.WriteFile(mutated, m.Apply(src), 0o644); err != nil {
		return toolErr(err)
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {orig: mutated}})
	if err != nil {
		return toolErr(err)
	}
	overlayPath := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(overlayPath, overlay, 0o644); err != nil {
		return toolErr(err)
	}

	t := time.Now()
	bin := filepath.Join(dir, "catalogd")
	var env []string // what the runs of this mutant add to their environment
	if r.schema != nil && r.schema.held[m.ID] {
		// The schema build holds it: type-checking says whether it
		// compiles on its own, and the variable chooses it.
		err := r.schema.tc.check(m)
		res.build = time.Since(t)
		if err != nil {
			res.status, res.detail = statusNotViable, err.Error()
			return res
		}
		bin, env = r.schema.bin, []string{mutantEnv + "=" + strconv.Itoa(m.ID)}
	} else {
		out, err := r.goCmd(ctx, "build", "-trimpath", "-overlay", overlayPath, "-ldflags=-s -w", "-o", bin, catalogdPkg).CombinedOutput()
		res.build = time.Since(t)
		if ctx.Err() != nil {
			res.status = statusInterrupted
			return res
		}
		if err != nil {
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				return toolErr(fmt.Errorf("go build: %w", err))
			}
			res.status, res.detail = statusNotViable, compileError(out, mutated, m.File)
			return res
		}
	}

	// A stage that never ran the mutated line in the clean run cannot see
	// the mutant; one that ran nothing of it leaves it a survivor.
	if !r.cov.suite.runs(m) && !r.laterStagesRun(m) {
		res.status, res.detail = statusSurvived, "no test runs this code (the clean run's coverage)"
		return res
	}
	run := suiteRun{passed: true}
	t = time.Now()
	if r.cov.suite.runs(m) {
		run, err = r.suite(ctx, bin, "m_"+strconv.Itoa(m.ID), dir, append(env, withoutBrowser...)...)
	}
	res.suite = time.Since(t)
	switch {
	case ctx.Err() != nil:
		res.status = statusInterrupted
	case err != nil:
		return toolErr(err)
	case run.timedOut:
		res.status, res.detail = statusTimeout, fmt.Sprintf("no verdict within %s", r.o.timeout)
	case run.passed:
		// The suite cannot make the database fail or reach start-up; the
		// hardening tests and the reference's own unit tests can.
		t = time.Now()
		st, why, err := r.afterSuite(ctx, bin, dir, overlayPath, m, env)
		res.suite += time.Since(t)
		switch {
		case ctx.Err() != nil:
			res.status = statusInterrupted
		case err != nil:
			return toolErr(err)
		case st == "":
			res.status = statusSurvived
		default:
			res.status, res.detail, res.stage = statusKilled, why, st
		}
	default:
		res.status, res.detail = statusKilled, run.why
	}
	return res
}

// laterStagesRun reports whether any stage after the suite ran the
// mutant's line in the clean run.
func (r *runner) laterStagesRun(m *Mutant) bool {
	if r.cov.ui.runs(m) || (r.faultsBin != "" && r.cov.hardening.runs(m)) {
		return true
	}
	return len(r.unitPackagesFor(m)) > 0
}

// afterSuite runs the later stages on a mutant the suite (without its @ui
// scenarios) let through: the unit tests of the packages that depend on
// the mutated file, built with the same overlay; the suite's @ui scenarios;
// the hardening tests against its catalogd. It returns the stage that
// failed ("" when all passed) and what it said.
func (r *runner) afterSuite(ctx context.Context, bin, dir, overlay string, m *Mutant, env []string) (stage, why string, err error) {
	// Cheapest first: the unit tests take seconds, the @ui scenarios and
	// the hardening tests a minute each.
	if r.unitDeps != nil {
		u, err := r.unitTest(ctx, dir, overlay, m)
		if err != nil || !u.passed {
			return stageUnit, "the unit tests: " + u.why, err
		}
	}
	ui := suiteRun{passed: true}
	if r.cov.ui.runs(m) {
		ui, err = r.suite(ctx, bin, "m_"+strconv.Itoa(m.ID), dir, append(env, browserOnly...)...)
	}
	switch {
	case err != nil:
		return stageBrowser, "", err
	case ui.timedOut:
		return stageBrowser, fmt.Sprintf("the @ui scenarios: no verdict within %s", r.o.timeout), nil
	case !ui.passed:
		return stageBrowser, "the @ui scenarios: " + ui.why, nil
	}
	if r.faultsBin != "" && r.cov.hardening.runs(m) {
		f, err := r.faultTest(ctx, bin, dir, env...)
		if err != nil || !f.passed {
			return stageHardening, "the hardening tests: " + f.why, err
		}
	}
	return "", "", nil
}

// unitPackages are the reference's packages whose tests run on a mutant the
// suite and the hardening tests let through. They cover what a black-box
// suite against a healthy, running target cannot reach: start-up and
// restart, a store failing between two calls of one request, and the
// domain's own checks called with input no API lets through.
// They are run in this order, the quickest first, after the mutated
// package's own.
var unitPackages = []string{"./reference/jwt", "./reference/httpapi", "./reference/graph", "./reference/web", "./reference", "./reference/postgres", "./reference/cmd/catalogd"}

// testFuncFiles maps the test functions of the package in dir to the base
// name of the _test.go file each is declared in.
func testFuncFiles(dir string) (map[string]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	files := map[string]string{}
	for _, path := range paths {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil {
				files[fn.Name.Name] = filepath.Base(path)
			}
		}
	}
	return files, nil
}

// listUnitDeps records which packages each of unitPackages' tests import,
// and which file each test is in.
func (r *runner) listUnitDeps(ctx context.Context) error {
	r.unitDeps = map[string]map[string]bool{}
	r.testFiles = map[string]map[string]string{}
	for _, p := range unitPackages {
		files, err := testFuncFiles(filepath.Join(r.src, filepath.FromSlash(strings.TrimPrefix(p, "./"))))
		if err != nil {
			return err
		}
		r.testFiles[p] = files
		out, err := r.goCmd(ctx, "list", "-test", "-deps", "-f", "{{.ImportPath}}", p).Output()
		if err != nil {
			return fmt.Errorf("go list -test -deps %s: %w", p, err)
		}
		deps := map[string]bool{}
		for _, line := range strings.Fields(string(out)) {
			deps[line] = true
		}
		r.unitDeps[p] = deps
	}
	return nil
}

// unitRun is one package's tests to run on a mutant: tests nil for all.
type unitRun struct {
	pkg   string
	tests []string
}

// unitPackagesFor are the packages of unitPackages whose tests import the
// mutant's package, each with the tests that ran the mutant's line in the
// clean run (all of them without coverage); a package none of whose tests
// ran it is left out. The likeliest to fail go first: the mutated
// package's own, then those with a test in the file named after the
// mutated one (bootstrap.go, bootstrap_test.go), then the others, quickest
// first.
func (r *runner) unitPackagesFor(m *Mutant) []unitRun {
	if r.unitDeps == nil {
		return nil
	}
	pkg := r.modulePath + "/" + filepath.ToSlash(filepath.Dir(m.File))
	own := "./" + filepath.ToSlash(filepath.Dir(m.File))
	namesake := strings.TrimSuffix(path.Base(m.File), ".go") + "_test.go"
	var first, namesakes, rest []unitRun
	for _, p := range unitPackages {
		if !r.unitDeps[p][pkg] {
			continue
		}
		u := unitRun{pkg: p}
		if r.cov.unit != nil {
			for name, prof := range r.cov.unit[p] {
				if prof.runs(m) {
					u.tests = append(u.tests, name)
				}
			}
			if len(u.tests) == 0 {
				continue
			}
			sort.Strings(u.tests)
		}
		switch {
		case p == own:
			first = append(first, u)
		case r.hasTestIn(p, u.tests, namesake):
			namesakes = append(namesakes, u)
		default:
			rest = append(rest, u)
		}
	}
	return append(append(first, namesakes...), rest...)
}

// hasTestIn reports whether one of package p's tests (all, when tests is
// nil) is declared in the file named file.
func (r *runner) hasTestIn(p string, tests []string, file string) bool {
	if tests == nil {
		for _, f := range r.testFiles[p] {
			if f == file {
				return true
			}
		}
		return false
	}
	for _, t := range tests {
		if r.testFiles[p][t] == file {
			return true
		}
	}
	return false
}

// unitTest runs, with the mutant's overlay, the tests of every package of
// unitPackages that imports the mutated file's package.
func (r *runner) unitTest(ctx context.Context, dir, overlay string, m *Mutant) (suiteRun, error) {
	run := suiteRun{log: filepath.Join(dir, "unit.log"), passed: true}
	// One package at a time, the mutated one first (its own tests are the
	// likeliest to fail), stopping at the first that fails; the mutated
	// package is compiled once, the build cache has it for the next.
	for i, u := range r.unitPackagesFor(m) {
		pr := suiteRun{log: filepath.Join(dir, fmt.Sprintf("unit-%d.log", i))}
		// -vet=off: go test's vet checks would refuse a mutant (a
		// "suspect or") before any test ran, and count that as a kill.
		args := []string{"test", "-trimpath", "-vet=off", "-overlay", overlay, "-count=1", "-failfast"}
		if u.tests != nil {
			args = append(args, "-run", testsPattern(u.tests))
		}
		out, err := r.stage(ctx, &pr, func(tctx context.Context) *exec.Cmd {
			if cmd := r.schemaUnitCmd(tctx, u.pkg, u.tests, m); cmd != nil {
				return cmd
			}
			cmd := exec.CommandContext(tctx, "go", append(args, u.pkg)...)
			cmd.Dir, cmd.Env = r.src, r.env
			return cmd
		})
		if err != nil || pr.passed {
			if err != nil {
				return pr, err
			}
			continue
		}
		if pr.why == "" {
			pr.why = firstFailure(out)
		}
		return pr, nil
	}
	return run, nil
}

// stage runs a later stage's test command (made by mk with the stage's
// deadline) in its own process group, its output in run.log: run.passed
// when it passed, run.why set when it ran out of time; otherwise it failed,
// and out is what it printed.
func (r *runner) stage(ctx context.Context, run *suiteRun, mk func(context.Context) *exec.Cmd) (out string, err error) {
	logFile, err := os.Create(run.log)
	if err != nil {
		return "", err
	}
	defer logFile.Close()
	// The stage's tests take well under a minute on the unmutated reference;
	// a mutant that makes them hang is judged at -timeout, as the suite is.
	tctx, cancel := context.WithTimeout(ctx, max(r.o.timeout, time.Minute))
	defer cancel()
	cmd := mk(tctx)
	var b strings.Builder
	cmd.Stdout, cmd.Stderr = io.MultiWriter(logFile, &b), io.MultiWriter(logFile, &b)
	err = runGroup(cmd)
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return "", ctx.Err()
	case tctx.Err() != nil:
		run.why = fmt.Sprintf("no verdict within %s", max(r.o.timeout, time.Minute))
		return "", nil
	case err == nil:
		run.passed = true
		return "", nil
	case !errors.As(err, &exit):
		return "", fmt.Errorf("running %s: %w", cmd.Path, err)
	}
	return b.String(), nil
}

// firstFailure is the first failing test of go test's output, with the
// first line it logged, or the first line of a build failure.
func firstFailure(out string) string {
	lines := strings.Split(out, "\n")
	for i, line := range lines {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "--- FAIL: ") {
			why := strings.TrimPrefix(t, "--- FAIL: ")
			if i+1 < len(lines) {
				why += ": " + strings.TrimSpace(lines[i+1])
			}
			if len(why) > 160 {
				why = why[:160] + "…"
			}
			return why
		}
	}
	for _, line := range lines {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "ok ") {
			return t
		}
	}
	return "failed"
}

// hardeningTests are the tests of reference/hardening run on a mutant the
// suite lets through: the fault test and the abuse tests.
const hardeningTests = "TestDatabaseFaults|TestBadInput|TestAbuseDocuments|TestAbuseConnections"

// faultTest runs reference/hardening's tests against the catalogd at bin:
// PostgreSQL stopped and frozen under load (every path expected to answer
// 503, every acknowledged write kept), hostile documents, slow and stalled
// connections, and bad input. They reach what no black-box suite against a
// healthy target can: the branches that run only when the database fails,
// and the bounds that only an attacker meets.
func (r *runner) faultTest(ctx context.Context, bin, dir string, env ...string) (suiteRun, error) {
	run := suiteRun{log: filepath.Join(dir, "faults.log")}
	output, err := r.stage(ctx, &run, func(tctx context.Context) *exec.Cmd {
		cmd := exec.CommandContext(tctx, r.faultsBin, "-test.run", "^("+hardeningTests+")$", "-test.count=1")
		cmd.Dir = filepath.Join(r.src, "reference", "hardening")
		cmd.Env = append(append(append([]string(nil), r.env...), "CATALOGSPEC_HARDENING_CATALOGD="+bin), env...)
		return cmd
	})
	if err != nil || run.passed || run.why != "" {
		return run, err
	}
	run.why = "failed"
	// The first complaint (an Errorf says "want" or "missing"), else the
	// first line of the test's own.
	var first string
	for _, line := range strings.Split(output, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "fault_test.go:") && !strings.HasPrefix(line, "harness_test.go:") && !strings.HasPrefix(line, "abuse_test.go:") {
			continue
		}
		if strings.Contains(line, "want ") || strings.Contains(line, "missing") || strings.Contains(line, "refused with") || strings.Contains(line, "not recovered") || strings.Contains(line, "still held") || strings.Contains(line, "does not say") {
			first = line
			break
		}
		if first == "" && !strings.Contains(line, ": 503 in ") {
			first = line
		}
	}
	if first != "" {
		run.why = first
		if len(run.why) > 160 {
			run.why = run.why[:160] + "…"
		}
	}
	return run, nil
}

// compileError is the first line of the compiler's complaint, naming the
// original file rather than the mutated copy (which go build may show by an
// absolute or a relative path).
func compileError(out []byte, mutated, file string) string {
	base := filepath.Base(mutated) + ":"
	dir := filepath.Base(filepath.Dir(mutated))
	for _, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if i := strings.Index(line, base); i >= 0 && strings.Contains(line[:i], dir) {
			line = file + line[i+len(base)-1:]
		}
		return line
	}
	return "go build failed"
}

// suiteRun is what one run of the suite said.
type suiteRun struct {
	passed, timedOut bool
	why              string // e.g. "3 of 78 scenarios failed"
	log              string // path of the suite's output
}

// suite runs the conformance suite against the catalogd at bin, on a fresh
// database called name, with reports and output in dir.
func (r *runner) suite(ctx context.Context, bin, name, dir string, env ...string) (suiteRun, error) {
	run := suiteRun{log: filepath.Join(dir, "suite.log")}
	dbURL, err := withDatabase(r.db.URL, name)
	if err != nil {
		return run, err
	}
	if err := r.recreateDatabase(ctx, name); err != nil {
		return run, fmt.Errorf("creating database %s: %w", name, err)
	}
	defer func() {
		if err := r.dropDatabase(context.WithoutCancel(ctx), name); err != nil {
			fmt.Fprintf(os.Stderr, "mutate: dropping database %s: %v\n", name, err)
		}
	}()
	reports := filepath.Join(dir, "reports")
	if err := os.MkdirAll(reports, 0o755); err != nil {
		return run, err
	}
	logFile, err := os.Create(run.log)
	if err != nil {
		return run, err
	}
	defer logFile.Close()

	tctx, cancel := context.WithTimeout(ctx, r.o.timeout)
	defer cancel()
	cmd := exec.CommandContext(tctx, r.stepsBin, "-test.run", "^TestFeatures$", "-test.count=1", "-test.v")
	cmd.Dir = filepath.Join(r.src, "steps")
	cmd.Env = append(append([]string(nil), r.env...),
		"CATALOGSPEC_CATALOGD="+bin, "DATABASE_URL="+dbURL, "CATALOGSPEC_REPORTS_DIR="+reports)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	err = runGroup(cmd)
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return run, ctx.Err()
	case tctx.Err() != nil:
		run.timedOut = true
	case err == nil:
		run.passed = true
	case errors.As(err, &exit):
	default:
		return run, fmt.Errorf("running the suite: %w", err)
	}
	run.why = verdict(reports, run.log)
	return run, nil
}

// verdict summarises a run from its JUnit report, or from its output when
// the suite never got to the scenarios.
func verdict(reports, log string) string {
	f, err := os.Open(filepath.Join(reports, "junit.xml"))
	if err == nil {
		defer f.Close()
		var suites struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Errors   int `xml:"errors,attr"`
			Skipped  int `xml:"skipped,attr"`
		}
		if err := xml.NewDecoder(f).Decode(&suites); err == nil && suites.Tests > 0 {
			failed := suites.Failures + suites.Errors
			if failed == 0 {
				return fmt.Sprintf("%d scenarios passed", suites.Tests-suites.Skipped)
			}
			return fmt.Sprintf("%d of %d scenarios failed", failed, suites.Tests)
		}
	}
	b, _ := os.ReadFile(log)
	switch {
	case bytes.Contains(b, []byte("no target:")):
		return "the reference did not start"
	case bytes.Contains(b, []byte("panic:")):
		return "the suite panicked"
	}
	return "no scenario report"
}

// withDatabase returns the connection string u pointed at database name.
func withDatabase(u, name string) (string, error) {
	if strings.HasPrefix(u, "postgres://") || strings.HasPrefix(u, "postgresql://") {
		p, err := url.Parse(u)
		if err != nil {
			return "", errors.New("the database URL does not parse")
		}
		p.Path, p.RawPath = "/"+name, ""
		return p.String(), nil
	}
	// keyword=value form: a later dbname wins.
	return u + " dbname=" + name, nil
}

// recreateDatabase creates database name, dropping a leftover of an
// earlier, interrupted run first.
func (r *runner) recreateDatabase(ctx context.Context, name string) error {
	if err := r.dropDatabase(ctx, name); err != nil {
		return err
	}
	return r.admin(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
}

func (r *runner) dropDatabase(ctx context.Context, name string) error {
	err := r.admin(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42601" { // before PostgreSQL 13: no FORCE
		err = r.admin(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize())
	}
	return err
}

// admin runs one statement on the database pgprovider gave.
func (r *runner) admin(ctx context.Context, sql string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, r.db.URL)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	_, err = conn.Exec(ctx, sql)
	return err
}

// tail returns the last n lines of the file at path.
func tail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", path, err)
	}
	defer f.Close()
	b, _ := io.ReadAll(f)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// runGroup runs cmd in a process group of its own, so that a timeout stops
// the catalogd instances and PostgreSQL servers it started as well.
func runGroup(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	return cmd.Run()
}
