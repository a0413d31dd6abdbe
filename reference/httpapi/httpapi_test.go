package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/catalogspec/catalogspec/reference"
	"github.com/catalogspec/catalogspec/reference/graph"
	"github.com/catalogspec/catalogspec/reference/httpapi"
	"github.com/catalogspec/catalogspec/reference/jwt"
	"github.com/catalogspec/catalogspec/reference/postgres"
	"github.com/catalogspec/catalogspec/reference/postgres/pgtest"
)

var testDB *postgres.DB

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, &testDB)) }

// tiers is one reference instance on real loopback ports.
type tiers struct {
	gms, frontend *httptest.Server
	svc           *reference.Service
	rootToken     string
	logs          *strings.Builder
}

func start(t testing.TB, authEnabled bool) *tiers {
	t.Helper()
	codec, err := jwt.New([]byte(strings.Repeat("s", 32)), "")
	if err != nil {
		t.Fatal(err)
	}
	logs := &strings.Builder{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	svc := reference.NewService(testDB, reference.Config{AuthEnabled: authEnabled, Codec: codec, Salt: []byte("salt"), Logger: logger})
	if _, err := svc.Bootstrap(context.Background(), "pw"); err != nil {
		t.Fatal(err)
	}
	api := httpapi.NewServer(svc, graph.NewHandler(svc, "test", logger, graph.Limits{}), testDB.Ping, "test", logger)
	tr := &tiers{svc: svc, logs: logs}
	tr.gms = httptest.NewServer(api.GMS())
	t.Cleanup(tr.gms.Close)
	u, _ := url.Parse(tr.gms.URL)
	tr.frontend = httptest.NewServer(api.Frontend(u))
	t.Cleanup(tr.frontend.Close)
	tr.rootToken, _, err = svc.MintAccessToken(context.Background(), reference.CreateAccessTokenInput{ActorURN: reference.RootUser.String(), Name: "root", Duration: reference.DurationOneHour})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

type response struct {
	status int
	header http.Header
	body   string
}

func do(t testing.TB, method, url, token, contentType, body string, header ...string) response {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return response{status: res.StatusCode, header: res.Header, body: string(b)}
}

func gql(query string, vars map[string]any) string {
	b, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	return string(b)
}

const createTag = `mutation($in: CreateTagInput!) { createTag(input: $in) }`

func TestGraphQLRefusesOtherMethodsAndRunsNothing(t *testing.T) {
	tr := start(t, true)
	id := "m-" + uuid.NewString()
	for _, method := range []string{"GET", "PUT", "PATCH", "DELETE"} {
		q := url.Values{"query": {`mutation { createTag(input: {id: "` + id + `", name: "x"}) }`}}
		r := do(t, method, tr.gms.URL+"/api/graphql?"+q.Encode(), tr.rootToken, "application/json", gql(createTag, map[string]any{"in": map[string]any{"id": id, "name": "x"}}))
		if r.status != 405 || r.header.Get("Allow") != "POST" {
			t.Errorf("%s: status %d Allow %q, want 405 and POST", method, r.status, r.header.Get("Allow"))
		}
	}
	tag, err := tr.svc.Tag(reference.NewContextWithActor(context.Background(), reference.Actor{URN: reference.RootUser}), "urn:li:tag:"+id)
	if err != nil || tag != nil {
		t.Errorf("a refused request created tag %v (err %v)", tag, err)
	}
}

func TestGraphQLBadBodies(t *testing.T) {
	tr := start(t, true)
	secret := "do-not-echo-" + uuid.NewString()
	cases := []struct {
		name, contentType, body string
		status                  int
	}{
		{"malformed JSON", "application/json", `{"query": "` + secret, 400},
		{"no query", "application/json", `{"qurey": "` + secret + `"}`, 400},
		{"query not a string", "application/json", `{"query": ["` + secret + `"]}`, 400},
		{"variables not an object", "application/json", `{"query": "{ me { corpUser { urn } } }", "variables": "` + secret + `"}`, 400},
		{"text/plain", "text/plain", `{"query": "` + secret + `"}`, 415},
		{"no content type", "", `{"query": "` + secret + `"}`, 415},
	}
	for _, c := range cases {
		r := do(t, "POST", tr.gms.URL+"/api/graphql", tr.rootToken, c.contentType, c.body)
		if r.status != c.status {
			t.Errorf("%s: status %d, want %d (%s)", c.name, r.status, c.status, r.body)
		}
		if strings.Contains(r.body, secret) {
			t.Errorf("%s: the response echoes the body: %s", c.name, r.body)
		}
		var e struct {
			Status  int
			Message string
		}
		if json.Unmarshal([]byte(r.body), &e) != nil || e.Status != c.status || e.Message == "" {
			t.Errorf("%s: body %s is not a JSON error with status and message", c.name, r.body)
		}
	}
	r := do(t, "POST", tr.gms.URL+"/api/graphql", tr.rootToken, "application/json; charset=utf-8", `{"query":"{ me { corpUser { urn } } }"}`)
	if r.status != 200 || !strings.Contains(r.body, "urn:li:corpuser:datahub") {
		t.Errorf("charset content type: %d %s", r.status, r.body)
	}
	big := `{"query":"{ me { corpUser { urn } } }","variables":{"x":"` + strings.Repeat("a", 2<<20) + `"}}`
	if r := do(t, "POST", tr.gms.URL+"/api/graphql", tr.rootToken, "application/json", big); r.status != 413 {
		t.Errorf("2 MiB body: status %d, want 413", r.status)
	}
}

func TestGraphQLErrorsAre200WithCodes(t *testing.T) {
	tr := start(t, true)
	r := do(t, "POST", tr.gms.URL+"/api/graphql", tr.rootToken, "application/json", `{"query":"{ nope }"}`)
	if r.status != 200 || !strings.Contains(r.body, `"code":400`) {
		t.Errorf("invalid document: %d %s, want 200 with code 400", r.status, r.body)
	}
	r = do(t, "POST", tr.gms.URL+"/api/graphql", tr.rootToken, "application/json", `{"query":"{ nope }"}`, "Accept", "application/graphql-response+json")
	if r.status != 400 || r.header.Get("Content-Type") != "application/graphql-response+json" {
		t.Errorf("invalid document, graphql-response+json: %d %q", r.status, r.header.Get("Content-Type"))
	}
	r = do(t, "POST", tr.gms.URL+"/api/graphql", tr.rootToken, "application/json", gql(`{ tag(urn: "not-a-urn") { urn } }`, nil))
	if r.status != 200 || !strings.Contains(r.body, `"type":"BAD_REQUEST"`) {
		t.Errorf("malformed urn: %d %s", r.status, r.body)
	}
}

func TestUnauthenticatedAnswers401(t *testing.T) {
	tr := start(t, true)
	paths := []struct{ method, url, body string }{
		{"POST", tr.gms.URL + "/api/graphql", `{"query":"{ me { corpUser { urn } } }"}`},
		{"GET", tr.gms.URL + "/entities/urn:li:corpuser:datahub", ""},
		{"POST", tr.gms.URL + "/aspects?action=ingestProposal", `{}`},
		{"POST", tr.frontend.URL + "/api/v2/graphql", `{"query":"{ me { corpUser { urn } } }"}`},
		{"GET", tr.frontend.URL + "/api/gms/entities/urn:li:corpuser:datahub", ""},
	}
	for _, p := range paths {
		for _, token := range []string{"", "garbage", tr.rootToken + "x"} {
			r := do(t, p.method, p.url, token, "application/json", p.body)
			challenge := r.header.Get("WWW-Authenticate")
			if r.status != 401 || !strings.HasPrefix(challenge, "Bearer") {
				t.Errorf("%s %s (token of %d bytes): %d %q", p.method, p.url, len(token), r.status, challenge)
			}
			if token != "" && !strings.Contains(challenge, `error="invalid_token"`) {
				t.Errorf("%s: a bad token's challenge lacks error=\"invalid_token\": %q", p.url, challenge)
			}
			if token != "" && strings.Contains(r.body, token) {
				t.Errorf("%s: the token is echoed", p.url)
			}
		}
	}
	for _, open := range []string{"/health", "/config"} {
		if r := do(t, "GET", tr.gms.URL+open, "", "", ""); r.status != 200 {
			t.Errorf("%s without a token: %d, want 200", open, r.status)
		}
	}
	// The frontend's health check, where DataHub's smoke tests ask too.
	for _, open := range []string{"/health", "/admin"} {
		if r := do(t, "GET", tr.frontend.URL+open, "", "", ""); r.status != 200 {
			t.Errorf("the frontend's %s without a token: %d, want 200", open, r.status)
		}
	}
	if strings.Contains(tr.logs.String(), tr.rootToken) {
		t.Error("a token reached the log")
	}
}

func TestEntityPathsAgree(t *testing.T) {
	tr := start(t, true)
	raw := "urn:li:corpuser:datahub"
	want := do(t, "GET", tr.gms.URL+"/entities/"+raw, tr.rootToken, "", "")
	if want.status != 200 || !strings.Contains(want.body, "com.linkedin.metadata.snapshot.CorpUserSnapshot") {
		t.Fatalf("GMS entity: %d %s", want.status, want.body)
	}
	for _, u := range []string{
		tr.gms.URL + "/entities/" + url.PathEscape(raw),
		tr.frontend.URL + "/api/gms/entities/" + raw,
		tr.frontend.URL + "/api/gms/entities/" + url.PathEscape(raw),
	} {
		if got := do(t, "GET", u, tr.rootToken, "", ""); got.status != 200 || got.body != want.body {
			t.Errorf("%s: %d %s, want the GMS answer", u, got.status, got.body)
		}
	}
	if r := do(t, "GET", tr.gms.URL+"/entities/urn:li:tag:missing-"+uuid.NewString(), tr.rootToken, "", ""); r.status != 404 {
		t.Errorf("missing entity: %d", r.status)
	}
	if r := do(t, "GET", tr.gms.URL+"/entities/not-a-urn", tr.rootToken, "", ""); r.status != 400 {
		t.Errorf("malformed urn: %d", r.status)
	}
}

func TestAuthDisabledServesSystemActorAndIgnoresForwardedActor(t *testing.T) {
	tr := start(t, false)
	me := `{"query":"{ me { corpUser { urn } } appConfig { authConfig { tokenAuthEnabled } } }"}`
	r := do(t, "POST", tr.gms.URL+"/api/graphql", "", "application/json", me)
	if r.status != 200 || !strings.Contains(r.body, "urn:li:corpuser:__datahub_system") || !strings.Contains(r.body, `"tokenAuthEnabled":false`) {
		t.Fatalf("auth disabled: %d %s", r.status, r.body)
	}
	// A client's X-DataHub-Actor counts at the GMS but is dropped by the proxy.
	r = do(t, "POST", tr.gms.URL+"/api/graphql", "", "application/json", me, "X-DataHub-Actor", "urn:li:corpuser:datahub")
	if !strings.Contains(r.body, `"urn":"urn:li:corpuser:datahub"`) {
		t.Errorf("GMS ignored X-DataHub-Actor: %s", r.body)
	}
	r = do(t, "POST", tr.gms.URL+"/api/graphql", "", "application/json", me, "X-DataHub-Actor", "urn:li:corpuser:nobody-"+uuid.NewString())
	if r.status != 403 || !strings.Contains(r.body, "no active user") {
		t.Errorf("X-DataHub-Actor naming no user: %d %s, want 403 as DataHub answers", r.status, r.body)
	}
	r = do(t, "POST", tr.frontend.URL+"/api/graphql", "", "application/json", me, "X-DataHub-Actor", "urn:li:corpuser:datahub")
	if !strings.Contains(r.body, "__datahub_system") {
		t.Errorf("the frontend forwarded X-DataHub-Actor: %s", r.body)
	}
}

func TestFrontendAnswers502WhenGMSIsDown(t *testing.T) {
	tr := start(t, true)
	tr.gms.Close()
	r := do(t, "POST", tr.frontend.URL+"/api/v2/graphql", tr.rootToken, "application/json", `{"query":"{ me { corpUser { urn } } }"}`)
	if r.status != 502 || !strings.Contains(r.body, "unreachable") {
		t.Errorf("GMS down: %d %s", r.status, r.body)
	}
}

func TestIngestionNeedsEditEntity(t *testing.T) {
	tr := start(t, true)
	user := "urn:li:corpuser:i-" + uuid.NewString()[:8]
	proposal := func(urn, aspect, value string) string {
		entityType := "dataset"
		if parts := strings.Split(urn, ":"); len(parts) > 2 {
			entityType = parts[2]
		}
		b, _ := json.Marshal(map[string]any{"proposal": map[string]any{
			"entityType": entityType, "entityUrn": urn, "changeType": "UPSERT", "aspectName": aspect,
			"aspect": map[string]string{"value": value, "contentType": "application/json"},
		}})
		return string(b)
	}
	ingest := tr.gms.URL + "/aspects?action=ingestProposal"
	r := do(t, "POST", ingest, tr.rootToken, "application/json", proposal(user, "corpUserInfo", `{"active":true}`), "X-RestLi-Protocol-Version", "2.0.0")
	if r.status != 200 || r.body != `{"value":"`+user+`"}`+"\n" {
		t.Fatalf("root ingest: %d %s", r.status, r.body)
	}
	userToken, _, err := tr.svc.MintAccessToken(context.Background(), reference.CreateAccessTokenInput{ActorURN: user, Name: "u", Duration: reference.DurationOneHour})
	if err != nil {
		t.Fatal(err)
	}
	dataset := "urn:li:dataset:(urn:li:dataPlatform:hive," + uuid.NewString() + ",PROD)"
	r = do(t, "POST", ingest, userToken, "application/json", proposal(dataset, "datasetProperties", `{"description":"x"}`))
	if r.status != 403 {
		t.Errorf("ingest without EDIT_ENTITY: %d %s", r.status, r.body)
	}
	if r := do(t, "GET", tr.gms.URL+"/entities/"+url.PathEscape(dataset), tr.rootToken, "", ""); r.status != 404 {
		t.Errorf("refused ingest stored something: %d %s", r.status, r.body)
	}
	for name, body := range map[string]string{
		"not JSON":      `{"proposal":`,
		"no proposal":   `{}`,
		"value not obj": proposal(dataset, "datasetProperties", `"x"`),
		"bad urn":       proposal("dataset-x", "datasetProperties", `{}`),
		"policy":        proposal("urn:li:dataHubPolicy:x", "dataHubPolicyInfo", `{}`),
	} {
		if r := do(t, "POST", ingest, tr.rootToken, "application/json", body); r.status != 400 {
			t.Errorf("%s: %d %s, want 400", name, r.status, r.body)
		}
	}
	if r := do(t, "POST", tr.gms.URL+"/aspects?action=other", tr.rootToken, "application/json", `{}`); r.status != 400 {
		t.Errorf("unknown action: %d", r.status)
	}
}

// BenchmarkAuthenticatedQuery measures one authenticated GraphQL request end
// to end over loopback HTTP: token check, user and policy reads in Postgres,
// execution. Run with: go test -run '^$' -bench . ./reference/httpapi/
func BenchmarkAuthenticatedQuery(b *testing.B) {
	tr := start(b, true)
	body := `{"query":"{ me { corpUser { urn } platformPrivileges { createTags } } }"}`
	client := &http.Client{}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		req, _ := http.NewRequest("POST", tr.gms.URL+"/api/graphql", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tr.rootToken)
		req.Header.Set("Content-Type", "application/json")
		res, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			b.Fatalf("status %d", res.StatusCode)
		}
	}
}

