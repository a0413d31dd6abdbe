package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/catalogspec/catalogspec/reference"
	"github.com/catalogspec/catalogspec/reference/catalogdtest"
	"github.com/catalogspec/catalogspec/reference/graph"
)

// The throughput runs (issue 31): each kind of request on catalogd beside
// a bare net/http handler that answers what catalogd answered, in turns
// (bare, catalogd, bare, catalogd, ...) so that whatever else loads the
// machine loads both alike; `me` also beside the same document run
// through gqlgen alone (no authentication, no limits, no middleware), and
// beside another build of catalogd when -baseline names one. Besides
// requests/s, p50 and p99, each run reports the CPU each process spent per
// request (from /proc), which another engineer's build on the same cores
// disturbs far less than the wall clock.

// loadKind is one kind of request.
type loadKind struct {
	name   string
	method string
	path   string             // with its query, on catalogd's GMS
	body   func(int64) []byte // nil: no body
	header []string           // pairs
	ok     []byte             // in every good answer
}

// bareRoute is one answer of the bare handler: what catalogd answered.
type bareRoute struct {
	Method      string `json:"method"`
	Path        string `json:"path"` // decoded, without the query
	ContentType string `json:"contentType"`
	Body        []byte `json:"body"`
	// GraphQL: the body is decoded as a GraphQL server must, and refused
	// without a query; Mutation: the answer is a mutation's (the bare
	// handler tells them apart by the document's first word).
	GraphQL  bool `json:"graphql"`
	Mutation bool `json:"mutation"`
}

// target is a server the load is driven against.
type target struct {
	name  string
	base  string // http://host:port
	pid   int
	token string
	ok    []byte // in every good answer, when not the kind's
}

// serveBare is the bare handler, on the listener startBare passed as fd 3,
// answering the routes in the file named by its last argument: a GraphQL
// POST's JSON body is decoded, as a GraphQL server must, a GET's query
// parsed; the answer is fixed.
func serveBare(routesFile string) {
	l, err := net.FileListener(os.NewFile(3, "listener"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench -serve-bare:", err)
		os.Exit(1)
	}
	b, err := os.ReadFile(routesFile)
	var routes []bareRoute
	if err == nil {
		err = json.Unmarshal(b, &routes)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench -serve-bare:", err)
		os.Exit(1)
	}
	byPath := map[string]bareRoute{}
	for _, r := range routes {
		byPath[fmt.Sprint(r.Method, " ", r.Path, " ", r.Mutation)] = r
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		route, ok := byPath[r.Method+" "+r.URL.Path+" false"]
		if ok && route.GraphQL {
			var req struct {
				Query     string         `json:"query"`
				Variables map[string]any `json:"variables"`
			}
			if json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req) != nil || req.Query == "" {
				http.Error(w, "bad request", http.StatusBadRequest)
				return
			}
			if strings.HasPrefix(strings.TrimSpace(req.Query), "mutation") {
				route, ok = byPath[r.Method+" "+r.URL.Path+" true"]
			}
		}
		if !ok {
			http.NotFound(w, r)
			return
		}
		if !route.GraphQL && len(r.URL.Query()) == 0 && r.URL.RawQuery != "" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", route.ContentType)
		_, _ = w.Write(route.Body)
	})
	fmt.Fprintln(os.Stderr, (&http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}).Serve(l))
	os.Exit(1)
}

// serveGqlgen is the bound of a GraphQL server in Go: net/http and gqlgen
// (its documents parsed and validated once, by its own cache) running
// catalogd's schema and resolvers as the system actor, with no
// authentication, no limits, no budgets, no access log: what the same
// document costs a gqlgen server with nothing of catalogd's around it.
func serveGqlgen() {
	l, err := net.FileListener(os.NewFile(3, "listener"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench -serve-gqlgen:", err)
		os.Exit(1)
	}
	svc := reference.NewService(nil, reference.Config{})
	srv := handler.New(graph.NewExecutableSchema(graph.Config{Resolvers: &graph.Resolver{Service: svc}}))
	srv.AddTransport(transport.POST{})
	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	system := reference.Actor{URN: reference.SystemUser, System: true}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		srv.ServeHTTP(w, r.WithContext(reference.NewContextWithActor(r.Context(), system)))
	})
	fmt.Fprintln(os.Stderr, (&http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}).Serve(l))
	os.Exit(1)
}

