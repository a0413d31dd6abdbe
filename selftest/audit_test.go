package selftest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/catalogspec/catalogspec/reference/catalogdtest"
	"github.com/jackc/pgx/v5"
)

// auditUser is the ordinary user whose token the audit is given.
const auditUser = "urn:li:corpuser:catalogspec-auditor"

// TestAuditWritesNothing runs `catalogspec audit` by URL against a
// `catalogd serve`, as an operator would against a production deployment,
// with an ordinary user's token alone (and an expired and a revoked one,
// to check), and compares the target's database before and after: every
// row of every table. Not one may have been written. The administrator's
// token is in the audit's environment too, to show it goes unused.
//
// The target's clock runs 25 hours ahead (CATALOGD_CLOCK_OFFSET, as the
// suite's later-clock instance's does), and every token is minted with
// the real clock by `catalogd token create`: a token made for a day has
// expired there, one made for a week has not.
func TestAuditWritesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts catalogd and runs the audit")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	catalogspec := filepath.Join(work, "catalogspec")
	goBuild(t, root, "build", "-o", catalogspec, "./cmd/catalogspec")
	srv, bin, dbURL := startCatalogd(t, work, "CATALOGD_CLOCK_OFFSET=25h")
	tokens := newAuditTokens(t, srv, bin, dbURL)

	before := snapshot(t, dbURL)
	if len(before) < 3 {
		t.Fatalf("the target's database has %d tables: %v", len(before), before)
	}
	code, out, reports, took := runAudit(t, catalogspec, srv.GMS, srv.Frontend, tokens)
	after := snapshot(t, dbURL)

	for _, table := range slices.Sorted(maps.Keys(before)) {
		if before[table] != after[table] {
			t.Errorf("the audit wrote to %s: before %s, after %s", table, before[table], after[table])
		}
	}
	for table := range after {
		if _, ok := before[table]; !ok {
			t.Errorf("the audit made the table %s", table)
		}
	}
	if code != 0 {
		t.Errorf("exit %d, want 0:\n%s", code, catalogdtest.LastLines(out, 60))
	}
	checkAuditReports(t, out, reports)
	t.Logf("the audit took %s; the tables compared: %v", took.Round(time.Millisecond), before)
}

// TestAuditCatchesFaults runs the audit, with an ordinary user's token, by
// URL through the selftest's fault-injecting proxy: with no fault it
// passes; with each fault below, the scenario named must fail. Each is a
// rule the audit claims to check; the faults are those of the self-test.
func TestAuditCatchesFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("starts catalogd and runs the audit once per fault")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	catalogspec := filepath.Join(work, "catalogspec")
	goBuild(t, root, "build", "-o", catalogspec, "./cmd/catalogspec")
	srv, bin, dbURL := startCatalogd(t, work, "CATALOGD_CLOCK_OFFSET=25h")
	tokens := newAuditTokens(t, srv, bin, dbURL)
	gms, err1 := url.Parse(srv.GMS)
	frontend, err2 := url.Parse(srv.Frontend)
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	proxy, err := NewProxy(gms, frontend, tokens.admin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Close)

	proxy.Set(nil)
	if code, out, _, _ := runAudit(t, catalogspec, proxy.GMS, proxy.Frontend, tokens); code != 0 {
		t.Fatalf("the audit through the proxy without a fault: exit %d, want 0:\n%s", code, catalogdtest.LastLines(out, 40))
	}
	cases := []struct {
		fault, trips string
		// learned: the proxy must see Ada's token made (and, for a
		// revocation, revoked) through the API to misuse it as the fault
		// does; the audit gets those tokens.
		learned bool
	}{
		{"anonymous-as-root", "audit-01", false},
		{"unauthenticated-as-200", "audit-01", false},
		{"alg-none-accepted", "audit-01", true},
		{"signature-not-checked", "audit-01", true},
		{"revoked-token-accepted", "audit-01", true},
		{"any-scheme-accepted", "audit-02", false},
		{"actor-header-honoured", "audit-03", false},
		{"app-config-says-auth-off", "audit-04", false},
		{"graphql-get-executes", "audit-05", false},
		{"frontend-service-identity", "audit-07", false},
		{"me-overstates-privileges", "audit-08", false},
		{"health-needs-token", "me-02", false},
		{"graphql-answers-sniffable", "audit-15", false},
		{"sign-in-page-frameable", "audit-16", false},
		{"sign-in-cookie-scriptable", "audit-17", false},
		{"sign-in-page-keeps-next", "audit-18", false},
	}
	for _, c := range cases {
		t.Run(c.fault, func(t *testing.T) {
			i := slices.IndexFunc(Faults, func(f Fault) bool { return f.Name == c.fault })
			if i < 0 {
				t.Fatalf("no fault %q", c.fault)
			}
			proxy.Set(&Faults[i])
			defer proxy.Set(nil)
			tk := tokens
			if c.learned {
				tk.user, _ = tokenThroughAPI(t, proxy.GMS, tokens.user, "audit-learned")
				var id string
				tk.revoked, id = tokenThroughAPI(t, proxy.GMS, tokens.user, "audit-learned-revoked")
				revokeThroughAPI(t, proxy.GMS, tokens.user, id)
			}
			code, out, reports, _ := runAudit(t, catalogspec, proxy.GMS, proxy.Frontend, tk)
			_, failed, _, ids, err := readResults(filepath.Join(reports, "results.json"))
			if err != nil {
				t.Fatalf("%v\n%s", err, catalogdtest.LastLines(out, 30))
			}
			var caught []string
			for _, name := range failed {
				if ids[name] == c.trips {
					caught = append(caught, name)
				}
			}
			// A @should scenario's failure is a warning, below the audit's
			// fail-on level: what matters is that it failed.
			if len(caught) == 0 {
				t.Errorf("the audit did not catch %s (it breaks: %s): exit %d, no %s scenario failed; failed: %q\n%s",
					c.fault, Faults[i].Breaks, code, c.trips, failed, catalogdtest.LastLines(out, 30))
			}
			t.Logf("%s: caught by %q", c.fault, caught)
		})
	}
}

