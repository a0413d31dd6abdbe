package httpapi

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// TestCheckGraphQLRequest: a body is one JSON object, each key once, with a
// non-empty query string and, when given and not null, variables and
// extensions that are objects and an operationName that is a string.
func TestCheckGraphQLRequest(t *testing.T) {
	for body, want := range map[string]string{
		`{"query":"{ a }"}`: "",
		`{"query":"{ a }","variables":null,"operationName":null,"extensions":null}`: "",
		`{"query":"{ a }","variables":{"x":1},"operationName":"Q","extensions":{}}`: "",
		` {"query":"{ a }"} `:                         "",
		`{"query":"a","query":"b"}`:                   "more than once",
		`{"variables":{"x":1,"x":2},"query":"q"}`:     "",
		`{"query":"a","variables":{},"variables":{}}`: "more than once",
		`["query",1,"query",2]`:                       "not a valid JSON object",
		`"query"`:                                     "not a valid JSON object",
		`{"query":"a",}`:                              "not a valid JSON object",
		`{"query":}`:                                  "not a valid JSON object",
		``:                                            "not a valid JSON object",
		`{}`:                                          `no "query" string`,
		`{"query":"  "}`:                              `no "query" string`,
		`{"query":1}`:                                 `no "query" string`,
		`{"query":"q","variables":[1]}`:               `"variables" must be a JSON object`,
		`{"query":"q","variables":"x"}`:               `"variables" must be a JSON object`,
		`{"query":"q","operationName":7}`:             `"operationName" must be a string`,
		`{"query":"q","extensions":"x"}`:              `"extensions" must be a JSON object`,
	} {
		err := checkGraphQLRequest([]byte(body))
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: refused: %v", body, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: %v, want an error saying %q", body, err, want)
		}
	}
}

// TestReadBodyFailures: a body that cannot be read is a 400, one too large
// a 413; neither is read as an empty body.
func TestReadBodyFailures(t *testing.T) {
	w := httptest.NewRecorder()
	r := httptest.NewRequest("POST", "/api/graphql", iotest.ErrReader(errors.New("connection reset")))
	if _, ok := readBody(w, r); ok || w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "could not be read") {
		t.Errorf("unreadable body: ok %v, %d %s", ok, w.Code, w.Body)
	}
	w = httptest.NewRecorder()
	r = httptest.NewRequest("POST", "/api/graphql", strings.NewReader(strings.Repeat("x", maxBody+1)))
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if _, ok := readBody(w, r); ok || w.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("too large a body: ok %v, %d %s", ok, w.Code, w.Body)
	}
}

// TestSetRequestTimeoutTakesOnlyPositive: zero or less keeps the default; any
// positive duration, however small, is used.
func TestSetRequestTimeoutTakesOnlyPositive(t *testing.T) {
	s := &Server{requestTimeout: DefaultRequestTimeout}
	s.SetRequestTimeout(0)
	s.SetRequestTimeout(-time.Second)
	if s.requestTimeout != DefaultRequestTimeout {
		t.Errorf("after 0 and -1s: %s, want the default %s", s.requestTimeout, DefaultRequestTimeout)
	}
	s.SetRequestTimeout(time.Nanosecond)
	if s.requestTimeout != time.Nanosecond {
		t.Errorf("after 1ns: %s", s.requestTimeout)
	}
}