// TestFrontendAnswers503WhenGMSIsSlow: a metadata service that does not
// answer within the request deadline is a 503 with Retry-After, not a 502
// (it is there, and may answer the next try).
func TestFrontendAnswers503WhenGMSIsSlow(t *testing.T) {
	tr := start(t, true)
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(slow.Close)
	t.Cleanup(func() { close(release) })
	api := httpapi.NewServer(tr.svc, http.NotFoundHandler(), testDB.Ping, "test", slog.New(slog.DiscardHandler))
	api.SetRequestTimeout(300 * time.Millisecond)
	u, _ := url.Parse(slow.URL)
	frontend := httptest.NewServer(api.Frontend(u))
	t.Cleanup(frontend.Close)
	r := do(t, "POST", frontend.URL+"/api/v2/graphql", tr.rootToken, "application/json", `{"query":"{ me { corpUser { urn } } }"}`)
	if r.status != 503 || r.header.Get("Retry-After") != reference.RetryAfterSeconds || !strings.Contains(r.body, "did not answer in time") {
		t.Errorf("GMS slower than the deadline: %d, Retry-After %q, %s", r.status, r.header.Get("Retry-After"), r.body)
	}
}

// storeFailingAfter is the test database whose calls fail, as a store that
// has gone away, from the call numbered from on.
type storeFailingAfter struct {
	reference.Store
	from  int
	calls atomic.Int64
}

