package hardening

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The memory bounds of issue 29, each checked by its effect: a write is
// refused before its body is read, or as soon as the body names an entity
// its caller may not write; a read answers within its byte budget or is
// refused naming it; nothing refused was written. Each peak of memory is
// logged, and held under maxPeakRSS for one request. The figures are in
// BENCHMARKS.md ("Memory before authorization and read budgets").

// ingestSize is a body as large as an ingestion may be (DataHub's
// 16,000,000 bytes), less a margin for the JSON around the entities.
const ingestSize = 15_900_000

// tinyAspects is an OpenAPI v3 write of as many datasets as fit in size
// bytes, each with one tiny aspect: the first one named first.
func tinyAspects(first string, size int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `[{"urn": %q, "status": {"value": {"removed": false}}}`, first)
	for i := 0; b.Len() < size-200; i++ {
		fmt.Fprintf(&b, `, {"urn": "urn:li:dataset:(urn:li:dataPlatform:hive,tiny%d,PROD)", "status": {"value": {"removed": false}}}`, i)
	}
	b.WriteString("]")
	return b.Bytes()
}

// tinyProposals is the same as a Rest.li ingestProposalBatch.
func tinyProposals(first string, size int) []byte {
	var b bytes.Buffer
	proposal := func(urn string) string {
		return fmt.Sprintf(`{"entityType": "dataset", "entityUrn": %q, "changeType": "UPSERT", "aspectName": "status", "aspect": {"value": "{\"removed\": false}", "contentType": "application/json"}}`, urn)
	}
	b.WriteString(`{"proposals": [` + proposal(first))
	for i := 0; b.Len() < size-300; i++ {
		b.WriteString(", " + proposal(fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:hive,tiny%d,PROD)", i)))
	}
	b.WriteString(`], "async": "false"}`)
	return b.Bytes()
}

// stalled is a request body that gives the server head and then nothing
// more until the request has been answered: a server that waits for the
// rest before it answers waits until its read timeout. It counts what the
// server took of it. A head that is the whole body ends there.
type stalled struct {
	head     []byte
	whole    bool
	answered chan struct{}
	sent     atomic.Int64
	once     sync.Once
}

func (s *stalled) Read(p []byte) (int, error) {
	if s.sent.Load() < int64(len(s.head)) {
		n := copy(p, s.head[s.sent.Load():])
		s.sent.Add(int64(n))
		return n, nil
	}
	if s.whole {
		return 0, io.EOF
	}
	select {
	case <-s.answered:
	case <-time.After(time.Minute): // the client has given up by then
	}
	return 0, io.ErrUnexpectedEOF
}

func (s *stalled) Close() error { s.once.Do(func() { close(s.answered) }); return nil }

// expectingClient sends "Expect: 100-continue" and waits as long as it
// takes for the server's go-ahead: what it sends of a body, the server
// asked for by starting to read it.
var expectingClient = &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{ExpectContinueTimeout: time.Minute}}

