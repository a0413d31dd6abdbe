// Package selftest proves that the suite is armed. A proxy in front of the
// reference breaks one rule of the contract at a time, from outside, the way
// a faulty implementation would, and TestSelftest checks that the suite
// notices each fault (faults.go lists them, and what must catch them).
package selftest

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Tier names the listeners of the proxy a fault acts on.
type Tier int

const (
	// BothTiers: a mistake of the whole server, on both listeners.
	BothTiers Tier = iota
	// GMSOnly: the metadata service's listener only.
	GMSOnly
	// FrontendOnly: the frontend's listener only.
	FrontendOnly
)

// Exchange is one request passing through the proxy. A Request hook may
// change Req (method, URL, header) and Body before it is forwarded.
type Exchange struct {
	Req      *http.Request
	Body     []byte
	Frontend bool // it came to the frontend's listener

	upstream *url.URL
}

// Response is an answer passing back through the proxy; a Response hook may
// change any part of it.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Fault breaks one rule of the contract.
type Fault struct {
	Name   string // short and stable, e.g. "graphql-get-executes"
	Breaks string // the rule it breaks, as the mistake a server makes
	Tier   Tier
	// Trips names, by their @id, the scenarios that must catch the fault:
	// with it active, at least one of them must fail. The fault's run is
	// these scenarios and With.
	Trips []string
	// With names, by their @id, scenarios that run beside Trips without
	// having to fail: for a fault of the browser pages, the allowed side
	// of its rule, which shows the fault breaks only what it should.
	With []string
	// UI marks a fault of the browser pages, whose scenarios drive a
	// browser (@ui); the other faults run without any @ui scenario
	// (CATALOGSPEC_DISABLE=ui).
	UI bool
	// Request sees each request before it is forwarded. It may rewrite it,
	// or answer it itself by returning a non-nil Response.
	Request func(s *State, x *Exchange) *Response
	// Response sees each answer before it goes back to the client.
	Response func(s *State, x *Exchange, r *Response)
}

func (f *Fault) on(frontend bool) bool {
	switch f.Tier {
	case GMSOnly:
		return !frontend
	case FrontendOnly:
		return frontend
	}
	return true
}

// State is what a fault may use and remember while it is active. The
// administrator's token is there for faults to misuse as a faulty server
// would (serving a request with its own credentials); it is never printed.
type State struct {
	adminToken string
	transport  http.RoundTripper

	mu     sync.Mutex
	memory map[string][]byte
	times  map[string]time.Time
}

// Remember keeps v under key for as long as the fault is active.
func (s *State) Remember(key string, v []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.memory[key] = v
}

// Recall is what was remembered under key.
func (s *State) Recall(key string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.memory[key]
	return v, ok
}

// Mark notes that something happened now under key; Since says how long ago.
func (s *State) Mark(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.times[key] = time.Now()
}

// Since is how long ago key was marked, and whether it was.
func (s *State) Since(key string) (time.Duration, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.times[key]
	return time.Since(t), ok
}

// AdminAuthorization is the Authorization header of the administrator.
func (s *State) AdminAuthorization() string { return "Bearer " + s.adminToken }

// Send forwards x to its upstream as it now is.
func (s *State) Send(x *Exchange) (*Response, error) {
	u := *x.upstream
	u.Path, u.RawPath, u.RawQuery = x.Req.URL.Path, x.Req.URL.RawPath, x.Req.URL.RawQuery
	out, err := http.NewRequestWithContext(x.Req.Context(), x.Req.Method, u.String(), bytes.NewReader(x.Body))
	if err != nil {
		return nil, err
	}
	out.Header = x.Req.Header.Clone()
	for _, h := range hopByHop {
		out.Header.Del(h)
	}
	if _, ok := out.Header["User-Agent"]; !ok {
		out.Header["User-Agent"] = nil // Go would add its own
	}
	// The Host the client named goes on as it was: the service judges it
	// (hostile-07), as it would with no proxy in front of it.
	out.Host = x.Req.Host
	resp, err := s.transport.RoundTrip(out)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	h := resp.Header.Clone()
	for _, k := range hopByHop {
		h.Del(k)
	}
	h.Del("Content-Length")
	return &Response{Status: resp.StatusCode, Header: h, Body: body}, nil
}

