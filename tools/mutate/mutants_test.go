package main

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// want is one expected mutant: its description and the line it changes, as
// it reads after the change.
type want struct {
	op   Operator
	desc string
	line string
}

// checkMutants generates the mutants of src and checks that they are
// exactly wants, in source order, each changing one line to the wanted text
// and leaving every other byte as it was.
func checkMutants(t *testing.T, src string, wants []want) []*Mutant {
	t.Helper()
	ms, err := Generate("p/p.go", []byte(src))
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, fmt.Sprintf("%s %s", m.Op, m.Desc))
	}
	var wanted []string
	for _, w := range wants {
		wanted = append(wanted, fmt.Sprintf("%s %s", w.op, w.desc))
	}
	if !slices.Equal(got, wanted) {
		t.Fatalf("mutants:\n  got  %q\n  want %q", got, wanted)
	}
	for i, m := range ms {
		checkOneChange(t, src, m, wants[i].line)
	}
	return ms
}

// checkOneChange checks that m replaces exactly its byte range and that
// the result differs from src in line m.Line only, which reads line.
func checkOneChange(t *testing.T, src string, m *Mutant, line string) {
	t.Helper()
	out := string(m.Apply([]byte(src)))
	if !strings.HasPrefix(out, src[:m.Start]) || !strings.HasSuffix(out, src[m.End:]) ||
		out[m.Start:len(out)-(len(src)-m.End)] != m.Repl {
		t.Errorf("%s: the source outside %d:%d changed", m.Desc, m.Start, m.End)
	}
	before, after := strings.Split(src, "\n"), strings.Split(out, "\n")
	if len(before) != len(after) {
		t.Fatalf("%s: line count changed from %d to %d", m.Desc, len(before), len(after))
	}
	for i := range before {
		switch {
		case i+1 == m.Line && after[i] != line:
			t.Errorf("%s: line %d is %q, want %q", m.Desc, m.Line, after[i], line)
		case i+1 != m.Line && after[i] != before[i]:
			t.Errorf("%s: line %d changed too: %q", m.Desc, i+1, after[i])
		}
	}
}

func TestCompare(t *testing.T) {
	checkMutants(t, `package p

func f(a, b int) {
	if a == b {
		_ = a
	}
	_ = a != b
	_ = a < b
	_ = a <= b
	_ = a > b
	_ = a >= b
}
`, []want{
		{OpCompare, "`==` → `!=`", "\tif a != b {"},
		{OpCompare, "`!=` → `==`", "\t_ = a == b"},
		{OpCompare, "`<` → `<=`", "\t_ = a <= b"},
		{OpCompare, "`<=` → `<`", "\t_ = a < b"},
		{OpCompare, "`>` → `>=`", "\t_ = a >= b"},
		{OpCompare, "`>=` → `>`", "\t_ = a > b"},
	})
}

func TestLogicalAndNegate(t *testing.T) {
	checkMutants(t, `package p

func f(a, b bool) {
	if a && b {
		_ = a
	}
	for a || b {
		_ = b
	}
	if ready(a) {
		_ = a
	}
	switch {
	case a:
		_ = b
	}
}
`, []want{
		{OpNegate, "negate `a && b`", "\tif !(a && b) {"},
		{OpLogical, "`&&` → `||`", "\tif a || b {"},
		{OpNegate, "negate `a || b`", "\tfor !(a || b) {"},
		{OpLogical, "`||` → `&&`", "\tfor a && b {"},
		{OpNegate, "negate `ready(…)`", "\tif !(ready(a)) {"},
		{OpNegate, "negate `a`", "\tcase !(a):"},
	})
}

func TestRemoveNot(t *testing.T) {
	ms := checkMutants(t, `package p

func f(a bool) {
	if !a {
		_ = a
	}
	_ = !a
}
`, []want{
		{OpRemoveNot, "`!a` → `a`", "\tif a {"},
		{OpRemoveNot, "`!a` → `a`", "\t_ = a"},
	})
	if ms[0].Key() != "p/p.go f: `!a` → `a` #1" || ms[1].Key() != "p/p.go f: `!a` → `a` #2" {
		t.Errorf("keys %q and %q: want occurrences #1 and #2", ms[0].Key(), ms[1].Key())
	}
}

