package selftest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/catalogspec/catalogspec/reference/catalogdtest"
	"github.com/catalogspec/catalogspec/reference/pgprovider"
	"github.com/jackc/pgx/v5"
)

// TestLeavesNoTrace runs the suite by URL against a `catalogd serve` that
// already holds what a deployment people use holds (a user with a token, a
// dataset, a tag, a policy of its own for every user, an invite token and
// one for each of the roles Reader and Editor, a signed-in session), and reads that catalogd's database directly before and
// after, to show that a run leaves the target as it found it: after a whole
// run; after a run killed with SIGKILL while it had a starting policy
// switched off, followed by one more run or by `catalogspec cleanup`; and
// after two runs at once, both of whose verdicts must be honest.
func TestLeavesNoTrace(t *testing.T) {
	if testing.Short() {
		t.Skip("starts catalogd and runs the suite several times")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	bin := filepath.Join(work, "catalogspec")
	goBuild(t, root, "build", "-o", bin, "./cmd/catalogspec")
	tgt := startTraceTarget(t, work)
	tgt.seed(t)
	before := tgt.snapshot(t)
	if before.count["corpuser"] < 2 || before.count["inviteToken"] != 3 || len(before.sessions) != 1 || len(before.series) != 1 {
		t.Fatalf("the seeded target is not what the test means it to be: %v entities, %d sessions", before.count, len(before.sessions))
	}
	// Each run uses a short lease, so that a killed run is found dead in
	// seconds. The propagation window is 20 s: by URL the suite takes the
	// target's search to lag as DataHub's (4 s), and settling its invite
	// token waits twice that (native_users.go, invitesSettled).
	suite := func(ctx context.Context, cmd string, env ...string) *exec.Cmd {
		c := exec.CommandContext(ctx, bin, cmd)
		c.Env = append(cleanEnv(), append([]string{
			"CATALOGSPEC_GMS_URL=" + tgt.gms, "CATALOGSPEC_FRONTEND_URL=" + tgt.frontend, "CATALOGSPEC_ADMIN_TOKEN=" + tgt.admin,
			"CATALOGSPEC_PROPAGATION_TIMEOUT=20s", "CATALOGSPEC_FAIL_ON=should", "CATALOGSPEC_LEASE=3s", "NO_COLOR=1",
			"CATALOGSPEC_REPORTS_DIR=" + filepath.Join(t.TempDir(), "reports")}, env...)...)
		catalogdtest.StopWithParent(c)
		c.WaitDelay = 5 * time.Second
		return c
	}
	run := func(t *testing.T, cmd string, env ...string) (int, string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
		defer cancel()
		out, err := suite(ctx, cmd, env...).CombinedOutput()
		return exitCode(t, err), mask(string(out), tgt.admin)
	}

	t.Run("a token that could not remove the run's people is refused before anything is written", func(t *testing.T) {
		code, out := run(t, "run", "CATALOGSPEC_ADMIN_TOKEN="+tgt.partialAdmin)
		out = mask(out, tgt.partialAdmin)
		if code != 2 || !strings.Contains(out, "who lacks MANAGE_USERS_AND_GROUPS:") {
			t.Errorf("exit %d, want 2 and a line saying the token lacks MANAGE_USERS_AND_GROUPS (and only that):\n%s", code, catalogdtest.LastLines(out, 20))
		}
		tgt.sameAs(t, before, tgt.snapshot(t), nil)
	})

	t.Run("a whole run leaves the target as it found it", func(t *testing.T) {
		// The @ui scenarios are left out only for time: their people are
		// made and removed as the others' are. The @irreversible ones
		// are the next subtest's.
		code, out := run(t, "run", "CATALOGSPEC_DISABLE=ui", "CATALOGSPEC_TAGS=~@irreversible")
		if code != 0 {
			t.Fatalf("exit %d, want 0:\n%s", code, catalogdtest.LastLines(out, 40))
		}
		tgt.sameAs(t, before, tgt.snapshot(t), nil)
		// The summary ends with what the run removed, by kind.
		last := lastLine(out, "catalogspec: the run removed")
		for _, kind := range []string{"users", "datasets", "tags", "policies", "tokens", "sessions"} {
			if !strings.Contains(last, kind) {
				t.Errorf("the summary does not say how many %s the run removed: %q", kind, last)
			}
		}
		t.Logf("%s", last)
	})

	t.Run("the @irreversible scenarios change the invite token and nothing else", func(t *testing.T) {
		code, out := run(t, "run", "CATALOGSPEC_TAGS=@irreversible")
		if code != 0 {
			t.Fatalf("exit %d, want 0:\n%s", code, catalogdtest.LastLines(out, 40))
		}
		if !strings.Contains(out, "@irreversible: they make a new invite token") {
			t.Errorf("the run does not warn that it selected @irreversible scenarios:\n%s", catalogdtest.LastLines(out, 40))
		}
		after := tgt.snapshot(t)
		tgt.sameAs(t, before, after, irreversible)
		if len(tgt.differences(before, after, nil)) == 0 {
			t.Errorf("the @irreversible scenarios left the invite token as it was: the tag marks nothing")
		}
		// The deployment's people get a new invitation: what the run
		// cannot undo. The other subtests compare with that.
		tgt.graphql(t, `{ getInviteToken(input: {}) { inviteToken } }`, nil)
		before = tgt.snapshot(t)
	})

	// killInWindow starts a run of the @exclusive scenarios and kills it
	// with SIGKILL once a policy for every user is switched off; it checks
	// that the kill left the target changed.
	killInWindow := func(t *testing.T) {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		cmd := suite(ctx, "run", "CATALOGSPEC_TAGS=@exclusive && ~@irreversible", "CATALOGSPEC_DISABLE=ui")
		var buf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &buf, &buf
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for {
			if off := tgt.switchedOff(t); len(off) > 0 {
				if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				_ = cmd.Wait()
				t.Logf("killed with %s INACTIVE", strings.Join(off, ", "))
				break
			}
			if cmd.ProcessState != nil || ctx.Err() != nil {
				t.Fatalf("the run ended before it switched a policy off:\n%s", mask(buf.String(), tgt.admin))
			}
			time.Sleep(5 * time.Millisecond)
		}
		if diff := tgt.differences(before, tgt.snapshot(t), nil); len(diff) == 0 {
			t.Fatal("the killed run left the target as it was: the kill came outside the window")
		}
	}

	t.Run("killed in the exclusive window, the next run puts everything back", func(t *testing.T) {
		killInWindow(t)
		// The dead run's lease has not run out yet: the next run waits.
		code, out := run(t, "run", "CATALOGSPEC_TAGS=@smoke && ~@cap:native-users", "CATALOGSPEC_WAIT=1m", "CATALOGSPEC_DISABLE=ui")
		if code != 0 {
			t.Fatalf("exit %d, want 0:\n%s", code, catalogdtest.LastLines(out, 40))
		}
		repaired := linesWith(out, "a run that died")
		if len(repaired) != 1 {
			t.Errorf("want one line saying what the run put back after the dead one, got %d:\n%s", len(repaired), catalogdtest.LastLines(out, 40))
		}
		t.Logf("%s", strings.Join(repaired, "\n"))
		tgt.sameAs(t, before, tgt.snapshot(t), nil)
	})

	t.Run("killed in the exclusive window, cleanup puts everything back", func(t *testing.T) {
		killInWindow(t)
		code, out := run(t, "cleanup", "CATALOGSPEC_WAIT=1m")
		if code != 0 {
			t.Fatalf("cleanup: exit %d, want 0:\n%s", code, out)
		}
		if len(linesWith(out, "a run that died")) != 1 {
			t.Errorf("cleanup does not say in one line what it did:\n%s", out)
		}
		t.Logf("%s", strings.TrimSpace(out))
		tgt.sameAs(t, before, tgt.snapshot(t), nil)
		// Nothing left to do: cleanup says so.
		code, out = run(t, "cleanup")
		if code != 0 || !strings.Contains(out, "nothing to clean up") {
			t.Errorf("cleanup of a clean target: exit %d:\n%s", code, out)
		}
	})

	t.Run("killed before it learns the URN of a tag the target chose, cleanup removes the tag", func(t *testing.T) {
		// tag-04 makes a tag without an id: the target chooses its URN,
		// which the run learns from the answer. A proxy in front of the
		// metadata service holds that answer back until the run has been
		// killed, so the tag exists and no journal line names its URN.
		made := make(chan struct{})
		release := make(chan struct{})
		up, err := url.Parse(tgt.gms)
		if err != nil {
			t.Fatal(err)
		}
		rp := httputil.NewSingleHostReverseProxy(up)
		var once sync.Once
		rp.ModifyResponse = func(resp *http.Response) error {
			if resp.Request.Header.Get("X-Catalogspec-Held") != "" {
				once.Do(func() { close(made) })
				<-release
			}
			return nil
		}
		proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var g struct {
				Query     string `json:"query"`
				Variables struct {
					Input map[string]any `json:"input"`
				} `json:"variables"`
			}
			if json.Unmarshal(body, &g) == nil && strings.Contains(g.Query, "createTag(") && g.Variables.Input["name"] != nil && g.Variables.Input["id"] == nil {
				r.Header.Set("X-Catalogspec-Held", "1")
			}
			rp.ServeHTTP(w, r)
		}))
		// The held answer is let go before the proxy closes, which waits
		// for it.
		defer proxy.Close()
		defer close(release)

		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		cmd := suite(ctx, "run", "CATALOGSPEC_TAGS=@id:tag-04", "CATALOGSPEC_GMS_URL="+proxy.URL)
		var buf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &buf, &buf
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		select {
		case <-made:
		case <-ctx.Done():
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("the run never made a tag without an id:\n%s", mask(buf.String(), tgt.admin))
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		if diff := tgt.differences(before, tgt.snapshot(t), nil); !slices.ContainsFunc(diff, func(d string) bool { return strings.Contains(d, "tag") }) {
			t.Fatalf("the killed run left no tag behind: the kill came outside the window (differences: %q)", diff)
		}
		code, out := run(t, "cleanup", "CATALOGSPEC_WAIT=1m")
		if code != 0 {
			t.Fatalf("cleanup: exit %d, want 0:\n%s", code, out)
		}
		t.Logf("%s", strings.TrimSpace(out))
		tgt.sameAs(t, before, tgt.snapshot(t), nil)
	})

	t.Run("killed at a moment drawn at random, cleanup puts everything back", func(t *testing.T) {
		// Everything but the browser and what cannot be undone.
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		cmd := suite(ctx, "run", "CATALOGSPEC_TAGS=~@ui && ~@irreversible")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		after := time.Duration(300+rand.IntN(3700)) * time.Millisecond
		time.Sleep(after)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		t.Logf("killed %s after it started; the target differs in: %s", after, strings.Join(tgt.differences(before, tgt.snapshot(t), nil), "; "))
		code, out := run(t, "cleanup", "CATALOGSPEC_WAIT=1m")
		if code != 0 {
			t.Fatalf("cleanup: exit %d, want 0:\n%s", code, out)
		}
		tgt.sameAs(t, before, tgt.snapshot(t), nil)
	})

	t.Run("two runs at once: both honest, the target clean", func(t *testing.T) {
		// The token scenarios include those that switch off every user's
		// token privilege: a run in the other's exclusive window would
		// fail its own scenarios.
		tags := "CATALOGSPEC_TAGS=@cap:tokens && ~@irreversible"
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
		defer cancel()
		type result struct {
			code int
			out  string
		}
		results := make(chan result, 2)
		for range 2 {
			go func() {
				out, err := suite(ctx, "run", tags, "CATALOGSPEC_WAIT=2m", "CATALOGSPEC_DISABLE=ui").CombinedOutput()
				results <- result{exitCode(t, err), mask(string(out), tgt.admin)}
			}()
		}
		for range 2 {
			r := <-results
			if r.code != 0 {
				t.Errorf("a run beside another: exit %d, want 0:\n%s", r.code, catalogdtest.LastLines(r.out, 40))
			}
		}
		tgt.sameAs(t, before, tgt.snapshot(t), nil)

		// Without waiting, the second refuses in one line and changes
		// nothing; the first is not disturbed.
		first := suite(ctx, "run", tags, "CATALOGSPEC_DISABLE=ui")
		var buf bytes.Buffer
		first.Stdout, first.Stderr = &buf, &buf
		if err := first.Start(); err != nil {
			t.Fatal(err)
		}
		for !tgt.locked(t) {
			if ctx.Err() != nil {
				t.Fatal("the first run never took the target")
			}
			time.Sleep(5 * time.Millisecond)
		}
		// A journal whose run is alive is never touched: cleanup refuses.
		code, out := run(t, "cleanup")
		if code != 2 || !strings.Contains(out, "another run holds the target") {
			t.Errorf("cleanup beside a live run: exit %d, want 2 and a line saying another run holds the target:\n%s", code, out)
		}
		code, out = run(t, "run", tags, "CATALOGSPEC_DISABLE=ui")
		err := first.Wait()
		if code != 2 || len(linesWith(out, "catalogspec: ")) == 0 || !strings.Contains(out, "another run") {
			t.Errorf("the second run: exit %d, want 2 and a line saying another run holds the target:\n%s", code, out)
		}
		if c := exitCode(t, err); c != 0 {
			t.Errorf("the first run: exit %d, want 0:\n%s", c, catalogdtest.LastLines(mask(buf.String(), tgt.admin), 40))
		}
		tgt.sameAs(t, before, tgt.snapshot(t), nil)
	})
}

