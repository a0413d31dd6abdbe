// Command bench measures the reference catalogd under load, beside a bare
// net/http handler of the same shape, in one run on one machine:
//
//   - requests/s, p50 and p99 of `me` with a personal access token, and of
//     the bare handler answering a fixed document of the same shape; the
//     ratio between them;
//   - the same for `createTag` with unique ids (a durable write each);
//   - flatness: `me` with 1,000 and then 100,000 stored tokens, and with 10
//     and then 10,000 active policies (a handful naming the caller), all
//     made through the API;
//   - propagation between two replicas on one database: a token used on
//     replica B, revoked through replica A, and the time from A's answer
//     until B refuses it, over -revocations runs.
//
// It prints one summary table at the end. It is a benchmark, not a test:
// nothing in `make test` depends on its timings. Run it as `make bench`.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/catalogspec/catalogspec/reference/catalogdtest"
	"github.com/catalogspec/catalogspec/reference/pgprovider"
)

type options struct {
	duration, warmup      time.Duration
	connections           int
	revocations           int
	tokensFew, tokensMany int
	policiesFew           int
	policiesMany          int
	fillers               int
	bare                  bool // internal: serve the bare handler (serveBare)
	gqlgenAlone           bool // internal: serve gqlgen alone (serveGqlgen)
	rounds                int  // turns of each target in a throughput run
	kinds                 map[string]bool
	baseline              string // another catalogd build measured beside this one
	flatness, propagation bool
	cacheOff              bool
	suite                 bool   // time the suite's runs too
	load                  bool   // the load runs: throughput, flatness, propagation
	memory                bool   // the worst requests' memory, alone and twenty at once
	memoryTwenty          bool   // with memory: twenty at once too
	memoryMixed           bool   // with memory: only twenty of each kind at once, together
	suiteLag              string // CATALOGSPEC_REFERENCE_LAG of the lagging run
}

