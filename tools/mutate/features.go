package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	csrunner "github.com/catalogspec/catalogspec/runner"
)

// Most of a mutant's cost is the suite, and most of the suite never runs
// the mutated line: a mutant of the Rest.li path meets the tag scenarios
// too. With -select, the clean run also runs the suite's features one at a
// time, each recording what it ran, and a mutant meets first only the
// features that ran its line, which kill most mutants in a few seconds
// (the suite stops at the first failure). A mutant they let through then
// meets the later stages, and last the whole suite: a feature that never
// runs the line can still see what another one's run of it left behind
// (a row written wrong, a cache filled wrong), so no verdict rests on the
// selection alone.

// featureRun is one feature's scenarios (without the @ui ones) and what
// they ran of the reference in the clean run.
type featureRun struct {
	file string   // features/x.feature
	ids  []string // the @id tags of its scenarios
	ran  profile
}

// suiteFeatures reads the snapshot's features and returns each one that has
// scenarios outside the @ui tier, with the ids that select them.
func suiteFeatures(src string) ([]featureRun, error) {
	catalog, err := csrunner.ReadScenarios(os.DirFS(filepath.Join(src, "features")), "features")
	if err != nil {
		return nil, err
	}
	var out []featureRun
	at := map[string]int{}
	for _, s := range catalog {
		if slices.Contains(s.Tags, "@ui") || s.ID == "" {
			continue
		}
		i, ok := at[s.Feature]
		if !ok {
			i = len(out)
			at[s.Feature] = i
			out = append(out, featureRun{file: s.Feature})
		}
		if tag := "@id:" + s.ID; !slices.Contains(out[i].ids, tag) {
			out[i].ids = append(out[i].ids, tag)
		}
	}
	return out, nil
}

// cleanFeatures runs each feature on its own against the clean build at
// bin, recording what it ran.
func (r *runner) cleanFeatures(ctx context.Context, bin, dir string) error {
	fs, err := suiteFeatures(r.src)
	if err != nil {
		return fmt.Errorf("reading the features: %w", err)
	}
	for i := range fs {
		f := &fs[i]
		name := strings.TrimSuffix(filepath.Base(f.file), ".feature")
		d := filepath.Join(dir, "cover-feature-"+name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		fdir := filepath.Join(dir, "feature-"+name)
		if err := os.MkdirAll(fdir, 0o755); err != nil {
			return err
		}
		env := append(slices.Clone(withoutBrowser), "GOCOVERDIR="+d, "CATALOGSPEC_TAGS="+strings.Join(f.ids, ","))
		run, err := r.suite(ctx, bin, "m_0", fdir, env...)
		if err != nil {
			return fmt.Errorf("clean run of %s: %w", f.file, err)
		}
		if !run.passed {
			r.o.keep = true
			return &cleanRunError{detail: f.file + " fails on its own against the unmutated reference (" + run.why + ")", log: run.log}
		}
		if f.ran, err = r.readCoverDir(ctx, d); err != nil {
			return err
		}
	}
	r.cov.features = fs
	return nil
}

// selectFor returns the tag expression of the features that ran m's line,
// their files, and whether they are fewer than all of them (when they are
// all, the selection is the whole suite).
func (r *runner) selectFor(m *Mutant) (tags string, files []string, part bool) {
	if r.cov.features == nil {
		return "", nil, false
	}
	var ids []string
	for _, f := range r.cov.features {
		if f.ran.runs(m) {
			ids = append(ids, f.ids...)
			files = append(files, filepath.Base(f.file))
		}
	}
	if len(files) == len(r.cov.features) {
		return "", nil, false
	}
	return strings.Join(ids, ","), files, true
}
