package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"
)

// A complete run takes hours on a small machine. The journal lets it be
// done in parts: every verdict is appended to it as it comes, and a later
// run of the same snapshot (the same files, byte for byte, and the same
// options that bear on verdicts) takes the verdicts it holds instead of
// running those mutants again. Any change to the module starts a new
// journal, so a verdict is never carried over to code or tests it was not
// reached on.

// journalEntry is one line of the journal: a run starting ("run"), a
// mutant's verdict ("mutant"), or a run ending ("end").
type journalEntry struct {
	Kind string `json:"kind"`
	// run
	Snapshot string `json:"snapshot,omitempty"`
	Revision string `json:"revision,omitempty"`
	Settings string `json:"settings,omitempty"`
	Started  string `json:"started,omitempty"`
	// mutant
	Key    string        `json:"key,omitempty"`
	Status string        `json:"status,omitempty"`
	Build  time.Duration `json:"build,omitempty"`
	Suite  time.Duration `json:"suite,omitempty"`
	Detail string        `json:"detail,omitempty"`
	Stage  string        `json:"stage,omitempty"`
	// end
	Elapsed time.Duration `json:"elapsed,omitempty"`
}

// journal is the file of one snapshot's verdicts.
type journal struct {
	path string
	mu   sync.Mutex
	f    *os.File
	// What earlier runs of this snapshot left: verdicts by mutant key, the
	// time they took in all, and how many runs there were.
	earlier        map[string]journalEntry
	earlierElapsed time.Duration
	earlierRuns    int
	firstStarted   string
}

// openJournal opens the journal at path for the snapshot and settings:
// its verdicts are taken when it was written for them, and it is started
// afresh otherwise.
func openJournal(path, snapshot, revision, settings string, started time.Time) (*journal, error) {
	j := &journal{path: path, earlier: map[string]journalEntry{}}
	fresh := true
	f, err := os.Open(path)
	switch {
	case err == nil:
		fresh = !j.load(f, snapshot, settings)
		f.Close()
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_APPEND
	if fresh {
		flags |= os.O_TRUNC
		j.earlier, j.earlierElapsed, j.earlierRuns, j.firstStarted = map[string]journalEntry{}, 0, 0, ""
	}
	if j.f, err = os.OpenFile(path, flags, 0o644); err != nil {
		return nil, err
	}
	if j.firstStarted == "" {
		j.firstStarted = started.UTC().Format(time.RFC3339)
	}
	return j, j.write(journalEntry{Kind: "run", Snapshot: snapshot, Revision: revision, Settings: settings, Started: started.UTC().Format(time.RFC3339)})
}

// load reads an existing journal; false when it is for another snapshot or
// other settings (or unreadable), whose verdicts then do not count.
func (j *journal) load(f *os.File, snapshot, settings string) bool {
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		var e journalEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			// A line cut short by a kill mid-write ends what can be read.
			break
		}
		switch e.Kind {
		case "run":
			if e.Snapshot != snapshot || e.Settings != settings {
				return false
			}
			if j.firstStarted == "" {
				j.firstStarted = e.Started
			}
			j.earlierRuns++
		case "mutant":
			if _, ok := statusNamed(e.Status); ok && e.Key != "" {
				j.earlier[e.Key] = e
			}
		case "end":
			j.earlierElapsed += e.Elapsed
		}
	}
	return j.earlierRuns > 0
}

// statusNamed is the final status a journal line names; interrupted runs
// and tool errors are not verdicts and are run again.
func statusNamed(name string) (status, bool) {
	for _, s := range []status{statusKilled, statusTimeout, statusSurvived, statusNotViable} {
		if s.String() == name {
			return s, true
		}
	}
	return 0, false
}

// taken is the verdict an earlier run gave m, if any.
func (j *journal) taken(m *Mutant) (*result, bool) {
	if j == nil {
		return nil, false
	}
	e, ok := j.earlier[m.Key()]
	if !ok {
		return nil, false
	}
	st, _ := statusNamed(e.Status)
	return &result{m: m, status: st, build: e.Build, suite: e.Suite, detail: e.Detail, stage: e.Stage, resumed: true}, true
}

// record appends a verdict; interruptions and tool errors are not kept.
func (j *journal) record(res *result) error {
	if j == nil {
		return nil
	}
	if _, ok := statusNamed(res.status.String()); !ok {
		return nil
	}
	return j.write(journalEntry{Kind: "mutant", Key: res.m.Key(), Status: res.status.String(), Build: res.build, Suite: res.suite, Detail: res.detail, Stage: res.stage})
}

// end records how long this run took and closes the file.
func (j *journal) end(elapsed time.Duration) error {
	if j == nil {
		return nil
	}
	err := j.write(journalEntry{Kind: "end", Elapsed: elapsed})
	if cerr := j.f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (j *journal) write(e journalEntry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, err := j.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("writing the journal %s: %w", j.path, err)
	}
	return nil
}
