package hardening

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// maxPeakRSS bounds catalogd's resident memory at its peak while it
// answers the most expensive request a user can build under the limits
// (BENCHMARKS.md, "Response budgets"). Measured: 53 to 83 MB, from 24 MB
// at rest; before the budgets, the same requests took it to 617 MB,
// 638 MB and 1,836 MB.
const maxPeakRSS = 200 << 10 // kB

// resetPeak makes /proc/<pid>/status's VmHWM start again from the
// resident memory of now (Linux: clear_refs 5), so that each attack's
// peak is its own.
func (in *instance) resetPeak(t *testing.T) {
	t.Helper()
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", in.pid), []byte("5"), 0); err != nil {
		t.Skipf("cannot reset catalogd's peak memory (%v): the figures would be another request's", err)
	}
}

// fillTokens has the holder of token make n tokens for themself, each
// with a name and a description as long as they may be, of control
// characters, which JSON writes six bytes each: about 13.9 KB a token in
// an answer. It returns how many were made before the first refusal, and
// that refusal.
func fillTokens(t *testing.T, in *instance, token, actor string, n int) (int, string) {
	t.Helper()
	vars := map[string]any{"a": actor, "n": strings.Repeat("\x01", 256), "d": strings.Repeat("\x01", 2048)}
	made := 0
	for made < n {
		batch := min(50, n-made)
		var b strings.Builder
		b.WriteString("mutation Fill($a: String!, $n: String!, $d: String) {")
		for i := 0; i < batch; i++ {
			fmt.Fprintf(&b, " t%d: createAccessToken(input: {type: PERSONAL, actorUrn: $a, duration: ONE_DAY, name: $n, description: $d}) { metadata { id } }", i)
		}
		b.WriteString(" }")
		resp := in.graphql(t, token, b.String(), vars)
		var body struct {
			Data   map[string]any `json:"data"`
			Errors []struct {
				Message string `json:"message"`
			} `json:"errors"`
		}
		if err := json.Unmarshal([]byte(resp.body), &body); err != nil {
			t.Fatalf("filling tokens: HTTP %d %.300s", resp.status, resp.body)
		}
		for i := 0; i < batch; i++ {
			if v, ok := body.Data[fmt.Sprintf("t%d", i)]; !ok || v == nil {
				msg := ""
				if len(body.Errors) > 0 {
					msg = body.Errors[0].Message
				}
				return made, msg
			}
			made++
		}
	}
	return made, ""
}

// page lists count of the caller's own tokens with their name and
// description.
func page(owner string, count int) string {
	return fmt.Sprintf(`listAccessTokens(input: {count: %d, filters: [{field: "ownerUrn", values: ["%s"]}]}) { tokens { name description } }`, count, owner)
}

func pages(owner string, count, n int) string {
	var b strings.Builder
	b.WriteString("query Pages {")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, " p%d: %s", i, page(owner, count))
	}
	return b.String() + " }"
}