// sendStalled posts a body of length bytes of which the server gets head
// at most, asking for the server's go-ahead first; it returns the answer
// and how much of the body the server took.
func sendStalled(t *testing.T, url, token string, head []byte, length int64) (response, int64) {
	t.Helper()
	body := &stalled{head: head, whole: int64(len(head)) == length, answered: make(chan struct{})}
	defer body.Close()
	req, err := http.NewRequest("POST", url, body)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = length
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-RestLi-Protocol-Version", "2.0.0")
	req.Header.Set("Expect", "100-continue")
	resp, err := expectingClient.Do(req)
	if err != nil {
		// Errorf, not Fatalf: it may run on a goroutine of its own.
		t.Errorf("POST %s: %v", req.URL.Path, err)
		return response{body: err.Error(), header: http.Header{}}, body.sent.Load()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return response{status: resp.StatusCode, header: resp.Header, body: string(b)}, body.sent.Load()
}

// grant gives user a METADATA policy with privileges on resources.
func (in *instance) grant(t *testing.T, user string, privileges []string, resources ...string) {
	t.Helper()
	input := map[string]any{
		"type": "METADATA", "name": "hardening " + user, "state": "ACTIVE", "privileges": privileges,
		"actors":    map[string]any{"users": []string{user}, "resourceOwners": false, "allUsers": false, "allGroups": false},
		"resources": map[string]any{"resources": resources, "allResources": false},
	}
	resp := in.graphql(t, in.admin, `mutation($in: PolicyUpdateInput!) { createPolicy(input: $in) }`, map[string]any{"in": input})
	if resp.status != 200 || strings.Contains(resp.body, `"errors"`) {
		t.Fatalf("createPolicy: %d %.300s", resp.status, resp.body)
	}
}

// hasAspect says whether the root user reads the aspect of urn.
func (in *instance) hasAspect(t *testing.T, urn, aspect string) bool {
	t.Helper()
	resp := in.do(t, "GET", in.gms+"/aspects/"+url.PathEscape(urn)+"?aspect="+aspect+"&version=0", in.admin, "", nil)
	switch resp.status {
	case 200:
		return true
	case 404:
		return false
	}
	t.Fatalf("read %s of %s: %d %.300s", aspect, urn, resp.status, resp.body)
	return false
}

// problem is the JSON of a refusal on the REST paths.
type problem struct {
	Status  int    `json:"status"`
	Message string `json:"message"`
}

func refusedWith(t *testing.T, what string, resp response, status int, says string) {
	t.Helper()
	var p problem
	if resp.status != status || json.Unmarshal([]byte(resp.body), &p) != nil || p.Status != status || !strings.Contains(p.Message, says) {
		t.Errorf("%s: HTTP %d %.300s; want %d with a JSON message saying %q", what, resp.status, resp.body, status, says)
	}
}

func dataset(name string) string {
	return "urn:li:dataset:(urn:li:dataPlatform:hive," + name + ",PROD)"
}

// TestNoWorkBeforeAuthorization: an entity write is authorized from what
// its URL and headers say before its body is read, and its body's entities
// as they are read: a caller who may write no entity of the type is
// refused before the server takes any of the body, and one who may write
// some of them is refused at the first entity that is not theirs, the rest
// of the body never read. Nothing of a refused write is written. The
// finding: one 16 MB body of tiny aspects from a user without EDIT_ENTITY
// cost catalogd 309 MB before its 403.
func TestNoWorkBeforeAuthorization(t *testing.T) {
	db, _ := database(t, false)
	// A server that waits for the rest of a stalled body gives up at its
	// read timeout, and the request fails; one that does not wait answers.
	in := start(t, db, "CATALOGD_READ_TIMEOUT=10s")
	nobodyToken := in.user(t, "mem-nobody")
	const editor = "urn:li:corpuser:mem-editor"
	editorToken := in.user(t, "mem-editor")
	mine, theirs := dataset("mem-mine"), dataset("mem-theirs")
	in.grant(t, editor, []string{"EDIT_ENTITY"}, mine)

	openapi := in.gms + "/openapi/v3/entity/dataset"
	batch := in.gms + "/aspects?action=ingestProposalBatch"
	single := in.gms + "/aspects?action=ingestProposal"
	bigValue, _ := json.Marshal(map[string]any{"description": strings.Repeat("d", ingestSize-1000)})
	singleBody, _ := json.Marshal(map[string]any{"proposal": map[string]any{
		"entityType": "dataset", "entityUrn": theirs, "changeType": "UPSERT", "aspectName": "datasetProperties",
		"aspect": map[string]any{"value": string(bigValue), "contentType": "application/json"},
	}})

	t.Run("no EDIT_ENTITY at all: refused before any of the body is read", func(t *testing.T) {
		for _, c := range []struct {
			name, url string
			body      []byte
		}{
			{"OpenAPI v3, 16 MB of tiny aspects", openapi, tinyAspects(theirs, ingestSize)},
			{"Rest.li ingestProposalBatch, 16 MB of tiny aspects", batch, tinyProposals(theirs, ingestSize)},
			{"Rest.li ingestProposal, one 16 MB aspect", single, singleBody},
			{"OpenAPI v3 through the frontend", in.frontend + "/api/gms/openapi/v3/entity/dataset", tinyAspects(theirs, ingestSize)},
		} {
			in.resetPeak(t)
			resp, sent := sendStalled(t, c.url, nobodyToken, c.body, int64(len(c.body)))
			t.Logf("%s: HTTP %d after %d of %d bytes; resident memory at the peak %d MB", c.name, resp.status, sent, len(c.body), in.memory(t, "VmHWM")>>10)
			refusedWith(t, c.name, resp, 403, "EDIT_ENTITY")
			if sent != 0 {
				t.Errorf("%s: the server took %d bytes of the body of a caller who may write nothing", c.name, sent)
			}
			if peak := in.memory(t, "VmHWM"); peak > maxPeakRSS {
				t.Errorf("%s: resident memory peaked at %d MB", c.name, peak>>10)
			}
		}
		if in.hasAspect(t, theirs, "status") || in.hasAspect(t, dataset("tiny0"), "status") || in.hasAspect(t, theirs, "datasetProperties") {
			t.Error("a refused write wrote an aspect")
		}
	})

	t.Run("EDIT_ENTITY on one dataset: refused at the first entity that is not it", func(t *testing.T) {
		for _, c := range []struct {
			name, url string
			body      []byte
			head      string // what the server may take: up to the entity it may not write
		}{
			{"OpenAPI v3", openapi, tinyAspects(mine, ingestSize), `"urn": "urn:li:dataset:(urn:li:dataPlatform:hive,tiny0,PROD)"`},
			{"Rest.li ingestProposalBatch", batch, tinyProposals(mine, ingestSize), `"entityUrn": "urn:li:dataset:(urn:li:dataPlatform:hive,tiny0,PROD)"`},
		} {
			cut := bytes.Index(c.body, []byte(c.head)) + len(c.head) + 2
			resp, sent := sendStalled(t, c.url, editorToken, c.body[:cut], int64(len(c.body)))
			t.Logf("%s: HTTP %d after %d of %d bytes", c.name, resp.status, sent, len(c.body))
			refusedWith(t, c.name, resp, 403, dataset("tiny0"))
		}
		if in.hasAspect(t, mine, "status") || in.hasAspect(t, dataset("tiny0"), "status") {
			t.Error("a refused batch wrote an aspect of it")
		}
	})

	t.Run("what comes before an entity's urn is held only up to a small bound", func(t *testing.T) {
		filler := strings.Repeat("f", 3<<20)
		body := []byte(`[{"status": {"value": {"removed": false}}, "datasetProperties": {"value": {"description": "` + filler + `"}}, "urn": "` + mine + `"}]`)
		resp, sent := sendStalled(t, openapi, editorToken, body[:3<<19], int64(len(body)))
		t.Logf("aspects before the urn: HTTP %d after %d of %d bytes", resp.status, sent, len(body))
		refusedWith(t, "3 MB of aspects before the urn", resp, 413, `"urn"`)
		if in.hasAspect(t, mine, "status") {
			t.Error("the refused write wrote an aspect")
		}
	})

	t.Run("the same writes of one's own entities are written", func(t *testing.T) {
		body := []byte(`[{"urn": "` + mine + `", "status": {"value": {"removed": false}}}]`)
		resp, _ := sendStalled(t, openapi, editorToken, body, int64(len(body)))
		if resp.status != 200 || !in.hasAspect(t, mine, "status") {
			t.Errorf("the editor's write of their own dataset: HTTP %d %.300s", resp.status, resp.body)
		}
		body = []byte(`[{"status": {"value": {"removed": true}}, "urn": "` + mine + `"}]`)
		if resp, _ := sendStalled(t, openapi, editorToken, body, int64(len(body))); resp.status != 200 {
			t.Errorf("a small aspect before the urn: HTTP %d %.300s", resp.status, resp.body)
		}
		body = []byte(`{"proposals": [{"entityType": "dataset", "entityUrn": "` + mine + `", "changeType": "UPSERT", "aspectName": "datasetProperties", "aspect": {"value": "{\"description\": \"mine\"}", "contentType": "application/json"}}]}`)
		if resp, _ := sendStalled(t, batch, editorToken, body, int64(len(body))); resp.status != 200 || !in.hasAspect(t, mine, "datasetProperties") {
			t.Errorf("a Rest.li batch of their own dataset: HTTP %d %.300s", resp.status, resp.body)
		}
	})
}

// put writes aspects of one dataset as the root user, through OpenAPI v3.
func (in *instance) put(t *testing.T, urn string, aspects map[string]any) {
	t.Helper()
	entity := map[string]any{"urn": urn}
	for name, value := range aspects {
		entity[name] = map[string]any{"value": value}
	}
	body, _ := json.Marshal([]any{entity})
	if resp := in.do(t, "POST", in.gms+"/openapi/v3/entity/dataset", in.admin, "application/json", body); resp.status != 200 {
		t.Fatalf("write %s: %d %.300s", urn, resp.status, resp.body)
	}
}

// bigDatasets writes a dataset with one aspect of 2.2 MB, one of 13 MB in
// two aspects, and one of 36 MB in three, past the default read budget
// (CATALOGD_MAX_READ_BYTES, 32 MiB), each aspect as large as one write
// lets it be.
func bigDatasets(t *testing.T, in *instance) (small, large, tooLarge string) {
	t.Helper()
	small, large, tooLarge = dataset("mem-2mb"), dataset("mem-13mb"), dataset("mem-36mb")
	text := func(n int) string { return strings.Repeat("m", n) }
	in.put(t, small, map[string]any{"datasetProperties": map[string]any{"description": text(2_200_000)}})
	in.put(t, large, map[string]any{"datasetProperties": map[string]any{"description": text(6_500_000)}, "editableDatasetProperties": map[string]any{"description": text(6_500_000)}})
	for name, value := range map[string]any{
		"datasetProperties":         map[string]any{"description": text(12_000_000)},
		"editableDatasetProperties": map[string]any{"description": text(12_000_000)},
		"institutionalMemory": map[string]any{"elements": []any{map[string]any{
			"url": "https://example.com/memory", "description": text(12_000_000),
			"createStamp": map[string]any{"time": 0, "actor": "urn:li:corpuser:datahub"},
		}}},
	} {
		in.put(t, tooLarge, map[string]any{name: value})
	}
	return small, large, tooLarge
}

// TestReadBudgets: every entity read is bounded by a byte budget of what
// it reads from the store (CATALOGD_MAX_READ_BYTES), on both tiers: an
// answer within it is whole, one past it a 400 naming the limit, never a
// 500; a batch read names each entity once however often it is asked for,
// as DataHub's batchGet does. The finding: batchGet naming one dataset (a
// 2.2 MB aspect) 150 times built a 343 MB answer and took catalogd to
// 3.3 GB; a plain GET of a 15 MB entity cost 157 MB.
func TestReadBudgets(t *testing.T) {
	db, _ := database(t, false)
	setup := start(t, db)
	small, large, tooLarge := bigDatasets(t, setup)
	readerToken := setup.user(t, "mem-reader") // reads every entity, as every user may at first

	ids := func(urns ...string) string {
		for i, u := range urns {
			urns[i] = url.QueryEscape(u)
		}
		return "List(" + strings.Join(urns, ",") + ")"
	}
	batch := func(urns ...string) []byte {
		items := make([]map[string]string, len(urns))
		for i, u := range urns {
			items[i] = map[string]string{"urn": u}
		}
		b, _ := json.Marshal(items)
		return b
	}
	repeat := func(urn string, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = urn
		}
		return out
	}
	type read struct {
		name, method, path string
		body               []byte
		status             int    // 200, or the refusal's
		entities           int    // with 200: how many entities the answer holds (-1: one entity's own shape)
		minBytes           int    // with 200: the answer is at least this long
		says               string // with a refusal
	}
	e := url.PathEscape
	for _, r := range []read{
		{"OpenAPI batchGet naming a 2.2 MB dataset 150 times", "POST", "/openapi/v3/entity/dataset/batchGet", batch(repeat(small, 150)...), 200, 1, 2_200_000, ""},
		{"Rest.li batch_get naming it 150 times", "GET", "/entitiesV2?ids=" + ids(repeat(small, 150)...), nil, 200, 1, 2_200_000, ""},
		{"GET of a 13 MB entity", "GET", "/entities/" + e(large), nil, 200, -1, 13_000_000, ""},
		{"OpenAPI batchGet of datasets of 2.2, 13 and 36 MB", "POST", "/openapi/v3/entity/dataset/batchGet", batch(small, large, tooLarge), 400, 0, 0, "limit: readBytes"},
		{"Rest.li batch_get of the 2.2 and 13 MB datasets 40 times (600 MB asked for)", "GET", "/entitiesV2?ids=" + ids(append(repeat(small, 20), repeat(large, 20)...)...), nil, 200, 2, 15_000_000, ""},
		{"GET /entities of the 36 MB dataset", "GET", "/entities/" + e(tooLarge), nil, 400, 0, 0, "limit: readBytes"},
		{"GET /entitiesV2 of it", "GET", "/entitiesV2/" + e(tooLarge), nil, 400, 0, 0, "limit: readBytes"},
		{"OpenAPI GET of it", "GET", "/openapi/v3/entity/dataset/" + e(tooLarge), nil, 400, 0, 0, "limit: readBytes"},
		{"one 12 MB aspect of it", "GET", "/aspects/" + e(tooLarge) + "?aspect=datasetProperties&version=0", nil, 200, -1, 12_000_000, ""},
	} {
		for _, tier := range []string{"gms", "frontend"} {
			t.Run(r.name+" ("+tier+")", func(t *testing.T) {
				// A catalogd of its own, warmed up: the peak is this read's.
				in := start(t, db)
				base := in.gms
				if tier == "frontend" {
					base = in.frontend + "/api/gms"
				}
				in.do(t, "GET", base+"/entities/"+e(dataset("mem-warm")), readerToken, "", nil)
				in.resetPeak(t)
				rss := in.memory(t, "VmRSS")
				resp := in.do(t, r.method, base+r.path, readerToken, "application/json", r.body)
				peak := in.memory(t, "VmHWM")
				t.Logf("HTTP %d, %d bytes answered; resident memory %d MB before, %d MB at the peak", resp.status, len(resp.body), rss>>10, peak>>10)
				if peak > maxPeakRSS {
					t.Errorf("resident memory peaked at %d MB; want under %d MB", peak>>10, maxPeakRSS>>10)
				}
				if r.status != 200 {
					refusedWith(t, r.name, resp, r.status, r.says)
					return
				}
				if resp.status != 200 || len(resp.body) < r.minBytes {
					t.Fatalf("HTTP %d, %d bytes: %.300s; want the answer whole", resp.status, len(resp.body), resp.body)
				}
				switch {
				case strings.HasPrefix(r.path, "/openapi/v3/entity/dataset/batchGet"):
					var got []map[string]json.RawMessage
					if err := json.Unmarshal([]byte(resp.body), &got); err != nil || len(got) != r.entities {
						t.Errorf("the answer holds %d entities (%v); want %d, each named once", len(got), err, r.entities)
					}
				case strings.HasPrefix(r.path, "/entitiesV2?"):
					var got struct{ Results map[string]json.RawMessage }
					if err := json.Unmarshal([]byte(resp.body), &got); err != nil || len(got.Results) != r.entities {
						t.Errorf("the answer holds %d entities (%v); want %d", len(got.Results), err, r.entities)
					}
				default:
					if !json.Valid([]byte(resp.body)) {
						t.Errorf("the answer is not JSON")
					}
				}
			})
		}
	}
}