func TestReturnNil(t *testing.T) {
	checkMutants(t, `package p

import "fmt"

var errNo error

func f() (int, error) {
	return 0, errNo
}

func g() error {
	return nil
}

func h() int {
	return 0
}

func named() (n int, err error) {
	return
}

func three() (x, y int, err error) {
	return 0, 0, fmt.Errorf("%d", 1)
}

func two() (int, int, error) {
	return three()
}

func lit() {
	_ = func() error { return errNo }
}
`, []want{
		{OpReturnNil, "return `errNo` → `nil`", "\treturn 0, nil"},
		{OpInt, "`0` → `1`", "\treturn 1"},
		{OpReturnNil, "return `fmt.Errorf(…)` → `nil`", "\treturn 0, 0, nil"},
		{OpReturnNil, "return `errNo` → `nil`", "\t_ = func() error { return nil }"},
	})
}

func TestPrivilege(t *testing.T) {
	checkMutants(t, `package p

var all = []string{PrivCreateTags}

func f(held map[string]bool) {
	_ = s.require(ctx, PrivCreateTags, reference.PrivManageAccessTokens)
	_ = held[PrivDeleteEntity]
	_ = []string{PrivGetEntity}
	x := PrivManageTags
	_ = x
}
`, []want{
		{OpPrivilege, "`PrivCreateTags` → `PrivManageTags`", "\t_ = s.require(ctx, PrivManageTags, reference.PrivManageAccessTokens)"},
		{OpPrivilege, "`PrivManageAccessTokens` → `PrivGenerateAccessTokens`", "\t_ = s.require(ctx, PrivCreateTags, reference.PrivGenerateAccessTokens)"},
		{OpPrivilege, "`PrivManageAccessTokens` → `PrivManagePolicies`", "\t_ = s.require(ctx, PrivCreateTags, reference.PrivManagePolicies)"},
		{OpPrivilege, "`PrivDeleteEntity` → `PrivEditEntity`", "\t_ = held[PrivEditEntity]"},
		{OpPrivilege, "`PrivGetEntity` → `PrivEditEntity`", "\t_ = []string{PrivEditEntity}"},
	})
}

func TestInt(t *testing.T) {
	checkMutants(t, `package p

const limit = 10

var days = 7 * day

func f(n int) {
	var buf [32]byte
	_ = buf
	_ = n + 1
	_ = n * 0
	_ = n - 20
	_ = 0x10
	_ = 1_000
	_ = fmt.Errorf("%d", 7)
	_ = errors.New("x")
	_ = Errorf(EBADREQUEST, "%s", truncate(s, 100))
}
`, []want{
		{OpInt, "`7` → `8`", "var days = 8 * day"},
		{OpInt, "`1` → `0`", "\t_ = n + 0"},
		{OpInt, "`0` → `1`", "\t_ = n * 1"},
		{OpInt, "`20` → `21`", "\t_ = n - 21"},
		{OpInt, "`0x10` → `17`", "\t_ = 17"},
		{OpInt, "`1_000` → `1001`", "\t_ = 1001"},
	})
}

func TestDeleteCall(t *testing.T) {
	checkMutants(t, `package p

func f(w http.ResponseWriter, logger *slog.Logger, err error) {
	w.Header().Set("Allow", "GET")
	pr.Out.Header.Del("X-DataHub-Actor")
	s.logger.ErrorContext(ctx, "failed", "error", err, "n", 3)
	s.cfg.Logger.DebugContext(ctx, "token rejected", "reason", err)
	logger.Info("x", "ok", true)
	slog.Warn("y")
	next.ServeHTTP(w, r)
	defer cleanup()
	go work()
}
`, []want{
		{OpDeleteCall, "delete `w.Header().Set(\"Allow\", …)`", "\t"},
		{OpDeleteCall, "delete `pr.Out.Header.Del(\"X-DataHub-Actor\")`", "\t"},
		{OpDeleteCall, "delete `next.ServeHTTP(…)`", "\t"},
	})
}

func TestBool(t *testing.T) {
	checkMutants(t, `package p

const on = true

func f() bool {
	ok := true
	_ = ok
	return false
}

func g() (bool, error) {
	return false, errNo
}
`, []want{
		{OpBool, "`true` → `false`", "\tok := false"},
		{OpBool, "`false` → `true`", "\treturn true"},
		{OpReturnNil, "return `errNo` → `nil`", "\treturn false, nil"},
	})
}

