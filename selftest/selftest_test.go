package selftest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/catalogspec/catalogspec/reference/catalogdtest"
	"github.com/catalogspec/catalogspec/reference/pgprovider"
)

const (
	// runTimeout bounds one run of the suite; a clean run takes seconds.
	runTimeout = 3 * time.Minute
	// propagation is the suite's window for a change to show. The reference
	// is immediate; a short window keeps the runs with a fault short, and
	// is longer than policyCacheTTL so that only the "at once" scenarios
	// notice policy-cache-lags.
	propagation = "2s"
	// envOnly, when set, names the faults to run (comma-separated), to try
	// one fault again without running them all.
	envOnly = "CATALOGSPEC_SELFTEST_FAULTS"
)

// TestSelftest runs the suite against one reference through the fault
// proxy: once whole with no fault, which must pass; once per fault, each of
// which must make one of the scenarios its Trips names fail; and once more
// with no fault, to show that the faults left the reference as they found
// it. A fault's run is only the scenarios it names (Trips and With), by
// their ids: a run proves that one of them catches it,
// and what bounds the self-test's time is then the clean run, which grows
// with the suite, and one short run per fault, which does not.
func TestSelftest(t *testing.T) {
	if testing.Short() {
		t.Skip("the selftest runs the whole suite once per fault")
	}
	if err := checkFaults(Faults); err != nil {
		t.Fatal(err)
	}
	only := map[string]bool{}
	for _, name := range strings.FieldsFunc(os.Getenv(envOnly), func(r rune) bool { return r == ',' || r == ' ' }) {
		if !slices.ContainsFunc(Faults, func(f Fault) bool { return f.Name == name }) {
			t.Fatalf("%s names %q, which is not a fault", envOnly, name)
		}
		only[name] = true
	}
	start := time.Now()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	suite := filepath.Join(work, "steps.test")
	goBuild(t, root, "test", "-c", "-o", suite, "./steps")
	ctx := t.Context()
	gms, frontend, admin := startReference(t, work)
	proxy, err := NewProxy(gms, frontend, admin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Close)
	masked := func(s string) string { return mask(s, admin) }

	runs := 0
	run := func(name string, env ...string) outcome {
		runs++
		o := runSuite(ctx, suite, filepath.Join(root, "steps"), filepath.Join(work, fmt.Sprintf("reports-%02d-%s", runs, name)), proxy, admin, env...)
		o.out = masked(o.out)
		return o
	}

	proxy.Set(nil)
	clean := run("clean")
	if clean.err != nil || len(clean.failed) > 0 {
		t.Fatalf("the clean run through the proxy (no fault) must pass, but %s in %s:\n%s",
			clean.verdict(), clean.took, catalogdtest.LastLines(clean.out, 80))
	}
	t.Logf("clean run: %d scenarios passed (%d skipped) in %s", len(clean.all)-len(clean.skipped), len(clean.skipped), clean.took)

	var rows [][3]string
	var missed []string
	faults := 0
	ranAfter := map[string]bool{} // the scenarios the faults ran, as @id tags
	for i := range Faults {
		f := &Faults[i]
		if len(only) > 0 && !only[f.Name] {
			continue
		}
		faults++
		proxy.Set(f)
		tags := idTags(f.Trips, f.With)
		var o outcome
		if f.UI {
			o = run(f.Name, "CATALOGSPEC_TAGS="+tags)
		} else {
			for _, tag := range strings.Split(tags, ",") {
				ranAfter[tag] = true
			}
			o = run(f.Name, "CATALOGSPEC_TAGS="+tags, "CATALOGSPEC_DISABLE=ui")
		}
		proxy.Set(nil)
		caught := o.matching(f.Trips)
		expected := strings.Join(f.Trips, ", ")
		switch {
		case o.err != nil:
			t.Errorf("fault %s: the suite did not run to the end: %v\n%s", f.Name, o.err, catalogdtest.LastLines(o.out, 40))
			rows = append(rows, [3]string{f.Name, "RUN FAILED: " + o.err.Error(), expected})
			missed = append(missed, f.Name+" (run failed)")
			continue
		case len(caught) == 0:
			missed = append(missed, f.Name)
			t.Errorf("fault %s was not caught. It breaks: %s. None of the scenarios %s failed; %s.\n%s",
				f.Name, f.Breaks, expected, o.verdict(), catalogdtest.LastLines(o.out, 40))
		}
		rows = append(rows, [3]string{f.Name, describeCatch(caught, o.failed), expected})
		t.Logf("fault %-27s %3d scenario(s) failed, %d expected, in %s", f.Name, len(o.failed), len(caught), o.took)
	}

	// The browser pages were shown whole in the first clean run; this one
	// shows the faults left the reference as they found it, for every
	// scenario they ran.
	afterTags := slices.Sorted(maps.Keys(ranAfter))
	if len(afterTags) == 0 {
		afterTags = []string{"@must"} // only browser faults ran
	}
	after := run("clean-after", "CATALOGSPEC_TAGS="+strings.Join(afterTags, ","), "CATALOGSPEC_DISABLE=ui")
	if after.err != nil || len(after.failed) > 0 {
		t.Errorf("the clean run after the faults must pass too (a fault left the reference changed?), but %s:\n%s",
			after.verdict(), catalogdtest.LastLines(after.out, 60))
	}

	table := formatTable(rows)
	summary := fmt.Sprintf("selftest: %d faults, %d caught, %d not caught%s; clean run %s, all %d runs %s\n",
		faults, faults-len(missed), len(missed), listOrEmpty(missed), clean.took, runs, time.Since(start).Round(time.Second))
	t.Logf("\n%s%s", table, summary)
	writeReport(t, root, table+summary)
}

