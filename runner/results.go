package runner

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/catalogspec/catalogspec"
)

// A scenario's status in the reports. godog knows only passed, failed and
// skipped; the suite tells apart why a scenario did not pass.
const (
	StatusPassed   = "passed"
	StatusFailed   = "failed"   // at or above the fail-on level, not in the baseline
	StatusWarning  = "warning"  // failed below the fail-on level: a recommendation not met
	StatusKnown    = "known"    // failed as the baseline says it does
	StatusSkipped  = "skipped"  // the target lacks what the scenario needs
	StatusDisabled = "disabled" // a capability the user switched off
	StatusNotRun   = "not run"  // interrupted, or stopped at the first failure
)

var statusOrder = []string{StatusPassed, StatusFailed, StatusWarning, StatusKnown, StatusSkipped, StatusDisabled, StatusNotRun}

// Outcome is one scenario's result.
type Outcome struct {
	ScenarioInfo
	Status   string  `json:"status"`
	Duration float64 `json:"duration_seconds"`
	// Waited is how much of it went in waiting for changes to show.
	Waited float64 `json:"waited_seconds,omitempty"`
	// Start is when it started, in seconds from the start of the run's
	// scenarios: the run's timeline.
	Start   float64 `json:"start_seconds,omitempty"`
	Reason  string  `json:"reason,omitempty"`      // why skipped, disabled or known
	Step    string  `json:"failed_step,omitempty"` // the step that failed
	Message string  `json:"message,omitempty"`     // masked, with the requests made
	Curl    string  `json:"curl,omitempty"`        // reproduces the failing step's last request
}

// Results collects the outcomes of a run; scenarios run concurrently.
type Results struct {
	byName map[string]ScenarioInfo

	mu       sync.Mutex
	outcomes map[string]*Outcome // by scenario name
	stale    []string            // baseline ids that passed
}

func newResults(catalog []ScenarioInfo) *Results {
	r := &Results{byName: map[string]ScenarioInfo{}, outcomes: map[string]*Outcome{}}
	for _, s := range catalog {
		r.byName[s.Name] = s
	}
	return r
}

func (r *Results) Info(name string) ScenarioInfo {
	if s, ok := r.byName[name]; ok {
		return s
	}
	return ScenarioInfo{Name: name}
}

func (r *Results) Record(o *Outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.outcomes[o.Name] = o
}

// runReport is a run's outcomes in catalog order.
type runReport struct {
	outcomes []*Outcome
	stale    []string // baseline entries whose scenarios passed
	counts   map[string]int
	// interrupted names the signal that cut the run short, "" when none.
	interrupted string
	// stoppedAtFailure says the run stopped at its first failure
	// (CATALOGSPEC_FAIL_FAST) before every selected scenario ran.
	stoppedAtFailure bool
	// readOnly: a read-only audit.
	readOnly bool
}

// runEnd is how a run ended: cut short by a signal, or at the first failure.
type runEnd struct {
	Signal   string // "SIGINT" or "SIGTERM" when a signal interrupted the run
	FailFast bool   // the run stops at the first failure (CATALOGSPEC_FAIL_FAST)
	ReadOnly bool   // a read-only audit: it ran only the scenarios tagged @read-only
}

// notInAudit is why a read-only audit skips a scenario it selected.
const notInAudit = "not in the read-only audit: it writes to the target or needs an administrator's token (catalogspec run checks it)"

// finish lists an outcome for every selected scenario, "not run" for those
// that never started.
func (r *Results) finish(selected []ScenarioInfo, end runEnd) *runReport {
	interrupted, failFast := end.Signal != "", end.FailFast
	r.mu.Lock()
	defer r.mu.Unlock()
	rep := &runReport{counts: map[string]int{}, interrupted: end.Signal, readOnly: end.ReadOnly}
	for _, s := range selected {
		o, ok := r.outcomes[s.Name]
		if !ok {
			o = &Outcome{ScenarioInfo: s, Status: StatusNotRun}
			switch {
			case end.ReadOnly && !slices.Contains(s.Tags, TagReadOnly):
				o.Status, o.Reason = StatusSkipped, notInAudit
			case interrupted:
				o.Reason = "the run was interrupted"
			case failFast:
				o.Reason = "the run stopped at the first failure (" + EnvFailFast + ")"
			default:
				o.Reason = "not started"
			}
		}
		rep.outcomes = append(rep.outcomes, o)
		rep.counts[o.Status]++
	}
	rep.stoppedAtFailure = !interrupted && failFast && rep.counts[StatusNotRun] > 0
	return rep
}

