package httpapi_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/catalogspec/catalogspec/reference"
	"github.com/catalogspec/catalogspec/reference/graph"
	"github.com/catalogspec/catalogspec/reference/httpapi"
	"github.com/catalogspec/catalogspec/reference/jwt"
)

// TestEverySDKPathReportsAStoreFailure: once the caller is known, a store
// that fails makes each OpenAPI and Rest.li path answer 503 with
// a Retry-After and a message saying so, never a success or another
// refusal that would send DataHub's SDK on as if the call were answered.
func TestEverySDKPathReportsAStoreFailure(t *testing.T) {
	start(t, true) // bootstraps the test database
	tag := url.PathEscape("urn:li:tag:failing-store")
	for _, c := range []struct{ name, method, path, body string }{
		{"an OpenAPI entity", "GET", "/openapi/v3/entity/tag/" + tag, ""},
		{"an OpenAPI aspect", "GET", "/openapi/v3/entity/tag/" + tag + "/tagProperties", ""},
		{"an OpenAPI delete", "DELETE", "/openapi/v3/entity/tag/" + tag, ""},
		{"an OpenAPI write", "POST", "/openapi/v3/entity/tag", `[{"urn": "urn:li:tag:failing-store", "tagProperties": {"value": {"name": "n"}}}]`},
		{"an OpenAPI batchGet", "POST", "/openapi/v3/entity/tag/batchGet", `[{"urn": "urn:li:tag:failing-store"}]`},
		{"a Rest.li aspect", "GET", "/aspects/" + tag + "?aspect=tagProperties&version=0", ""},
		{"a Rest.li entity", "GET", "/entitiesV2/" + tag, ""},
		{"a Rest.li batch of entities", "GET", "/entitiesV2?ids=List(" + tag + ")", ""},
		{"a Rest.li proposal batch", "POST", "/aspects?action=ingestProposalBatch", `{"proposals": [{"entityType": "tag", "entityUrn": "urn:li:tag:failing-store", "changeType": "UPSERT", "aspectName": "tagProperties", "aspect": {"value": "{\"name\": \"n\"}", "contentType": "application/json"}}]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Auth disabled, acting as the root user: reading the root
			// user is the first store call, and every later one fails.
			store := &storeFailingAfter{Store: testDB, from: 2}
			codec, err := jwt.New([]byte(strings.Repeat("s", 32)), "")
			if err != nil {
				t.Fatal(err)
			}
			logger := slog.New(slog.DiscardHandler)
			svc := reference.NewService(store, reference.Config{AuthEnabled: false, Codec: codec, Salt: []byte("salt"), Logger: logger})
			gms := httptest.NewServer(httpapi.NewServer(svc, graph.NewHandler(svc, "test", logger, graph.Limits{}), testDB.Ping, "test", logger).GMS())
			defer gms.Close()
			contentType := ""
			if c.body != "" {
				contentType = "application/json"
			}
			r := do(t, c.method, gms.URL+c.path, "", contentType, c.body, "X-DataHub-Actor", reference.RootUser.String())
			var problem struct{ Message string }
			if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" || json.Unmarshal([]byte(r.body), &problem) != nil || !strings.Contains(problem.Message, "temporarily unavailable") {
				t.Errorf("%s %s with the store failing after the caller was read: %d (Retry-After %q) %.300s; want 503 saying the service is unavailable", c.method, c.path, r.status, r.header.Get("Retry-After"), r.body)
			}
		})
	}
}