// irreversible are the entity types the @irreversible scenarios change for
// good, as docs/suite.md lists them: a new invite token replaces the old
// one (and on the reference, which removes with a user the invite tokens
// they made, the deployment holds none once the scenario's user is gone).
var irreversible = []string{"inviteToken"}

// traceTarget is a catalogd started for TestLeavesNoTrace, with its
// database.
type traceTarget struct {
	gms, frontend, admin string
	partialAdmin         string // a token of someone who may not remove users
	db                   string // the database's URL
	rootPassword         string
	pg                   *pgx.Conn // to that database, for the test's goroutine
}

func startTraceTarget(t *testing.T, work string) *traceTarget {
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
	pw := "catalogspec-root-" + fmt.Sprint(time.Now().UnixNano())
	srv := catalogdtest.New(t, catalogdtest.Options{Binary: bin, DatabaseURL: db.URL, Inherit: cleanEnv(), Log: logFile,
		Env: []string{"METADATA_SERVICE_AUTH_ENABLED=true", "CATALOGD_SIGNIN_MAX_FAILURES_PER_CLIENT=100000", "CATALOGD_ROOT_PASSWORD=" + pw}})
	admin, err := srv.Token(t.Context(), catalogdtest.Root, "trace-admin", "ONE_DAY")
	if err != nil {
		t.Fatal(err)
	}
	pg, err := pgx.Connect(t.Context(), db.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pg.Close(context.Background()) })
	return &traceTarget{gms: srv.GMS, frontend: srv.Frontend, admin: admin, db: db.URL, rootPassword: pw, pg: pg}
}