func main() {
	var o options
	flag.DurationVar(&o.duration, "duration", 10*time.Second, "how long each load run measures")
	flag.DurationVar(&o.warmup, "warmup", 2*time.Second, "load before each measured run, not counted")
	flag.IntVar(&o.connections, "connections", 16, "concurrent connections, each sending its next request when the last is answered")
	flag.IntVar(&o.revocations, "revocations", 200, "revocations timed across replicas")
	flag.IntVar(&o.tokensFew, "tokens-few", 1_000, "stored tokens in the first flatness run")
	flag.IntVar(&o.tokensMany, "tokens-many", 100_000, "stored tokens in the second flatness run")
	flag.IntVar(&o.policiesFew, "policies-few", 10, "active policies in the first flatness run")
	flag.IntVar(&o.policiesMany, "policies-many", 10_000, "active policies in the second flatness run")
	flag.IntVar(&o.fillers, "fill-connections", 16, "concurrent requests while filling tokens and policies")
	flag.BoolVar(&o.cacheOff, "no-cache", false, "run catalogd with CATALOGD_CACHE=false, to compare")
	flag.BoolVar(&o.bare, "serve-bare", false, "")
	flag.BoolVar(&o.gqlgenAlone, "serve-gqlgen", false, "")
	flag.IntVar(&o.rounds, "rounds", 2, "turns of each target in a throughput run (bare, catalogd, bare, catalogd, ...), so that other work on the machine falls on both alike")
	kinds := flag.String("kinds", "me,createTag,get_aspect,openapi", "the throughput runs: me, createTag, get_aspect (Rest.li), openapi (an OpenAPI v3 read), each beside the bare handler")
	flag.StringVar(&o.baseline, "baseline", "", "another catalogd binary: `me` is measured on it too, in turns with the rest, to compare builds in one run")
	flag.BoolVar(&o.flatness, "flatness", true, "with -load: `me` with many tokens and policies stored")
	flag.BoolVar(&o.propagation, "propagation", true, "with -load: revocations across replicas")
	flag.BoolVar(&o.suite, "suite", true, "first time the suite: the whole of it and the scenarios without a browser against the reference (their ratio), its must-level scenarios, and the must-level ones against the reference lagging as DataHub does (-suite-lag)")
	flag.BoolVar(&o.load, "load", true, "the load runs: me and createTag beside a bare handler, flatness with many tokens and policies, propagation across replicas")
	flag.BoolVar(&o.memory, "memory", true, "the memory runs (issue 29): the worst request of each kind alone on a catalogd of its own, and twenty at once with a bystander asking me meanwhile; peak resident memory from /proc")
	flag.BoolVar(&o.memoryTwenty, "memory-twenty", true, "with -memory: twenty of each at once too")
	flag.BoolVar(&o.memoryMixed, "memory-mixed-only", false, "with -memory: only the run of twenty of each kind at once, together")
	flag.StringVar(&o.suiteLag, "suite-lag", "datahub", "how the reference lags in the lagging run (CATALOGSPEC_REFERENCE_LAG): datahub is a policy refresh every 120s and lists 4s behind; none leaves the lagging run out")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: go run ./tools/bench [flags]\n\nLoad test of the reference catalogd beside a bare net/http handler (make bench).\nPostgreSQL as for the suite: DATABASE_URL, a container, or local binaries.\nCATALOGSPEC_CATALOGD names a built catalogd; unset, it is built.\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if o.bare {
		serveBare(flag.Arg(0))
		return
	}
	if o.gqlgenAlone {
		serveGqlgen()
		return
	}
	o.kinds = map[string]bool{}
	for _, k := range strings.Split(*kinds, ",") {
		if k = strings.TrimSpace(k); k != "" {
			if !slices.Contains([]string{"me", "createTag", "get_aspect", "openapi"}, k) {
				fmt.Fprintf(os.Stderr, "bench: -kinds: no kind %q\n", k)
				os.Exit(2)
			}
			o.kinds[k] = true
		}
	}
	if flag.NArg() > 0 || o.connections < 1 || o.duration <= 0 || o.revocations < 1 || o.tokensFew > o.tokensMany || o.policiesFew > o.policiesMany {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// row is one line of the summary.
type row struct{ what, value, goal string }

func run(ctx context.Context, o options) error {
	started := time.Now()
	work, err := os.MkdirTemp("", "catalogspec-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)

	bin := os.Getenv("CATALOGSPEC_CATALOGD")
	if bin == "" {
		fmt.Println("building catalogd ...")
		if bin, err = catalogdtest.Build(ctx, work); err != nil {
			return err
		}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}

	// The suite first, while nothing else of the benchmark runs.
	var suiteRows []row
	if o.suite {
		runs := []suiteRun{
			{name: "whole suite, the immediate reference (the browser's scenarios included)", role: "whole",
				bound: "the machine's cores: each scenario's own work, CATALOGSPEC_CONCURRENCY at a time, the browser's beside it; nothing waits"},
			{name: "the scenarios without a browser (CATALOGSPEC_TAGS='~@ui'), the immediate reference", env: []string{"CATALOGSPEC_TAGS=~@ui"}, role: "no-browser",
				bound: "the machine's cores"},
			{name: "must-level scenarios, the immediate reference", env: []string{"CATALOGSPEC_TAGS=@must"},
				bound: "as the whole suite"},
		}
		if o.suiteLag != "none" {
			runs = append(runs, suiteRun{name: "must-level scenarios, the reference lagging as DataHub (CATALOGSPEC_REFERENCE_LAG=" + o.suiteLag + ")",
				env:   []string{"CATALOGSPEC_TAGS=@must", "CATALOGSPEC_REFERENCE_LAG=" + o.suiteLag},
				bound: "the policy refreshes: the waits overlap, so the run takes the refreshes of its longest chain of changes (a switch of the exclusive window and putting it back; a grant then its withdrawal), not the sum of its waits"})
		}
		suiteRows, err = timeSuite(ctx, work, bin, runs)
		if err != nil {
			return err
		}
	}

	// A durable cluster (fsync on, as catalogd's own data directory is), so
	// that a write costs what it costs in production; DATABASE_URL wins.
	if err := os.Chmod(work, 0o755); err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	db, err := pgprovider.Provide(ctx, pgprovider.Options{Logger: logger, DataDir: filepath.Join(work, "pgdata"), Containers: pgprovider.ContainersNever})
	if err != nil {
		return err
	}
	defer db.Close(context.Background())
	fmt.Printf("PostgreSQL: %s\n", db.Source)

	var rows []row
	if o.load {
		if rows, err = loadBench(ctx, o, bin, self, db); err != nil {
			return err
		}
	}
	var memRows []row
	if o.memory {
		if memRows, err = memoryBench(ctx, bin, db, o.memoryTwenty || o.memoryMixed, o.memoryMixed); err != nil {
			return err
		}
	}

	fmt.Printf("\n## catalogd benchmark, %s\n\n", time.Now().Format("2006-01-02"))
	durability := "durable: fsync and synchronous_commit on"
	if os.Getenv("DATABASE_URL") != "" {
		durability = "DATABASE_URL, as configured there"
	}
	fmt.Printf("Machine: %d cores (GOMAXPROCS %d), %s/%s, %s; PostgreSQL from %s (%s), on the same machine; catalogd cache %s.\n",
		runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, runtime.Version(), db.Source, durability, map[bool]string{true: "off", false: "on"}[o.cacheOff])
	fmt.Printf("Command: `go run ./tools/bench %s` (make bench: BENCH_ARGS); whole run %s.\n\n", strings.Join(os.Args[1:], " "), time.Since(started).Round(time.Second))
	if len(rows) > 0 {
		fmt.Println("| measure | result | goal |")
		fmt.Println("|---|---|---|")
		for _, r := range rows {
			fmt.Printf("| %s | %s | %s |\n", r.what, r.value, r.goal)
		}
	}
	if len(memRows) > 0 {
		fmt.Println("\nThe worst requests, alone on a catalogd of their own and twenty at once (peak resident memory; the bystander asks `me` meanwhile):")
		fmt.Println()
		fmt.Println("| request | answers, peak memory | goal |")
		fmt.Println("|---|---|---|")
		for _, r := range memRows {
			fmt.Printf("| %s | %s | %s |\n", r.what, r.value, r.goal)
		}
	}
	if len(suiteRows) > 0 {
		fmt.Println("\nThe suite's runs (each starts its own reference and database):")
		fmt.Println()
		fmt.Println("| run | result | what bounds it |")
		fmt.Println("|---|---|---|")
		for _, r := range suiteRows {
			fmt.Printf("| %s | %s | %s |\n", r.what, r.value, r.goal)
		}
	}
	return nil
}

// loadBench runs the load runs: throughput beside the bare handler,
// flatness, propagation across two replicas.
func loadBench(ctx context.Context, o options, bin, self string, db *pgprovider.Database) ([]row, error) {
	replica := catalogdtest.Options{Binary: bin, DatabaseURL: db.URL, Env: []string{"METADATA_SERVICE_AUTH_ENABLED=true"}}
	if o.cacheOff {
		replica.Env = append(replica.Env, "CATALOGD_CACHE=false")
	}
	a, err := catalogdtest.Start(ctx, replica)
	if err != nil {
		return nil, fmt.Errorf("replica A: %w", err)
	}
	defer a.Stop()
	b, err := catalogdtest.Start(ctx, replica)
	if err != nil {
		return nil, fmt.Errorf("replica B: %w", err)
	}
	defer b.Stop()

	admin, err := a.Token(ctx, catalogdtest.Root, "bench", "NO_EXPIRY")
	if err != nil {
		return nil, err
	}
	cl := &client{http: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	me := gql(`{ me { corpUser { urn username } } }`, nil)
	meOK := []byte(`"urn":"urn:li:corpuser:datahub"`)
	fixed := func(int64) []byte { return me }

	// Throughput: each kind beside the bare handler, in turns; a baseline
	// build, when given, serves the same database.
	var baseline *catalogdtest.Server
	var baselineToken string
	if o.baseline != "" {
		bo := replica
		bo.Binary = o.baseline
		if baseline, err = catalogdtest.Start(ctx, bo); err != nil {
			return nil, fmt.Errorf("the baseline build: %w", err)
		}
		defer baseline.Stop()
		if baselineToken, err = baseline.Token(ctx, catalogdtest.Root, "bench-baseline", "NO_EXPIRY"); err != nil {
			return nil, err
		}
	}
	rows, err := throughputRows(ctx, o, self, a, baseline, admin, baselineToken)
	if err != nil {
		return nil, err
	}
	if !o.flatness && !o.propagation {
		return rows, nil
	}

	if o.flatness {
		more, err := flatnessRows(ctx, o, cl, a.GMS, admin, fixed, meOK)
		if err != nil {
			return nil, err
		}
		rows = append(rows, more...)
	}
	if !o.propagation {
		return rows, nil
	}

	// Propagation across replicas.
	fmt.Printf("propagation: %d tokens revoked through A, each timed until B refuses it ...\n", o.revocations)
	lat, err := propagation(ctx, cl, a.GMS, b.GMS, admin, o.revocations)
	if err != nil {
		return nil, err
	}
	slices.Sort(lat)
	rows = append(rows, row{fmt.Sprintf("revoked on A → refused on B (%d runs)", len(lat)),
		fmt.Sprintf("p50 %s, p99 %s, max %s", ms(pct(lat, 50)), ms(pct(lat, 99)), ms(lat[len(lat)-1])), "p99 ≤ 100 ms"})
	return rows, nil
}

// flatnessRows measures `me` with few and many tokens, then few and many
// policies, stored.
func flatnessRows(ctx context.Context, o options, cl *client, gms, admin string, fixed func(int64) []byte, meOK []byte) ([]row, error) {
	var rows []row
	// Flatness: tokens.
	short := o
	short.duration = max(o.duration/2, time.Second)
	flat := func(name string) (result, error) {
		fmt.Printf("load: %s ...\n", name)
		r, err := drive(ctx, gms+"/api/graphql", admin, fixed, meOK, short)
		if err == nil {
			fmt.Printf("      %s\n", r)
		}
		return r, err
	}
	if err := fillTokens(ctx, cl, gms, admin, o.tokensFew, o.fillers); err != nil {
		return nil, err
	}
	rFew, err := flat(fmt.Sprintf("`me` with %d stored tokens", o.tokensFew))
	if err != nil {
		return nil, err
	}
	t := time.Now()
	if err := fillTokens(ctx, cl, gms, admin, o.tokensMany, o.fillers); err != nil {
		return nil, err
	}
	fmt.Printf("      (filled to %d tokens in %s)\n", o.tokensMany, time.Since(t).Round(time.Second))
	rMany, err := flat(fmt.Sprintf("`me` with %d stored tokens", o.tokensMany))
	if err != nil {
		return nil, err
	}
	rows = append(rows,
		row{fmt.Sprintf("`me`, %d tokens stored", o.tokensFew), rFew.String(), ""},
		row{fmt.Sprintf("`me`, %d tokens stored", o.tokensMany), rMany.String(), ""},
		row{fmt.Sprintf("cost per request, %d / %d tokens", o.tokensMany, o.tokensFew), fmt.Sprintf("%.2fx", rFew.rps/rMany.rps), "≤ 1.2x"},
	)

	// Flatness: policies. The caller is named by the boot policy and by a
	// handful more; the rest name other users.
	if err := fillPolicies(ctx, cl, gms, admin, o.policiesFew, o.fillers); err != nil {
		return nil, err
	}
	pFew, err := flat(fmt.Sprintf("`me` with %d active policies", o.policiesFew))
	if err != nil {
		return nil, err
	}
	t = time.Now()
	if err := fillPolicies(ctx, cl, gms, admin, o.policiesMany, o.fillers); err != nil {
		return nil, err
	}
	fmt.Printf("      (filled to %d policies in %s)\n", o.policiesMany, time.Since(t).Round(time.Second))
	pMany, err := flat(fmt.Sprintf("`me` with %d active policies", o.policiesMany))
	if err != nil {
		return nil, err
	}
	rows = append(rows,
		row{fmt.Sprintf("`me`, %d active policies", o.policiesFew), pFew.String(), ""},
		row{fmt.Sprintf("`me`, %d active policies", o.policiesMany), pMany.String(), ""},
		row{fmt.Sprintf("cost per request, %d / %d policies", o.policiesMany, o.policiesFew), fmt.Sprintf("%.2fx", pFew.rps/pMany.rps), "≤ 1.5x"},
	)

	return rows, nil
}

func gql(query string, vars map[string]any) []byte {
	b, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		panic(err)
	}
	return b
}

// result is one load run.
type result struct {
	rps      float64
	p50, p99 time.Duration
	n, fails int
}

func (r result) String() string {
	s := fmt.Sprintf("%.0f requests/s, p50 %s, p99 %s", r.rps, ms(r.p50), ms(r.p99))
	if r.fails > 0 {
		s += fmt.Sprintf(" (%d failed)", r.fails)
	}
	return s
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

func pct(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, len(sorted)*p/100)]
}

// drive sends POSTs of body to url as driveRequests does.
func drive(ctx context.Context, url, token string, body func(int64) []byte, ok []byte, o options) (result, error) {
	r, _, err := driveRequests(ctx, url, http.MethodPost, token, body, nil, ok, o, nil)
	return r, err
}

// driveRequests sends requests from o.connections connections, each on
// its own kept-alive connection, each sending the next when the last is
// answered (a body from body, none when body is nil; header in pairs); it
// counts what was answered 200 with ok in the body during the measured
// window, and fails when more than 1% failed. measuring, when not nil, is
// called as the warm-up ends. It returns the measured latencies, sorted.
func driveRequests(ctx context.Context, url, method, token string, body func(int64) []byte, header []string, ok []byte, o options, measuring func()) (result, []time.Duration, error) {
	var seq atomic.Int64
	warmEnd := time.Now().Add(o.warmup)
	end := warmEnd.Add(o.duration)
	type worker struct {
		lat   []time.Duration
		fails int
		err   error
	}
	if measuring != nil {
		timer := time.AfterFunc(o.warmup, measuring)
		defer timer.Stop()
	}
	workers := make([]worker, o.connections)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		go func(w *worker) {
			defer wg.Done()
			tr := &http.Transport{MaxIdleConnsPerHost: 1, MaxConnsPerHost: 1, DisableCompression: true}
			defer tr.CloseIdleConnections()
			c := &http.Client{Transport: tr, Timeout: 30 * time.Second}
			w.lat = make([]time.Duration, 0, 1<<16)
			buf := make([]byte, 0, 4096)
			for ctx.Err() == nil {
				t0 := time.Now()
				if t0.After(end) {
					return
				}
				var rd io.Reader = http.NoBody
				if body != nil {
					rd = bytes.NewReader(body(seq.Add(1)))
				}
				req, err := http.NewRequestWithContext(ctx, method, url, rd)
				if err != nil {
					w.err = err
					return
				}
				if body != nil {
					req.Header.Set("Content-Type", "application/json")
				}
				if token != "" {
					req.Header.Set("Authorization", "Bearer "+token)
				}
				for i := 0; i+1 < len(header); i += 2 {
					req.Header.Set(header[i], header[i+1])
				}
				res, err := c.Do(req)
				good := false
				if err == nil {
					buf = buf[:0]
					b := bytes.NewBuffer(buf)
					_, err = io.Copy(b, res.Body)
					res.Body.Close()
					buf = b.Bytes()
					good = err == nil && res.StatusCode == http.StatusOK && bytes.Contains(buf, ok)
				}
				t1 := time.Now()
				if t0.Before(warmEnd) {
					continue
				}
				if t1.After(end) {
					// Answered after the window: neither counted nor
					// failed.
					return
				}
				if good {
					w.lat = append(w.lat, t1.Sub(t0))
				} else {
					w.fails++
					if w.err == nil {
						if err != nil {
							w.err = err
						} else {
							w.err = fmt.Errorf("answered: %.200s", buf)
						}
					}
				}
			}
		}(&workers[i])
	}
	wg.Wait()
	if ctx.Err() != nil {
		return result{}, nil, ctx.Err()
	}
	var all []time.Duration
	var r result
	var firstErr error
	for _, w := range workers {
		all = append(all, w.lat...)
		r.fails += w.fails
		if firstErr == nil {
			firstErr = w.err
		}
	}
	slices.Sort(all)
	r.n = len(all)
	r.rps = float64(r.n) / o.duration.Seconds()
	r.p50, r.p99 = pct(all, 50), pct(all, 99)
	if r.n == 0 || r.fails*100 > r.n+r.fails {
		return r, all, fmt.Errorf("%d of %d requests failed, the first: %v", r.fails, r.n+r.fails, firstErr)
	}
	return r, all, nil
}

// client sends one-off GraphQL requests.
type client struct{ http *http.Client }

func (c *client) do(ctx context.Context, url, token string, body []byte, into any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/api/graphql", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d: %.200s", res.StatusCode, b)
	}
	var env struct {
		Data   json.RawMessage   `json:"data"`
		Errors []json.RawMessage `json:"errors"`
	}
	if err := json.Unmarshal(b, &env); err != nil {
		return err
	}
	if len(env.Errors) > 0 {
		return fmt.Errorf("errors: %s", env.Errors[0])
	}
	if into != nil {
		return json.Unmarshal(env.Data, into)
	}
	return nil
}