func (s *storeFailingAfter) fail() bool { return int(s.calls.Add(1)) >= s.from }

func (s *storeFailingAfter) Aspects(ctx context.Context, urn reference.URN) ([]reference.Aspect, error) {
	if s.fail() {
		return nil, reference.ErrUnavailable
	}
	return s.Store.Aspects(ctx, urn)
}

func (s *storeFailingAfter) Aspect(ctx context.Context, urn reference.URN, name string) (reference.Aspect, error) {
	if s.fail() {
		return reference.Aspect{}, reference.ErrUnavailable
	}
	return s.Store.Aspect(ctx, urn, name)
}

func (s *storeFailingAfter) ListAspects(ctx context.Context, f reference.Filter) ([]reference.Aspect, int, error) {
	if s.fail() {
		return nil, 0, reference.ErrUnavailable
	}
	return s.Store.ListAspects(ctx, f)
}

func (s *storeFailingAfter) CreateEntity(ctx context.Context, as []reference.Aspect) error {
	if s.fail() {
		return reference.ErrUnavailable
	}
	return s.Store.CreateEntity(ctx, as)
}

func (s *storeFailingAfter) DeleteEntity(ctx context.Context, urn reference.URN) (bool, error) {
	if s.fail() {
		return false, reference.ErrUnavailable
	}
	return s.Store.DeleteEntity(ctx, urn)
}

