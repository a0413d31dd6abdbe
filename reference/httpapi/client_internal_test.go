package httpapi

import (
	"context"
	"crypto/tls"
	"log/slog"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"testing"

	"github.com/catalogspec/catalogspec/reference"
)

// TestClientOf: who a request comes from, and whether it came over HTTPS,
// as the sign-in throttle and the cookies see it. A trusted proxy names
// the client in X-Forwarded-For (the last hop that is not itself trusted,
// never one before a hop that is no address) and the scheme in the last
// X-Forwarded-Proto; anyone else's forwarding headers count for nothing.
func TestClientOf(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("10.0.0.0/8")}
	for _, c := range []struct {
		name    string
		trusted []netip.Prefix
		public  string
		tls     bool
		peer    string
		header  []string
		want    reference.Client
	}{
		{name: "an IPv4 peer", peer: "192.0.2.1:1234", want: reference.Client{Addr: "192.0.2.1"}},
		{name: "an IPv6 peer", peer: "[2001:db8::1]:1234", want: reference.Client{Addr: "2001:db8::1"}},
		{name: "a peer that is no address", peer: "@", want: reference.Client{}},
		{name: "an untrusted peer's forwarding headers", peer: "192.0.2.1:1234",
			header: []string{"X-Forwarded-For", "203.0.113.9", "X-Forwarded-Proto", "https"}, want: reference.Client{Addr: "192.0.2.1"}},
		{name: "a peer outside the trusted proxies", trusted: trusted, peer: "192.0.2.1:1234",
			header: []string{"X-Forwarded-For", "203.0.113.9", "X-Forwarded-Proto", "https"}, want: reference.Client{Addr: "192.0.2.1"}},
		{name: "a trusted proxy naming one client", trusted: trusted, peer: "127.0.0.1:1234",
			header: []string{"X-Forwarded-For", "203.0.113.9"}, want: reference.Client{Addr: "203.0.113.9"}},
		{name: "a trusted proxy after a client that names another", trusted: trusted, peer: "127.0.0.1:1234",
			header: []string{"X-Forwarded-For", "198.51.100.7, 203.0.113.9"}, want: reference.Client{Addr: "203.0.113.9"}},
		{name: "two trusted proxies", trusted: trusted, peer: "127.0.0.1:1234",
			header: []string{"X-Forwarded-For", "198.51.100.7, 203.0.113.9, 10.0.0.2"}, want: reference.Client{Addr: "203.0.113.9"}},
		{name: "a trusted proxy naming only trusted hops", trusted: trusted, peer: "127.0.0.1:1234",
			header: []string{"X-Forwarded-For", "10.0.0.3, 10.0.0.2"}, want: reference.Client{Addr: "10.0.0.3"}},
		{name: "a hop that is no address before the client", trusted: trusted, peer: "127.0.0.1:1234",
			header: []string{"X-Forwarded-For", "unknown, 203.0.113.9"}, want: reference.Client{Addr: "203.0.113.9"}},
		{name: "a hop that is no address after the client", trusted: trusted, peer: "127.0.0.1:1234",
			header: []string{"X-Forwarded-For", "203.0.113.9, unknown"}, want: reference.Client{Addr: "127.0.0.1"}},
		{name: "an IPv4-mapped hop", trusted: trusted, peer: "127.0.0.1:1234",
			header: []string{"X-Forwarded-For", "::ffff:203.0.113.9"}, want: reference.Client{Addr: "203.0.113.9"}},
		{name: "a trusted proxy saying https", trusted: trusted, peer: "127.0.0.1:1234",
			header: []string{"X-Forwarded-Proto", "HTTPS"}, want: reference.Client{Addr: "127.0.0.1", Secure: true}},
		{name: "a trusted proxy saying http after a client that says https", trusted: trusted, peer: "127.0.0.1:1234",
			header: []string{"X-Forwarded-Proto", "https, http"}, want: reference.Client{Addr: "127.0.0.1"}},
		{name: "a trusted proxy saying http", trusted: trusted, peer: "127.0.0.1:1234",
			header: []string{"X-Forwarded-Proto", "http"}, want: reference.Client{Addr: "127.0.0.1"}},
		{name: "an https public URL", public: "https://catalog.example.com", peer: "192.0.2.1:1234", want: reference.Client{Addr: "192.0.2.1", Secure: true}},
		{name: "an http public URL", public: "http://catalog.example.com", peer: "192.0.2.1:1234", want: reference.Client{Addr: "192.0.2.1"}},
		{name: "TLS", tls: true, peer: "192.0.2.1:1234", want: reference.Client{Addr: "192.0.2.1", Secure: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := NewServer(nil, nil, nil, "test", nil)
			s.SetTrustedProxies(c.trusted)
			if c.public != "" {
				u, err := url.Parse(c.public)
				if err != nil {
					t.Fatal(err)
				}
				s.SetPublicURL(u)
			}
			r := httptest.NewRequest("GET", "/health", nil)
			r.RemoteAddr = c.peer
			if c.tls {
				r.TLS = &tls.ConnectionState{}
			} else {
				r.TLS = nil
			}
			for i := 0; i+1 < len(c.header); i += 2 {
				r.Header.Set(c.header[i], c.header[i+1])
			}
			if got := s.clientOf(r); got != c.want {
				t.Errorf("clientOf = %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestHSTSOnlyOverHTTPS: an answer to a request that came over HTTPS
// carries Strict-Transport-Security; one over plain HTTP does not (a
// browser would then refuse the service at its plain address for a year).
func TestHSTSOnlyOverHTTPS(t *testing.T) {
	for _, c := range []struct {
		name   string
		public string
		want   string
	}{
		{"plain HTTP", "", ""},
		{"an https public URL", "https://catalog.example.com", hstsHeader},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := NewServer(nil, nil, func(context.Context) error { return nil }, "test", slog.New(slog.DiscardHandler))
			if c.public != "" {
				u, _ := url.Parse(c.public)
				s.SetPublicURL(u)
			}
			w := httptest.NewRecorder()
			s.GMS().ServeHTTP(w, httptest.NewRequest("GET", "http://localhost/health", nil))
			if w.Code != 200 || w.Header().Get("Strict-Transport-Security") != c.want {
				t.Errorf("GET /health: %d, Strict-Transport-Security %q; want 200, %q", w.Code, w.Header().Get("Strict-Transport-Security"), c.want)
			}
		})
	}
}