// SendAs forwards a copy of x with authorization in place of the caller's
// Authorization header.
func (s *State) SendAs(x *Exchange, authorization string) (*Response, error) {
	y := *x
	y.Req = x.Req.Clone(x.Req.Context())
	y.Req.Header.Set("Authorization", authorization)
	return s.Send(&y)
}

// hopByHop are the headers that concern one connection only (RFC 9110
// section 7.6.1); a proxy does not pass them on.
var hopByHop = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// Proxy fronts both tiers of a deployment, passing everything through
// untouched until a fault is set.
type Proxy struct {
	GMS, Frontend string // the proxy's own base URLs, no trailing slash

	mu    sync.Mutex
	fault *Fault
	state *State
	srvs  []*http.Server
}

// NewProxy listens on two loopback ports, in front of gms and frontend.
// adminToken is given to faults that misuse it.
func NewProxy(gms, frontend *url.URL, adminToken string) (*Proxy, error) {
	p := &Proxy{state: &State{
		adminToken: adminToken,
		// No compression asked for, no redirects followed, no proxy from
		// the environment: what the upstream says is what the client gets.
		transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 16},
		memory:    map[string][]byte{},
		times:     map[string]time.Time{},
	}}
	bases := make([]string, 0, 2)
	for i, upstream := range []*url.URL{gms, frontend} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			p.Close()
			return nil, err
		}
		srv := &http.Server{Handler: p.handler(upstream, i == 1), ReadHeaderTimeout: 10 * time.Second}
		p.srvs = append(p.srvs, srv)
		go func() { _ = srv.Serve(ln) }()
		bases = append(bases, "http://"+ln.Addr().String())
	}
	p.GMS, p.Frontend = bases[0], bases[1]
	return p, nil
}

// Set makes f the active fault, with a fresh memory; nil passes everything
// through.
func (p *Proxy) Set(f *Fault) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fault = f
	p.state.mu.Lock()
	p.state.memory = map[string][]byte{}
	p.state.times = map[string]time.Time{}
	p.state.mu.Unlock()
}

func (p *Proxy) active(frontend bool) *Fault {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fault == nil || !p.fault.on(frontend) {
		return nil
	}
	return p.fault
}

// Close stops the listeners.
func (p *Proxy) Close() {
	for _, s := range p.srvs {
		_ = s.Close()
	}
}

func (p *Proxy) handler(upstream *url.URL, frontend bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "selftest proxy: reading the request: "+err.Error(), http.StatusBadGateway)
			return
		}
		x := &Exchange{Req: r, Body: body, Frontend: frontend, upstream: upstream}
		f := p.active(frontend)
		var resp *Response
		if f != nil && f.Request != nil {
			resp = f.Request(p.state, x)
		}
		if resp == nil {
			if resp, err = p.state.Send(x); err != nil {
				http.Error(w, "selftest proxy: the upstream did not answer: "+err.Error(), http.StatusBadGateway)
				return
			}
			if f != nil && f.Response != nil {
				f.Response(p.state, x, resp)
			}
		}
		for k, v := range resp.Header {
			if !strings.EqualFold(k, "Content-Length") {
				w.Header()[k] = v
			}
		}
		if _, ok := resp.Header["Content-Type"]; !ok {
			w.Header()["Content-Type"] = nil // no type guessed from the body
		}
		if bodyAllowed(r.Method, resp.Status) {
			w.Header().Set("Content-Length", fmt.Sprint(len(resp.Body)))
		}
		w.WriteHeader(resp.Status)
		if bodyAllowed(r.Method, resp.Status) {
			_, _ = w.Write(resp.Body)
		}
	})
}

// bodyAllowed tells whether an answer with the status to the method has a
// body (RFC 9110 sections 6.4.1 and 9.3.2).
func bodyAllowed(method string, status int) bool {
	return method != http.MethodHead && status >= 200 && status != http.StatusNoContent && status != http.StatusNotModified
}