// seed gives the target what a deployment people use holds.
func (tt *traceTarget) seed(t *testing.T) {
	t.Helper()
	ingest := func(typ, urn, aspect string, value any) {
		v, _ := json.Marshal(value)
		body, _ := json.Marshal(map[string]any{"proposal": map[string]any{"entityType": typ, "entityUrn": urn, "changeType": "UPSERT",
			"aspectName": aspect, "aspect": map[string]any{"value": string(v), "contentType": "application/json"}}})
		tt.post(t, tt.gms+"/aspects?action=ingestProposal", body, map[string]string{"X-RestLi-Protocol-Version": "2.0.0"})
	}
	user := "urn:li:corpuser:someone-who-works-here"
	ingest("corpuser", user, "corpUserInfo", map[string]any{"active": true, "displayName": "Someone", "email": "someone@example.com"})
	orders := "urn:li:dataset:(urn:li:dataPlatform:hive,sales.orders,PROD)"
	ingest("dataset", orders, "datasetProperties", map[string]any{"description": "Orders", "customProperties": map[string]string{}})
	ingest("dataset", orders, "datasetProfile", map[string]any{"timestampMillis": 1700000000000, "rowCount": 42})
	tt.graphql(t, `mutation { createTag(input: {id: "pii", name: "PII", description: "Personal data"}) }`, nil)
	desc := "Made by the operators"
	tt.graphql(t, `mutation p($input: PolicyUpdateInput!) { createPolicy(input: $input) }`, map[string]any{"input": map[string]any{
		"type": "PLATFORM", "name": "Everyone makes tokens", "state": "ACTIVE", "description": desc,
		"privileges": []string{"GENERATE_PERSONAL_ACCESS_TOKENS"},
		"actors":     map[string]any{"allUsers": true, "allGroups": false, "resourceOwners": false, "users": []string{}, "groups": []string{}},
	}})
	tt.graphql(t, `mutation t($input: CreateAccessTokenInput!) { createAccessToken(input: $input) { metadata { id } } }`, map[string]any{"input": map[string]any{
		"type": "PERSONAL", "actorUrn": user, "duration": "ONE_MONTH", "name": "their token"}})
	// An operator who manages tokens, policies and tags but not users: the
	// suite could not remove the people it made with their token.
	operator := "urn:li:corpuser:operator-without-user-management"
	ingest("corpuser", operator, "corpUserInfo", map[string]any{"active": true, "displayName": "An operator", "email": "operator@example.com"})
	tt.graphql(t, `mutation p($input: PolicyUpdateInput!) { createPolicy(input: $input) }`, map[string]any{"input": map[string]any{
		"type": "PLATFORM", "name": "Token and policy managers", "state": "ACTIVE", "description": desc,
		"privileges": []string{"MANAGE_ACCESS_TOKENS", "MANAGE_POLICIES", "MANAGE_TAGS"},
		"actors":     map[string]any{"allUsers": false, "allGroups": false, "resourceOwners": false, "users": []string{operator}, "groups": []string{}},
	}})
	var made struct {
		Data struct {
			CreateAccessToken struct {
				AccessToken string `json:"accessToken"`
			} `json:"createAccessToken"`
		} `json:"data"`
	}
	if err := json.Unmarshal(tt.graphql(t, `mutation t($input: CreateAccessTokenInput!) { createAccessToken(input: $input) { accessToken } }`, map[string]any{"input": map[string]any{
		"type": "PERSONAL", "actorUrn": operator, "duration": "ONE_MONTH", "name": "the operator's token"}}), &made); err != nil || made.Data.CreateAccessToken.AccessToken == "" {
		t.Fatalf("no token for the operator: %v", err)
	}
	tt.partialAdmin = made.Data.CreateAccessToken.AccessToken
	tt.graphql(t, `{ getInviteToken(input: {}) { inviteToken } }`, nil)
	// The invitations of a deployment whose people are offered roles:
	// the scenarios that read a role's invite token (invite-02's refused
	// rows read it before and after, invite-10 reads both) find them, as
	// they find the one of no role; the first of each, where there is none,
	// would stay (docs/suite.md, "What cannot be undone").
	for _, role := range []string{"urn:li:dataHubRole:Reader", "urn:li:dataHubRole:Editor"} {
		tt.graphql(t, `query i($role: String) { getInviteToken(input: {roleUrn: $role}) { inviteToken } }`, map[string]any{"role": role})
	}
	b, _ := json.Marshal(map[string]string{"username": "datahub", "password": tt.rootPassword})
	resp, err := http.Post(tt.frontend+"/logIn", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("signing the root user in: %s", resp.Status)
	}
}