// maxPeakRSSAtOnce bounds catalogd's resident memory while twenty of the
// worst requests of each kind run at once: the bytes in flight are
// bounded process-wide (CATALOGD_MAX_BYTES_IN_FLIGHT), past which a
// request is refused with 503 and Retry-After.
const maxPeakRSSAtOnce = 600 << 10 // kB

// tokenAliases is the finding's GraphQL request with n = 24: n aliases
// listing a page of 1,000 of the caller's tokens, each under its own
// filter, asking only for the total. Its answer is 576 bytes; it made
// catalogd read 24 pages of 13.9 MB and keep them in its cache.
func tokenAliases(owner string, n int) (string, map[string]any) {
	var b strings.Builder
	b.WriteString("query Totals($n: String!) {")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, ` t%d: listAccessTokens(input: {count: 1000, filters: [{field: "ownerUrn", values: ["%s"]}, {field: "name", values: ["n%d", $n]}]}) { total }`, i, owner, i)
	}
	b.WriteString(" }")
	return b.String(), map[string]any{"n": strings.Repeat("\x01", 256)}
}

// TestTwentyOfEachAtOnce: twenty of the worst requests of each kind at
// once (the finding's GraphQL token listing, the batch read, the read of a
// 13 MB entity, the 16 MB write of a caller who may write nothing) leave
// catalogd answering a bystander, and hold its memory under
// maxPeakRSSAtOnce: each is answered as when alone, or refused with 503
// and Retry-After while the bytes in flight are at their bound; none fails
// otherwise. (How fast the bystander is answered is measured by the
// benchmark: BENCHMARKS.md.)
func TestTwentyOfEachAtOnce(t *testing.T) {
	db, _ := database(t, false)
	setup := start(t, db)
	const owner = "urn:li:corpuser:mem-owner"
	ownerToken := setup.user(t, "mem-owner")
	if made, refusal := fillTokens(t, setup, ownerToken, owner, 1000); made != 999 {
		t.Fatalf("made %d tokens, then %q", made, refusal)
	}
	small, large, _ := bigDatasets(t, setup)
	nobodyToken := setup.user(t, "mem-nobody")
	bystanderToken := setup.user(t, "mem-bystander")

	in := start(t, db)
	query, vars := tokenAliases(owner, 24)
	batchGet, _ := json.Marshal(func() []map[string]string {
		items := make([]map[string]string, 150)
		for i := range items {
			items[i] = map[string]string{"urn": small}
		}
		return items
	}())
	write := tinyAspects(dataset("mem-theirs"), ingestSize)
	kinds := []struct {
		name string
		send func() response
		ok   func(response) bool // as when alone
	}{
		{"the finding's GraphQL token listing", func() response { return in.graphql(t, ownerToken, query, vars) },
			func(r response) bool { return r.status == 200 && strings.Contains(r.body, "limit: readBytes") }},
		{"batchGet naming a 2.2 MB dataset 150 times", func() response {
			return in.do(t, "POST", in.gms+"/openapi/v3/entity/dataset/batchGet", nobodyToken, "application/json", batchGet)
		}, func(r response) bool { return r.status == 200 && len(r.body) > 2_200_000 }},
		{"GET of a 13 MB entity", func() response {
			return in.do(t, "GET", in.gms+"/entities/"+url.PathEscape(large), nobodyToken, "", nil)
		}, func(r response) bool { return r.status == 200 && len(r.body) > 8<<20 }},
		{"a 16 MB write without EDIT_ENTITY", func() response {
			r, _ := sendStalled(t, in.gms+"/openapi/v3/entity/dataset", nobodyToken, write, int64(len(write)))
			return r
		}, func(r response) bool { return r.status == 403 }},
	}
	in.resetPeak(t)
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		answers = map[string]map[string]int{}
	)
	for _, k := range kinds {
		answers[k.name] = map[string]int{}
		for range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := k.send()
				what := "as when alone"
				switch {
				case k.ok(r):
				case r.status == 503 && r.header.Get("Retry-After") != "":
					what = "503 with Retry-After"
				default:
					what = fmt.Sprintf("HTTP %d %.120s", r.status, r.body)
				}
				mu.Lock()
				answers[k.name][what]++
				mu.Unlock()
			}()
		}
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	bystander := map[int]int{}
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		r := in.graphql(t, bystanderToken, "{ me { corpUser { urn } } }", nil)
		bystander[r.status]++
	}
	peak := in.memory(t, "VmHWM")
	t.Logf("resident memory at the peak %d MB; the bystander's answers %v", peak>>10, bystander)
	for _, k := range kinds {
		t.Logf("%s: %v", k.name, answers[k.name])
		for what, n := range answers[k.name] {
			if what != "as when alone" && what != "503 with Retry-After" {
				t.Errorf("%s: %d answered %s", k.name, n, what)
			}
		}
	}
	if len(bystander) != 1 || bystander[200] == 0 {
		t.Errorf("the bystander's requests were answered %v; want each with 200", bystander)
	}
	if peak > maxPeakRSSAtOnce {
		t.Errorf("resident memory peaked at %d MB; want under %d MB", peak>>10, maxPeakRSSAtOnce>>10)
	}
}

