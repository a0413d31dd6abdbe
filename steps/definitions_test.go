package steps

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	gherkin "github.com/cucumber/gherkin/go/v42"
	messages "github.com/cucumber/messages/go/v34"
)

// These tests need no target: they check the features against the step
// definitions, so that a run never meets an undefined or ambiguous step.

type registeredStep struct {
	re      *regexp.Regexp
	handler any
	used    int
}

type stepRecorder struct{ steps []*registeredStep }

func (r *stepRecorder) Step(expr, handler any) {
	r.steps = append(r.steps, &registeredStep{re: regexp.MustCompile(expr.(string)), handler: handler})
}

// pickles parses every feature file into the scenarios godog runs.
func pickles(t *testing.T) []*messages.Pickle {
	t.Helper()
	paths, err := filepath.Glob("../features/*.feature")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no feature files found: %v", err)
	}
	var all []*messages.Pickle
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		newID := (&messages.Incrementing{}).NewId
		doc, err := gherkin.ParseGherkinDocument(f, newID)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		all = append(all, gherkin.Pickles(*doc, path, newID)...)
	}
	return all
}

func TestEveryStepIsDefinedOnce(t *testing.T) {
	rec := &stepRecorder{}
	registerSteps(rec)

	ctxType := reflect.TypeOf((*context.Context)(nil)).Elem()
	errType := reflect.TypeOf((*error)(nil)).Elem()
	for _, s := range rec.steps {
		expr := s.re.String()
		if !strings.HasPrefix(expr, "^") || !strings.HasSuffix(expr, "$") {
			t.Errorf("step %q is not anchored", expr)
		}
		h := reflect.TypeOf(s.handler)
		if h.Kind() != reflect.Func || h.NumIn() < 1 || h.In(0) != ctxType || h.NumOut() != 1 || h.Out(0) != errType {
			t.Errorf("step %q: handler %s is not func(context.Context, ...) error", expr, h)
			continue
		}
		if got, want := h.NumIn()-1, s.re.NumSubexp(); got != want {
			t.Errorf("step %q: handler takes %d arguments, the pattern captures %d", expr, got, want)
		}
		for i := 1; i < h.NumIn(); i++ {
			if k := h.In(i).Kind(); k != reflect.String && k != reflect.Int {
				t.Errorf("step %q: argument %d is a %s, expected string or int", expr, i, k)
			}
		}
	}

	for _, p := range pickles(t) {
		for _, st := range p.Steps {
			var matches []string
			for _, s := range rec.steps {
				if s.re.MatchString(st.Text) {
					s.used++
					matches = append(matches, s.re.String())
				}
			}
			switch len(matches) {
			case 0:
				t.Errorf("%s: scenario %q: undefined step %q", p.Uri, p.Name, st.Text)
			case 1:
			default:
				t.Errorf("%s: scenario %q: step %q is ambiguous: %v", p.Uri, p.Name, st.Text, matches)
			}
		}
	}
	for _, s := range rec.steps {
		if s.used == 0 {
			t.Errorf("step %q is used by no feature", s.re.String())
		}
	}
}

// TestScenarioNamesAreUnique keeps every scenario addressable by its name,
// in reports and in baselines.
func TestScenarioNamesAreUnique(t *testing.T) {
	seen := map[string]string{}
	for _, p := range pickles(t) {
		if where, dup := seen[p.Name]; dup {
			t.Errorf("%s: scenario %q has the same name as one in %s", p.Uri, p.Name, where)
		}
		seen[p.Name] = p.Uri
	}
}