// tokenThroughAPI has the user of token make a week's token for
// themselves through GraphQL at gms (as the proxy must see it made), and
// returns it with its id.
func tokenThroughAPI(t *testing.T, gms, token, name string) (string, string) {
	t.Helper()
	var made struct {
		Data struct {
			CreateAccessToken struct {
				AccessToken string `json:"accessToken"`
				Metadata    struct {
					ID string `json:"id"`
				} `json:"metadata"`
			} `json:"createAccessToken"`
		} `json:"data"`
	}
	graphql(t, token, gms, `mutation createAccessToken($input: CreateAccessTokenInput!) { createAccessToken(input: $input) { accessToken metadata { id } } }`,
		map[string]any{"input": map[string]any{"type": "PERSONAL", "actorUrn": auditUser, "duration": "ONE_WEEK", "name": name}}, &made)
	if made.Data.CreateAccessToken.AccessToken == "" || made.Data.CreateAccessToken.Metadata.ID == "" {
		t.Fatal("no token was made through the API")
	}
	return made.Data.CreateAccessToken.AccessToken, made.Data.CreateAccessToken.Metadata.ID
}

// revokeThroughAPI has the user of as revoke the token id through GraphQL.
func revokeThroughAPI(t *testing.T, gms, as, id string) {
	t.Helper()
	var revoked struct {
		Data struct {
			RevokeAccessToken bool `json:"revokeAccessToken"`
		} `json:"data"`
	}
	b := graphql(t, as, gms, `mutation revokeAccessToken($tokenId: String!) { revokeAccessToken(tokenId: $tokenId) }`, map[string]any{"tokenId": id}, &revoked)
	if !revoked.Data.RevokeAccessToken {
		t.Fatalf("the token was not revoked through the API: %s", mask(string(b), as))
	}
}

// auditTokens are what the audit is given: an ordinary user's token, an
// expired and a revoked one, and the administrator's (which it must not
// use).
type auditTokens struct {
	user, expired, revoked, admin string
}