// parallel runs f(i) for i in [from, to) on n goroutines, stopping at the
// first error.
func parallel(ctx context.Context, from, to, n int, f func(int) error) error {
	var next atomic.Int64
	next.Store(int64(from))
	var first error
	var once sync.Once
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= to {
					return
				}
				if err := f(i); err != nil {
					once.Do(func() { first = err })
					next.Store(int64(to))
					return
				}
			}
		}()
	}
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}

var (
	tokensMade   int
	policiesMade int
)

// fillTokens makes tokens through the API until there are n of them (the
// admin's own counts as one).
func fillTokens(ctx context.Context, c *client, gms, admin string, n, fillers int) error {
	from := max(tokensMade, 1)
	if n <= from {
		return nil
	}
	fmt.Printf("fill: tokens %d → %d ...\n", from, n)
	err := parallel(ctx, from, n, fillers, func(i int) error {
		return c.do(ctx, gms, admin, gql(`mutation($in: CreateAccessTokenInput!) { createAccessToken(input: $in) { accessToken } }`,
			map[string]any{"in": map[string]any{"type": "PERSONAL", "actorUrn": "urn:li:corpuser:datahub", "duration": "NO_EXPIRY", "name": fmt.Sprintf("fill-%d", i)}}), nil)
	})
	if err != nil {
		return fmt.Errorf("making tokens: %w", err)
	}
	tokensMade = n
	return nil
}

