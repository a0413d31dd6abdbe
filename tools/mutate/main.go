// Command mutate measures how much of the reference's behaviour the
// conformance suite pins down: it makes small changes (mutants) to the
// reference catalogd, one at a time, and runs the suite against each. A
// mutant the suite fails on is killed; one it passes SURVIVED, and points at
// a rule the features do not check (or at an equivalent change).
//
// # Why a tool of its own
//
// The existing Go mutation tools judge a mutant by a command run against
// the mutated source tree: go-mutesting (zimmski's, and avito-tech's fork)
// writes each mutant over the file and runs `go test` or any --exec
// script; ooze copies the tree and runs a configurable test command;
// gremlins runs `go test` only, on the mutants on lines the tests cover.
// What kills a mutant of catalogd is an outside suite speaking HTTP to the
// rebuilt server, started on a database of its own, and then, for what the
// suite lets through, further stages (the reference's unit tests, the @ui
// scenarios in a browser, the hardening tests that stop PostgreSQL), each
// gated by the coverage that stage recorded in the clean run. Wrapping
// that in an --exec script would rebuild, start and provision everything
// for every mutant in every stage, with no coverage to skip the stages
// that cannot tell it apart, and no way to build most mutants once (the
// schema build below). Hence this tool: the mutation operators are one file
// (mutants.go); the rest is running the stages (run.go, stages.go,
// database.go, output.go), the coverage (coverage.go), the schema build
// (schema.go, schemabuild.go), the journal and the report.
//
// Mutants are made in the reference's own code (the domain, httpapi, jwt,
// postgres, and graph's resolver.go, convert.go, handler.go and its
// budgets and document limits, budget.go and limits.go; never generated
// code, tests, pgprovider or cmd), one change each:
//
//	compare      == ↔ !=, < ↔ <=, > ↔ >=
//	logical      && ↔ ||
//	negate       if c / for c / case c → !(c), when c is not a comparison or a !x
//	remove-not   !x → x
//	return-nil   return …, err → return …, nil (any non-nil value where the last result is an error)
//	privilege    PrivCreateTags ↔ PrivManageTags, PrivManageAccessTokens → PrivGenerateAccessTokens
//	             or PrivManagePolicies, … (as call arguments, index keys and slice elements)
//	int          0 → 1, 1 → 0, n → n+1 (not in const declarations, array lengths, or the
//	             values returned beside a non-nil error)
//	delete-call  a statement that is only a call is removed
//	bool         true ↔ false
//
// Log calls (x.Info, s.logger.ErrorContext, …) and the text of errors
// (fmt.Errorf, errors.New, Errorf) are left alone.
//
// A run copies the module to a temporary directory first and builds and
// tests only that snapshot, so edits made meanwhile do not mix in; the
// working tree is never written to (but for the -out report). Each mutant is
// built with `go build -overlay` mapping the file to its mutated copy, and
// the suite (built once with `go test -c ./steps`) runs against it on a
// database of its own: CREATE DATABASE m_<id> on the one PostgreSQL that
// pgprovider gives (DATABASE_URL when set, else a container or a local
// cluster), dropped afterwards. The unmutated reference runs first; when it
// fails, nothing else runs.
//
// Run it from the module root:
//
//	go run ./tools/mutate -list                      # the mutants, nothing run
//	go run ./tools/mutate -sample 10                 # a quick spread of 10
//	go run ./tools/mutate -files reference/urn.go    # one file
//	go run ./tools/mutate -ids m042,m107             # these, e.g. survivors again
//	go run ./tools/mutate -budget 30m -jobs 2        # as many as fit in 30 minutes
//
// The clean run records with Go's coverage what each stage (the suite, its
// @ui scenarios, the hardening tests, each package's unit tests) runs of the
// reference; a stage is skipped for a mutant whose line it never ran, and a
// mutant no stage runs is a survivor once it compiles. Every verdict goes to
// mutation/journal.jsonl as it comes; a later run of the same snapshot (the
// same files and options) takes them and runs only the rest, so a complete
// run can be made in parts (-budget, or Ctrl-C, then the same command again).
//
// mutation/equivalent.txt lists mutants known to be equivalent; they are
// not run and not counted. The kill rate is killed / (viable − equivalent),
// where a mutant that hits -timeout counts as killed (and is listed).
//
// Exit status: 0 whatever the kill rate (unless -min-kill-rate is given and
// not met: 1); 2 when the unmutated reference fails the suite or the tool
// itself fails.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// targetGlobs are the reference's files that get mutants, relative to the
// module root: the domain, the transports and storage, but not generated
// code, pgprovider or cmd.
var targetGlobs = []string{
	"reference/*.go",
	"reference/httpapi/*.go",
	"reference/jwt/*.go",
	"reference/postgres/*.go",
	"reference/graph/resolver.go",
	"reference/graph/convert.go",
	"reference/graph/handler.go",
	"reference/graph/budget.go",
	"reference/graph/limits.go",
	"reference/web/*.go",
}

