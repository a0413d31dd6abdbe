package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// coverage is what each stage ran of the reference in the clean run; nil
// fields (coverage off, or a stage not run) run every mutant.
type coverage struct {
	suite, ui, hardening profile
	features             []featureRun                  // each feature's own run (-select); nil: the suite runs whole
	unit                 map[string]map[string]profile // by unitPackages entry, then by test
}

// cleanRun runs every stage against the unmutated reference, which must
// pass them all; with -coverage, from a build that records what each stage
// ran.
func (r *runner) cleanRun(ctx context.Context, rep *report) error {
	dir := filepath.Join(r.work, "clean")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	t := time.Now()
	bin := filepath.Join(dir, "catalogd")
	args := []string{"build", "-trimpath", "-ldflags=-s -w", "-o", bin}
	if r.o.coverage {
		args = append(args, "-cover", "-coverpkg="+r.modulePath+"/reference/...")
	}
	if out, err := r.goCmd(ctx, append(args, catalogdPkg)...).CombinedOutput(); err != nil {
		return fmt.Errorf("building the unmutated catalogd: %v\n%s", err, out)
	}
	rep.cleanBuild = time.Since(t)

	// covDir makes the directory a stage's catalogd processes write their
	// counters to, and returns the variable that says so.
	covDir := func(stage string) (string, []string, error) {
		if !r.o.coverage {
			return "", nil, nil
		}
		d := filepath.Join(dir, "cover-"+stage)
		return d, []string{"GOCOVERDIR=" + d}, os.MkdirAll(d, 0o755)
	}
	failed := func(what string, run suiteRun) error {
		r.o.keep = true // for a person to read the logs
		if run.timedOut {
			return &cleanRunError{detail: fmt.Sprintf("%s did not finish within -timeout %s", what, r.o.timeout), log: run.log}
		}
		return &cleanRunError{detail: what + " fails against the unmutated reference (" + run.why + ")", log: run.log}
	}

	t = time.Now()
	cd, env, err := covDir("suite")
	if err != nil {
		return err
	}
	out, err := r.suite(ctx, bin, "m_0", dir, append(withoutBrowser, env...)...)
	if err != nil {
		return fmt.Errorf("clean run: %w", err)
	}
	if !out.passed {
		return failed("the suite", out)
	}
	if r.cov.suite, err = r.readCoverDir(ctx, cd); err != nil {
		return err
	}
	suiteWhy := out.why
	if r.o.coverage && r.o.selectFeatures {
		tf := time.Now()
		if err := r.cleanFeatures(ctx, bin, dir); err != nil {
			return err
		}
		fmt.Printf("clean run of each feature on its own passed in %.1fs\n", time.Since(tf).Seconds())
	}

	cd, env, err = covDir("ui")
	if err != nil {
		return err
	}
	out, err = r.suite(ctx, bin, "m_0", dir, append(browserOnly, env...)...)
	if err != nil {
		return fmt.Errorf("clean run of the @ui scenarios: %w", err)
	}
	if !out.passed {
		return failed("the @ui scenarios", out)
	}
	if r.cov.ui, err = r.readCoverDir(ctx, cd); err != nil {
		return err
	}
	rep.cleanSuite = time.Since(t)

	if r.faultsBin != "" {
		t = time.Now()
		cd, env, err := covDir("hardening")
		if err != nil {
			return err
		}
		f, err := r.faultTest(ctx, bin, dir, env...)
		if err != nil {
			return fmt.Errorf("clean run of the fault test: %w", err)
		}
		if !f.passed {
			return failed("the hardening tests", f)
		}
		if r.cov.hardening, err = r.readCoverDir(ctx, cd); err != nil {
			return err
		}
		fmt.Printf("clean hardening tests passed in %.1fs\n", time.Since(t).Seconds())
	}

	if r.unitDeps != nil {
		t = time.Now()
		if err := r.cleanUnit(ctx, dir); err != nil {
			return err
		}
		fmt.Printf("clean unit tests passed in %.1fs\n", time.Since(t).Seconds())
	}
	fmt.Printf("clean run passed: build %.1fs, suite %.1fs (%s)\n", rep.cleanBuild.Seconds(), rep.cleanSuite.Seconds(), suiteWhy)
	if r.o.coverage {
		fmt.Println("coverage of the clean run: a stage runs on a mutant only if it ran the mutated line")
	}
	if !r.o.keep {
		_ = os.RemoveAll(dir)
	}
	return nil
}