// TestEveryResolverReportsAStoreFailure: once the caller is known, a store
// that fails makes every GraphQL operation answer 503 with a
// SERVICE_UNAVAILABLE error, never a 200 with null data and no error.
func TestEveryResolverReportsAStoreFailure(t *testing.T) {
	start(t, true) // bootstraps the test database
	for name, op := range map[string]struct {
		doc  string
		vars map[string]any
	}{
		"me":                     {`{ me { corpUser { urn } } }`, nil},
		"corpUser":               {`query($u: String!) { corpUser(urn: $u) { urn } }`, map[string]any{"u": "urn:li:corpuser:someone"}},
		"tag":                    {`query($u: String!) { tag(urn: $u) { urn } }`, map[string]any{"u": "urn:li:tag:t"}},
		"listPolicies":           {`{ listPolicies(input: {start: 0, count: 5}) { total } }`, nil},
		"listAccessTokens":       {`{ listAccessTokens(input: {start: 0, count: 5}) { total } }`, nil},
		"getAccessTokenMetadata": {`query($t: String!) { getAccessTokenMetadata(token: $t) { id } }`, map[string]any{"t": "x.y.z"}},
		"revokeAccessToken":      {`mutation { revokeAccessToken(tokenId: "id") }`, nil},
		"createTag":              {`mutation { createTag(input: {id: "failing-store", name: "n"}) }`, nil},
		"deleteTag":              {`mutation { deleteTag(urn: "urn:li:tag:failing-store") }`, nil},
		"createPolicy":           {`mutation { createPolicy(input: {type: PLATFORM, name: "p", state: ACTIVE, privileges: ["CREATE_TAGS"], actors: {resourceOwners: false, allUsers: true, allGroups: false}}) }`, nil},
		"updatePolicy":           {`mutation { updatePolicy(urn: "urn:li:dataHubPolicy:0", input: {type: PLATFORM, name: "p", state: ACTIVE, privileges: ["CREATE_TAGS"], actors: {resourceOwners: false, allUsers: true, allGroups: false}}) }`, nil},
		"deletePolicy":           {`mutation { deletePolicy(urn: "urn:li:dataHubPolicy:x") }`, nil},
	} {
		// Auth disabled, acting as the root user: reading the root user is
		// the first store call, and every later one fails. (createAccessToken
		// is not here: with authentication off it is refused before any
		// store call, noauth-10.)
		store := &storeFailingAfter{Store: testDB, from: 2}
		codec, err := jwt.New([]byte(strings.Repeat("s", 32)), "")
		if err != nil {
			t.Fatal(err)
		}
		logger := slog.New(slog.DiscardHandler)
		svc := reference.NewService(store, reference.Config{AuthEnabled: false, Codec: codec, Salt: []byte("salt"), Logger: logger})
		gms := httptest.NewServer(httpapi.NewServer(svc, graph.NewHandler(svc, "test", logger, graph.Limits{}), testDB.Ping, "test", logger).GMS())
		r := do(t, "POST", gms.URL+"/api/graphql", "", "application/json", gql(op.doc, op.vars), "X-DataHub-Actor", reference.RootUser.String())
		gms.Close()
		if r.status != http.StatusServiceUnavailable || !strings.Contains(r.body, "SERVICE_UNAVAILABLE") {
			t.Errorf("%s with the store failing after the caller was read: %d %.200s; want 503 with SERVICE_UNAVAILABLE", name, r.status, r.body)
		}
	}

	// With authentication off no one may mint a token (noauth-10), so
	// createAccessToken is judged with it on, as the root user's token: the
	// store fails once authenticating that token is done, however many
	// calls that takes (counted on a fresh service first).
	codec, err := jwt.New([]byte(strings.Repeat("s", 32)), "")
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.DiscardHandler)
	cfg := reference.Config{AuthEnabled: true, Codec: codec, Salt: []byte("salt"), Logger: logger}
	root, _, err := reference.NewService(testDB, cfg).MintAccessToken(context.Background(), reference.CreateAccessTokenInput{ActorURN: reference.RootUser.String(), Name: "root", Duration: reference.DurationOneHour})
	if err != nil {
		t.Fatal(err)
	}
	post := func(store reference.Store, doc string) response {
		svc := reference.NewService(store, cfg)
		gms := httptest.NewServer(httpapi.NewServer(svc, graph.NewHandler(svc, "test", logger, graph.Limits{}), testDB.Ping, "test", logger).GMS())
		defer gms.Close()
		return do(t, "POST", gms.URL+"/api/graphql", root, "application/json", gql(doc, nil))
	}
	counting := &storeFailingAfter{Store: testDB, from: 1 << 30}
	if r := post(counting, `{ __typename }`); r.status != http.StatusOK {
		t.Fatalf("authenticating the root token: %d %.200s", r.status, r.body)
	}
	failing := &storeFailingAfter{Store: testDB, from: int(counting.calls.Load()) + 1}
	r := post(failing, `mutation { createAccessToken(input: {type: PERSONAL, actorUrn: "urn:li:corpuser:datahub", duration: ONE_HOUR, name: "t"}) { accessToken } }`)
	if r.status != http.StatusServiceUnavailable || !strings.Contains(r.body, "SERVICE_UNAVAILABLE") {
		t.Errorf("createAccessToken with the store failing after the caller was read: %d %.200s; want 503 with SERVICE_UNAVAILABLE", r.status, r.body)
	}
}