// outcome is what one run of the suite did.
type outcome struct {
	all, failed, skipped []string          // scenario names
	ids                  map[string]string // scenario name -> id
	out                  string            // the suite's output, masked
	took                 time.Duration
	err                  error // the run did not finish, or wrote no report
}

func (o outcome) verdict() string {
	if o.err != nil {
		return o.err.Error()
	}
	if len(o.failed) == 0 {
		return "no scenario failed"
	}
	return fmt.Sprintf("%d scenario(s) failed: %s", len(o.failed), strings.Join(firstN(o.failed, 5), "; "))
}

// matching are the failed scenarios whose ids are among ids.
func (o outcome) matching(ids []string) []string {
	var out []string
	for _, name := range o.failed {
		if slices.Contains(ids, o.ids[name]) {
			out = append(out, name)
		}
	}
	return out
}

// runSuite runs the built suite once against the proxy.
func runSuite(ctx context.Context, suite, dir, reports string, p *Proxy, admin string, env ...string) outcome {
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, suite, "-test.run", "^TestFeatures$", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(),
		"CATALOGSPEC_GMS_URL="+p.GMS,
		"CATALOGSPEC_FRONTEND_URL="+p.Frontend,
		"CATALOGSPEC_ADMIN_TOKEN="+admin,
		"CATALOGSPEC_REPORTS_DIR="+reports,
		"CATALOGSPEC_PROPAGATION_TIMEOUT="+propagation,
		"CATALOGSPEC_CONCURRENCY=4",
		"CATALOGSPEC_FORMAT=progress",
		// The reference follows every recommendation: hold it to them.
		"CATALOGSPEC_FAIL_ON=should",
		"NO_COLOR=1")
	cmd.Env = append(cmd.Env, env...)
	catalogdtest.StopWithParent(cmd)
	cmd.WaitDelay = 5 * time.Second
	var buf strings.Builder
	cmd.Stdout, cmd.Stderr = &buf, &buf
	began := time.Now()
	runErr := cmd.Run()
	o := outcome{out: buf.String(), took: time.Since(began).Round(10 * time.Millisecond)}
	if ctx.Err() != nil {
		o.err = fmt.Errorf("the run was stopped after %s", runTimeout)
		return o
	}
	var err error
	o.all, o.failed, o.skipped, o.ids, err = readResults(filepath.Join(reports, "results.json"))
	if err != nil {
		o.err = fmt.Errorf("%v (the suite exited: %v)", err, runErr)
	} else if runErr != nil && len(o.failed) == 0 {
		o.err = fmt.Errorf("the suite failed with no failed scenario (%v): see its output", runErr)
	}
	return o
}

