package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/catalogspec/catalogspec/reference/catalogdtest"
	"github.com/catalogspec/catalogspec/runner"
)

// The suite's own time: how long a run takes against the reference as it
// is (immediate): the whole suite, browser included, and then the same
// run without the scenarios that drive a browser (CATALOGSPEC_TAGS='~@ui'),
// their ratio, and where the browser tier's time and CPU went; then the
// must-level scenarios, against the immediate reference and against the
// reference lagging as DataHub does with DataHub's defaults (policies
// refreshed every 120 s, lists 4 s behind). Each run starts its own
// reference and database (the harness does), one after the other.

// suiteRun is one run of the suite to time.
type suiteRun struct {
	name string
	env  []string
	// bound says what bounds the run's time.
	bound string
	// role marks the two runs whose ratio is the browser tier's cost:
	// "whole" (profiled: where the browser's time went) and "no-browser".
	role string
}

// suiteResult is what a run's results.json says of it.
type suiteResult struct {
	Seconds float64        `json:"duration_seconds"`
	Counts  map[string]int `json:"counts"`
	Waits   *struct {
		Count          int64   `json:"count"`
		TotalSeconds   float64 `json:"total_seconds"`
		LongestSeconds float64 `json:"longest_seconds"`
		WindowSeconds  float64 `json:"window_seconds"`
	} `json:"waits"`
}

// timeSuite runs the suite as each of runs and returns a summary row for
// each, and one for the ratio of the whole suite to the scenarios without a
// browser; catalogd is the binary the harness starts.
func timeSuite(ctx context.Context, work, catalogd string, runs []suiteRun) ([]row, error) {
	suite := filepath.Join(work, "catalogspec")
	fmt.Println("building catalogspec ...")
	if out, err := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", suite, "./cmd/catalogspec").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build ./cmd/catalogspec: %v\n%s", err, out)
	}
	var rows []row
	seconds := map[string]float64{}
	loads := map[string]string{}
	for i, r := range runs {
		reports := filepath.Join(work, fmt.Sprintf("suite-%d", i))
		fmt.Printf("suite: %s ...\n", r.name)
		cmd := exec.CommandContext(ctx, suite, "run")
		cmd.Env = append(append(cleanSuiteEnv(), "CATALOGSPEC_CATALOGD="+catalogd, "CATALOGSPEC_REPORTS_DIR="+reports, "NO_COLOR=1"), r.env...)
		profile := ""
		if r.role == "whole" {
			profile = filepath.Join(work, fmt.Sprintf("suite-%d.profile", i))
			cmd.Env = append(cmd.Env, runner.EnvProfile+"="+profile)
		}
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		load := loadAverage()
		began := time.Now()
		if err := cmd.Start(); err != nil {
			return rows, fmt.Errorf("%s: %v", r.name, err)
		}
		cpu := sampleCPU(cmd.Process.Pid)
		err := cmd.Wait()
		wall := time.Since(began)
		used := cpu()
		var res suiteResult
		b, rerr := os.ReadFile(filepath.Join(reports, "results.json"))
		if rerr == nil {
			rerr = json.Unmarshal(b, &res)
		}
		if err != nil || rerr != nil {
			return rows, fmt.Errorf("%s: %v %v\n%s", r.name, err, rerr, catalogdtest.LastLines(out.String(), 30))
		}
		passed, total := res.Counts["passed"], 0
		for _, n := range res.Counts {
			total += n
		}
		value := fmt.Sprintf("%d/%d passed in %s (%s with the harness's start), load average before %s", passed, total,
			time.Duration(res.Seconds*float64(time.Second)).Round(100*time.Millisecond), wall.Round(100*time.Millisecond), load)
		if w := res.Waits; w != nil && w.Count > 0 {
			value += fmt.Sprintf("; %d waits for a change to show, %s in all, the longest %s (each bounded by the window of %s)",
				w.Count, time.Duration(w.TotalSeconds*float64(time.Second)).Round(time.Second),
				time.Duration(w.LongestSeconds*float64(time.Second)).Round(100*time.Millisecond), time.Duration(w.WindowSeconds*float64(time.Second)))
		} else {
			value += "; no step waited"
		}
		value += "; CPU " + used.String()
		if m := seedLine.FindStringSubmatch(out.String()); m != nil {
			value += "; seed " + m[1]
		}
		if m := orderLine.FindStringSubmatch(out.String()); m != nil {
			value += "; " + m[1]
		}
		if m := browserLine.FindStringSubmatch(out.String()); m != nil {
			value += "; browser " + m[1]
		}
		if profile != "" {
			if s, err := browserTier(profile); err == nil {
				value += "; " + s
			} else {
				value += fmt.Sprintf("; no profile (%v)", err)
			}
		}
		fmt.Printf("      %s\n", value)
		rows = append(rows, row{r.name, value, r.bound})
		if r.role != "" {
			seconds[r.role], loads[r.role] = res.Seconds, load
		}
	}
	if whole, bare := seconds["whole"], seconds["no-browser"]; whole > 0 && bare > 0 {
		value := fmt.Sprintf("%.2f (%.1f s / %.1f s; load average before each: %s, %s)", whole/bare, whole, bare, loads["whole"], loads["no-browser"])
		fmt.Printf("suite: the whole suite against the scenarios without a browser: %s\n", value)
		rows = append(rows, row{"whole suite / the scenarios without a browser (wall, same `make bench`)", value, "≤ 3; the whole suite in 15 s on two cores"})
	}
	return rows, nil
}

