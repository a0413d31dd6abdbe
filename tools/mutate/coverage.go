package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// A mutant can only change what a test sees if the test runs the mutated
// code. The clean run records, for each stage (the suite without its @ui
// scenarios, the @ui scenarios, the hardening tests, each package's unit
// tests), which of the reference's code it ran, with Go's own coverage
// (`-cover`); a stage is skipped for a mutant whose line it never ran. A
// mutant no stage runs is reported as a survivor without running anything
// but its build (the viability check). This changes the cost of a run, not
// its verdicts: up to the point where the mutated code runs, a mutant
// behaves as the reference does, so a stage that never gets there passes.

// block is one basic block of a coverage profile.
type block struct {
	startLine, startCol, endLine, endCol int
	hit                                  bool
}

func (b block) contains(line, col int) bool {
	if line < b.startLine || line > b.endLine {
		return false
	}
	if line == b.startLine && col < b.startCol {
		return false
	}
	if line == b.endLine && col >= b.endCol {
		return false
	}
	return true
}

// profile is what one stage ran: blocks by file, the file named by its
// path from the module root (reference/urn.go).
type profile map[string][]block

// readProfile parses a Go coverage profile ("mode: set|count|atomic", then
// "importpath/file.go:l.c,l.c statements count" lines). Blocks of files
// outside module are dropped. The same block may appear more than once
// (profiles merged from several processes): hit wins.
func readProfile(path, module string) (profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p := profile{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	first := true
	for sc.Scan() {
		line := sc.Text()
		if first {
			first = false
			if strings.HasPrefix(line, "mode:") {
				continue
			}
		}
		if line == "" {
			continue
		}
		file, b, err := parseProfileLine(line)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		rel, ok := strings.CutPrefix(file, module+"/")
		if !ok {
			continue
		}
		p[rel] = append(p[rel], b)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return p, nil
}

// parseProfileLine parses "file:sl.sc,el.ec n count".
func parseProfileLine(line string) (string, block, error) {
	bad := fmt.Errorf("not a coverage line: %q", line)
	colon := strings.LastIndex(line, ":")
	if colon < 0 {
		return "", block{}, bad
	}
	file, rest := line[:colon], line[colon+1:]
	fields := strings.Fields(rest)
	if len(fields) != 3 {
		return "", block{}, bad
	}
	span := strings.Split(fields[0], ",")
	if len(span) != 2 {
		return "", block{}, bad
	}
	var b block
	var err error
	if b.startLine, b.startCol, err = lineCol(span[0]); err != nil {
		return "", block{}, bad
	}
	if b.endLine, b.endCol, err = lineCol(span[1]); err != nil {
		return "", block{}, bad
	}
	count, err := strconv.Atoi(fields[2])
	if err != nil {
		return "", block{}, bad
	}
	b.hit = count > 0
	return file, b, nil
}

func lineCol(s string) (int, int, error) {
	l, c, ok := strings.Cut(s, ".")
	if !ok {
		return 0, 0, fmt.Errorf("no column")
	}
	line, err := strconv.Atoi(l)
	if err != nil {
		return 0, 0, err
	}
	col, err := strconv.Atoi(c)
	return line, col, err
}

// runs reports whether the stage this profile records may have run the
// mutant's code: true when a block holding its position was run, and when
// no block holds it at all (a case clause's expression, a package-level
// initializer: code coverage does not count those, so nothing is known and
// the stage runs). A nil profile (no coverage taken) runs everything.
func (p profile) runs(m *Mutant) bool {
	if p == nil {
		return true
	}
	known := false
	for _, b := range p[m.File] {
		if b.contains(m.Line, m.Col) {
			if b.hit {
				return true
			}
			known = true
		}
	}
	return !known
}

// merge adds q's blocks to p.
func (p profile) merge(q profile) {
	for f, bs := range q {
		p[f] = append(p[f], bs...)
	}
}