// newAuditTokens makes the ordinary user and mints their tokens, with the
// real clock, against the target's database.
func newAuditTokens(t testing.TB, srv *catalogdtest.Server, bin, dbURL string) auditTokens {
	t.Helper()
	mint := func(actor, name, duration string) string {
		cmd := exec.CommandContext(t.Context(), bin, "token", "create", "--actor", actor, "--name", name, "--duration", duration)
		cmd.Env = append(cleanEnv(), "DATABASE_URL="+dbURL)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("catalogd token create --actor %s: %v\n%s", actor, err, mask(stderr.String()))
		}
		return strings.TrimSpace(stdout.String())
	}
	var tk auditTokens
	tk.admin = mint(catalogdtest.Root, "audit-admin", "ONE_WEEK")
	for aspect, value := range map[string]any{
		"corpUserKey":  map[string]any{"username": strings.TrimPrefix(auditUser, "urn:li:corpuser:")},
		"corpUserInfo": map[string]any{"active": true, "displayName": "The auditor", "email": "auditor@example.com"},
	} {
		v, _ := json.Marshal(value)
		body, _ := json.Marshal(map[string]any{"proposal": map[string]any{
			"entityType": "corpuser", "entityUrn": auditUser, "changeType": "UPSERT", "aspectName": aspect,
			"aspect": map[string]any{"value": string(v), "contentType": "application/json"},
		}})
		postAs(t, tk.admin, srv.GMS+"/aspects?action=ingestProposal", body)
	}
	tk.user = mint(auditUser, "audit", "ONE_WEEK")
	tk.expired = mint(auditUser, "audit-expired", "ONE_DAY")
	tk.revoked = mint(auditUser, "audit-revoked", "ONE_WEEK")
	var meta struct {
		Data struct {
			GetAccessTokenMetadata struct {
				ID string `json:"id"`
			} `json:"getAccessTokenMetadata"`
		} `json:"data"`
	}
	graphql(t, tk.admin, srv.GMS, `query($t: String!) { getAccessTokenMetadata(token: $t) { id } }`, map[string]any{"t": tk.revoked}, &meta)
	var revoked struct {
		Data struct {
			RevokeAccessToken bool `json:"revokeAccessToken"`
		} `json:"data"`
	}
	graphql(t, tk.admin, srv.GMS, `mutation($id: String!) { revokeAccessToken(tokenId: $id) }`, map[string]any{"id": meta.Data.GetAccessTokenMetadata.ID}, &revoked)
	if !revoked.Data.RevokeAccessToken {
		t.Fatal("the token to audit with as revoked was not revoked")
	}
	return tk
}

// runAudit runs `catalogspec audit` by URL with the tokens in files, and
// returns its exit code, its output (tokens masked), its reports
// directory and how long it took.
func runAudit(t testing.TB, catalogspec, gms, frontend string, tk auditTokens, env ...string) (int, string, string, time.Duration) {
	t.Helper()
	dir := t.TempDir()
	reports := filepath.Join(dir, "reports")
	file := func(name, token string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(token+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, catalogspec, "audit", "--gms-url", gms, "--frontend-url", frontend,
		"--token-file", file("token", tk.user), "--expired-token-file", file("expired", tk.expired),
		"--revoked-token-file", file("revoked", tk.revoked), "--reports-dir", reports)
	cmd.Env = append(append(cleanEnv(), "NO_COLOR=1", "CATALOGSPEC_ADMIN_TOKEN="+tk.admin), env...)
	began := time.Now()
	b, err := cmd.CombinedOutput()
	took := time.Since(began)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running catalogspec audit: %v", err)
	}
	out := string(b)
	for _, tok := range []string{tk.user, tk.expired, tk.revoked, tk.admin} {
		if strings.Contains(out, tok) {
			t.Errorf("a token appears in the audit's output")
		}
	}
	return code, mask(out, tk.user, tk.expired, tk.revoked, tk.admin), reports, took
}

