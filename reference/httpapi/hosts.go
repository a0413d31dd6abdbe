package httpapi

import (
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/catalogspec/catalogspec/reference"
)

// The Host check. A page of another site whose name its owner makes
// resolve to this service's address (DNS rebinding) reaches the service
// from a browser as that site: the same-origin policy sees one origin. What
// tells the request apart is its Host header, which names the attacker's
// site. So every request must name the service by an address (an IP
// literal cannot be rebound), by localhost, or by a name the operator
// configured; any other is refused with 421 Misdirected Request, before
// anything runs.

// hosts are the names a Server answers to besides IP literals and
// localhost.
type hosts struct {
	any      bool            // "*": every name (the check is off)
	names    map[string]bool // exact names, lower case
	suffixes []string        // ".example.com": that domain and every name under it
}

// SetAllowedHosts sets the names the service answers to besides IP
// literals and localhost: exact names, ".example.com" for a domain and
// every name under it, or "*" for any name at all.
func (s *Server) SetAllowedHosts(names []string) {
	h := hosts{names: map[string]bool{}}
	for _, n := range names {
		n = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(n)), ".")
		switch {
		case n == "":
		case n == "*":
			h.any = true
		case strings.HasPrefix(n, "."):
			h.suffixes = append(h.suffixes, n)
		default:
			h.names[n] = true
		}
	}
	s.hosts = h
}

// allows says whether a request naming host (a Host header, with or
// without a port) is for this service.
func (h hosts) allows(host string) bool {
	if h.any || host == "" {
		return true
	}
	name := host
	if n, _, err := net.SplitHostPort(host); err == nil {
		name = n
	}
	name = strings.TrimSuffix(strings.ToLower(strings.Trim(name, "[]")), ".")
	if _, err := netip.ParseAddr(name); err == nil {
		return true
	}
	if name == "localhost" || h.names[name] {
		return true
	}
	for _, s := range h.suffixes {
		if name == s[1:] || strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// checkHost answers 421 to a request whose Host the service does not
// answer to, and says whether it did.
func (s *Server) checkHost(w http.ResponseWriter, r *http.Request) bool {
	if s.hosts.allows(r.Host) {
		return false
	}
	refuseBody(w, r)
	writeProblem(w, r, http.StatusMisdirectedRequest, "this service does not answer to the host "+reference.Excerpt(r.Host)+" (limit: CATALOGD_ALLOWED_HOSTS, the names it answers to besides its addresses and localhost)")
	return true
}
