package httpapi

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// recordingDocuments is a documentServer that records what it was handed.
type recordingDocuments struct {
	query       string
	noVariables bool
	calls       int
}

func (d *recordingDocuments) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	http.Error(w, "the request should have been handed over as a document", http.StatusTeapot)
}

func (d *recordingDocuments) ServeDocument(w http.ResponseWriter, r *http.Request, body []byte, query, operationName string, noVariables bool) {
	d.query, d.noVariables = query, noVariables
	d.calls++
	w.WriteHeader(http.StatusOK)
}

// The GraphQL endpoint hands a document to a plan (noVariables) only when
// the body holds no variables and no key that gqlgen's decoder would read
// as one of a request's keys though spelled otherwise ("Query",
// "variableſ"): with such a key, gqlgen may run another document than the
// one the plan was asked for, so the request must go through gqlgen.
func TestPlanOnlyForPlainRequests(t *testing.T) {
	for _, c := range []struct {
		name, body string
		plan       bool
	}{
		{"a plain document", `{"query":"{ me { corpUser { urn } } }"}`, true},
		{"null variables and an operation name", `{"query":"query M { me { corpUser { urn } } }","variables":null,"operationName":"M"}`, true},
		{"empty variables", `{"query":"{ me { corpUser { urn } } }","variables":{}}`, true},
		{"variables", `{"query":"query M($x: String) { me { corpUser { urn } } }","variables":{"x":"y"}}`, false},
		{"a query key in capitals", `{"query":"{ me { corpUser { urn } } }","Query":"{ appConfig { appVersion } }"}`, false},
		{"a variables key with a long s", `{"query":"{ me { corpUser { urn } } }","variableſ":{"x":"y"}}`, false},
		{"a key gqlgen does not read", `{"query":"{ me { corpUser { urn } } }","clientName":"datahub-cli"}`, true},
		{"an empty key", `{"":1,"query":"{ me { corpUser { urn } } }"}`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := &recordingDocuments{}
			h := graphqlOverHTTP(d)
			req := httptest.NewRequest(http.MethodPost, "/api/graphql", strings.NewReader(c.body))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if d.calls != 1 {
				t.Fatalf("answered %d %q without handing the document over", rec.Code, rec.Body.String())
			}
			if d.noVariables != c.plan {
				t.Errorf("handed over with noVariables %v, want %v", d.noVariables, c.plan)
			}
		})
	}
}

// A GraphQL handler that takes no document (anything but reference/graph's)
// gets the request whole: the body graphqlOverHTTP read, and its length.
func TestGraphQLOverHTTPHandsAPlainHandlerTheBody(t *testing.T) {
	const body = `{"query":"{ me { corpUser { urn } } }"}`
	var got string
	var length int64
	h := graphqlOverHTTP(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got, length = string(b), r.ContentLength
		w.WriteHeader(http.StatusAccepted)
	}))
	req := httptest.NewRequest(http.MethodPost, "/api/graphql", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusAccepted || got != body || length != int64(len(body)) {
		t.Fatalf("answered %d; the handler read %q (length %d); want 202 and the body %q", rec.Code, got, length, body)
	}
}

// A body may put any of JSON's four kinds of white space around its
// tokens, as pretty-printers and people typing at curl do.
func TestParseGraphQLRequestTakesEveryKindOfSpace(t *testing.T) {
	const query = "{ me { corpUser { urn } } }"
	for _, sp := range []string{" ", "\t", "\n", "\r\n", " \t\r\n "} {
		tokens := []string{"{", `"query"`, ":", `"` + query + `"`, ",", `"variables"`, ":", "{", "}", ",", `"operationName"`, ":", `"Me"`, "}"}
		body := sp + strings.Join(tokens, sp)
		req, err := parseGraphQLRequest([]byte(body))
		if err != nil || req.query != query || req.operationName != "Me" || req.variables || req.folded {
			t.Errorf("%q: %+v, %v; want the query, the operation Me, no variables", body, req, err)
		}
	}
}
