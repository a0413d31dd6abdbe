package main

// The stages a mutant goes through, cheapest first: built (or picked in
// the schema build), the suite without its @ui scenarios on a fresh
// database, then, for a mutant the suite lets through, the unit tests of
// the packages that run its line, the @ui scenarios and the hardening
// tests, each skipped where the clean run's coverage shows it never runs
// the mutated line.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

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
	// decided sets the verdict of a run of the suite that failed, timed
	// out or could not run, what naming the scenarios it ran; false when
	// it passed and the mutant goes on.
	decided := func(run suiteRun, err error, what string) bool {
		switch {
		case ctx.Err() != nil:
			res.status = statusInterrupted
		case err != nil:
			toolErr(err)
		case run.timedOut:
			res.status, res.detail = statusTimeout, fmt.Sprintf("%sno verdict within %s", what, r.o.timeout)
		case !run.passed:
			res.status, res.detail = statusKilled, what+run.why
		default:
			return false
		}
		return true
	}
	name := "m_" + strconv.Itoa(m.ID)

	// With -select, the features that ran the line first; the whole suite
	// waits until every later stage has let the mutant through.
	run, what := suiteRun{passed: true}, ""
	tags, files, part := r.selectFor(m)
	t = time.Now()
	switch {
	case !r.cov.suite.runs(m):
	case part && len(files) == 0:
	case part:
		what = "the scenarios of " + strings.Join(files, ", ") + ": "
		run, err = r.suite(ctx, bin, name, dir, append(env, append(slices.Clone(withoutBrowser), "CATALOGSPEC_TAGS="+tags)...)...)
	default:
		run, err = r.suite(ctx, bin, name, dir, append(env, withoutBrowser...)...)
	}
	res.suite = time.Since(t)
	if decided(run, err, what) {
		return res
	}

	// The suite cannot make the database fail or reach start-up; the
	// hardening tests and the reference's own unit tests can.
	t = time.Now()
	st, why, err := r.afterSuite(ctx, bin, dir, overlayPath, m, env)
	res.suite += time.Since(t)
	switch {
	case ctx.Err() != nil:
		res.status = statusInterrupted
		return res
	case err != nil:
		return toolErr(err)
	case st != "":
		res.status, res.detail, res.stage = statusKilled, why, st
		return res
	}

	// Last, the whole suite, which may see what the features that ran the
	// line left behind.
	if r.cov.suite.runs(m) && part {
		if !r.o.whole {
			res.status, res.detail = statusSurvived, "survived the features that ran its line ("+strings.Join(files, ", ")+"); the whole suite not run (-whole=false)"
			if len(files) == 0 {
				res.detail = "no feature ran its line on its own; the whole suite not run (-whole=false)"
			}
			return res
		}
		t = time.Now()
		run, err = r.suite(ctx, bin, name, dir, append(env, withoutBrowser...)...)
		res.suite += time.Since(t)
		if decided(run, err, "the whole suite (not the features that ran the line): ") {
			return res
		}
	}
	res.status = statusSurvived
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

// faultTest runs reference/hardening's tests against the catalogd at bin:
// PostgreSQL stopped and frozen under load (every path expected to answer
// 503, every acknowledged write kept), hostile documents, slow and stalled
// connections, bad input, the sign-in throttle, secure cookies and the
// response budgets. They reach what no black-box suite against a
// healthy target can: the branches that run only when the database fails,
// and the bounds that only an attacker meets.
func (r *runner) faultTest(ctx context.Context, bin, dir string, env ...string) (suiteRun, error) {
	run := suiteRun{log: filepath.Join(dir, "faults.log")}
	output, err := r.stage(ctx, &run, func(tctx context.Context) *exec.Cmd {
		// Every test of the package: a test added there (the sign-in
		// throttle, the response budgets) judges mutants as it lands.
		cmd := exec.CommandContext(tctx, r.faultsBin, "-test.count=1")
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

// runGroup runs cmd in a process group of its own, so that a timeout stops
// the catalogd instances and PostgreSQL servers it started as well.
func runGroup(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	return cmd.Run()
}