// checkAuditReports checks what an audit of a conforming target says: its
// verdict and reports say read-only; every read-only scenario ran, the
// expired and revoked tokens' checks among them; the rest are listed as
// skipped, with why.
func checkAuditReports(t *testing.T, out, reports string) {
	t.Helper()
	if !strings.Contains(out, "catalogspec: Read-only audit: conformant at @must") {
		t.Errorf("no verdict says read-only and conformant:\n%s", catalogdtest.LastLines(out, 20))
	}
	b, err := os.ReadFile(filepath.Join(reports, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		ReadOnly  bool           `json:"read_only"`
		Outcome   string         `json:"outcome"`
		Verdict   string         `json:"verdict"`
		Counts    map[string]int `json:"counts"`
		Scenarios []struct {
			ID, Name, Status, Reason string
			Tags                     []string
		} `json:"scenarios"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if !res.ReadOnly || res.Outcome != "conformant" || !strings.HasPrefix(res.Verdict, "Read-only audit: ") {
		t.Errorf("results.json: read_only %t, outcome %q, verdict %q", res.ReadOnly, res.Outcome, res.Verdict)
	}
	ran := 0
	for _, s := range res.Scenarios {
		readOnly := slices.Contains(s.Tags, "@read-only")
		switch {
		case readOnly && s.Status != "passed":
			t.Errorf("%s (%s) is %s (%s), want passed", s.ID, s.Name, s.Status, s.Reason)
		case readOnly:
			ran++
		case s.Status != "skipped" || !strings.Contains(s.Reason, "not in the read-only audit"):
			t.Errorf("%s (%s), not read-only, is %s (%s), want skipped as not in the audit", s.ID, s.Name, s.Status, s.Reason)
		}
	}
	if ran < 30 || res.Counts["skipped"] < 300 {
		t.Errorf("%d read-only scenarios ran, counts %v", ran, res.Counts)
	}
	page, _ := os.ReadFile(filepath.Join(reports, "report.html"))
	for _, want := range []string{"<title>catalogspec read-only audit: conformant</title>", "Read-only audit: conformant", "Read-only:</strong>"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

// snapshot reads every table of the target's database: for each, its
// number of rows and a digest of all of them, in a stable order.
func snapshot(t *testing.T, dbURL string) map[string]string {
	t.Helper()
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatalf("connecting to the target's database: %v", err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, `SELECT table_schema, table_name FROM information_schema.tables
		WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`)
	if err != nil {
		t.Fatal(err)
	}
	var tables [][2]string
	for rows.Next() {
		var schema, name string
		if err := rows.Scan(&schema, &name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, [2]string{schema, name})
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, tb := range tables {
		id := pgx.Identifier{tb[0], tb[1]}.Sanitize()
		var n int64
		var digest string
		err := conn.QueryRow(ctx, `SELECT count(*), coalesce(md5(string_agg(r::text, E'\n' ORDER BY r::text)), '') FROM `+id+` r`).Scan(&n, &digest)
		if err != nil {
			t.Fatalf("reading %s: %v", id, err)
		}
		out[id] = fmt.Sprintf("%d rows (md5 %s)", n, digest)
	}
	return out
}

// postAs posts a JSON body with token; it must answer 200.
func postAs(t testing.TB, token, u string, body []byte) []byte {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-RestLi-Protocol-Version", "2.0.0")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %d %s", u, resp.StatusCode, mask(string(b), token))
	}
	return b
}

// graphql posts a GraphQL document to gms as token, decodes the answer
// into v and returns it.
func graphql(t testing.TB, token, gms, doc string, vars map[string]any, v any) []byte {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": doc, "variables": vars})
	b := postAs(t, token, gms+"/api/graphql", body)
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", mask(string(b), token), err)
	}
	return b
}

// BenchmarkAudit times `catalogspec audit` by URL against a `catalogd
// serve`, as TestAuditWritesNothing runs it: an ordinary user's token, an
// expired and a revoked one. One op is one whole audit, the binary's start
// included. The target: under 10 s (BENCHMARKS.md).
//
//	go test -run '^$' -bench Audit -benchtime 5x ./selftest
func BenchmarkAudit(b *testing.B) {
	root, err := filepath.Abs("..")
	if err != nil {
		b.Fatal(err)
	}
	work := b.TempDir()
	catalogspec := filepath.Join(work, "catalogspec")
	goBuild(b, root, "build", "-o", catalogspec, "./cmd/catalogspec")
	srv, bin, dbURL := startCatalogd(b, work, "CATALOGD_CLOCK_OFFSET=25h")
	tokens := newAuditTokens(b, srv, bin, dbURL)
	for b.Loop() {
		if code, out, _, _ := runAudit(b, catalogspec, srv.GMS, srv.Frontend, tokens); code != 0 {
			b.Fatalf("exit %d:\n%s", code, catalogdtest.LastLines(out, 30))
		}
	}
}
