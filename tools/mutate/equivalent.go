package main

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// equivalents are the mutants listed as equivalent: keys and their reasons.
//
// The file holds one mutant a line, `<key> => <reason>`; blank lines and
// lines starting with # are ignored. The key is the last column of -list,
// `<file> <function>: <description> #<occurrence>`, which does not contain
// a line number, so it stays valid while code above it moves.
type equivalents struct {
	reasons map[string]string
	order   []string
}

const equivSep = " => "

func loadEquivalents(path string) (*equivalents, error) {
	e := &equivalents{reasons: map[string]string{}}
	if path == "" {
		return e, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return e, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := e.parse(f.Name(), bufio.NewScanner(f)); err != nil {
		return nil, err
	}
	return e, nil
}

func (e *equivalents) parse(name string, sc *bufio.Scanner) error {
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, reason, ok := strings.Cut(line, equivSep)
		key, reason = strings.Join(strings.Fields(key), " "), strings.TrimSpace(reason)
		if !ok || key == "" || reason == "" {
			return fmt.Errorf("%s:%d: want `<key> => <reason>`, with the key as -list prints it", name, n)
		}
		if _, dup := e.reasons[key]; dup {
			return fmt.Errorf("%s:%d: %q is listed twice", name, n, key)
		}
		e.reasons[key] = reason
		e.order = append(e.order, key)
	}
	return sc.Err()
}

func (e *equivalents) has(m *Mutant) bool {
	_, ok := e.reasons[m.Key()]
	return ok
}

func (e *equivalents) reason(m *Mutant) string { return e.reasons[m.Key()] }

// unknown returns the listed keys that name no mutant of all.
func (e *equivalents) unknown(all []*Mutant) []string {
	known := make(map[string]bool, len(all))
	for _, m := range all {
		known[m.Key()] = true
	}
	var out []string
	for _, k := range e.order {
		if !known[k] {
			out = append(out, k)
		}
	}
	return out
}