// cleanUnit runs each package's unit tests on the unmutated reference.
// With -coverage, each test runs on its own, from a test binary built with
// coverage, so that a mutant meets only the tests that run its line.
func (r *runner) cleanUnit(ctx context.Context, dir string) error {
	if r.o.coverage {
		r.cov.unit = map[string]map[string]profile{}
	}
	for i, p := range unitPackages {
		run := suiteRun{log: filepath.Join(dir, fmt.Sprintf("unit-%d.log", i))}
		out, err := r.stage(ctx, &run, func(tctx context.Context) *exec.Cmd {
			cmd := exec.CommandContext(tctx, "go", "test", "-trimpath", "-count=1", p)
			cmd.Dir, cmd.Env = r.src, r.env
			return cmd
		})
		if err != nil {
			return fmt.Errorf("clean run of the unit tests of %s: %w", p, err)
		}
		if !run.passed {
			if run.why == "" {
				run.why = firstFailure(out)
			}
			r.o.keep = true
			return &cleanRunError{detail: "the unit tests of " + p + " fail on the unmutated reference (" + run.why + ")", log: run.log}
		}
		if r.o.coverage {
			if r.cov.unit[p], err = r.unitCoverage(ctx, dir, i, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// unitCoverage runs each of package p's tests on its own, from a binary
// built with coverage, and returns what each ran. A test that fails on its
// own (it leans on another's leftovers) is an error: its coverage would
// be wrong.
func (r *runner) unitCoverage(ctx context.Context, dir string, i int, p string) (map[string]profile, error) {
	bin := filepath.Join(dir, fmt.Sprintf("unit-%d.test", i))
	if out, err := r.goCmd(ctx, "test", "-c", "-trimpath", "-cover", "-coverpkg="+r.modulePath+"/reference/...", "-o", bin, p).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building %s's tests with coverage: %v\n%s", p, err, out)
	}
	pkgDir := filepath.Join(r.src, filepath.FromSlash(strings.TrimPrefix(p, "./")))
	list := exec.CommandContext(ctx, bin, "-test.list", ".*")
	list.Dir, list.Env = pkgDir, r.env
	out, err := list.Output()
	if err != nil {
		return nil, fmt.Errorf("listing %s's tests: %w", p, err)
	}
	var names []string
	for _, name := range strings.Fields(string(out)) {
		if !strings.HasPrefix(name, "Benchmark") {
			names = append(names, name)
		}
	}
	byTest := map[string]profile{}
	var mu sync.Mutex
	var firstErr error
	sem := make(chan struct{}, max(r.o.jobs, 1))
	var wg sync.WaitGroup
	for j, name := range names {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			cover := filepath.Join(dir, fmt.Sprintf("unit-%d-%d.cover", i, j))
			run := suiteRun{log: filepath.Join(dir, fmt.Sprintf("unit-%d-%d.log", i, j))}
			_, err := r.stage(ctx, &run, func(tctx context.Context) *exec.Cmd {
				cmd := exec.CommandContext(tctx, bin, "-test.run", "^"+regexp.QuoteMeta(name)+"$", "-test.count=1", "-test.coverprofile="+cover)
				cmd.Dir, cmd.Env = pkgDir, r.env
				return cmd
			})
			if err == nil && !run.passed {
				r.o.keep = true
				err = &cleanRunError{detail: fmt.Sprintf("%s's test %s fails when run on its own, so what it covers cannot be known", p, name), log: run.log}
			}
			var prof profile
			if err == nil {
				prof, err = readProfile(cover, r.modulePath)
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				return
			}
			byTest[name] = prof
		}()
	}
	wg.Wait()
	return byTest, firstErr
}

// readCoverDir turns the counters that a stage's processes wrote to d into
// a profile; nil when d is "" (coverage off). A stage that wrote nothing
// is an error: skipping stages on an empty profile would skip them all.
func (r *runner) readCoverDir(ctx context.Context, d string) (profile, error) {
	if d == "" {
		return nil, nil
	}
	txt := d + ".txt"
	if out, err := r.goCmd(ctx, "tool", "covdata", "textfmt", "-i="+d, "-o="+txt).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go tool covdata textfmt -i=%s: %v\n%s", d, err, out)
	}
	p, err := readProfile(txt, r.modulePath)
	if err != nil {
		return nil, err
	}
	hits := 0
	for _, bs := range p {
		for _, b := range bs {
			if b.hit {
				hits++
			}
		}
	}
	if hits == 0 {
		return nil, fmt.Errorf("the clean run's coverage in %s records nothing run (%s)", d, strings.TrimSpace(filepath.Base(d)))
	}
	return p, nil
}
