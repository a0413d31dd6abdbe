package main

// The runner: a snapshot of the module, the suite and the tests built once,
// the clean run, then every mutant in turn (or -jobs at once) within the
// budget, each verdict journalled as it comes. stages.go takes one mutant
// through its stages; database.go is the per-mutant database; output.go
// reads what the builds and runs printed.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

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