type options struct {
	budget      time.Duration
	jobs        int
	files       string
	sample      int
	list        bool
	equivalent  string
	out         string
	timeout     time.Duration
	minKillRate float64
	keep        bool
	ids         string
	faults      bool
	unit        bool
	recheck     string
	coverage    bool
	journal     string
	schema      bool
	// selectFeatures: a mutant meets first the features that ran its
	// line (features.go); whole: and the whole suite last.
	selectFeatures bool
	whole          bool
}

// settings are the options and variables that bear on verdicts: a journal
// written with others is not taken.
func (o options) settings() string {
	s := fmt.Sprintf("faults=%v unit=%v coverage=%v timeout=%s", o.faults, o.unit, o.coverage, o.timeout)
	if o.coverage && o.selectFeatures && !o.whole {
		s += " whole=false" // a survivor of its features has not met the whole suite
	}
	for _, k := range passedVariables {
		if v := os.Getenv(k); v != "" {
			s += " " + k + "=" + v
		}
	}
	return s
}

func main() {
	os.Exit(run())
}

func run() int {
	var o options
	flag.DurationVar(&o.budget, "budget", 30*time.Minute, "stop starting new mutants after this long (0: no limit); what ran is reported")
	flag.IntVar(&o.jobs, "jobs", 1, "mutants built and run at once")
	flag.BoolVar(&o.faults, "faults", true, "run the reference's hardening tests (PostgreSQL stopped and frozen, hostile documents, slow connections, bad input) on each mutant the suite lets through")
	flag.BoolVar(&o.unit, "unit", true, "run the reference's unit tests (start-up, restart, a store failing mid-request, the domain's own checks), built with the mutant, on each mutant the suite and the hardening tests let through")
	flag.BoolVar(&o.coverage, "coverage", true, "record what each stage (the suite, the @ui scenarios, the hardening tests, each package's unit tests) runs of the reference in the clean run, and skip a stage for a mutant whose line it never ran; a mutant no stage runs is a survivor")
	flag.BoolVar(&o.selectFeatures, "select", true, "with -coverage, run each feature on its own in the clean run too, and run on a mutant first only the features that ran its line, the whole suite last (after the later stages), on a mutant all of them let through")
	flag.BoolVar(&o.whole, "whole", true, "with -select, run the whole suite on a mutant its features and the later stages let through (false: report it a survivor without, quicker but a survivor may be one the whole suite kills)")
	flag.BoolVar(&o.schema, "schema", true, "build the mutants that fit a site into one binary (mutant schemata: each site picks the original or a mutant by CATALOGSPEC_MUTANT at run time) and type-check each instead of building it; the others are built on their own")
	flag.StringVar(&o.journal, "journal", "mutation/journal.jsonl", "append each verdict here, and take the verdicts it holds from earlier runs of the same snapshot (the same files and options) instead of running those mutants again, so that a run interrupted or stopped by its budget goes on where it stopped (\"\": neither; a -sample run keeps none)")
	flag.StringVar(&o.recheck, "recheck", "", "run the mutants -equivalent lists instead of the others, to see whether their listing still holds: \"all\", or those whose reason starts with this text (e.g. unreachable)")
	flag.StringVar(&o.files, "files", "", "only mutants in these files: comma-separated globs on the path from the module root (e.g. reference/urn.go,reference/httpapi/*.go)")
	flag.IntVar(&o.sample, "sample", 0, "run only N mutants, spread evenly over the selection (deterministic)")
	flag.BoolVar(&o.list, "list", false, "print the mutants and exit; nothing is built or run")
	flag.StringVar(&o.equivalent, "equivalent", "mutation/equivalent.txt", "file of keys of mutants known to be equivalent: not run, not counted")
	flag.StringVar(&o.out, "out", "mutation/report.txt", "write the report here too (\"\": only stdout)")
	flag.DurationVar(&o.timeout, "timeout", 120*time.Second, "per-mutant time limit for the suite, and for each later stage (the hardening and unit tests); a mutant that hits it counts as killed and is listed")
	flag.Float64Var(&o.minKillRate, "min-kill-rate", 0, "exit 1 when the kill rate is below this (0 to 1; 0: never)")
	flag.StringVar(&o.ids, "ids", "", "only these mutants: comma-separated ids as -list prints them (m042 or 42), e.g. to re-run survivors")
	flag.BoolVar(&o.keep, "keep", false, "keep the work directory (mutated sources, suite logs and reports) and print where it is")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: go run ./tools/mutate [flags]\n\nMutation testing of the reference catalogd against the conformance suite.\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		return 2
	}
	if o.jobs < 1 || o.sample < 0 || o.timeout <= 0 || o.minKillRate < 0 || o.minKillRate > 1 {
		fmt.Fprintln(os.Stderr, "mutate: -jobs must be at least 1, -sample not negative, -timeout positive, -min-kill-rate between 0 and 1")
		return 2
	}

	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		return 2
	}
	// A run works on a snapshot of the module; -list reads it as it is.
	var r *runner
	src := root
	if !o.list {
		if r, err = newRunner(root, o); err != nil {
			fmt.Fprintln(os.Stderr, "mutate:", err)
			return 2
		}
		defer r.close()
		src = r.src
	}
	all, err := generateAll(src)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		return 2
	}
	equiv, err := loadEquivalents(resolve(root, o.equivalent))
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		return 2
	}
	for _, k := range equiv.unknown(all) {
		fmt.Fprintf(os.Stderr, "mutate: warning: %s lists %q, which is no mutant now (the code changed?)\n", o.equivalent, k)
	}
	selected, err := selectMutants(all, o.files)
	if err == nil && o.ids != "" {
		selected, err = selectIDs(selected, o.ids)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		return 2
	}
	if o.list {
		printList(os.Stdout, all, selected, equiv)
		return 0
	}

	var torun, skippedEquiv []*Mutant
	for _, m := range selected {
		switch {
		case o.recheck != "":
			if equiv.has(m) && (o.recheck == "all" || strings.HasPrefix(equiv.reason(m), o.recheck)) {
				torun = append(torun, m)
			}
		case equiv.has(m):
			skippedEquiv = append(skippedEquiv, m)
		default:
			torun = append(torun, m)
		}
	}
	if o.sample > 0 {
		torun = spread(torun, o.sample)
		skippedEquiv = nil // a sample says nothing of the equivalents
	}
	if len(torun) == 0 {
		fmt.Fprintln(os.Stderr, "mutate: no mutant selected")
		return 2
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if o.journal != "" && o.sample == 0 {
		path := resolve(root, o.journal)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
			r.journal, err = openJournal(path, r.snapshot, r.revision, o.settings(), r.started)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "mutate: the journal:", err)
			return 2
		}
	}
	if err := r.start(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		return 2
	}

	rep, err := r.runAll(ctx, torun)
	if err != nil {
		var clean *cleanRunError
		if errors.As(err, &clean) {
			fmt.Fprintf(os.Stderr, "mutate: the unmutated reference fails the suite, so no mutant can be judged; fix that first.\n%v\n", err)
		} else {
			fmt.Fprintln(os.Stderr, "mutate:", err)
		}
		return 2
	}
	rep.equivalent = skippedEquiv
	rep.selected = len(selected)
	rep.total = len(all)
	text := rep.String()
	fmt.Print("\n" + rep.summary())
	if o.out != "" {
		out := resolve(root, o.out)
		err := os.MkdirAll(filepath.Dir(out), 0o755)
		if err == nil {
			err = os.WriteFile(out, []byte(text), 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "mutate: writing the report:", err)
			return 2
		}
		fmt.Printf("report: %s\n", out)
	}
	if ctx.Err() != nil {
		fmt.Fprintln(os.Stderr, "mutate: interrupted")
		return 2
	}
	if n := rep.count()[statusToolError]; n > 0 {
		fmt.Fprintf(os.Stderr, "mutate: %d mutant(s) could not be judged because of tool errors (see the report)\n", n)
		return 2
	}
	if o.minKillRate > 0 && rep.killRate() < o.minKillRate {
		fmt.Fprintf(os.Stderr, "mutate: kill rate %.1f%% is below -min-kill-rate %.1f%%\n", 100*rep.killRate(), 100*o.minKillRate)
		return 1
	}
	return 0
}

