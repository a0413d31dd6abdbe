package steps

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
)

// TestWritesTellsReadsFromWrites checks what a read-only audit refuses to
// send: anything that could write to a target that works, unless the step
// says what a broken one would write (request.mayWrite).
func TestWritesTellsReadsFromWrites(t *testing.T) {
	body := func(doc string) []byte {
		b, _ := json.Marshal(graphQLRequest{Query: doc})
		return b
	}
	get := func(doc string) string {
		return "http://gms/api/graphql?" + url.Values{"query": {doc}}.Encode()
	}
	cases := []struct {
		name   string
		r      request
		writes bool
	}{
		{"a GraphQL query", request{method: http.MethodPost, url: "http://gms/api/graphql", body: body("query me { me { corpUser { urn } } }")}, false},
		{"a GraphQL query, unnamed", request{method: http.MethodPost, url: "http://fe/api/v2/graphql", body: body("{ __schema { types { name } } }")}, false},
		{"a GraphQL query sent by PUT", request{method: http.MethodPut, url: "http://gms/api/graphql", body: body("{ me { corpUser { urn } } }")}, false},
		{"a GraphQL query sent by GET", request{method: http.MethodGet, url: get("{ me { corpUser { urn } } }")}, false},
		{"a GraphQL mutation", request{method: http.MethodPost, url: "http://gms/api/graphql", body: body(`mutation { createTag(input: {id: "x", name: "x"}) }`)}, true},
		{"a query and a mutation", request{method: http.MethodPost, url: "http://gms/api/graphql", body: body(`query a { me { corpUser { urn } } } mutation b { deleteTag(urn: "urn:li:tag:x") }`)}, true},
		{"a GraphQL mutation sent by GET", request{method: http.MethodGet, url: get(`mutation { createTag(input: {id: "x", name: "x"}) }`)}, true},
		{"a GraphQL document that does not parse", request{method: http.MethodPost, url: "http://gms/api/graphql", body: body("{ me { ")}, true},
		{"a GraphQL body that is not JSON", request{method: http.MethodPost, url: "http://gms/api/graphql", body: []byte("{")}, true},
		{"a read of an entity", request{method: http.MethodGet, url: "http://gms/entities/urn:li:corpuser:datahub"}, false},
		{"an ingestion", request{method: http.MethodPost, url: "http://gms/aspects?action=ingestProposal", body: []byte("{}")}, true},
		{"an OpenAPI delete", request{method: http.MethodDelete, url: "http://gms/openapi/v3/entity/dataset/x"}, true},
		{"an OpenAPI batch read, marked as a read", request{method: http.MethodPost, url: "http://gms/openapi/v3/entity/corpuser/batchGet", reads: true}, false},
		{"a sign-in", request{method: http.MethodPost, url: "http://fe/logIn", body: []byte(`{"username":"u","password":"p"}`)}, true},
	}
	for _, c := range cases {
		if why := writes(c.r); (why != "") != c.writes {
			t.Errorf("%s: writes says %q, want writing %t", c.name, why, c.writes)
		}
	}
}
