package main

import (
	"os"
	"path/filepath"
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