var (
	seedLine    = regexp.MustCompile(`, seed (\d+) `)
	orderLine   = regexp.MustCompile(`catalogspec: in this order: (.+)`)
	browserLine = regexp.MustCompile(`catalogspec: the @ui scenarios drive (\S+)`)
)

// cleanSuiteEnv is the environment without anything that would point the
// suite elsewhere or change how it runs.
func cleanSuiteEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CATALOGSPEC_") && !strings.HasPrefix(kv, "CATALOGD_") && !strings.HasPrefix(kv, "DATABASE_URL=") {
			env = append(env, kv)
		}
	}
	return env
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// cpuUse is the CPU a run's processes used, by kind.
type cpuUse map[string]float64

func (u cpuUse) String() string {
	if len(u) == 0 {
		return "not measured (no /proc)"
	}
	kinds := make([]string, 0, len(u))
	var total float64
	for k, v := range u {
		kinds = append(kinds, k)
		total += v
	}
	sort.Slice(kinds, func(i, j int) bool { return u[kinds[i]] > u[kinds[j]] })
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s %.1f s", k, u[k])
	}
	return fmt.Sprintf("%.1f s (%s)", total, strings.Join(parts, ", "))
}

// sampleCPU watches the processes under pid (the suite, the catalogd
// instances and the PostgreSQL it starts, the browser) every 100 ms, from
// /proc, until the returned function is called, which returns the CPU each
// kind used: a process's last reading counts, so processes that came and
// went between readings are missed (none of the run's lives that briefly).
func sampleCPU(pid int) func() cpuUse {
	var mu sync.Mutex
	last := map[int]float64{}
	kind := map[int]string{}
	stop := make(chan struct{})
	done := make(chan struct{})
	read := func() {
		tree := procTree(pid)
		mu.Lock()
		defer mu.Unlock()
		for p, cpu := range tree {
			if _, ok := kind[p]; !ok {
				kind[p] = procKind(p)
			}
			last[p] = max(last[p], cpu)
		}
	}
	go func() {
		defer close(done)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				read()
			}
		}
	}()
	return func() cpuUse {
		close(stop)
		<-done
		mu.Lock()
		defer mu.Unlock()
		u := cpuUse{}
		for p, cpu := range last {
			u[kind[p]] += cpu
		}
		return u
	}
}