// startHelper runs this program with flag (-serve-bare or -serve-gqlgen)
// in a process of its own (as catalogd runs in its own), serving on a
// listener opened here, so that its address is known before it starts.
func startHelper(ctx context.Context, self string, args ...string) (url string, pid int, stop func(), err error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", 0, nil, err
	}
	defer l.Close()
	f, err := l.(*net.TCPListener).File()
	if err != nil {
		return "", 0, nil, err
	}
	defer f.Close()
	ctx, cancel := context.WithCancel(ctx)
	cmd := exec.CommandContext(ctx, self, args...)
	cmd.ExtraFiles = []*os.File{f} // its fd 3
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	catalogdtest.StopWithParent(cmd)
	if err := cmd.Start(); err != nil {
		cancel()
		return "", 0, nil, err
	}
	return "http://" + l.Addr().String(), cmd.Process.Pid, func() { cancel(); _ = cmd.Wait() }, nil
}

// loadKinds are the requests measured beside the bare handler: `me`, a
// write, and a read of each of DataHub's REST APIs the SDK uses.
func loadKinds(dataset string) []loadKind {
	prefix := fmt.Sprintf("bench-%d-", time.Now().UnixNano())
	me := gql(`{ me { corpUser { urn username } } }`, nil)
	// Each turn counts its requests from one again: the ids count on
	// across turns.
	var tags atomic.Int64
	return []loadKind{
		{name: "`me` with a personal access token", method: http.MethodPost, path: "/api/graphql",
			body: func(int64) []byte { return me }, ok: []byte(`"urn":"urn:li:corpuser:datahub"`)},
		{name: "`createTag`, unique ids (a durable write each)", method: http.MethodPost, path: "/api/graphql",
			body: func(int64) []byte {
				return gql(`mutation($in: CreateTagInput!) { createTag(input: $in) }`, map[string]any{"in": map[string]any{"id": fmt.Sprintf("%s%d", prefix, tags.Add(1)), "name": "bench"}})
			}, ok: []byte(`"createTag":"urn:li:tag:`)},
		{name: "Rest.li `get_aspect` (datasetProperties)", method: http.MethodGet,
			path:   "/aspects/" + url.PathEscape(dataset) + "?aspect=datasetProperties&version=0",
			header: []string{"X-RestLi-Protocol-Version", "2.0.0"}, ok: []byte(`"com.linkedin.dataset.DatasetProperties"`)},
		{name: "OpenAPI v3 read of a dataset (datasetProperties)", method: http.MethodGet,
			path: "/openapi/v3/entity/dataset/" + url.PathEscape(dataset) + "?aspects=datasetProperties", ok: []byte(`"datasetProperties"`)},
	}
}

// benchDataset is what the reads read: a dataset with properties of the
// size DataHub's SDK writes for a table.
const benchDataset = "urn:li:dataset:(urn:li:dataPlatform:hive,bench.throughput,PROD)"

func ingestBenchDataset(ctx context.Context, gms, token string) error {
	value, _ := json.Marshal(map[string]any{"name": "throughput", "description": "The table the throughput runs read.",
		"customProperties": map[string]string{"owner": "bench", "tier": "gold"}})
	body, _ := json.Marshal(map[string]any{"proposal": map[string]any{
		"entityType": "dataset", "entityUrn": benchDataset, "changeType": "UPSERT", "aspectName": "datasetProperties",
		"aspect": map[string]any{"value": string(value), "contentType": "application/json"},
	}, "async": "false"})
	st, _, err := memDo(ctx, http.MethodPost, gms+"/aspects?action=ingestProposal", token, body)
	if err == nil && st >= 300 {
		err = fmt.Errorf("ingestProposal answered %d", st)
	}
	return err
}

// bareRoutes asks catalogd each kind once and returns what the bare
// handler is to answer for each.
func bareRoutes(ctx context.Context, gms, token string, kinds []loadKind) ([]bareRoute, error) {
	var routes []bareRoute
	for _, k := range kinds {
		u, err := url.Parse(gms + k.path)
		if err != nil {
			return nil, err
		}
		var body []byte
		if k.body != nil {
			body = k.body(0)
		}
		req, err := http.NewRequestWithContext(ctx, k.method, u.String(), bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		setHeaders(req, token, k)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		answer, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			return nil, err
		}
		if res.StatusCode != http.StatusOK || !bytes.Contains(answer, k.ok) {
			return nil, fmt.Errorf("%s: catalogd answered %d: %.300s", k.name, res.StatusCode, answer)
		}
		routes = append(routes, bareRoute{Method: k.method, Path: u.Path, ContentType: res.Header.Get("Content-Type"), Body: answer,
			GraphQL: k.body != nil, Mutation: k.body != nil && bytes.HasPrefix(k.body(0), []byte(`{"query":"mutation`))})
	}
	return routes, nil
}