// callerPolicies is how many of the filled policies name the caller.
const callerPolicies = 3

// fillPolicies makes ACTIVE policies through the API until n were made
// (the boot policies come on top): the first few name the caller, the rest
// other users.
func fillPolicies(ctx context.Context, c *client, gms, admin string, n, fillers int) error {
	from := policiesMade
	if n <= from {
		return nil
	}
	fmt.Printf("fill: policies %d → %d ...\n", from, n)
	err := parallel(ctx, from, n, fillers, func(i int) error {
		user := fmt.Sprintf("urn:li:corpuser:bench-user-%d", i)
		if i < callerPolicies {
			user = "urn:li:corpuser:datahub"
		}
		return c.do(ctx, gms, admin, gql(`mutation($in: PolicyUpdateInput!) { createPolicy(input: $in) }`, map[string]any{"in": map[string]any{
			"type": "PLATFORM", "name": fmt.Sprintf("bench policy %d", i), "state": "ACTIVE",
			"privileges": []string{"CREATE_TAGS"},
			"actors":     map[string]any{"users": []string{user}, "resourceOwners": false, "allUsers": false, "allGroups": false},
		}}), nil)
	})
	if err != nil {
		return fmt.Errorf("making policies: %w", err)
	}
	policiesMade = n
	return nil
}