// A server built without browser pages says so at /api/graphiql, behind
// the same authentication as every API path.
func TestGraphiQLWithoutPagesIsNotImplemented(t *testing.T) {
	tr := start(t, true)
	if r := do(t, "GET", tr.gms.URL+"/api/graphiql", "", "", ""); r.status != http.StatusUnauthorized {
		t.Errorf("without a token: %d, want 401", r.status)
	}
	r := do(t, "GET", tr.gms.URL+"/api/graphiql", tr.rootToken, "", "")
	if r.status != http.StatusNotImplemented || !strings.Contains(r.body, "/api/graphql") || r.header.Get("Content-Type") != "application/json" {
		t.Errorf("with a token, no pages: %d %s %s", r.status, r.header.Get("Content-Type"), r.body)
	}
	if r := do(t, "GET", tr.gms.URL+"/assets/catalogd.css", "", "", ""); r.status != http.StatusNotFound {
		t.Errorf("assets without pages: %d, want 404", r.status)
	}
}

// TestManagersAreLoadedWhenAsked: properties.manager is the user that
// corpUserInfo's managerUrn names, loaded only when a query asks (two users
// who manage each other are answered as deep as the query goes); a user
// without one, or whose managerUrn is not a user's URN, has none.
func TestManagersAreLoadedWhenAsked(t *testing.T) {
	tr := start(t, true)
	ctx := reference.NewContextWithActor(context.Background(), reference.Actor{URN: reference.RootUser})
	id := uuid.NewString()[:8]
	ann, bob, cid, dee := "urn:li:corpuser:ann-"+id, "urn:li:corpuser:bob-"+id, "urn:li:corpuser:cid-"+id, "urn:li:corpuser:dee-"+id
	for urn, info := range map[string]string{
		ann: `{"active":true,"title":"Analyst","managerUrn":"` + bob + `"}`,
		bob: `{"active":true,"displayName":"Bob","managerUrn":"` + ann + `"}`,
		cid: `{"active":true}`,
		dee: `{"active":true,"managerUrn":"urn:li:tag:boss"}`,
	} {
		p := reference.Proposal{EntityType: "corpuser", EntityURN: urn, ChangeType: "UPSERT", AspectName: "corpUserInfo",
			Aspect: &reference.GenericAspect{Value: info, ContentType: "application/json"}}
		if _, err := tr.svc.IngestProposal(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	const q = `query($u: String!) { corpUser(urn: $u) { properties { title manager { urn properties { displayName manager { urn properties { manager { urn } } } } } } } }`
	r := do(t, "POST", tr.gms.URL+"/api/graphql", tr.rootToken, "application/json", gql(q, map[string]any{"u": ann}))
	want := `{"data":{"corpUser":{"properties":{"title":"Analyst","manager":{"urn":"` + bob + `","properties":{"displayName":"Bob","manager":{"urn":"` + ann + `","properties":{"manager":{"urn":"` + bob + `"}}}}}}}}}`
	if r.status != 200 || r.body != want {
		t.Errorf("managers of Ann: %d %s\nwant %s", r.status, r.body, want)
	}
	for _, u := range []string{cid, dee} {
		r := do(t, "POST", tr.gms.URL+"/api/graphql", tr.rootToken, "application/json", gql(`query($u: String!) { corpUser(urn: $u) { properties { manager { urn } } } }`, map[string]any{"u": u}))
		if want := `{"data":{"corpUser":{"properties":{"manager":null}}}}`; r.status != 200 || r.body != want {
			t.Errorf("manager of %s: %d %s, want %s", u, r.status, r.body, want)
		}
	}
}

// TestFrontendPassesOnARefusalOfABodyItWasSending: the GMS refuses a request
// it does not let in before reading its body, and closes the connection.
// Through the frontend, that refusal must reach the client as it is (401),
// never as a 502 because the proxy was still sending the body when the
// connection closed.
func TestFrontendPassesOnARefusalOfABodyItWasSending(t *testing.T) {
	tr := start(t, true)
	body := `{"proposal":{"entityUrn":"urn:li:corpuser:x","x":"` + strings.Repeat("a", 4<<20) + `"}}`
	var wg sync.WaitGroup
	statuses := make(chan int, 200)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				statuses <- do(t, "POST", tr.frontend.URL+"/api/gms/aspects?action=ingestProposal", "garbage", "application/json", body).status
			}
		}()
	}
	wg.Wait()
	close(statuses)
	got := map[int]int{}
	for s := range statuses {
		got[s]++
	}
	if got[http.StatusUnauthorized] != 200 {
		t.Errorf("200 requests with a bad token and a 4 MiB body through the frontend: answered %v, want 401 for each", got)
	}
}