// procTree is the CPU (user and system, seconds) of root and every process
// under it.
func procTree(root int) map[int]float64 {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	parent := map[int]int{}
	cpu := map[int]float64{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		if len(f) < 13 {
			continue
		}
		parent[pid], _ = strconv.Atoi(f[1])
		utime, _ := strconv.ParseFloat(f[11], 64)
		stime, _ := strconv.ParseFloat(f[12], 64)
		cpu[pid] = (utime + stime) / 100 // USER_HZ, 100 on Linux
	}
	out := map[int]float64{}
	for pid := range cpu {
		for p := pid; p > 1; p = parent[p] {
			if p == root {
				out[pid] = cpu[pid]
				break
			}
		}
	}
	return out
}

// procKind names what a process is, from the program it runs.
func procKind(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	args := strings.Fields(strings.ReplaceAll(string(b), "\x00", " "))
	if len(args) == 0 { // gone, or not yet started
		b, _ = os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		args = strings.Fields(string(b) + " ?")
	}
	exe := filepath.Base(args[0])
	switch {
	case strings.Contains(exe, "chrom"), strings.Contains(exe, "headless"):
		return "Chromium"
	case strings.HasPrefix(exe, "postgres"):
		return "PostgreSQL"
	case exe == "catalogd":
		return "catalogd"
	case exe == "catalogspec":
		return "the suite"
	}
	return "other"
}

// browserTier sums up the browser tier from a run's profile
// (CATALOGSPEC_PROFILE): its scenarios' time, the pages made and emptied,
// and the browser's commands.
func browserTier(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	type sum struct {
		n   int
		sec float64
	}
	by := map[string]*sum{}
	// When the browser's scenarios ran, and when the run's last scenario
	// ended: how far the browser tier overlapped the rest.
	uiFirst, uiLast, end := -1.0, 0.0, 0.0
	add := func(k string, s float64) {
		if by[k] == nil {
			by[k] = &sum{}
		}
		by[k].n++
		by[k].sec += s
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var s runner.Span
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return "", err
		}
		if s.Kind == "scenario" {
			end = max(end, s.Start+s.Seconds)
			if s.UI {
				if uiFirst < 0 || s.Start < uiFirst {
					uiFirst = s.Start
				}
				uiLast = max(uiLast, s.Start+s.Seconds)
			}
		}
		switch {
		case s.Kind == "scenario" && s.UI:
			add("ui-scenario", s.Seconds)
		case s.Kind == "scenario":
			add("scenario", s.Seconds)
		case s.Kind == "context-emptied" && s.Name != "":
			add("context-thrown", s.Seconds)
		case s.UI:
			add(s.Kind, s.Seconds)
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	get := func(k string) sum {
		if s := by[k]; s != nil {
			return *s
		}
		return sum{}
	}
	ui, other := get("ui-scenario"), get("scenario")
	start := get("browser-start")
	made, emptied, thrown, taken := get("context-made"), get("context-emptied"), get("context-thrown"), get("context-taken")
	nav, load, run, eval := get("navigate"), get("wait-load"), get("run"), get("eval")
	return fmt.Sprintf("browser tier: %d scenarios, %.1f s of scenario time in all (the other %d: %.1f s), run from %.1f s to %.1f s of the scenarios' %.1f s; the browser started in %.1f s; "+
		"pages: %d made (%.1f s), %d emptied for another scenario (%.1f s, in the background), %d thrown away instead; "+
		"scenarios waited %.1f s in all for a page; %d page loads (%.1f s), %d waits for a new document (%.1f s), %d other browser commands (%.1f s), %d scripts run (%.1f s)",
		ui.n, ui.sec, other.n, other.sec, max(uiFirst, 0), uiLast, end, start.sec,
		made.n, made.sec, emptied.n, emptied.sec, thrown.n,
		taken.sec, nav.n, nav.sec, load.n, load.sec, run.n, run.sec, eval.n, eval.sec), nil
}