// readResults reads the scenarios of the suite's results.json: all of
// them, those that failed, those that did not run, and each one's id.
func readResults(path string) (all, failed, skipped []string, ids map[string]string, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("the suite wrote no report: %w", err)
	}
	var results struct {
		Scenarios []struct {
			ID     string `json:"id"`
			Name   string `json:"name"`
			Status string `json:"status"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal(b, &results); err != nil || len(results.Scenarios) == 0 {
		return nil, nil, nil, nil, fmt.Errorf("%s is not the suite's results (%v)", path, err)
	}
	ids = map[string]string{}
	for _, sc := range results.Scenarios {
		all = append(all, sc.Name)
		ids[sc.Name] = sc.ID
		switch sc.Status {
		case "failed", "warning", "known":
			failed = append(failed, sc.Name)
		case "skipped", "disabled", "not run":
			skipped = append(skipped, sc.Name)
		}
	}
	for _, l := range []*[]string{&all, &failed, &skipped} {
		slices.Sort(*l)
		*l = slices.Compact(*l)
	}
	return all, failed, skipped, ids, nil
}

// ---- The reference ----

func goBuild(t testing.TB, root string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// cleanEnv is this process's environment without anything that would point
// the suite or catalogd elsewhere.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CATALOGSPEC_") && !strings.HasPrefix(kv, "DATABASE_URL=") &&
			!strings.HasPrefix(kv, "METADATA_SERVICE_AUTH_ENABLED=") && !strings.HasPrefix(kv, "CATALOGD_") {
			env = append(env, kv)
		}
	}
	return env
}

// startReference builds catalogd into work and starts it with
// authentication on, over a database of its own, logging to
// work/catalogd.log; both end with the test. admin is a root token.
func startReference(t *testing.T, work string) (gms, frontend *url.URL, admin string) {
	t.Helper()
	srv, _, _ := startCatalogd(t, work)
	admin, err := srv.Token(t.Context(), catalogdtest.Root, "selftest-admin", "ONE_DAY")
	if err != nil {
		t.Fatal(err)
	}
	gms, err1 := url.Parse(srv.GMS)
	frontend, err2 := url.Parse(srv.Frontend)
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	return gms, frontend, admin
}

// startCatalogd builds catalogd into work and runs `catalogd serve` with
// authentication on and env besides, over a database of its own (at
// dbURL), logging to work/catalogd.log; both end with the test.
func startCatalogd(t testing.TB, work string, env ...string) (srv *catalogdtest.Server, bin, dbURL string) {
	t.Helper()
	bin, err := catalogdtest.Build(t.Context(), work)
	if err != nil {
		t.Fatal(err)
	}
	logFile, err := os.Create(filepath.Join(work, "catalogd.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = logFile.Close() })
	db, err := pgprovider.Provide(t.Context(), pgprovider.Options{Logger: slog.New(slog.NewTextHandler(logFile, nil))})
	if err != nil {
		t.Fatalf("no database for the reference: %v", err)
	}
	t.Cleanup(func() { _ = db.Close(context.Background()) })
	srv = catalogdtest.New(t, catalogdtest.Options{Binary: bin, DatabaseURL: db.URL, Inherit: cleanEnv(), Log: logFile,
		// The suite runs some fifty times against this one instance,
		// always from 127.0.0.1: its failed sign-ins, made on purpose,
		// must not throttle later runs' as one client's (the suite's own
		// harness does the same).
		Env: append([]string{"METADATA_SERVICE_AUTH_ENABLED=true", "CATALOGD_SIGNIN_MAX_FAILURES_PER_CLIENT=100000"}, env...)})
	return srv, bin, db.URL
}

// ---- Output, never with a token in it ----

var jwtLike = regexp.MustCompile(`eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.?[A-Za-z0-9_-]*`)

// mask hides anything shaped like a JWT, and each of secrets.
func mask(s string, secrets ...string) string {
	for _, sec := range secrets {
		if sec != "" {
			s = strings.ReplaceAll(s, sec, "***")
		}
	}
	return jwtLike.ReplaceAllString(s, "***")
}

func firstN(l []string, n int) []string {
	if len(l) <= n {
		return l
	}
	return append(slices.Clip(l[:n]), fmt.Sprintf("and %d more", len(l)-n))
}

func listOrEmpty(l []string) string {
	if len(l) == 0 {
		return ""
	}
	return " (" + strings.Join(l, ", ") + ")"
}

// describeCatch is the "caught by" cell: the first two expected scenarios
// that failed, and how many failed besides.
func describeCatch(caught, failed []string) string {
	if len(caught) == 0 {
		return fmt.Sprintf("NOT CAUGHT (%d other scenario(s) failed)", len(failed))
	}
	s := strings.Join(caught[:min(2, len(caught))], "; ")
	var more []string
	if n := len(caught) - 2; n > 0 {
		more = append(more, fmt.Sprintf("%d more expected", n))
	}
	if n := len(failed) - len(caught); n > 0 {
		more = append(more, fmt.Sprintf("%d other", n))
	}
	if len(more) > 0 {
		s += " [+" + strings.Join(more, ", +") + "]"
	}
	return s
}

func formatTable(rows [][3]string) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 1, ' ', 0)
	fmt.Fprintln(tw, "fault\t| caught by\t| expected")
	fmt.Fprintln(tw, "-----\t| ---------\t| --------")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t| %s\t| %s\n", r[0], r[1], r[2])
	}
	_ = tw.Flush()
	return b.String()
}

// writeReport keeps the table in the reports directory the suite uses
// (CATALOGSPEC_REPORTS_DIR, else reports/ at the module root), as
// selftest.txt; go test shows the test's log only with -v or on failure.
func writeReport(t *testing.T, root, text string) {
	dir := os.Getenv("CATALOGSPEC_REPORTS_DIR")
	if dir == "" {
		dir = filepath.Join(root, "reports")
	}
	if err := os.MkdirAll(dir, 0o755); err == nil {
		path := filepath.Join(dir, "selftest.txt")
		if err := os.WriteFile(path, []byte(text), 0o644); err == nil {
			t.Logf("the table is in %s", path)
			return
		}
	}
	t.Logf("could not write the table to %s", dir)
}
