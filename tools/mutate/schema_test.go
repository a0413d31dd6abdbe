package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// schemaSample has the constructs sites meet: nested conditions, a
// condition over several lines with a comment, a tagless switch, returns
// of errors, call statements with conditions in their arguments, a
// function literal, a package-level initializer, and a recover (no site).
const schemaSample = `package main

import (
	"errors"
	"fmt"
	"os"
)

var ready = len(os.Args) > 0 && true

type T struct{ n int }

func (t *T) add(k int) { t.n += k }

func check(a, b int) error {
	if a == b && !(a < 0) {
		return errors.New("same")
	}
	if a > b || // a comment inside
		b < -5 {
		return fmt.Errorf("order %d %d", a, b)
	}
	return nil
}

func classify(x int) string {
	switch {
	case x < 0:
		return "neg"
	case x == 0 || x > 100:
		return "edge"
	}
	return "pos"
}

func safe(f func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			ok = false
		}
	}()
	f()
	return true
}

func guard() (caught bool) {
	defer func() { caught = recover() != nil }()
	panic("y")
}

func main() {
	t := &T{}
	for i := 0; i < 4 && ready; i++ {
		t.add(i)
	}
	t.add(len(fmt.Sprint(check(1, 1) != nil, check(3, 2) == nil)))
	keep := func(v bool) bool { return !v }
	fmt.Println(t.n, check(1, 1), check(3, 2), check(2, 3), classify(-1), classify(0), classify(7), keep(false),
		safe(func() { panic("x") }), guard(), ready)
}
`

// TestSchemaRunsEachMutantAsItsOwnBuild: for every mutant of the sample
// that a site holds, the schema build with that mutant chosen prints what
// the mutant built on its own prints, and with none chosen what the
// original prints.
func TestSchemaRunsEachMutantAsItsOwnBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program once for each mutant")
	}
	ms, err := Generate("main.go", []byte(schemaSample))
	if err != nil {
		t.Fatal(err)
	}
	var held []*Mutant
	for _, m := range ms {
		if m.Site.Kind != siteNone {
			held = append(held, m)
		}
	}
	if len(held) < 20 {
		t.Fatalf("only %d of %d mutants fit a site", len(held), len(ms))
	}
	for _, m := range ms {
		if m.Site.Kind != siteNone && m.Site.Start <= 0 {
			t.Fatalf("%s has no site range", m.Name())
		}
	}

	build := func(t *testing.T, src []byte, extra map[string][]byte) string {
		t.Helper()
		dir := t.TempDir()
		files := map[string][]byte{"go.mod": []byte("module sample\n\ngo 1.22\n"), "main.go": src}
		for k, v := range extra {
			files[k] = v
		}
		for name, b := range files {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command("go", "build", "-o", "prog", ".")
		cmd.Dir = dir
		if err := cmd.Run(); err != nil {
			return "" // does not compile
		}
		return filepath.Join(dir, "prog")
	}
	run := func(t *testing.T, bin string, mutant int) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin)
		cmd.Env = append(os.Environ(), mutantEnv+"="+strconv.Itoa(mutant))
		out, _ := cmd.CombinedOutput() // a mutant may panic: its output is compared too
		if ctx.Err() != nil {
			return "(runs forever)"
		}
		return string(out)
	}

	schema, _ := schemaSource([]byte(schemaSample), held)
	schemaBin := build(t, schema, map[string][]byte{"zz_mutant_schema.go": schemaHelper("main")})
	if schemaBin == "" {
		t.Fatalf("the schema does not compile:\n%s", schema)
	}
	origBin := build(t, []byte(schemaSample), nil)
	if got, want := run(t, schemaBin, 0), run(t, origBin, 0); got != want {
		t.Fatalf("no mutant chosen: %q; the original prints %q", got, want)
	}
	differ := 0
	for _, m := range held {
		bin := build(t, m.Apply([]byte(schemaSample)), nil)
		if bin == "" {
			continue // not viable on its own: the type checker's to say
		}
		want := run(t, bin, 0)
		if got := run(t, schemaBin, m.ID); got != want {
			t.Errorf("%s %s (%s): the schema build prints %q; built on its own, %q", m.Name(), m.Pos(), m.Desc, got, want)
		}
		if want != run(t, origBin, 0) {
			differ++
		}
	}
	if differ < len(held)/2 {
		t.Errorf("only %d of %d mutants change the sample's output: the comparison shows little", differ, len(held))
	}
}

func TestRecoverIsNoSite(t *testing.T) {
	ms, err := Generate("main.go", []byte(schemaSample))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.Func == "guard" && m.Op == OpCompare && m.Site.Kind != siteNone {
			t.Errorf("%s (%s) in guard: a site around recover()", m.Name(), m.Desc)
		}
		if m.Func == "safe" && m.Op == OpCompare && m.Site.Kind == siteNone {
			t.Errorf("%s (%s) in safe: r != nil calls no recover(), yet it is no site", m.Name(), m.Desc)
		}
	}
}
