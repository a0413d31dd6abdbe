package steps

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// supportFiles are the files of the package that hold no steps: the world
// a scenario lives in, the client the steps talk through, what the runner
// takes of the steps (definitions.go, preflight.go), and the run's hold on
// the target with its journal (journal.go, trace.go, target_client.go).
var supportFiles = []string{
	"client", "definitions", "doc", "documents", "journal", "native_users", "outcome",
	"pending", "preflight", "sessions", "steps", "switches", "target_client", "trace", "world",
}

// TestEveryFeatureHasItsStepsFile keeps doc.go's rule: steps/x.go holds the
// steps of features/x.feature and registers them, steps.go lists them in
// the order of features/, and every other file is shared vocabulary or
// support, by name.
func TestEveryFeatureHasItsStepsFile(t *testing.T) {
	paths, err := filepath.Glob("../features/*.feature")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no feature files found: %v", err)
	}
	var features []string
	for _, p := range paths {
		features = append(features, strings.TrimSuffix(filepath.Base(p), ".feature"))
	}
	var listed []string
	for _, f := range featureSteps {
		listed = append(listed, f.name)
	}
	if !slices.Equal(listed, features) {
		t.Errorf("featureSteps lists %v; the features are %v (one entry each, in their order)", listed, features)
	}

	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(f, ".go")
		if strings.HasSuffix(name, "_test") {
			continue
		}
		shared := slices.ContainsFunc(sharedSteps, func(s stepFile) bool { return s.name == name })
		if !slices.Contains(features, name) && !shared && !slices.Contains(supportFiles, name) {
			t.Errorf("steps/%s names no feature and is neither shared vocabulary (sharedSteps) nor support (supportFiles)", f)
		}
	}
	for _, f := range slices.Concat(sharedSteps, featureSteps) {
		fn := runtime.FuncForPC(reflect.ValueOf(f.register).Pointer())
		file, _ := fn.FileLine(fn.Entry())
		if got, want := filepath.Base(file), f.name+".go"; got != want {
			t.Errorf("%s registers the steps of %s but is defined in %s", fn.Name(), want, got)
		}
		if _, err := os.Stat(f.name + ".go"); err != nil {
			t.Errorf("steps/%s.go: %v", f.name, err)
		}
	}
}

// TestStepsSitWithTheirFeature checks that a feature's file registers only
// steps its feature uses (a step shared with other features may sit there
// too), and that a file of shared vocabulary registers none that only one
// feature uses.
func TestStepsSitWithTheirFeature(t *testing.T) {
	used := map[string]map[string]bool{} // step text -> features using it
	for _, p := range pickles(t) {
		feature := strings.TrimSuffix(filepath.Base(p.Uri), ".feature")
		for _, s := range p.Steps {
			if used[s.Text] == nil {
				used[s.Text] = map[string]bool{}
			}
			used[s.Text][feature] = true
		}
	}
	usersOf := func(re *regexp.Regexp) map[string]bool {
		by := map[string]bool{}
		for text, fs := range used {
			if re.MatchString(text) {
				for f := range fs {
					by[f] = true
				}
			}
		}
		return by
	}
	for _, f := range featureSteps {
		rec := &stepRecorder{}
		f.register(rec)
		for _, s := range rec.steps {
			if !usersOf(s.re)[f.name] {
				t.Errorf("steps/%s.go registers %q, which features/%s.feature does not use", f.name, s.re, f.name)
			}
		}
	}
	for _, f := range sharedSteps {
		rec := &stepRecorder{}
		f.register(rec)
		for _, s := range rec.steps {
			if by := usersOf(s.re); len(by) == 1 {
				for only := range by {
					t.Errorf("steps/%s.go registers %q, which only features/%s.feature uses: it belongs in steps/%s.go", f.name, s.re, only, only)
				}
			}
		}
	}
}
