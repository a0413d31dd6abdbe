package hardening

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/catalogspec/catalogspec/reference/catalogdtest"
	"github.com/catalogspec/catalogspec/reference/pgprovider"
)

// catalogdBin is built once by TestMain.
var catalogdBin string

func TestMain(m *testing.M) {
	// The mutation tool runs these tests against a mutant it has built.
	os.Exit(catalogdtest.Main(os.Getenv("CATALOGSPEC_HARDENING_CATALOGD"), &catalogdBin, m.Run))
}

// database provides a PostgreSQL database for one test; local asks for a
// local server this test may stop and freeze (it skips when there is none).
func database(t *testing.T, local bool) (*pgprovider.Database, *pgprovider.Faults) {
	t.Helper()
	opts := pgprovider.Options{}
	if local {
		opts.Getenv = func(string) string { return "" } // never DATABASE_URL: it is not ours to stop
		// A persistent data directory gets durable settings (a throw-away
		// cluster runs with fsync and synchronous_commit off, and may lose
		// acknowledged commits when stopped with -m immediate).
		// The server runs as the postgres user, who must reach the directory.
		dir, err := os.MkdirTemp("", "hardening-pg-")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) }) // after Close, which runs first
		opts.DataDir = filepath.Join(dir, "pgdata")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db, err := pgprovider.Provide(ctx, opts)
	if err != nil {
		t.Fatalf("these tests need PostgreSQL: %v", err)
	}
	t.Cleanup(func() { _ = db.Close(context.Background()) })
	faults, ok := db.Faults()
	if local && !ok {
		t.Skipf("the fault test stops and freezes PostgreSQL, so it needs a local server, not a %s", db.Source)
	}
	return db, faults
}

// instance is one running `catalogd serve`.
type instance struct {
	gms, frontend string
	pid           int
	admin         string // a token of the root user
	srv           *catalogdtest.Server
}

// start runs catalogd serve on free ports against db, with extra
// environment variables, and mints a root token.
func start(t *testing.T, db *pgprovider.Database, extra ...string) *instance {
	t.Helper()
	srv := catalogdtest.New(t, catalogdtest.Options{Binary: catalogdBin, DatabaseURL: db.URL,
		Env:  append([]string{"CATALOGD_ROOT_PASSWORD=hardening-root-password"}, extra...),
		Args: []string{"--log-level", "warn"}})
	in := &instance{gms: srv.GMS, frontend: srv.Frontend, pid: srv.PID, srv: srv}
	in.admin = in.mint(t, catalogdtest.Root)
	return in
}

// mint has `catalogd token create` make a token for actor.
func (in *instance) mint(t *testing.T, actor string) string {
	t.Helper()
	return in.srv.NewToken(t, actor, "hardening", "ONE_DAY")
}

// user ingests a user with no privileges and returns a token of theirs.
func (in *instance) user(t *testing.T, name string) string {
	t.Helper()
	value, _ := json.Marshal(map[string]any{"active": true, "displayName": name})
	body, _ := json.Marshal(map[string]any{"proposal": map[string]any{
		"entityType": "corpuser", "entityUrn": "urn:li:corpuser:" + name, "changeType": "UPSERT",
		"aspectName": "corpUserInfo", "aspect": map[string]any{"value": string(value), "contentType": "application/json"},
	}})
	resp := in.do(t, "POST", in.gms+"/aspects?action=ingestProposal", in.admin, "application/json", body)
	if resp.status != 200 {
		t.Fatalf("ingest user %s: %d %s", name, resp.status, resp.body)
	}
	return in.mint(t, "urn:li:corpuser:"+name)
}

type response struct {
	status  int
	header  http.Header
	body    string
	elapsed time.Duration
}

var client = &http.Client{Timeout: 60 * time.Second}

// do sends one request and reads the whole answer.
func (in *instance) do(t *testing.T, method, url, token, contentType string, body []byte) response {
	t.Helper()
	return send(t, request(t, method, url, token, contentType, body))
}

func send(t *testing.T, req *http.Request) response {
	t.Helper()
	began := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		// Errorf, not Fatalf: send may run on a goroutine of its own.
		t.Errorf("%s %s: %v", req.Method, req.URL.Path, err)
		return response{body: err.Error(), header: http.Header{}, elapsed: time.Since(began)}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	return response{status: resp.StatusCode, header: resp.Header, body: string(b), elapsed: time.Since(began)}
}

// graphql posts a GraphQL request.
func (in *instance) graphql(t *testing.T, token, query string, variables map[string]any) response {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": variables})
	return in.do(t, "POST", in.gms+"/api/graphql", token, "application/json", body)
}

// memory reads a line of /proc/<pid>/status in kB: VmRSS (now) or VmHWM
// (the peak so far).
func (in *instance) memory(t *testing.T, field string) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", in.pid))
	if err != nil {
		t.Fatalf("read memory of catalogd: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			return kb
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, in.pid)
	return 0
}

// cpu reads the CPU time catalogd has used (user and system) from
// /proc/<pid>/stat.
func (in *instance) cpu(t *testing.T) time.Duration {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", in.pid))
	if err != nil {
		t.Fatalf("read cpu of catalogd: %v", err)
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	// After the command: state(0) ppid(1) ... utime(11) stime(12), in ticks.
	utime, _ := strconv.Atoi(fields[11])
	stime, _ := strconv.Atoi(fields[12])
	const ticksPerSecond = 100 // USER_HZ on Linux
	return time.Duration(utime+stime) * time.Second / ticksPerSecond
}
