package main

import (
	"fmt"
	"io"
	"os/exec"
	"sort"
	"strings"
	"time"
)

// printList writes the selected mutants, one a line (id, position,
// operator, key), then how many there are by file and by operator.
func printList(w io.Writer, all, selected []*Mutant, equiv *equivalents) {
	for _, m := range selected {
		mark := ""
		if equiv.has(m) {
			mark = "  [equivalent: " + equiv.reason(m) + "]"
		}
		fmt.Fprintf(w, "%s  %-34s %-11s %s%s\n", m.Name(), m.Pos(), m.Op, m.Key(), mark)
	}
	byFile, byOp := map[string]int{}, map[string]int{}
	var files, ops []string
	nEquiv := 0
	for _, m := range selected {
		if byFile[m.File] == 0 {
			files = append(files, m.File)
		}
		if byOp[string(m.Op)] == 0 {
			ops = append(ops, string(m.Op))
		}
		byFile[m.File]++
		byOp[string(m.Op)]++
		if equiv.has(m) {
			nEquiv++
		}
	}
	sort.Strings(ops)
	fmt.Fprintf(w, "\n%d mutant(s) selected of %d in all; %d listed as equivalent\n", len(selected), len(all), nEquiv)
	fmt.Fprintln(w, "\nby file:")
	for _, f := range files {
		fmt.Fprintf(w, "  %5d  %s\n", byFile[f], f)
	}
	fmt.Fprintln(w, "\nby operator:")
	for _, op := range ops {
		fmt.Fprintf(w, "  %5d  %s\n", byOp[op], op)
	}
}

// report is the outcome of a run.
type report struct {
	revision   string // of the module when the run started, as snapshotted
	opts       options
	root       string
	started    time.Time
	elapsed    time.Duration
	cleanBuild time.Duration
	cleanSuite time.Duration
	results    []*result // the mutants that were started, in id order
	notStarted []*Mutant // left when the budget ran out (or on Ctrl-C)
	stopped    string    // why some were not started
	equivalent []*Mutant // selected but listed as equivalent: not run
	selected   int       // mutants the -files selection holds
	total      int       // mutants in all
	counts     map[status]int
	// From the journal: verdicts taken from earlier runs of this snapshot,
	// how many runs and how long they took, when the first began.
	taken          int
	earlierRuns    int
	earlierElapsed time.Duration
	firstStarted   string
}

func (r *report) count() map[status]int {
	if r.counts == nil {
		r.counts = map[status]int{}
		for _, res := range r.results {
			r.counts[res.status]++
		}
	}
	return r.counts
}

// viable counts the mutants that compiled and got a verdict.
func (r *report) viable() int {
	c := r.count()
	return c[statusKilled] + c[statusTimeout] + c[statusSurvived]
}

// killRate is killed / (viable − equivalent). Equivalent mutants are never
// run, so they are already outside viable.
func (r *report) killRate() float64 {
	c := r.count()
	if r.viable() == 0 {
		return 0
	}
	return float64(c[statusKilled]+c[statusTimeout]) / float64(r.viable())
}

func (r *report) withStatus(s status) []*result {
	var out []*result
	for _, res := range r.results {
		if res.status == s {
			out = append(out, res)
		}
	}
	return out
}

