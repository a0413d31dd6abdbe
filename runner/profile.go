package runner

import (
	"bufio"
	"encoding/json"
	"os"
	"sync"
	"time"
)

// Profile records where a run's time goes, when asked: one JSON line per
// span (a scenario's wait to start, each of its steps and cleanups, and
// the browser's own work: starting, making a context, loading a page,
// waiting for an element), for tools/bench to add up. It costs nothing when
// off: every method of a nil Profile does nothing.
//
//	| variable            | meaning                                   | default |
//	|---------------------|-------------------------------------------|---------|
//	| CATALOGSPEC_PROFILE | a file to write the run's spans to        | none    |
const EnvProfile = "CATALOGSPEC_PROFILE"

// Profile is a run's span log; nil when off.
type Profile struct {
	mu    sync.Mutex
	f     *os.File
	w     *bufio.Writer
	began time.Time
}

// Span is one thing a run did, and how long it took.
type Span struct {
	// Scenario is the scenario's name; "" for the browser's own work.
	Scenario string `json:"scenario,omitempty"`
	// UI says the scenario drives a browser.
	UI bool `json:"ui,omitempty"`
	// Kind is what sort of span: admit, step, cleanup, pause, and the
	// browser's (browser-start, context-made, context-taken, navigate,
	// run, eval, wait-load, context-closed, screenshot).
	Kind string `json:"kind"`
	// Name says which: the step's text, the cleanup's what.
	Name string `json:"name,omitempty"`
	// Start is when it began, in seconds from the run's start.
	Start   float64 `json:"start"`
	Seconds float64 `json:"seconds"`
}

// openProfile opens the file path names; nil (off) when path is "".
func openProfile(path string) (*Profile, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &Profile{f: f, w: bufio.NewWriter(f), began: time.Now()}, nil
}

// Record writes one span that began at start and ends now.
func (p *Profile) Record(scenario string, ui bool, kind, name string, start time.Time) {
	if p == nil {
		return
	}
	s := Span{Scenario: scenario, UI: ui, Kind: kind, Name: name,
		Start: start.Sub(p.began).Seconds(), Seconds: time.Since(start).Seconds()}
	b, _ := json.Marshal(s) // never fails for this type
	p.mu.Lock()
	defer p.mu.Unlock()
	_, _ = p.w.Write(append(b, '\n'))
}

// Close writes what is buffered and closes the file.
func (p *Profile) Close() error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.w.Flush(); err != nil {
		_ = p.f.Close()
		return err
	}
	return p.f.Close()
}