func setHeaders(req *http.Request, token string, k loadKind) {
	if k.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(k.header); i += 2 {
		req.Header.Set(k.header[i], k.header[i+1])
	}
}

// cpuTicks is a process's user and system CPU so far, in clock ticks
// (/proc/<pid>/stat; 100 a second on Linux).
func cpuTicks(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	// The command's name, in parentheses, may hold spaces: count from
	// after it.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return -1
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return -1
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s
}

const clockTicks = 100 // USER_HZ on Linux

// turns is what a target served over the turns of one kind.
type turns struct {
	lat        []time.Duration
	measured   time.Duration
	fails      int
	cpu, drive int64 // ticks: the target's, the load generator's
}

func (t *turns) result() result {
	slices.Sort(t.lat)
	r := result{n: len(t.lat), fails: t.fails}
	r.rps = float64(r.n) / t.measured.Seconds()
	r.p50, r.p99 = pct(t.lat, 50), pct(t.lat, 99)
	return r
}

// cpuPerRequest is the CPU a target and the load generator spent on each
// request, in µs.
func (t *turns) cpuPerRequest() (target, drive float64) {
	if len(t.lat) == 0 || t.cpu < 0 {
		return 0, 0
	}
	per := func(ticks int64) float64 {
		return float64(ticks) * 1e6 / clockTicks / float64(len(t.lat)+t.fails)
	}
	return per(t.cpu), per(t.drive)
}

// interleaved drives the kind against each target in turn, o.rounds times,
// each turn o.duration/o.rounds long after a warm-up (o.warmup before a
// target's first turn, a quarter second before the others), and returns
// what each served.
func interleaved(ctx context.Context, o options, k loadKind, targets []target) ([]*turns, error) {
	out := make([]*turns, len(targets))
	for i := range out {
		out[i] = &turns{}
	}
	rounds := max(o.rounds, 1)
	turn := o.duration / time.Duration(rounds)
	for round := range rounds {
		for i, t := range targets {
			warm := o.warmup
			if round > 0 {
				warm = 250 * time.Millisecond
			}
			load := fmt.Sprintf("%.1f", loadNow())
			fmt.Printf("load: %s on %s, turn %d of %d (%s after %s of warm-up; load average %s) ...\n", k.name, t.name, round+1, rounds, turn, warm, load)
			oo := o
			oo.duration, oo.warmup = turn, warm
			var cpu0, self0 int64
			r, err := driveKind(ctx, t, k, oo, func() { cpu0, self0 = cpuTicks(t.pid), cpuTicks(os.Getpid()) })
			cpu1, self1 := cpuTicks(t.pid), cpuTicks(os.Getpid())
			if err != nil {
				return nil, fmt.Errorf("%s on %s: %w", k.name, t.name, err)
			}
			fmt.Printf("      %s\n", r.result)
			tt := out[i]
			tt.lat = append(tt.lat, r.lat...)
			tt.fails += r.fails
			tt.measured += turn
			if cpu0 < 0 || cpu1 < 0 || tt.cpu < 0 {
				tt.cpu = -1
			} else {
				tt.cpu += cpu1 - cpu0
				tt.drive += self1 - self0
			}
		}
	}
	return out, nil
}

// loadNow is the machine's load average over the last minute.
func loadNow() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return -1
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// driven is one turn: its latencies beside its summary.
type driven struct {
	result
	lat []time.Duration
}

// driveKind is drive for a kind against a target; measuring is called
// when the warm-up ends.
func driveKind(ctx context.Context, t target, k loadKind, o options, measuring func()) (driven, error) {
	var body func(int64) []byte
	if k.body != nil {
		body = k.body
	}
	ok := k.ok
	if t.ok != nil {
		ok = t.ok
	}
	r, lat, err := driveRequests(ctx, t.base+k.path, k.method, t.token, body, k.header, ok, o, measuring)
	return driven{r, lat}, err
}