// summary is the totals, timing and the survivors.
func (r *report) summary() string {
	c := r.count()
	var b strings.Builder
	fmt.Fprintf(&b, "mutants: %d in all, %d selected", r.total, r.selected)
	if r.opts.sample > 0 {
		fmt.Fprintf(&b, ", a sample of %d", r.opts.sample)
	}
	fmt.Fprintf(&b, "; %d run, %d not started", len(r.results), len(r.notStarted))
	if r.taken > 0 {
		fmt.Fprintf(&b, " (%d of those run by %d earlier run(s) of this snapshot, from the journal)", r.taken, r.earlierRuns)
	}
	if len(r.notStarted) > 0 && r.stopped != "" {
		fmt.Fprintf(&b, " (%s)", r.stopped)
	}
	fmt.Fprintln(&b)
	fmt.Fprintf(&b, "killed %d (of which %d by timeout), SURVIVED %d, not viable %d, equivalent (listed, not run) %d",
		c[statusKilled]+c[statusTimeout], c[statusTimeout], c[statusSurvived], c[statusNotViable], len(r.equivalent))
	if n := c[statusToolError]; n > 0 {
		fmt.Fprintf(&b, ", TOOL ERRORS %d", n)
	}
	if n := c[statusInterrupted]; n > 0 {
		fmt.Fprintf(&b, ", interrupted %d", n)
	}
	fmt.Fprintln(&b)
	if v := r.viable(); v > 0 {
		fmt.Fprintf(&b, "kill rate: %d / %d = %.1f%%  (killed / (viable − equivalent))\n", c[statusKilled]+c[statusTimeout], v, 100*r.killRate())
		by := map[string]int{}
		for _, res := range r.results {
			if res.status == statusKilled || res.status == statusTimeout {
				by[res.stage]++
			}
		}
		if r.opts.faults || r.opts.unit {
			fmt.Fprintf(&b, "  by the suite: %d (%.1f%%); after the suite passed, by the reference's unit tests: %d, by the suite's @ui scenarios in a browser: %d, by the hardening tests (faults, abuse): %d\n",
				by[""], 100*float64(by[""])/float64(v), by[stageUnit], by[stageBrowser], by[stageHardening])
		}
	} else {
		fmt.Fprintln(&b, "kill rate: n/a (no viable mutant ran)")
	}
	var build, suite time.Duration
	nb, ns := 0, 0
	for _, res := range r.results {
		if res.status == statusInterrupted || res.status == statusToolError {
			continue
		}
		build += res.build
		nb++
		if res.status != statusNotViable {
			suite += res.suite
			ns++
		}
	}
	fmt.Fprintf(&b, "elapsed: %s (setup and clean run included; clean run: build %.1fs, suite %.1fs)\n",
		r.elapsed.Round(time.Second), r.cleanBuild.Seconds(), r.cleanSuite.Seconds())
	if r.earlierRuns > 0 {
		fmt.Fprintf(&b, "with the earlier runs of this snapshot (the first began %s): %d runs, %s in all\n",
			r.firstStarted, r.earlierRuns+1, (r.earlierElapsed + r.elapsed).Round(time.Second))
	}
	if nb > 0 && ns > 0 {
		fmt.Fprintf(&b, "per mutant: build %.1fs + suite %.1fs = %.1fs on average, -jobs %d\n",
			build.Seconds()/float64(nb), suite.Seconds()/float64(ns), build.Seconds()/float64(nb)+suite.Seconds()/float64(ns), r.opts.jobs)
	}
	list := func(title string, rs []*result, withDetail bool) {
		if len(rs) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n%s (%d):\n", title, len(rs))
		for _, res := range rs {
			m := res.m
			fmt.Fprintf(&b, "  %s %s  %s\n", m.Name(), m.Pos(), m.Desc)
			fmt.Fprintf(&b, "        in %s: %s\n", m.Func, m.Src)
			if withDetail && res.detail != "" {
				fmt.Fprintf(&b, "        %s\n", res.detail)
			}
			fmt.Fprintf(&b, "        key: %s\n", m.Key())
		}
	}
	list("SURVIVED", r.withStatus(statusSurvived), false)
	list("killed by timeout", r.withStatus(statusTimeout), false)
	list("TOOL ERRORS", r.withStatus(statusToolError), true)
	return b.String()
}

// String is the whole report: how it ran, the summary, every result.
func (r *report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "mutation testing of the reference catalogd against the conformance suite\n")
	fmt.Fprintf(&b, "date: %s\n", r.started.Format(time.RFC3339))
	if r.revision != "" {
		fmt.Fprintf(&b, "revision: %s (when the run started)\n", r.revision)
	}
	fmt.Fprintf(&b, "options: -jobs %d -budget %s -timeout %s", r.opts.jobs, budgetText(r.opts.budget), r.opts.timeout)
	if r.opts.files != "" {
		fmt.Fprintf(&b, " -files %s", r.opts.files)
	}
	if r.opts.sample > 0 {
		fmt.Fprintf(&b, " -sample %d", r.opts.sample)
	}
	fmt.Fprintf(&b, "\n\n%s", r.summary())

	fmt.Fprintf(&b, "\nevery mutant run:\n")
	for _, res := range r.results {
		m := res.m
		fmt.Fprintf(&b, "  %s %-36s %-44s %-16s %5.1fs (build %4.1fs)", m.Name(), m.Pos(), m.Desc, res.status, res.total().Seconds(), res.build.Seconds())
		if res.detail != "" {
			fmt.Fprintf(&b, "  %s", res.detail)
		}
		if res.resumed {
			fmt.Fprint(&b, "  [an earlier run's verdict]")
		}
		fmt.Fprintln(&b)
	}
	if len(r.notStarted) > 0 {
		fmt.Fprintf(&b, "\nnot started (%d):\n", len(r.notStarted))
		for _, m := range r.notStarted {
			fmt.Fprintf(&b, "  %s %-36s %s\n", m.Name(), m.Pos(), m.Desc)
		}
	}
	if len(r.equivalent) > 0 {
		fmt.Fprintf(&b, "\nlisted as equivalent, not run (%d):\n", len(r.equivalent))
		for _, m := range r.equivalent {
			fmt.Fprintf(&b, "  %s %-36s %s\n", m.Name(), m.Pos(), m.Desc)
		}
	}
	return b.String()
}

// gitRevision is HEAD, marked dirty when the tree has changes; "" without git.
func gitRevision(root string) string {
	cmd := exec.Command("git", "rev-parse", "--short", "HEAD")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	rev := strings.TrimSpace(string(out))
	cmd = exec.Command("git", "status", "--porcelain", "--untracked-files=no")
	cmd.Dir = root
	if st, err := cmd.Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
		rev += " (with uncommitted changes)"
	}
	return rev
}