func (tt *traceTarget) post(t *testing.T, url string, body []byte, headers map[string]string) []byte {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+tt.admin)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %s: %s", url, resp.Status, b)
	}
	return b
}

func (tt *traceTarget) graphql(t *testing.T, query string, vars map[string]any) []byte {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	b := tt.post(t, tt.gms+"/api/graphql", body, nil)
	var a struct {
		Errors []any `json:"errors"`
	}
	if err := json.Unmarshal(b, &a); err != nil || len(a.Errors) > 0 {
		t.Fatalf("%s: %s", query, b)
	}
	return b
}

// dbState is what the target's database holds, as the test compares it.
// The tables: aspects (every entity: compared row by row, and counted by
// entity type), sessions (compared row by row), secrets (compared by name
// and a hash of the value), schema_migrations (compared). changes is left
// out: it is a counter every write to a user, token or policy bumps, so
// that replicas learn of it; it holds no entity and no setting.
// timeseries_aspects (a dataset's profiles, a pipeline's checkpoints) is
// compared row by row.
type dbState struct {
	count      map[string]int    // entities by type
	aspects    map[string]string // "urn aspect" -> value
	sessions   map[string]string // id -> actor and expiry
	secrets    map[string]string // name -> hash of the value
	series     map[string]string // "urn aspect time partition" -> value
	migrations string
}

