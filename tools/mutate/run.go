package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
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
	unitDeps   map[string]map[string]bool
	modulePath string
	db         *pgprovider.Database
	started    time.Time
	env        []string // the suite's environment, without the per-run variables
	revision   string   // git revision of the module when it was snapshotted

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
	if err := copyTree(root, r.src); err != nil {
		r.close()
		return nil, fmt.Errorf("copying the module: %w", err)
	}
	return r, nil
}

// copyTree copies the regular files and directories under from to to.
func copyTree(from, to string) error {
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		if d.IsDir() && snapshotSkip[rel] {
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
			return os.WriteFile(dst, b, info.Mode().Perm())
		}
		return nil // symlinks, sockets: nothing the build needs
	})
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

	if r.o.unit {
		if err := r.listUnitDeps(ctx); err != nil {
			return err
		}
	}

	t = time.Now()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	var err error
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
	for _, k := range []string{"CATALOGSPEC_TAGS", "CATALOGSPEC_SEED", "CATALOGSPEC_CONCURRENCY", "CATALOGSPEC_PROPAGATION_TIMEOUT"} {
		if v := os.Getenv(k); v != "" {
			fmt.Printf("note: %s=%s is passed to every run\n", k, v)
		}
	}
	return nil
}

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

	// The clean run: the unmutated reference must pass.
	cleanDir := filepath.Join(r.work, "clean")
	if err := os.MkdirAll(cleanDir, 0o755); err != nil {
		return nil, err
	}
	t := time.Now()
	bin := filepath.Join(cleanDir, "catalogd")
	if out, err := r.goCmd(ctx, "build", "-trimpath", "-ldflags=-s -w", "-o", bin, catalogdPkg).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building the unmutated catalogd: %v\n%s", err, out)
	}
	rep.cleanBuild = time.Since(t)
	t = time.Now()
	out, err := r.suite(ctx, bin, "m_0", cleanDir)
	rep.cleanSuite = time.Since(t)
	switch {
	case err != nil:
		return nil, fmt.Errorf("clean run: %w", err)
	case out.timedOut:
		r.o.keep = true // for a person to read the logs
		return nil, &cleanRunError{detail: fmt.Sprintf("the suite did not finish within -timeout %s", r.o.timeout), log: out.log}
	case !out.passed:
		r.o.keep = true
		return nil, &cleanRunError{detail: "the suite fails against the unmutated reference (" + out.why + ")", log: out.log}
	}
	if r.faultsBin != "" {
		t = time.Now()
		f, err := r.faultTest(ctx, bin, cleanDir)
		switch {
		case err != nil:
			return nil, fmt.Errorf("clean run of the fault test: %w", err)
		case !f.passed:
			r.o.keep = true
			return nil, &cleanRunError{detail: "the fault test fails against the unmutated reference (" + f.why + ")", log: f.log}
		}
		fmt.Printf("clean fault test passed in %.1fs\n", time.Since(t).Seconds())
	}
	if r.unitDeps != nil {
		t = time.Now()
		empty := filepath.Join(cleanDir, "overlay.json")
		if err := os.WriteFile(empty, []byte(`{"Replace":{}}`), 0o644); err != nil {
			return nil, err
		}
		u, err := r.unitTest(ctx, cleanDir, empty, &Mutant{File: "reference/x.go"})
		switch {
		case err != nil:
			return nil, fmt.Errorf("clean run of the unit tests: %w", err)
		case !u.passed:
			r.o.keep = true
			return nil, &cleanRunError{detail: "the unit tests fail on the unmutated reference (" + u.why + ")", log: u.log}
		}
		fmt.Printf("clean unit tests passed in %.1fs\n", time.Since(t).Seconds())
	}
	fmt.Printf("clean run passed: build %.1fs, suite %.1fs (%s)\n", rep.cleanBuild.Seconds(), rep.cleanSuite.Seconds(), out.why)
	if !r.o.keep {
		_ = os.RemoveAll(cleanDir)
	}
	fmt.Printf("running %d mutant(s), %d at a time, budget %s, timeout %s each\n\n", len(ms), r.o.jobs, budgetText(r.o.budget), r.o.timeout)

	// Each worker takes the next mutant, unless the budget is spent or the
	// run interrupted: no mutant starts after that.
	results := make([]*result, len(ms))
	nextIndex, done := 0, 0
	take := func() (int, bool) {
		r.mu.Lock()
		defer r.mu.Unlock()
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

	t = time.Now()
	run, err := r.suite(ctx, bin, "m_"+strconv.Itoa(m.ID), dir, withoutBrowser...)
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
		st, why, err := r.afterSuite(ctx, bin, dir, overlayPath, m)
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

// afterSuite runs the later stages on a mutant the suite (without its @ui
// scenarios) let through: the unit tests of the packages that depend on
// the mutated file, built with the same overlay; the suite's @ui scenarios;
// the hardening tests against its catalogd. It returns the stage that
// failed ("" when all passed) and what it said.
func (r *runner) afterSuite(ctx context.Context, bin, dir, overlay string, m *Mutant) (stage, why string, err error) {
	// Cheapest first: the unit tests take seconds, the @ui scenarios and
	// the hardening tests a minute each.
	if r.unitDeps != nil {
		u, err := r.unitTest(ctx, dir, overlay, m)
		if err != nil || !u.passed {
			return stageUnit, "the unit tests: " + u.why, err
		}
	}
	ui, err := r.suite(ctx, bin, "m_"+strconv.Itoa(m.ID), dir, browserOnly...)
	switch {
	case err != nil:
		return stageBrowser, "", err
	case ui.timedOut:
		return stageBrowser, fmt.Sprintf("the @ui scenarios: no verdict within %s", r.o.timeout), nil
	case !ui.passed:
		return stageBrowser, "the @ui scenarios: " + ui.why, nil
	}
	if r.faultsBin != "" {
		f, err := r.faultTest(ctx, bin, dir)
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
var unitPackages = []string{"./reference", "./reference/postgres", "./reference/cmd/catalogd", "./reference/graph", "./reference/httpapi", "./reference/jwt"}

// listUnitDeps records which packages each of unitPackages' tests import.
func (r *runner) listUnitDeps(ctx context.Context) error {
	out, err := r.goCmd(ctx, "list", "-m").Output()
	if err != nil {
		return fmt.Errorf("go list -m: %w", err)
	}
	r.modulePath = strings.TrimSpace(string(out))
	r.unitDeps = map[string]map[string]bool{}
	for _, p := range unitPackages {
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

// unitTest runs, with the mutant's overlay, the tests of every package of
// unitPackages that imports the mutated file's package.
func (r *runner) unitTest(ctx context.Context, dir, overlay string, m *Mutant) (suiteRun, error) {
	run := suiteRun{log: filepath.Join(dir, "unit.log")}
	pkg := r.modulePath + "/" + filepath.ToSlash(filepath.Dir(m.File))
	var pkgs []string
	for _, p := range unitPackages {
		if r.unitDeps[p][pkg] {
			pkgs = append(pkgs, p)
		}
	}
	if len(pkgs) == 0 {
		run.passed = true
		return run, nil
	}
	out, err := r.stage(ctx, &run, func(tctx context.Context) *exec.Cmd {
		cmd := exec.CommandContext(tctx, "go", append([]string{"test", "-trimpath", "-overlay", overlay, "-count=1", "-failfast"}, pkgs...)...)
		cmd.Dir, cmd.Env = r.src, r.env
		return cmd
	})
	if err != nil || run.passed || run.why != "" {
		return run, err
	}
	run.why = firstFailure(out)
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
func (r *runner) faultTest(ctx context.Context, bin, dir string) (suiteRun, error) {
	run := suiteRun{log: filepath.Join(dir, "faults.log")}
	output, err := r.stage(ctx, &run, func(tctx context.Context) *exec.Cmd {
		cmd := exec.CommandContext(tctx, r.faultsBin, "-test.run", "^("+hardeningTests+")$", "-test.count=1")
		cmd.Dir = filepath.Join(r.src, "reference", "hardening")
		cmd.Env = append(append([]string(nil), r.env...), "CATALOGSPEC_HARDENING_CATALOGD="+bin)
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