// moduleRoot finds the directory of this module's go.mod, upwards from the
// working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.Contains(string(b), "module github.com/catalogspec/catalogspec\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run me inside the catalogspec module (no go.mod of github.com/catalogspec/catalogspec above the working directory)")
		}
		dir = parent
	}
}

func resolve(root, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(root, p)
}

// targetFiles lists the files to mutate, slash paths from root, sorted:
// no tests, nothing generated.
func targetFiles(root string) ([]string, error) {
	var files []string
	for _, g := range targetGlobs {
		matches, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(g)))
		if err != nil {
			return nil, err
		}
		for _, m := range matches {
			rel, err := filepath.Rel(root, m)
			if err != nil {
				return nil, err
			}
			rel = filepath.ToSlash(rel)
			if strings.HasSuffix(rel, "_test.go") {
				continue
			}
			b, err := os.ReadFile(m)
			if err != nil {
				return nil, err
			}
			if isGenerated(b) {
				continue
			}
			files = append(files, rel)
		}
	}
	sort.Strings(files)
	return files, nil
}

// isGenerated reports the "Code generated … DO NOT EDIT." marker before the
// package clause.
func isGenerated(src []byte) bool {
	for _, line := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(line, "package ") {
			return false
		}
		if strings.HasPrefix(line, "// Code generated ") && strings.HasSuffix(strings.TrimSpace(line), "DO NOT EDIT.") {
			return true
		}
	}
	return false
}