// TestResponseBudgets builds the most expensive requests a user without
// privileges can send under the limits, and one the root user can: a
// user owning as many tokens as anyone may, each as large as it may be,
// listing them in the largest pages under as many aliases as the budgets
// let through. Each is refused or answered within the byte budget, and
// catalogd's resident memory at its peak stays under maxPeakRSS.
func TestResponseBudgets(t *testing.T) {
	db, _ := database(t, false)
	in := start(t, db)
	const owner = "urn:li:corpuser:hardening-owner"
	ownerToken := in.user(t, "hardening-owner")

	began := time.Now()
	// The user holds one token already (from token create).
	made, refusal := fillTokens(t, in, ownerToken, owner, 1000)
	t.Logf("the user made %d tokens of 2,304 control characters each in %s; the next: %q", made, time.Since(began).Round(time.Millisecond), refusal)
	if made != 999 || !strings.Contains(refusal, "CATALOGD_MAX_TOKENS_PER_USER") {
		t.Fatalf("made %d tokens, then %q; want 999 (1,000 with the first), then a refusal naming CATALOGD_MAX_TOKENS_PER_USER", made, refusal)
	}

	// A user whose full name is nearly a megabyte, ingested by the root
	// user: read by anyone, as often as DataHub's complexity lets a query
	// name it.
	big := strings.Repeat("n", 900<<10)
	value, _ := json.Marshal(map[string]any{"active": true, "fullName": big})
	proposal, _ := json.Marshal(map[string]any{"proposal": map[string]any{
		"entityType": "corpuser", "entityUrn": "urn:li:corpuser:hardening-big", "changeType": "UPSERT",
		"aspectName": "corpUserInfo", "aspect": map[string]any{"value": string(value), "contentType": "application/json"},
	}})
	if resp := in.do(t, "POST", in.gms+"/aspects?action=ingestProposal", in.admin, "application/json", proposal); resp.status != 200 {
		t.Fatalf("ingest the large user: %d %.300s", resp.status, resp.body)
	}
	var bigNames strings.Builder
	bigNames.WriteString("query Big {")
	for i := 0; i < 600; i++ {
		fmt.Fprintf(&bigNames, ` u%d: corpUser(urn: "urn:li:corpuser:hardening-big") { info { fullName } }`, i)
	}
	bigNames.WriteString(" }")

	aliases, aliasVars := tokenAliases(owner, 24)
	two, _ := tokenAliases(owner, 2)
	attacks := []struct {
		name, query string
		vars        map[string]any
		root        bool   // sent as the root user
		limit       string // "" for an answer
	}{
		{"the issue's attack: 50 pages of 1,000 (700 MB of JSON asked for)", pages(owner, 1000, 50), nil, false, "limit: cost"},
		{"6 pages of 1,000, the most the cost lets through (83 MB asked for)", pages(owner, 1000, 6), nil, false, "limit: responseBytes"},
		{"one page of 1,000 (13.9 MB)", pages(owner, 1000, 1), nil, false, "limit: responseBytes"},
		{"one page of 600 (8.3 MB, the largest answered)", pages(owner, 600, 1), nil, false, ""},
		{"600 reads of a 900 KB name, as the root user (540 MB asked for)", bigNames.String(), nil, true, "limit: responseBytes"},
		// Issue 29: a 576-byte answer that read 333 MB and kept it cached.
		{"24 pages of 1,000 under distinct filters asking only their total", aliases, aliasVars, false, "limit: readBytes"},
		{"two such pages, which read 28 MB", two, aliasVars, false, ""},
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			// A catalogd of its own, warmed up: the garbage an earlier
			// request left (the collector runs at GOGC=400) is not counted.
			in := start(t, db)
			token := ownerToken
			if a.root {
				token = in.admin
			}
			for i := 0; i < 3; i++ {
				in.graphql(t, token, "{ "+page(owner, 10)+" }", nil)
			}
			in.resetPeak(t)
			rss, cpu := in.memory(t, "VmRSS"), in.cpu(t)
			resp := in.graphql(t, token, a.query, a.vars)
			used, peak := in.cpu(t)-cpu, in.memory(t, "VmHWM")
			t.Logf("%d bytes asked: HTTP %d, %d bytes answered in %s, server CPU %s; resident memory %d MB before, %d MB at the peak",
				len(a.query), resp.status, len(resp.body), resp.elapsed.Round(time.Millisecond), used, rss>>10, peak>>10)
			var body struct {
				Data   map[string]json.RawMessage `json:"data"`
				Errors []struct {
					Message    string         `json:"message"`
					Extensions map[string]any `json:"extensions"`
				} `json:"errors"`
			}
			if err := json.Unmarshal([]byte(resp.body), &body); err != nil {
				t.Fatalf("HTTP %d, the answer is not JSON: %.200s", resp.status, resp.body)
			}
			if a.limit == "" {
				if resp.status != 200 || len(body.Errors) != 0 || len(body.Data) == 0 {
					t.Fatalf("want an answer, got HTTP %d with %d errors: %.300s", resp.status, len(body.Errors), resp.body)
				}
			} else if resp.status != 200 || body.Data != nil || len(body.Errors) != 1 ||
				!strings.Contains(body.Errors[0].Message, a.limit) || body.Errors[0].Extensions["type"] != "BAD_REQUEST" {
				t.Fatalf("want one BAD_REQUEST naming %q and no data, got HTTP %d: %.300s", a.limit, resp.status, resp.body)
			}
			if peak > maxPeakRSS {
				t.Errorf("catalogd's resident memory peaked at %d MB; want under %d MB", peak>>10, maxPeakRSS>>10)
			}
		})
	}
}