// TestLargestWrites: the largest writes a client may send are written
// with catalogd's memory under maxPeakRSS (a body of many aspects of a
// kilobyte and a half, and one of a single 15 MB aspect); a write of more
// aspects than one write may hold is refused (413) and nothing of it
// written. Before, a 16 MB body of 160,000 tiny aspects was taken and
// peaked at 577 MB, and the write of 9,500 aspects at 314 MB.
func TestLargestWrites(t *testing.T) {
	db, _ := database(t, false)
	var mid bytes.Buffer
	mid.WriteString("[")
	for i := 0; i < 9500; i++ {
		if i > 0 {
			mid.WriteString(", ")
		}
		fmt.Fprintf(&mid, `{"urn": %q, "datasetProperties": {"value": {"description": %q}}}`, dataset(fmt.Sprintf("mem-mid%d", i)), strings.Repeat("p", 1500))
	}
	mid.WriteString("]")
	value, _ := json.Marshal(map[string]any{"description": strings.Repeat("l", 15_000_000)})
	large, _ := json.Marshal(map[string]any{"proposals": []any{map[string]any{
		"entityUrn": dataset("mem-15mb"), "entityType": "dataset", "changeType": "UPSERT", "aspectName": "datasetProperties",
		"aspect": map[string]any{"value": string(value), "contentType": "application/json"},
	}}})
	for _, w := range []struct {
		name, path string
		body       []byte
		written    string // a dataset the write wrote
	}{
		{"9,500 aspects of 1.5 KB (15.3 MB) through OpenAPI v3", "/openapi/v3/entity/dataset", mid.Bytes(), dataset("mem-mid9499")},
		{"one aspect of 15 MB through Rest.li", "/aspects?action=ingestProposalBatch", large, dataset("mem-15mb")},
	} {
		t.Run(w.name, func(t *testing.T) {
			in := start(t, db)
			in.graphql(t, in.admin, "{ me { corpUser { urn } } }", nil)
			in.resetPeak(t)
			resp := in.do(t, "POST", in.gms+w.path, in.admin, "application/json", w.body)
			peak := in.memory(t, "VmHWM")
			t.Logf("HTTP %d; resident memory at the peak %d MB", resp.status, peak>>10)
			if resp.status != 200 || !in.hasAspect(t, w.written, "datasetProperties") {
				t.Errorf("HTTP %d %.300s; want it written", resp.status, resp.body)
			}
			if peak > maxPeakRSS {
				t.Errorf("resident memory peaked at %d MB; want under %d MB", peak>>10, maxPeakRSS>>10)
			}
		})
	}
	t.Run("more aspects than one write may hold", func(t *testing.T) {
		in := start(t, db)
		body := tinyAspects(dataset("mem-many"), 1_300_000) // some 13,000
		resp := in.do(t, "POST", in.gms+"/openapi/v3/entity/dataset", in.admin, "application/json", body)
		refusedWith(t, "13,000 aspects", resp, 413, "at most 10000 aspects")
		if in.hasAspect(t, dataset("mem-many"), "status") {
			t.Error("the refused write wrote an aspect")
		}
		body = tinyAspects(dataset("mem-many"), 900_000) // some 9,000
		if resp := in.do(t, "POST", in.gms+"/openapi/v3/entity/dataset", in.admin, "application/json", body); resp.status != 200 || !in.hasAspect(t, dataset("mem-many"), "status") {
			t.Errorf("9,000 aspects: HTTP %d %.200s; want them written", resp.status, resp.body)
		}
	})
}