// propagation makes a token, has replica B accept it (so B holds it), revokes
// it through A, and times from A's answer until B refuses it.
func propagation(ctx context.Context, c *client, a, b, admin string, runs int) ([]time.Duration, error) {
	var out []time.Duration
	probe := gql(`{ me { corpUser { urn } } }`, nil)
	ask := func(token string) (int, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, b+"/api/graphql", bytes.NewReader(probe))
		if err != nil {
			return 0, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := c.http.Do(req)
		if err != nil {
			return 0, err
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode, nil
	}
	for i := range runs {
		var made struct {
			CreateAccessToken struct {
				AccessToken string `json:"accessToken"`
				Metadata    struct {
					ID string `json:"id"`
				} `json:"metadata"`
			} `json:"createAccessToken"`
		}
		err := c.do(ctx, a, admin, gql(`mutation($in: CreateAccessTokenInput!) { createAccessToken(input: $in) { accessToken metadata { id } } }`,
			map[string]any{"in": map[string]any{"type": "PERSONAL", "actorUrn": "urn:li:corpuser:datahub", "duration": "ONE_HOUR", "name": fmt.Sprintf("propagation-%d", i)}}), &made)
		if err != nil {
			return nil, fmt.Errorf("making a token: %w", err)
		}
		token := made.CreateAccessToken.AccessToken
		// B accepts it first, within a second (it is new there).
		deadline := time.Now().Add(time.Second)
		for {
			st, err := ask(token)
			if err != nil {
				return nil, err
			}
			if st == http.StatusOK {
				break
			}
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("replica B did not accept a new token within 1s (status %d)", st)
			}
		}
		if err := c.do(ctx, a, admin, gql(`mutation($id: String!) { revokeAccessToken(tokenId: $id) }`, map[string]any{"id": made.CreateAccessToken.Metadata.ID}), nil); err != nil {
			return nil, fmt.Errorf("revoking: %w", err)
		}
		revoked := time.Now()
		for {
			st, err := ask(token)
			if err != nil {
				return nil, err
			}
			if st == http.StatusUnauthorized {
				out = append(out, time.Since(revoked))
				break
			}
			if time.Since(revoked) > 10*time.Second {
				return nil, errors.New("replica B still accepted a token 10s after it was revoked through A")
			}
		}
	}
	return out, nil
}
