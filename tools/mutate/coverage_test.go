package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadProfileAndRuns(t *testing.T) {
	const module = "example.com/cat"
	text := `mode: set
example.com/cat/reference/a.go:10.20,12.3 2 1
example.com/cat/reference/a.go:12.3,14.2 1 0
example.com/cat/reference/a.go:20.1,22.2 1 0
example.com/cat/reference/a.go:20.1,22.2 1 1
example.com/other/b.go:1.1,2.2 1 1
`
	path := filepath.Join(t.TempDir(), "cover.txt")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := readProfile(path, module)
	if err != nil {
		t.Fatal(err)
	}
	if len(p) != 1 || len(p["reference/a.go"]) != 4 {
		t.Fatalf("profile = %v; want the four blocks of reference/a.go only", p)
	}
	at := func(file string, line, col int) *Mutant { return &Mutant{File: file, Line: line, Col: col} }
	for _, c := range []struct {
		name string
		m    *Mutant
		want bool
	}{
		{"inside a block run", at("reference/a.go", 11, 5), true},
		{"at a run block's first column", at("reference/a.go", 10, 20), true},
		{"before a run block's first column, in no other", at("reference/a.go", 10, 19), true},
		{"at the end column of a run block, which starts the next, not run", at("reference/a.go", 12, 3), false},
		{"inside a block not run", at("reference/a.go", 13, 1), false},
		{"a block listed twice, run once (merged processes)", at("reference/a.go", 21, 1), true},
		{"in no block (a case expression): unknown, so it runs", at("reference/a.go", 16, 4), true},
		{"a file the profile does not name", at("reference/c.go", 1, 1), true},
	} {
		if got := p.runs(c.m); got != c.want {
			t.Errorf("%s: runs(%s) = %v; want %v", c.name, c.m.Pos(), got, c.want)
		}
	}
	if !profile(nil).runs(at("reference/a.go", 13, 1)) {
		t.Error("no profile (coverage off) must run every mutant")
	}
}

func TestReadProfileRefusesGarbage(t *testing.T) {
	for _, line := range []string{
		"example.com/cat/reference/a.go 10.20,12.3 2 1",
		"example.com/cat/reference/a.go:10.20-12.3 2 1",
		"example.com/cat/reference/a.go:10.20,12.3 2",
		"example.com/cat/reference/a.go:10,12.3 2 1",
		"example.com/cat/reference/a.go:10.20,12.3 2 x",
	} {
		path := filepath.Join(t.TempDir(), "cover.txt")
		if err := os.WriteFile(path, []byte("mode: set\n"+line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readProfile(path, "example.com/cat"); err == nil {
			t.Errorf("readProfile took %q", line)
		}
	}
}

func TestUnitPackagesForRunsOnlyTestsThatRanTheLine(t *testing.T) {
	const mod = "example.com/cat"
	ran := profile{"reference/a.go": {{startLine: 10, startCol: 1, endLine: 12, endCol: 2, hit: true}}}
	notRan := profile{"reference/a.go": {{startLine: 10, startCol: 1, endLine: 12, endCol: 2, hit: false}}}
	deps := map[string]bool{mod + "/reference": true}
	r := &runner{modulePath: mod, unitDeps: map[string]map[string]bool{}}
	for _, p := range unitPackages {
		r.unitDeps[p] = deps
	}
	r.unitDeps["./reference/jwt"] = map[string]bool{mod + "/reference/jwt": true}
	m := &Mutant{File: "reference/a.go", Line: 11, Col: 3}

	// Without coverage: every package that imports the mutated one, its
	// own first, all their tests.
	got := r.unitPackagesFor(m)
	if len(got) != len(unitPackages)-1 || got[0].pkg != "./reference" || got[0].tests != nil {
		t.Fatalf("without coverage: %+v; want every importing package, ./reference first, all tests", got)
	}

	r.cov.unit = map[string]map[string]profile{
		"./reference/httpapi":  {"TestB": ran, "TestA": ran, "TestC": notRan},
		"./reference":          {"TestOwn": ran},
		"./reference/postgres": {"TestNo": notRan},
		"./reference/jwt":      {"TestJWT": ran}, // does not import reference
	}
	got = r.unitPackagesFor(m)
	want := []unitRun{{"./reference", []string{"TestOwn"}}, {"./reference/httpapi", []string{"TestA", "TestB"}}}
	check := func(what string) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %+v; want %+v", what, got, want)
		}
		for i := range want {
			if got[i].pkg != want[i].pkg || strings.Join(got[i].tests, ",") != strings.Join(want[i].tests, ",") {
				t.Errorf("%s, run %d: %+v; want %+v", what, i, got[i], want[i])
			}
		}
	}
	check("with coverage")

	// Not its own package's: a package with a test in a._test.go first.
	r.cov.unit["./reference"] = map[string]profile{"TestOwn": notRan}
	r.cov.unit["./reference/postgres"] = map[string]profile{"TestNo": notRan, "TestStart": ran}
	r.testFiles = map[string]map[string]string{"./reference/postgres": {"TestStart": "a_test.go", "TestNo": "b_test.go"}, "./reference/httpapi": {"TestA": "x_test.go"}}
	got = r.unitPackagesFor(m)
	want = []unitRun{{"./reference/postgres", []string{"TestStart"}}, {"./reference/httpapi", []string{"TestA", "TestB"}}}
	check("the namesake's package first")
}