// throughputRows measures each kind on catalogd beside the bare handler
// (and `me` beside gqlgen alone, and beside the baseline build), and
// returns the summary's rows.
func throughputRows(ctx context.Context, o options, self string, cat *catalogdtest.Server, baseline *catalogdtest.Server, admin, baselineToken string) ([]row, error) {
	if err := ingestBenchDataset(ctx, cat.GMS, admin); err != nil {
		return nil, fmt.Errorf("the dataset the reads read: %w", err)
	}
	kinds := loadKinds(benchDataset)
	routes, err := bareRoutes(ctx, cat.GMS, admin, kinds)
	if err != nil {
		return nil, err
	}
	routesFile, err := os.CreateTemp("", "bench-bare-routes-*.json")
	if err != nil {
		return nil, err
	}
	defer os.Remove(routesFile.Name())
	if err := json.NewEncoder(routesFile).Encode(routes); err != nil {
		return nil, err
	}
	if err := routesFile.Close(); err != nil {
		return nil, err
	}
	bareURL, barePID, stopBare, err := startHelper(ctx, self, "-serve-bare", routesFile.Name())
	if err != nil {
		return nil, fmt.Errorf("the bare handler: %w", err)
	}
	defer stopBare()
	gqlURL, gqlPID, stopGql, err := startHelper(ctx, self, "-serve-gqlgen")
	if err != nil {
		return nil, fmt.Errorf("gqlgen alone: %w", err)
	}
	defer stopGql()
	if err := waitServing(ctx, bareURL); err != nil {
		return nil, err
	}
	if err := waitServing(ctx, gqlURL); err != nil {
		return nil, err
	}

	bare := target{name: "the bare handler", base: bareURL, pid: barePID}
	catalogd := target{name: "catalogd", base: cat.GMS, pid: cat.PID, token: admin}
	var rows []row
	fmtCPU := func(t *turns) string {
		c, d := t.cpuPerRequest()
		if c == 0 {
			return ""
		}
		return fmt.Sprintf("; CPU per request %.1f µs (load generator %.1f µs)", c, d)
	}
	for i, k := range kinds {
		if !o.kinds[kindKey(i)] {
			continue
		}
		targets := []target{bare, catalogd}
		if i == 0 {
			// gqlgen alone answers the system user: a document of the
			// same shape, some bytes longer.
			targets = append(targets, target{name: "gqlgen alone (no authentication, limits or middleware)", base: gqlURL, pid: gqlPID, ok: []byte(`"username":"__datahub_system"`)})
			if baseline != nil {
				targets = append(targets, target{name: "catalogd, baseline build", base: baseline.GMS, pid: baseline.PID, token: baselineToken})
			}
		}
		load0 := loadNow()
		got, err := interleaved(ctx, o, k, targets)
		if err != nil {
			return nil, err
		}
		loads := fmt.Sprintf("load average %.1f → %.1f", load0, loadNow())
		rb, rc := got[0].result(), got[1].result()
		rows = append(rows,
			row{k.name + ": bare handler", rb.String() + fmtCPU(got[0]), ""},
			row{k.name + ": catalogd", rc.String() + fmtCPU(got[1]), ""},
			row{k.name + ": ratio catalogd / bare (requests/s)", fmt.Sprintf("**%.2f** (%s)", rc.rps/rb.rps, loads), goalOf(i)},
		)
		if r := cpuRatio(got[0], got[1]); r > 0 {
			rows = append(rows, row{k.name + ": ratio from the CPU per request (bare and its load generator / catalogd and its load generator)", fmt.Sprintf("%.2f", r),
				"what the ratio is on two cores nothing else uses"})
		}
		if i == 0 {
			rg := got[2].result()
			rows = append(rows,
				row{"`me`: gqlgen alone (the same document, no authentication, limits or middleware)", rg.String() + fmtCPU(got[2]), ""},
				row{"`me`: ratio gqlgen alone / bare", fmt.Sprintf("%.2f", rg.rps/rb.rps), "the bound"},
			)
			if baseline != nil {
				rB := got[3].result()
				rows = append(rows,
					row{"`me`: catalogd, baseline build (" + o.baseline + ")", rB.String() + fmtCPU(got[3]), ""},
					row{"`me`: ratio baseline / bare", fmt.Sprintf("%.2f", rB.rps/rb.rps), ""},
				)
			}
		}
	}
	return rows, nil
}

// cpuRatio is the ratio of requests/s two targets would serve on cores
// of their own with their load generator, from the CPU each spent per
// request: on a machine other work loads, the wall clock's ratio follows
// the scheduler as much as the servers; 0 when /proc did not tell.
func cpuRatio(bare, cat *turns) float64 {
	b, bd := bare.cpuPerRequest()
	c, cd := cat.cpuPerRequest()
	if b == 0 || c == 0 {
		return 0
	}
	return (b + bd) / (c + cd)
}

func goalOf(i int) string {
	if i == 0 {
		return "≥ 0.6 (goal 0.7)"
	}
	return ""
}

func kindKey(i int) string { return []string{"me", "createTag", "get_aspect", "openapi"}[i] }

// waitServing waits until a helper answers anything at all.
func waitServing(ctx context.Context, base string) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		res, err := http.Get(base + "/")
		if err == nil {
			res.Body.Close()
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return errors.Join(err, ctx.Err())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
