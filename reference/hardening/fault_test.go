package hardening

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/catalogspec/catalogspec/reference/postgres"
)

// dbTimeout is the instance's CATALOGD_DB_TIMEOUT in the fault test, and
// answerWithin how long a request may take while the database is gone:
// the timeout and room for a loaded machine.
const (
	dbTimeout    = time.Second
	answerWithin = dbTimeout + 2*time.Second
	recoverIn    = 30 * time.Second
)

// writer creates tags without pause and remembers each one the service
// acknowledged, so that afterwards every one of them can be looked for.
type writer struct {
	in      *instance
	token   string
	next    atomic.Int64
	mu      sync.Mutex
	acked   []string
	refused map[int]int // status -> count
}

func (w *writer) run(ctx context.Context, t *testing.T) {
	c := &http.Client{Timeout: 10 * time.Second}
	for ctx.Err() == nil {
		id := fmt.Sprintf("fault-%d", w.next.Add(1))
		body, _ := json.Marshal(map[string]any{
			"query":     `mutation T($input: CreateTagInput!) { createTag(input: $input) }`,
			"variables": map[string]any{"input": map[string]any{"id": id, "name": id}},
		})
		req, _ := http.NewRequestWithContext(ctx, "POST", w.in.gms+"/api/graphql", strings.NewReader(string(body)))
		req.Header.Set("Authorization", "Bearer "+w.token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if err != nil {
			continue
		}
		var out struct {
			Data struct {
				CreateTag *string `json:"createTag"`
			} `json:"data"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		w.mu.Lock()
		if resp.StatusCode == 200 && out.Data.CreateTag != nil {
			w.acked = append(w.acked, *out.Data.CreateTag)
		} else {
			w.refused[resp.StatusCode]++
		}
		w.mu.Unlock()
	}
}

// probe is one request the fault test sends while the database is gone.
type probe struct {
	name string
	call func() response
}

// TestDatabaseFaults stops and freezes PostgreSQL under a steady load of
// writes: every API path answers 503 with Retry-After within a bounded
// time, /health says so within a second, the service recovers by itself
// when the database is back, and every acknowledged write is there.
func TestDatabaseFaults(t *testing.T) {
	db, faults := database(t, true)
	in := start(t, db, "CATALOGD_DB_TIMEOUT="+dbTimeout.String())
	// With authentication off a request reaches its resolver without asking
	// the database who it is: the resolver is the one to find it gone.
	open := start(t, db, "CATALOGD_DB_TIMEOUT="+dbTimeout.String(), "METADATA_SERVICE_AUTH_ENABLED=false")
	w := &writer{in: in, token: in.admin, refused: map[int]int{}}
	ctx, stopLoad := context.WithCancel(context.Background())
	var load sync.WaitGroup
	for i := 0; i < 4; i++ {
		load.Add(1)
		go func() { defer load.Done(); w.run(ctx, t) }()
	}
	defer func() { stopLoad(); load.Wait() }()

	healthy := func(t *testing.T) {
		t.Helper()
		deadline := time.Now().Add(recoverIn)
		for {
			h := in.do(t, "GET", in.gms+"/health", "", "", nil)
			g := in.graphql(t, in.admin, "{ me { corpUser { urn } } }", nil)
			if h.status == 200 && g.status == 200 && !strings.Contains(g.body, "errors") {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("not recovered %s after the database came back: /health %d, graphql %d %.200s", recoverIn, h.status, g.status, g.body)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	tagQuery := `query T($urn: String!) { tag(urn: $urn) { urn } }`
	ingest, _ := json.Marshal(map[string]any{"proposal": map[string]any{
		"entityType": "dataset", "entityUrn": "urn:li:dataset:(urn:li:dataPlatform:hive,fault.t,PROD)", "changeType": "UPSERT",
		"aspectName": "datasetProperties", "aspect": map[string]any{"value": `{"description":"x"}`, "contentType": "application/json"},
	}})
	ingestKey, _ := json.Marshal(map[string]any{"proposal": map[string]any{
		"entityType": "corpuser", "entityUrn": "urn:li:corpuser:fault", "changeType": "UPSERT",
		"aspectName": "corpUserKey", "aspect": map[string]any{"value": `{"username":"fault"}`, "contentType": "application/json"},
	}})
	// unavailable checks each API path answers 503 with Retry-After in time.
	unavailable := func(t *testing.T) {
		t.Helper()
		// catalogd may answer from memory what it keeps of users, tokens
		// and policies until postgres.TrustFor after its last confirmation
		// that it has seen every change (no change can commit meanwhile);
		// past that, every path goes to the database.
		time.Sleep(postgres.TrustFor + 200*time.Millisecond)
		paths := []probe{
			{"GET /health", func() response { return in.do(t, "GET", in.gms+"/health", "", "", nil) }},
			{"POST /api/graphql (authentication)", func() response { return in.graphql(t, in.admin, tagQuery, map[string]any{"urn": "urn:li:tag:fault-1"}) }},
			{"POST /api/graphql (a resolver, auth off)", func() response { return open.graphql(t, "", tagQuery, map[string]any{"urn": "urn:li:tag:fault-1"}) }},
			{"GET /entities", func() response {
				return in.do(t, "GET", in.gms+"/entities/urn:li:tag:fault-1", in.admin, "", nil)
			}},
			{"POST /aspects", func() response {
				return in.do(t, "POST", in.gms+"/aspects?action=ingestProposal", in.admin, "application/json", ingest)
			}},
			{"POST frontend /api/v2/graphql", func() response {
				return in.do(t, "POST", in.frontend+"/api/v2/graphql", in.admin, "application/json", []byte(`{"query":"{ me { corpUser { urn } } }"}`))
			}},
		}
		// Every operation with authentication off, where the resolver is
		// the first to reach the database (me is left out: the system
		// actor's answer needs none), and once naming a user in
		// X-DataHub-Actor, where finding that user is. createAccessToken is
		// not among them: with authentication off it is refused before any
		// store call (noauth-10); reference/httpapi's
		// TestEveryResolverReportsAStoreFailure judges its store failure
		// with authentication on.
		policy := `{type: PLATFORM, name: "fault", state: ACTIVE, privileges: ["MANAGE_POLICIES"], actors: {users: ["urn:li:corpuser:datahub"], resourceOwners: false, allUsers: false, allGroups: false}}`
		for _, op := range []struct{ name, doc string }{
			{"tag", `{ tag(urn: "urn:li:tag:fault-1") { urn name } }`},
			{"corpUser", `{ corpUser(urn: "urn:li:corpuser:datahub") { urn } }`},
			{"createTag", `mutation { createTag(input: {id: "fault-down", name: "fault-down"}) }`},
			{"deleteTag", `mutation { deleteTag(urn: "urn:li:tag:fault-1") }`},
			{"listAccessTokens", `{ listAccessTokens(input: {start: 0, count: 10}) { total } }`},
			{"revokeAccessToken", `mutation { revokeAccessToken(tokenId: "fault") }`},
			{"getAccessTokenMetadata", `{ getAccessTokenMetadata(token: "` + in.admin + `") { id } }`},
			{"createPolicy", `mutation { createPolicy(input: ` + policy + `) }`},
			{"updatePolicy", `mutation { updatePolicy(urn: "urn:li:dataHubPolicy:fault", input: ` + policy + `) }`},
			{"deletePolicy", `mutation { deletePolicy(urn: "urn:li:dataHubPolicy:fault") }`},
			{"listPolicies", `{ listPolicies(input: {start: 0, count: 10}) { total } }`},
		} {
			doc := op.doc
			paths = append(paths, probe{"GraphQL " + op.name + " (auth off)", func() response { return open.graphql(t, "", doc, nil) }})
		}
		paths = append(paths, []probe{
			{"GraphQL as X-DataHub-Actor (auth off)", func() response {
				body, _ := json.Marshal(map[string]any{"query": "{ me { corpUser { urn } } }"})
				req := request(t, "POST", open.gms+"/api/graphql", "", "application/json", body)
				req.Header.Set("X-DataHub-Actor", "urn:li:corpuser:datahub")
				return send(t, req)
			}},
			{"GET /entities (auth off)", func() response {
				return open.do(t, "GET", open.gms+"/entities/urn:li:tag:fault-1", "", "", nil)
			}},
			{"POST /aspects (auth off)", func() response {
				return open.do(t, "POST", open.gms+"/aspects?action=ingestProposal", "", "application/json", ingest)
			}},
			{"POST /aspects, a key aspect (auth off)", func() response {
				return open.do(t, "POST", open.gms+"/aspects?action=ingestProposal", "", "application/json", ingestKey)
			}},
		}...)
		// All at once: each may take up to the database timeout.
		answers := make([]response, len(paths))
		var wg sync.WaitGroup
		for i, p := range paths {
			wg.Add(1)
			go func() { defer wg.Done(); answers[i] = p.call() }()
		}
		wg.Wait()
		for i, p := range paths {
			resp := answers[i]
			within := answerWithin
			if p.name == "GET /health" {
				within = time.Second + 500*time.Millisecond
			}
			t.Logf("%s: %d in %s", p.name, resp.status, resp.elapsed)
			if resp.status != http.StatusServiceUnavailable || resp.header.Get("Retry-After") == "" {
				t.Errorf("%s: want 503 with Retry-After, got %d (Retry-After %q): %.200s", p.name, resp.status, resp.header.Get("Retry-After"), resp.body)
			}
			if resp.elapsed > within {
				t.Errorf("%s answered after %s; want within %s", p.name, resp.elapsed, within)
			}
		}
	}

	time.Sleep(300 * time.Millisecond) // some acknowledged writes first
	healthy(t)
	for _, mode := range []string{"fast", "immediate"} {
		t.Run("stopped "+mode, func(t *testing.T) {
			if err := faults.Stop(context.Background(), mode); err != nil {
				t.Fatal(err)
			}
			unavailable(t)
			if err := faults.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			healthy(t)
		})
	}
	t.Run("frozen", func(t *testing.T) {
		if err := faults.Freeze(); err != nil {
			t.Fatal(err)
		}
		thawed := false
		defer func() {
			if !thawed {
				_ = faults.Thaw()
			}
		}()
		unavailable(t)
		if err := faults.Thaw(); err != nil {
			t.Fatal(err)
		}
		thawed = true
		healthy(t)
	})
	time.Sleep(300 * time.Millisecond) // writes go on after the last recovery
	stopLoad()
	load.Wait()

	w.mu.Lock()
	defer w.mu.Unlock()
	t.Logf("%d writes acknowledged, refused by status: %v", len(w.acked), w.refused)
	if len(w.acked) == 0 {
		t.Fatal("no write was acknowledged: the load did not run")
	}
	for status := range w.refused {
		if status != http.StatusServiceUnavailable {
			t.Errorf("writes were refused with %d (%d times): a database outage must be a 503", status, w.refused[status])
		}
	}
	for _, urn := range w.acked {
		resp := in.graphql(t, in.admin, tagQuery, map[string]any{"urn": urn})
		if !strings.Contains(resp.body, `"urn":"`+urn+`"`) {
			t.Errorf("acknowledged write %s is missing: %.200s", urn, resp.body)
		}
	}
}
