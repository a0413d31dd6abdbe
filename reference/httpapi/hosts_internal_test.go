package httpapi

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestHostsAllowed: a request names the service by an IP literal, by
// localhost, or by a configured name (exactly, or under a configured
// domain); any other name is another site's, as DNS rebinding sends it.
func TestHostsAllowed(t *testing.T) {
	var h hosts // nothing configured
	for host, want := range map[string]bool{
		"127.0.0.1:9002": true, "127.0.0.1": true, "[::1]:8080": true, "10.1.2.3:80": true, "[fe80::1]": true,
		"localhost:9002": true, "LocalHost.": true, "": true,
		"evil.example": false, "evil.example:9002": false, "localhost.evil.example": false, "127.0.0.1.nip.io:9002": false,
	} {
		if got := h.allows(host); got != want {
			t.Errorf("nothing configured: allows(%q) = %v, want %v", host, got, want)
		}
	}
	s := &Server{}
	s.SetAllowedHosts([]string{" Catalog.Example.COM ", ".corp.example", ""})
	for host, want := range map[string]bool{
		"catalog.example.com:443": true, "CATALOG.example.com": true, "other.example.com": false,
		"corp.example": true, "a.b.corp.example:9002": true, "evilcorp.example": false, "corp.example.evil": false,
	} {
		if got := s.hosts.allows(host); got != want {
			t.Errorf("configured: allows(%q) = %v, want %v", host, got, want)
		}
	}
	s.SetAllowedHosts([]string{"*"})
	if !s.hosts.allows("anything.example") {
		t.Error(`"*" does not allow every name`)
	}
}

// TestHostRefusedBeforeAnything: a request naming another host is
// answered 421 with a JSON problem naming the setting, by both tiers,
// before authentication or anything else runs; /health too.
func TestHostRefusedBeforeAnything(t *testing.T) {
	s := &Server{logger: slog.New(slog.NewTextHandler(io.Discard, nil)), requestTimeout: DefaultRequestTimeout}
	ran := false
	h := s.common(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { ran = true }))
	for _, path := range []string{"/api/graphql", "/health", "/login"} {
		r := httptest.NewRequest("POST", "http://evil.example:9002"+path, strings.NewReader(`{"query":"{ me { corpUser { urn } } }"}`))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		var body struct {
			Status  int
			Message string
		}
		_ = json.Unmarshal(w.Body.Bytes(), &body)
		if w.Code != http.StatusMisdirectedRequest || body.Status != 421 || !strings.Contains(body.Message, "CATALOGD_ALLOWED_HOSTS") || !strings.Contains(body.Message, "evil.example") {
			t.Errorf("%s naming evil.example: %d %s; want 421 naming the host and CATALOGD_ALLOWED_HOSTS", path, w.Code, w.Body.String())
		}
	}
	if ran {
		t.Error("the handler ran for a request naming another host")
	}
	r := httptest.NewRequest("GET", "http://127.0.0.1:9002/health", nil)
	h.ServeHTTP(httptest.NewRecorder(), r)
	if !ran {
		t.Error("a request naming the service's address did not reach the handler")
	}
}