// judge says whether the run fails: a failure at or above the fail-on
// level that the baseline does not list, or a baseline entry whose
// scenarios ran and passed (stale).
func (rep *runReport) judge(base *Baseline) bool {
	failed := rep.counts[StatusFailed] > 0
	if base == nil {
		return failed
	}
	for _, e := range base.Failures {
		ran, stillFails := false, false
		for _, o := range rep.outcomes {
			if !e.covers(o.ScenarioInfo) {
				continue
			}
			switch o.Status {
			case StatusPassed:
				ran = true
			case StatusKnown, StatusFailed, StatusWarning:
				ran, stillFails = true, true
			}
		}
		if ran && !stillFails && !e.Flaky {
			rep.stale = append(rep.stale, e.String())
		}
	}
	return failed || len(rep.stale) > 0
}

// conformant says whether the run's verdict is that the target conforms:
// nothing failed, and the run was not cut short.
func (rep *runReport) conformant() bool {
	return rep.counts[StatusFailed] == 0 && len(rep.stale) == 0 && rep.cutShort() == ""
}

// cutShort says how the run was cut short: "interrupted", "stopped at the
// first failure", or "" when it ran to its end.
func (rep *runReport) cutShort() string {
	switch {
	case rep.interrupted != "":
		return "interrupted"
	case rep.stoppedAtFailure:
		return "stopped at the first failure"
	}
	return ""
}

// outcome is the run's verdict in a word, for results.json: conformant,
// not conformant, interrupted, or stopped at the first failure.
func (rep *runReport) outcome() string {
	switch {
	case rep.cutShort() != "":
		return rep.cutShort()
	case rep.conformant():
		return "conformant"
	}
	return "not conformant"
}

// resultsFile is results.json.
type resultsFile struct {
	Suite       string  `json:"suite"`
	Version     string  `json:"version"`
	SpecVersion string  `json:"spec_version"`
	Target      string  `json:"target"`
	FailOn      string  `json:"fail_on"`
	Started     string  `json:"finished_at"`
	Seconds     float64 `json:"duration_seconds"`
	// Outcome is the verdict in a word: conformant, not conformant,
	// interrupted, or stopped at the first failure; Verdict says it in a
	// sentence, as the console and report.html do.
	Outcome     string `json:"outcome"`
	Verdict     string `json:"verdict"`
	Interrupted string `json:"interrupted_by,omitempty"` // SIGINT or SIGTERM
	// ReadOnly says the run was a read-only audit (catalogspec audit).
	ReadOnly  bool           `json:"read_only"`
	Counts    map[string]int `json:"counts"`
	Waits     *waitsReport   `json:"waits,omitempty"`
	Stale     []string       `json:"stale_baseline_entries,omitempty"`
	Scenarios []*Outcome     `json:"scenarios"`
}

// waitsReport is the run's waits for changes to show, in results.json.
type waitsReport struct {
	Count          int64   `json:"count"`
	TotalSeconds   float64 `json:"total_seconds"`
	LongestSeconds float64 `json:"longest_seconds"`
	// WindowSeconds bounds each wait: the propagation window.
	WindowSeconds float64 `json:"window_seconds"`
}

