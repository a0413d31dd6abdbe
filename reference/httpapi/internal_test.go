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

// TestDuplicateKeyOnlyInObjects: duplicateKey names a key that occurs twice
// at the top level of a JSON object, and says nothing of anything else.
func TestDuplicateKeyOnlyInObjects(t *testing.T) {
	for body, want := range map[string]string{
		`{"query":"a","query":"b"}`:               "query",
		`{"variables":{"x":1,"x":2},"query":"q"}`: "",
		`{"query":"a"}`:                           "",
		`["query",1,"query",2]`:                   "",
		`"query"`:                                 "",
		`{"query":"a",}`:                          "",
		`{"query":}`:                              "",
		`{1:2}`:                                   "",
		``:                                        "",
	} {
		got, ok := duplicateKey([]byte(body))
		if got != want || ok != (want != "") {
			t.Errorf("duplicateKey(%s) = %q, %v; want %q", body, got, ok, want)
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