// Keys carry no line number: code moving down leaves them as they were.
func TestKeysSurviveMovedLines(t *testing.T) {
	src := `package p

func (s *Service) f(a, b int) bool {
	return a == b
}
`
	moved := strings.Replace(src, "package p\n", "package p\n\n// A comment.\nvar x = y\n", 1)
	a, err := Generate("p/p.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Generate("p/p.go", []byte(moved))
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 1 || len(b) != 1 || a[0].Line == b[0].Line || a[0].Key() != b[0].Key() {
		t.Fatalf("want one mutant with the same key on another line, got %v and %v", a, b)
	}
	if k := a[0].Key(); k != "p/p.go (*Service).f: `==` → `!=` #1" {
		t.Errorf("key %q", k)
	}
}

func TestEquivalentsFile(t *testing.T) {
	e := &equivalents{reasons: map[string]string{}}
	in := "# comment\n\np/p.go f: `==` → `!=` #1 => both branches do the same\n"
	if err := e.parse("eq.txt", bufio.NewScanner(strings.NewReader(in))); err != nil {
		t.Fatal(err)
	}
	ms, err := Generate("p/p.go", []byte("package p\n\nfunc f(a, b int) bool {\n\treturn a == b\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !e.has(ms[0]) || e.reason(ms[0]) != "both branches do the same" || len(e.unknown(ms)) != 0 {
		t.Errorf("the listed mutant is not recognised")
	}
	for _, bad := range []string{"p/p.go f: `==` → `!=` #1\n", "p/p.go f: `==` → `!=` #1 => \n", "a => b\na => c\n"} {
		e := &equivalents{reasons: map[string]string{}}
		if err := e.parse("eq.txt", bufio.NewScanner(strings.NewReader(bad))); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

func TestSpreadIsDeterministicAndEven(t *testing.T) {
	var ms []*Mutant
	for i := 1; i <= 100; i++ {
		ms = append(ms, &Mutant{ID: i})
	}
	got := spread(ms, 4)
	var ids []int
	for _, m := range got {
		ids = append(ids, m.ID)
	}
	if !slices.Equal(ids, []int{13, 38, 63, 88}) {
		t.Errorf("spread picked %v", ids)
	}
	if len(spread(ms, 500)) != 100 {
		t.Errorf("a sample larger than the set should be the set")
	}
}

func TestSelectMutants(t *testing.T) {
	ms := []*Mutant{{File: "reference/urn.go"}, {File: "reference/httpapi/proxy.go"}, {File: "reference/graph/handler.go"}}
	for spec, n := range map[string]int{
		"":                              3,
		"reference/urn.go":              1,
		"./reference/httpapi/*.go":      1,
		"urn.go, handler.go":            2,
		"reference/*.go":                1,
		"reference/*/*.go,urn.go":       3,
		"reference/httpapi/proxy.go,x/": 1,
	} {
		got, err := selectMutants(ms, spec)
		if err != nil || len(got) != n {
			t.Errorf("%q: got %d (%v), want %d", spec, len(got), err, n)
		}
	}
	if _, err := selectMutants(ms, "nothing.go"); err == nil {
		t.Errorf("a selection of nothing should be an error")
	}
}

func TestIsGenerated(t *testing.T) {
	if !isGenerated([]byte("// Code generated by github.com/99designs/gqlgen, DO NOT EDIT.\n\npackage graph\n")) {
		t.Error("gqlgen output not recognised as generated")
	}
	if isGenerated([]byte("package graph\n\n// Code generated by hand, DO NOT EDIT.\n")) {
		t.Error("a marker after the package clause does not count")
	}
}

func TestWithDatabase(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://postgres@127.0.0.1:5432/catalog?sslmode=disable": "postgres://postgres@127.0.0.1:5432/m_7?sslmode=disable",
		"host=/tmp user=postgres dbname=catalog":                     "host=/tmp user=postgres dbname=catalog dbname=m_7",
		// pgprovider's local cluster: its unix socket, no TCP (issue 22).
		"postgres://postgres@/catalog?host=/tmp/pg%20data&port=5432&sslmode=disable": "postgres://postgres@/m_7?host=/tmp/pg%20data&port=5432&sslmode=disable",
	} {
		got, err := withDatabase(in, "m_7")
		if err != nil || got != want {
			t.Errorf("withDatabase(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// Generating from the reference itself must work and never produce two
// mutants with one key.
func TestReferenceKeysUnique(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Skip(err)
	}
	all, err := generateAll(root)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, m := range all {
		if seen[m.Key()] {
			t.Errorf("duplicate key %q", m.Key())
		}
		seen[m.Key()] = true
		if bytes.Contains([]byte(m.Desc), []byte("\n")) {
			t.Errorf("%s: description on more than one line", m.Name())
		}
	}
	if len(all) == 0 {
		t.Error("no mutant in the reference")
	}
}

func TestCompileError(t *testing.T) {
	out := "# github.com/catalogspec/catalogspec/reference\n../m562/service_policies.go:28:2: declared and not used: key\n"
	got := compileError([]byte(out), "/tmp/catalogspec-mutate-1/m562/service_policies.go", "reference/service_policies.go")
	if want := "reference/service_policies.go:28:2: declared and not used: key"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
