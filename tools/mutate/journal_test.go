package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestJournalResumesOnlyTheSameSnapshot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	start := time.Date(2026, 11, 25, 2, 0, 0, 0, time.UTC)
	killed := &Mutant{ID: 1, File: "reference/a.go", Func: "f", Desc: "`==` → `!=`", N: 1}
	survivor := &Mutant{ID: 2, File: "reference/a.go", Func: "f", Desc: "`true` → `false`", N: 1}
	cut := &Mutant{ID: 3, File: "reference/b.go", Func: "g", Desc: "delete `h(…)`", N: 1}

	j, err := openJournal(path, "snap1", "abc123", "faults=true", start)
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range []*result{
		{m: killed, status: statusKilled, build: 2 * time.Second, suite: 3 * time.Second, detail: "1 of 9 scenarios failed"},
		{m: survivor, status: statusSurvived, stage: ""},
		{m: cut, status: statusInterrupted},
	} {
		if err := j.record(res); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.end(time.Minute); err != nil {
		t.Fatal(err)
	}

	// The same snapshot and settings: the verdicts stand, the interrupted
	// mutant runs again.
	j, err = openJournal(path, "snap1", "abc123", "faults=true", start.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if res, ok := j.taken(killed); !ok || res.status != statusKilled || res.detail != "1 of 9 scenarios failed" || res.total() != 5*time.Second || !res.resumed {
		t.Errorf("killed mutant: taken = %+v, %v; want its verdict back", res, ok)
	}
	if res, ok := j.taken(survivor); !ok || res.status != statusSurvived {
		t.Errorf("survivor: taken = %+v, %v", res, ok)
	}
	if _, ok := j.taken(cut); ok {
		t.Error("an interrupted mutant was taken as judged")
	}
	if j.earlierRuns != 1 || j.earlierElapsed != time.Minute || j.firstStarted != "2026-11-25T02:00:00Z" {
		t.Errorf("earlier runs = %d, %s, first %s; want 1, 1m0s, 2026-11-25T02:00:00Z", j.earlierRuns, j.earlierElapsed, j.firstStarted)
	}
	if err := j.end(time.Second); err != nil {
		t.Fatal(err)
	}

	// A line cut short by a kill does not lose what comes before it.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"kind":"mutant","key":"reference/b.go g: delete`); err != nil {
		t.Fatal(err)
	}
	f.Close()
	j, err = openJournal(path, "snap1", "abc123", "faults=true", start)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := j.taken(killed); !ok || j.earlierRuns != 2 {
		t.Errorf("after a cut line: killed taken %v, earlier runs %d; want true, 2", ok, j.earlierRuns)
	}
	j.end(0)

	// Another snapshot, or other settings: nothing is taken, and the file
	// starts again.
	for _, c := range []struct{ snapshot, settings string }{{"snap2", "faults=true"}, {"snap1", "faults=false"}} {
		j, err = openJournal(path, c.snapshot, "abc124", c.settings, start)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := j.taken(killed); ok || j.earlierRuns != 0 {
			t.Errorf("%s %s: a verdict of another snapshot or settings was taken", c.snapshot, c.settings)
		}
		j.end(0)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "snap1\",\"revision\":\"abc123") {
			t.Errorf("%s %s: the old journal was kept:\n%s", c.snapshot, c.settings, b)
		}
	}
}

func TestNoJournalTakesNothing(t *testing.T) {
	var j *journal
	if _, ok := j.taken(&Mutant{}); ok {
		t.Error("a nil journal took a verdict")
	}
	if err := j.record(&result{m: &Mutant{}, status: statusKilled}); err != nil {
		t.Error(err)
	}
	if err := j.end(time.Second); err != nil {
		t.Error(err)
	}
}

func TestCopyTreeDigestFollowsContent(t *testing.T) {
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d1, err := copyTree(src, filepath.Join(t.TempDir(), "x"))
	if err != nil {
		t.Fatal(err)
	}
	d2, err := copyTree(src, filepath.Join(t.TempDir(), "y"))
	if err != nil {
		t.Fatal(err)
	}
	if d1 != d2 {
		t.Errorf("the same tree copied twice: %s, %s", d1, d2)
	}
	if err := os.WriteFile(filepath.Join(src, "a.go"), []byte("package b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d3, err := copyTree(src, filepath.Join(t.TempDir(), "z"))
	if err != nil {
		t.Fatal(err)
	}
	if d3 == d1 {
		t.Error("a changed file left the digest as it was")
	}
}

// TestCopyTreeLeavesNodeModulesOut: npm's working copy, at any depth, is
// neither copied nor digested, so a fresh clone whose npm install differs
// in bookkeeping still resumes a journal.
func TestCopyTreeLeavesNodeModulesOut(t *testing.T) {
	src := t.TempDir()
	nm := filepath.Join(src, "reference", "web", "npm", "node_modules")
	if err := os.MkdirAll(nm, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d1, err := copyTree(src, filepath.Join(t.TempDir(), "x"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(nm, ".package-lock.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "y")
	d2, err := copyTree(src, dst)
	if err != nil {
		t.Fatal(err)
	}
	if d1 != d2 {
		t.Errorf("a file under node_modules changed the digest: %s, %s", d1, d2)
	}
	if _, err := os.Stat(filepath.Join(dst, "reference", "web", "npm", "node_modules")); !os.IsNotExist(err) {
		t.Errorf("node_modules was copied: %v", err)
	}
}
