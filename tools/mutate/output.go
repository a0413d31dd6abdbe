package main

// Reading what the builds, tests and suite runs printed: the first failure,
// the compiler's complaint, the suite's verdict from its JUnit report.

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/catalogspec/catalogspec/reference/catalogdtest"
)

// firstFailure is the first failing test of go test's output, with the
// first line it logged, or the first line of a build failure.
func firstFailure(out string) string {
	lines := strings.Split(out, "\n")
	for i, line := range lines {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "--- FAIL: ") {
			why := strings.TrimPrefix(t, "--- FAIL: ")
			if i+1 < len(lines) {
				why += ": " + strings.TrimSpace(lines[i+1])
			}
			if len(why) > 160 {
				why = why[:160] + "…"
			}
			return why
		}
	}
	for _, line := range lines {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "ok ") {
			return t
		}
	}
	return "failed"
}

// compileError is the first line of the compiler's complaint, naming the
// original file rather than the mutated copy (which go build may show by an
// absolute or a relative path).
func compileError(out []byte, mutated, file string) string {
	base := filepath.Base(mutated) + ":"
	dir := filepath.Base(filepath.Dir(mutated))
	for _, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if i := strings.Index(line, base); i >= 0 && strings.Contains(line[:i], dir) {
			line = file + line[i+len(base)-1:]
		}
		return line
	}
	return "go build failed"
}

// verdict summarises a run from its JUnit report, or from its output when
// the suite never got to the scenarios.
func verdict(reports, log string) string {
	f, err := os.Open(filepath.Join(reports, "junit.xml"))
	if err == nil {
		defer f.Close()
		var suites struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Errors   int `xml:"errors,attr"`
			Skipped  int `xml:"skipped,attr"`
		}
		if err := xml.NewDecoder(f).Decode(&suites); err == nil && suites.Tests > 0 {
			failed := suites.Failures + suites.Errors
			if failed == 0 {
				return fmt.Sprintf("%d scenarios passed", suites.Tests-suites.Skipped)
			}
			return fmt.Sprintf("%d of %d scenarios failed", failed, suites.Tests)
		}
	}
	b, _ := os.ReadFile(log)
	switch {
	case bytes.Contains(b, []byte("no target:")):
		return "the reference did not start"
	case bytes.Contains(b, []byte("panic:")):
		return "the suite panicked"
	}
	return "no scenario report"
}

// tail returns the last n lines of the file at path.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", path, err)
	}
	return catalogdtest.LastLines(string(b), n)
}