// tables are the tables of the reference's schema, and whether the
// comparison reads them.
var tables = map[string]bool{"aspects": true, "sessions": true, "secrets": true, "schema_migrations": true, "timeseries_aspects": true, "changes": false}

func (tt *traceTarget) snapshot(t *testing.T) dbState {
	t.Helper()
	c := tt.pg
	ctx := t.Context()
	s := dbState{count: map[string]int{}, aspects: map[string]string{}, sessions: map[string]string{}, secrets: map[string]string{}, series: map[string]string{}}
	names, err := pgx.CollectRows(tt.query(t, `SELECT tablename FROM pg_tables WHERE schemaname = 'public'`), pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if _, known := tables[n]; !known {
			t.Errorf("the reference has a table %q this test does not know: say whether it is the target's state (tables, trace_test.go)", n)
		}
	}
	rows := tt.query(t, `SELECT urn, entity_type, aspect, value::text FROM aspects`)
	seen := map[string]bool{}
	for rows.Next() {
		var urn, typ, aspect, value string
		if err := rows.Scan(&urn, &typ, &aspect, &value); err != nil {
			t.Fatal(err)
		}
		s.aspects[urn+" "+aspect] = value
		if !seen[urn] {
			seen[urn] = true
			s.count[typ]++
		}
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	rows = tt.query(t, `SELECT id, actor_urn || ' until ' || expires_at::text FROM sessions`)
	for rows.Next() {
		var id, v string
		if err := rows.Scan(&id, &v); err != nil {
			t.Fatal(err)
		}
		s.sessions[id] = v
	}
	rows = tt.query(t, `SELECT urn || ' ' || aspect || ' ' || timestamp_millis || ' ' || partition_key, value::text FROM timeseries_aspects`)
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		s.series[k] = v
	}
	rows = tt.query(t, `SELECT name, value FROM secrets`)
	for rows.Next() {
		var name string
		var v []byte
		if err := rows.Scan(&name, &v); err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(v)
		s.secrets[name] = hex.EncodeToString(h[:])
	}
	if err := c.QueryRow(ctx, `SELECT string_agg(version::text, ',' ORDER BY version) FROM schema_migrations`).Scan(&s.migrations); err != nil {
		t.Fatal(err)
	}
	return s
}

