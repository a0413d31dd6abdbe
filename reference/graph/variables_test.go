package graph

import (
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/catalogspec/catalogspec/reference"
)

// TestVariablesThatDoNotFitTheirTypeAreBadRequests: a variable holding a
// field its input type does not have, or a value its enum does not, is the
// client's mistake, answered BAD_REQUEST saying where, before any resolver
// runs (here over no service at all), and nothing is logged as a failure;
// so is a search through a view, which the reference does not serve.
func TestVariablesThatDoNotFitTheirTypeAreBadRequests(t *testing.T) {
	for name, c := range map[string]struct{ body, says string }{
		"an unknown field":      {`{"query":"mutation c($input: CreateTagInput!) { createTag(input: $input) }","variables":{"input":{"id":"x","name":"n","bogus":1}}}`, "bogus"},
		"an unknown enum value": {`{"query":"query l($input: ListAccessTokenInput!) { listAccessTokens(input: $input) { total } }","variables":{"input":{"filters":[{"field":"name","values":["x"],"condition":"NOPE"}]}}}`, "NOPE"},
		// A search through a view, which the reference does not serve:
		// refused by the resolver before it asks the service anything.
		"a search through a view": {`{"query":"query s($input: ScrollAcrossEntitiesInput!) { scrollAcrossEntities(input: $input) { total } }","variables":{"input":{"query":"*","viewUrn":"urn:li:dataHubView:x"}}}`, "views are not served"},
	} {
		var logs strings.Builder
		h := NewHandler(nil, "test", slog.New(slog.NewTextHandler(&logs, nil)), Limits{})
		r := httptest.NewRequest("POST", "/api/graphql", strings.NewReader(c.body))
		r.Header.Set("Content-Type", "application/json")
		r = r.WithContext(reference.NewContextWithActor(r.Context(), reference.Actor{URN: reference.RootUser}))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		var got struct {
			Errors []struct {
				Message    string         `json:"message"`
				Extensions map[string]any `json:"extensions"`
			} `json:"errors"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || len(got.Errors) == 0 {
			t.Fatalf("%s: %d %s", name, w.Code, w.Body.String())
		}
		e := got.Errors[0]
		if e.Extensions["type"] != string(reference.EBADREQUEST) || e.Extensions["code"] != 400.0 || !strings.Contains(e.Message, c.says) {
			t.Errorf("%s: %q %v; want BAD_REQUEST (400) naming %q", name, e.Message, e.Extensions, c.says)
		}
		if strings.Contains(logs.String(), "resolver failed") {
			t.Errorf("%s: logged as a failure: %s", name, logs.String())
		}
	}
}
