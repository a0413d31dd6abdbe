package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// schemaBuild is the one build of catalogd (and of each unit package's
// tests) that holds every mutant a site can hold.
type schemaBuild struct {
	bin      string            // catalogd
	held     map[int]bool      // the mutants it holds, by ID
	unitBins map[string]string // unit package → its test binary, built with the schema
	tc       *typeChecker
}

// compileErrLine is one complaint of the compiler: file:line:col: text.
var compileErrLine = regexp.MustCompile(`^(\S+\.go):(\d+):(\d+): (.*)$`)

// buildSchema writes the schema sources of ms and builds them. A site the
// compiler refuses (a bool that was a named bool type, a call statement
// where only a simple statement may stand) is dropped and its mutants are
// built on their own; the build is tried again without it. It returns nil
// (and says why) when no schema build could be made: every mutant is then
// built on its own.
func (r *runner) buildSchema(ctx context.Context, ms []*Mutant) *schemaBuild {
	t := time.Now()
	s, err := r.tryBuildSchema(ctx, ms)
	if err != nil {
		if ctx.Err() == nil {
			fmt.Printf("schema build: none (%v); every mutant is built on its own\n", err)
		}
		return nil
	}
	n := 0
	for _, m := range ms {
		if s.held[m.ID] {
			n++
		}
	}
	fmt.Printf("schema build: %d of %d mutants in one build (the others are built on their own), %d unit test binaries, in %.1fs\n",
		n, len(ms), len(s.unitBins), time.Since(t).Seconds())
	return s
}

func (r *runner) tryBuildSchema(ctx context.Context, ms []*Mutant) (*schemaBuild, error) {
	dir := filepath.Join(r.work, "schema")
	byFile := map[string][]*Mutant{}
	for _, m := range ms {
		if m.Site.Kind != siteNone {
			byFile[m.File] = append(byFile[m.File], m)
		}
	}
	dropped := map[int]bool{}
	for attempt := 1; ; attempt++ {
		if len(byFile) == 0 {
			return nil, errors.New("no mutant fits a site")
		}
		overlay := map[string]string{}
		spans := map[string][]span{}   // by file
		sources := map[string][]byte{} // by file
		helpers := map[string]bool{}   // package dirs given the helper
		for file, fms := range byFile {
			orig := filepath.Join(r.src, filepath.FromSlash(file))
			src, err := os.ReadFile(orig)
			if err != nil {
				return nil, err
			}
			out, sp := schemaSource(src, fms)
			dst := filepath.Join(dir, filepath.FromSlash(file))
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return nil, err
			}
			if err := os.WriteFile(dst, out, 0o644); err != nil {
				return nil, err
			}
			overlay[orig], spans[file], sources[file] = dst, sp, out
			pkgDir := path2dir(file)
			if !helpers[pkgDir] {
				helpers[pkgDir] = true
				name, err := packageName(src)
				if err != nil {
					return nil, err
				}
				h := filepath.Join(dir, filepath.FromSlash(pkgDir), "zz_mutant_schema.go")
				if err := os.WriteFile(h, schemaHelper(name), 0o644); err != nil {
					return nil, err
				}
				overlay[filepath.Join(r.src, filepath.FromSlash(pkgDir), "zz_mutant_schema.go")] = h
			}
		}
		ov, err := json.Marshal(map[string]map[string]string{"Replace": overlay})
		if err != nil {
			return nil, err
		}
		ovPath := filepath.Join(dir, "overlay.json")
		if err := os.WriteFile(ovPath, ov, 0o644); err != nil {
			return nil, err
		}
		bin := filepath.Join(dir, "catalogd")
		out, err := r.goCmd(ctx, "build", "-trimpath", "-overlay", ovPath, "-ldflags=-s -w",
			"-gcflags="+r.modulePath+"/reference/...=-e", "-o", bin, catalogdPkg).CombinedOutput()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err == nil {
			s := &schemaBuild{bin: bin, held: map[int]bool{}, unitBins: map[string]string{}}
			for _, fms := range byFile {
				for _, m := range fms {
					s.held[m.ID] = true
				}
			}
			// -vet=off: vet finds the schema's switches suspect ("suspect
			// or" in a mutant's branch) and would refuse the build.
			for i, p := range unitPackages {
				ub := filepath.Join(dir, fmt.Sprintf("unit-%d.test", i))
				if out, err := r.goCmd(ctx, "test", "-c", "-trimpath", "-vet=off", "-overlay", ovPath, "-o", ub, p).CombinedOutput(); err != nil {
					fmt.Printf("schema build: %s's tests did not build with it (%s); its mutants' unit tests are built on their own\n", p, firstLine(out))
					continue
				}
				s.unitBins[p] = ub
			}
			return s, nil
		}
		if attempt == 10 {
			return nil, fmt.Errorf("still refused after %d tries: %s", attempt, firstLine(out))
		}
		// Drop what the compiler refused: the innermost site around each
		// complaint, or the whole file when a complaint lies outside every
		// site (a function left without its terminating statement).
		progress := false
		for _, line := range strings.Split(string(out), "\n") {
			mm := compileErrLine.FindStringSubmatch(strings.TrimSpace(line))
			if mm == nil {
				continue
			}
			file := ""
			for f := range byFile {
				if strings.HasSuffix(filepath.ToSlash(mm[1]), f) {
					file = f
				}
			}
			if file == "" {
				continue
			}
			ln, _ := strconv.Atoi(mm[2])
			col, _ := strconv.Atoi(mm[3])
			g := innermost(spans[file], offsetOf(sources[file], ln, col))
			keep := byFile[file][:0:0]
			for _, m := range byFile[file] {
				if g == nil || (m.Site.Start == g.Start && m.Site.End == g.End) {
					dropped[m.ID] = true
					progress = true
					continue
				}
				keep = append(keep, m)
			}
			if len(keep) == 0 {
				delete(byFile, file)
			} else {
				byFile[file] = keep
			}
		}
		if !progress {
			return nil, fmt.Errorf("refused, and no site to blame: %s", firstLine(out))
		}
	}
}