// query runs sql on the target's database; the test fails if it cannot.
func (tt *traceTarget) query(t *testing.T, sql string) pgx.Rows {
	t.Helper()
	r, err := tt.pg.Query(t.Context(), sql)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// differences lists how after differs from before, but for the entities of
// the types in changeable.
func (tt *traceTarget) differences(before, after dbState, changeable []string) []string {
	var d []string
	for _, typ := range slices.Sorted(maps.Keys(mergeKeys(before.count, after.count))) {
		if before.count[typ] != after.count[typ] && !slices.Contains(changeable, typ) {
			d = append(d, fmt.Sprintf("%d %s entities, %d before", after.count[typ], typ, before.count[typ]))
		}
	}
	typeOf := func(key string) string {
		rest, _ := strings.CutPrefix(key, "urn:li:")
		typ, _, _ := strings.Cut(rest, ":")
		return typ
	}
	var changed, made []string
	for _, k := range slices.Sorted(maps.Keys(before.aspects)) {
		if slices.Contains(changeable, typeOf(k)) {
			continue
		}
		v, ok := after.aspects[k]
		switch {
		case !ok:
			changed = append(changed, k+": gone")
		case v != before.aspects[k]:
			changed = append(changed, fmt.Sprintf("%s: %s, was %s", k, v, before.aspects[k]))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(after.aspects)) {
		if _, ok := before.aspects[k]; !ok && !slices.Contains(changeable, typeOf(k)) {
			made = append(made, k)
		}
	}
	if len(changed) > 0 {
		d = append(d, fmt.Sprintf("%d aspects that were there changed: %s", len(changed), strings.Join(firstN(changed, 5), "; ")))
	}
	if len(made) > 0 {
		d = append(d, fmt.Sprintf("%d aspects are new: %s", len(made), strings.Join(firstN(made, 5), "; ")))
	}
	if !maps.Equal(before.series, after.series) {
		d = append(d, fmt.Sprintf("%d timeseries values, %d before (or a value changed)", len(after.series), len(before.series)))
	}
	if !maps.Equal(before.sessions, after.sessions) {
		d = append(d, fmt.Sprintf("%d sessions, %d before (or a session changed)", len(after.sessions), len(before.sessions)))
	}
	if !maps.Equal(before.secrets, after.secrets) {
		d = append(d, fmt.Sprintf("the secrets changed: %v, was %v", slices.Sorted(maps.Keys(after.secrets)), slices.Sorted(maps.Keys(before.secrets))))
	}
	if before.migrations != after.migrations {
		d = append(d, "the migrations changed")
	}
	return d
}

func mergeKeys(a, b map[string]int) map[string]int {
	m := maps.Clone(a)
	maps.Copy(m, b)
	return m
}

// sameAs fails t when after differs from before.
func (tt *traceTarget) sameAs(t *testing.T, before, after dbState, changeable []string) {
	t.Helper()
	if d := tt.differences(before, after, changeable); len(d) > 0 {
		t.Errorf("the target is not as it was before:\n  %s", strings.Join(d, "\n  "))
	}
}

// switchedOff names the policies for every user that are INACTIVE now.
func (tt *traceTarget) switchedOff(t *testing.T) []string {
	t.Helper()
	names, err := pgx.CollectRows(tt.query(t, `SELECT urn FROM aspects WHERE aspect = 'dataHubPolicyInfo'
		AND value ->> 'state' = 'INACTIVE' AND (value -> 'actors' ->> 'allUsers')::boolean`), pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// locked says whether a run holds the target (its lock tag exists).
func (tt *traceTarget) locked(t *testing.T) bool {
	t.Helper()
	var n int
	if err := tt.pg.QueryRow(t.Context(), `SELECT count(*) FROM aspects WHERE urn = 'urn:li:tag:catalogspec-lock'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n > 0
}

func exitCode(t *testing.T, err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		t.Errorf("running catalogspec: %v", err)
		return -1
	}
	return 0
}

// linesWith are the lines of out that contain s.
func linesWith(out, s string) []string {
	var l []string
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, s) {
			l = append(l, line)
		}
	}
	return l
}

// lastLine is the last line of out that starts with prefix, "" if none.
func lastLine(out, prefix string) string {
	l := ""
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, prefix) {
			l = line
		}
	}
	return l
}