// generateAll makes every mutant of every target file, numbered in file
// order, so an id does not depend on -files or -sample.
func generateAll(root string) ([]*Mutant, error) {
	files, err := targetFiles(root)
	if err != nil {
		return nil, err
	}
	var all []*Mutant
	for _, f := range files {
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			return nil, err
		}
		ms, err := Generate(f, src)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			m.ID = len(all) + 1
			all = append(all, m)
		}
	}
	return all, nil
}

// selectMutants keeps the mutants of the files matching spec, a comma list
// of globs on the slash path from the module root; a glob without a slash
// also matches the base name. An empty spec keeps all.
func selectMutants(all []*Mutant, spec string) ([]*Mutant, error) {
	if strings.TrimSpace(spec) == "" {
		return all, nil
	}
	var globs []string
	for _, g := range strings.Split(spec, ",") {
		if g = strings.TrimSpace(g); g != "" {
			g = strings.TrimPrefix(filepath.ToSlash(g), "./")
			if _, err := path.Match(g, ""); err != nil {
				return nil, fmt.Errorf("-files: bad pattern %q: %v", g, err)
			}
			globs = append(globs, g)
		}
	}
	match := func(file string) bool {
		for _, g := range globs {
			if ok, _ := path.Match(g, file); ok {
				return true
			}
			if !strings.Contains(g, "/") {
				if ok, _ := path.Match(g, path.Base(file)); ok {
					return true
				}
			}
		}
		return false
	}
	var out []*Mutant
	for _, m := range all {
		if match(m.File) {
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-files %q matches no file with mutants", spec)
	}
	return out, nil
}

// selectIDs keeps the mutants named in spec, a comma list of ids.
func selectIDs(ms []*Mutant, spec string) ([]*Mutant, error) {
	want := map[int]bool{}
	for _, s := range strings.Split(spec, ",") {
		s = strings.TrimPrefix(strings.TrimSpace(s), "m")
		if s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-ids: %q is not a mutant id", s)
		}
		want[n] = true
	}
	var out []*Mutant
	for _, m := range ms {
		if want[m.ID] {
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-ids %q names no selected mutant", spec)
	}
	return out, nil
}

// spread picks n of ms evenly, always the same ones for the same input.
func spread(ms []*Mutant, n int) []*Mutant {
	if n >= len(ms) {
		return ms
	}
	out := make([]*Mutant, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, ms[(2*i+1)*len(ms)/(2*n)])
	}
	return out
}