// firstLine is the first line of a command's output that is not a
// package header.
func firstLine(out []byte) string {
	for _, line := range strings.Split(string(out), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			return line
		}
	}
	return "no output"
}

// schemaUnitCmd runs the schema build's tests of package p with mutant m
// chosen; nil when p's tests have no schema build.
func (r *runner) schemaUnitCmd(tctx context.Context, p string, tests []string, m *Mutant) *exec.Cmd {
	if r.schema == nil || !r.schema.held[m.ID] || r.schema.unitBins[p] == "" {
		return nil
	}
	args := []string{"-test.count=1", "-test.failfast"}
	if tests != nil {
		args = append(args, "-test.run", testsPattern(tests))
	}
	cmd := exec.CommandContext(tctx, r.schema.unitBins[p], args...)
	cmd.Dir = filepath.Join(r.src, filepath.FromSlash(strings.TrimPrefix(p, "./")))
	cmd.Env = append(append([]string(nil), r.env...), mutantEnv+"="+strconv.Itoa(m.ID))
	return cmd
}

// testsPattern is a -run pattern for exactly these top-level tests.
func testsPattern(tests []string) string {
	quoted := make([]string, len(tests))
	for i, t := range tests {
		quoted[i] = regexp.QuoteMeta(t)
	}
	return "^(" + strings.Join(quoted, "|") + ")$"
}

// startSchema makes the schema build of ms, with its type checker, and
// sees that with no mutant chosen it passes the suite as the reference
// does; when it does not, or cannot be made, every mutant is built on its
// own.
func (r *runner) startSchema(ctx context.Context, ms []*Mutant) error {
	s := r.buildSchema(ctx, ms)
	if s == nil {
		return ctx.Err()
	}
	tc, err := newTypeChecker(ctx, r)
	if err != nil {
		fmt.Printf("schema build: not used (%v)\n", err)
		return ctx.Err()
	}
	s.tc = tc
	dir := filepath.Join(r.work, "schema", "clean")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	t := time.Now()
	run, err := r.suite(ctx, s.bin, "m_0", dir, withoutBrowser...)
	switch {
	case err != nil:
		return err
	case !run.passed:
		fmt.Printf("schema build: not used: with no mutant chosen it fails the suite (%s; %s)\n", run.why, run.log)
		r.o.keep = true
		return nil
	}
	fmt.Printf("schema build, no mutant chosen: the suite passes (%.1fs)\n", time.Since(t).Seconds())
	r.schema = s
	return nil
}