func (rep *runReport) writeJSON(path string, tgt *Target, failOn string, elapsed time.Duration, waits *waitStats) error {
	f := resultsFile{
		Suite: "catalogspec", Version: Version, SpecVersion: catalogspec.SpecVersion,
		Target: tgt.describe(), FailOn: failOn, Started: time.Now().UTC().Format(time.RFC3339),
		Outcome: rep.outcome(), Verdict: rep.verdict(failOn), Interrupted: rep.interrupted, ReadOnly: rep.readOnly,
		Seconds: elapsed.Seconds(), Counts: rep.counts, Stale: rep.stale, Scenarios: rep.outcomes,
	}
	if waits != nil {
		f.Waits = &waitsReport{Count: waits.count.Load(), TotalSeconds: time.Duration(waits.total.Load()).Seconds(),
			LongestSeconds: time.Duration(waits.longest.Load()).Seconds(), WindowSeconds: tgt.Propagation.Seconds()}
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return writeWhole(path, append(b, '\n'))
}

// writeWhole writes a file under a temporary name and renames it, so that
// a reader never sees half of it.
func writeWhole(path string, b []byte) error {
	tmp := path + ".partial"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// printSummary ends the console output: the counts by status and by level,
// then every scenario that did not pass, with where it is.
func (rep *runReport) printSummary(w io.Writer, failOn string, elapsed time.Duration, color bool) {
	paint := func(code, s string) string {
		if !color {
			return s
		}
		return "\x1b[" + code + "m" + s + "\x1b[0m"
	}
	var parts []string
	for _, st := range statusOrder {
		if n := rep.counts[st]; n > 0 || st == StatusPassed || st == StatusFailed {
			text := fmt.Sprintf("%d %s", n, st)
			switch {
			case st == StatusFailed && n > 0:
				text = paint("31", text)
			case st == StatusWarning && n > 0:
				text = paint("33", text)
			case st == StatusPassed:
				text = paint("32", text)
			}
			parts = append(parts, text)
		}
	}
	fmt.Fprintf(w, "catalogspec: %d scenarios: %s, in %s\n", len(rep.outcomes), strings.Join(parts, ", "), elapsed.Round(time.Millisecond))
	byLevel := map[string]map[string]int{}
	for _, o := range rep.outcomes {
		if byLevel[o.Level] == nil {
			byLevel[o.Level] = map[string]int{}
		}
		byLevel[o.Level][o.Status]++
	}
	var levelsLine []string
	for _, l := range levels {
		if m := byLevel[l]; m != nil {
			levelsLine = append(levelsLine, fmt.Sprintf("%s %d/%d passed", l, m[StatusPassed], total(m)))
		}
	}
	fmt.Fprintf(w, "catalogspec: by level: %s\n", strings.Join(levelsLine, ", "))
	list := func(status, heading string) {
		var lines []string
		for _, o := range rep.outcomes {
			if o.Status == status {
				line := fmt.Sprintf("  %s  @id:%s  %s", o.Where(), o.ID, o.Name)
				if o.Reason != "" && status != StatusFailed && status != StatusWarning {
					line += "  (" + o.Reason + ")"
				}
				lines = append(lines, line)
			}
		}
		if len(lines) > 0 {
			fmt.Fprintf(w, "%s\n%s\n", heading, strings.Join(lines, "\n"))
		}
	}
	list(StatusFailed, paint("31", "Failed")+" (these fail the run):")
	list(StatusWarning, paint("33", "Warnings")+" (recommendations not met; below "+failOn+", they do not fail the run):")
	list(StatusKnown, "Known failures (listed in the baseline):")
	if len(rep.stale) > 0 {
		fmt.Fprintf(w, "%s: these scenarios pass now; remove them from the baseline: %s\n", paint("31", "Stale baseline entries"), strings.Join(rep.stale, ", "))
	}
	skipped := map[string]int{}
	for _, o := range rep.outcomes {
		if o.Status == StatusSkipped || o.Status == StatusDisabled || o.Status == StatusNotRun {
			skipped[o.Status+": "+o.Reason]++
		}
	}
	var reasons []string
	for r, n := range skipped {
		reasons = append(reasons, fmt.Sprintf("  %d %s", n, r))
	}
	sort.Strings(reasons)
	if len(reasons) > 0 {
		fmt.Fprintf(w, "Not run:\n%s\n", strings.Join(reasons, "\n"))
	}
	fmt.Fprintf(w, "catalogspec: %s\n", rep.verdict(failOn))
}

// verdict is the run's verdict in one sentence: conformant or not at the
// fail-on level, and why. It reads the judgement (judge). A run cut short
// says so first, and never that the target conforms.
func (rep *runReport) verdict(failOn string) string {
	if rep.readOnly {
		return "Read-only audit: " + lowerFirst(rep.judgement(failOn))
	}
	return rep.judgement(failOn)
}

// judgement is the verdict, but for saying the run was a read-only audit.
func (rep *runReport) judgement(failOn string) string {
	judged := judgedLevels(failOn)
	failed := rep.counts[StatusFailed]
	if how := rep.cutShort(); how != "" {
		first := "Stopped at the first failure (" + EnvFailFast + "=1)"
		if rep.interrupted != "" {
			first = "Interrupted by " + rep.interrupted
		}
		notRun := fmt.Sprintf("%d of %d selected %s did not run", rep.counts[StatusNotRun], len(rep.outcomes), plural(len(rep.outcomes), "scenario", "scenarios"))
		if failed > 0 || len(rep.stale) > 0 {
			return fmt.Sprintf("%s, and %s; %s", first, lowerFirst(rep.failures(failOn)), notRun)
		}
		ran := strings.TrimSuffix(strings.TrimSuffix(rep.countsOf(levels[len(levels)-1]), fmt.Sprintf("%d %s", rep.counts[StatusNotRun], StatusNotRun)), ", ")
		if ran == "" {
			ran = "none ran"
		}
		return fmt.Sprintf("%s: not judged, since %s (%s)", first, notRun, ran)
	}
	if failed > 0 || len(rep.stale) > 0 {
		return rep.failures(failOn)
	}
	n := 0
	for _, o := range rep.outcomes {
		if LevelRank(o.Level) <= LevelRank(failOn) {
			n++
		}
	}
	switch {
	case n == 0:
		return fmt.Sprintf("Conformant at @%s: no %s scenario was selected", failOn, listed(judged, "or"))
	case rep.countAt(failOn, StatusPassed) == n:
		return fmt.Sprintf("Conformant at @%s: every selected %s scenario passed", failOn, listed(judged, "and"))
	}
	return fmt.Sprintf("Conformant at @%s: no selected %s scenario failed (%s)", failOn, listed(judged, "or"), rep.countsOf(failOn))
}

// failures says why the run is not conformant: its failures at or above
// the fail-on level, and stale baseline entries.
func (rep *runReport) failures(failOn string) string {
	var why []string
	if failed := rep.counts[StatusFailed]; failed > 0 {
		why = append(why, fmt.Sprintf("%d %s %s failed", failed, listed(judgedLevels(failOn), "or"), plural(failed, "scenario", "scenarios")))
	}
	if n := len(rep.stale); n > 0 {
		why = append(why, fmt.Sprintf("%d baseline %s stale (%s)", n, plural(n, "entry is", "entries are"), strings.Join(rep.stale, ", ")))
	}
	return fmt.Sprintf("Not conformant at @%s: %s", failOn, strings.Join(why, "; "))
}

// countAt counts the scenarios of the status at or above the level.
func (rep *runReport) countAt(level, status string) int {
	n := 0
	for _, o := range rep.outcomes {
		if o.Status == status && LevelRank(o.Level) <= LevelRank(level) {
			n++
		}
	}
	return n
}

// countsOf lists the counts by status of the scenarios at or above the
// level: "2 passed, 1 skipped".
func (rep *runReport) countsOf(level string) string {
	var counts []string
	for _, st := range statusOrder {
		if n := rep.countAt(level, st); n > 0 {
			counts = append(counts, fmt.Sprintf("%d %s", n, st))
		}
	}
	return strings.Join(counts, ", ")
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// listed joins words as a sentence does: "must", "must and should",
// "must, should and may".
func listed(words []string, conj string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + conj + " " + words[len(words)-1]
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// summaryFilter passes godog's output through but for its closing counts
// ("N scenarios (...)", "N steps (...)" and the time), which count a
// skipped or disabled scenario as passed; the suite prints its own.
type summaryFilter struct {
	w       io.Writer
	partial []byte
	mu      sync.Mutex
	dropped int  // closing lines dropped so far
	blank   bool // the last line written was blank
}

func (f *summaryFilter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.partial = append(f.partial, p...)
	for {
		i := slices.Index(f.partial, '\n')
		if i < 0 {
			break
		}
		line := string(f.partial[:i+1])
		f.partial = f.partial[i+1:]
		if f.drop(line) {
			continue
		}
		if _, err := io.WriteString(f.w, line); err != nil {
			return len(p), err
		}
	}
	return len(p), nil
}

func (f *summaryFilter) drop(line string) bool {
	plain := strings.TrimSpace(ansi.ReplaceAllString(line, ""))
	switch {
	case summaryLine.MatchString(plain), plain == "No scenarios", plain == "No steps", strings.HasPrefix(plain, "Randomized with seed"):
		f.dropped++
		return true
	case f.dropped == 2 && elapsedLine.MatchString(plain):
		f.dropped++
		return true
	case plain == "" && f.blank:
		return true // one blank line is enough
	}
	f.blank = plain == ""
	return false
}

var (
	ansi        = regexp.MustCompile(`\x1b\[[0-9;]*m`)
	summaryLine = regexp.MustCompile(`^\d+ (scenarios|steps) \(`)
	elapsedLine = regexp.MustCompile(`^[0-9.hmµns]+$`)
)
