package httpapi

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/catalogspec/catalogspec/reference"
)

// Who a request comes from, and whether it came over HTTPS. catalogd
// serves plain HTTP: behind a proxy that terminates TLS, r.TLS is always
// nil and the peer is the proxy. Two settings say more: the public URL
// (https means every request reached the service over HTTPS), and the
// proxies the operator trusts, whose X-Forwarded-For names the client and
// whose X-Forwarded-Proto says how the client came. A client that is not
// a trusted proxy cannot claim either.

// hstsHeader is sent with every answer to a request that came over HTTPS:
// browsers then reach the service over HTTPS alone for a year.
const hstsHeader = "max-age=31536000"

// SetPublicURL sets the URL people reach the service at; an https URL
// makes every request count as secure (its cookies Secure, its answers
// with Strict-Transport-Security).
func (s *Server) SetPublicURL(u *url.URL) {
	s.publicHTTPS = u != nil && u.Scheme == "https"
}

// SetTrustedProxies sets the addresses whose X-Forwarded-For and
// X-Forwarded-Proto are believed.
func (s *Server) SetTrustedProxies(p []netip.Prefix) {
	s.trusted = append([]netip.Prefix(nil), p...)
}

func (s *Server) trusts(a netip.Addr) bool {
	for _, p := range s.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// clientOf is the client of r: its peer's address, or, when the peer is a
// trusted proxy, the address X-Forwarded-For names last that is not
// itself a trusted proxy (the addresses before it are the client's to
// write); secure when r came over TLS, the public URL is https, or a
// trusted proxy says X-Forwarded-Proto: https.
func (s *Server) clientOf(r *http.Request) reference.Client {
	c := reference.Client{Secure: r.TLS != nil || s.publicHTTPS}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil {
		return c
	}
	peer = peer.Unmap()
	if peer.Is4() && !strings.Contains(host, ":") {
		c.Addr = host // already as String would write it
	} else {
		c.Addr = peer.String()
	}
	if !s.trusts(peer) {
		return c
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break // a hop that is not an address: trust nothing before it
		}
		c.Addr = a.Unmap().String()
		if !s.trusts(a.Unmap()) {
			break
		}
	}
	// The nearest proxy writes the last value; earlier ones are the
	// client's to write.
	protos := strings.Split(strings.Join(r.Header.Values("X-Forwarded-Proto"), ","), ",")
	if strings.EqualFold(strings.TrimSpace(protos[len(protos)-1]), "https") {
		c.Secure = true
	}
	return c
}
