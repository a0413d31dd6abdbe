package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/catalogspec/catalogspec/reference"
)

// Server holds what both tiers' handlers need.
type Server struct {
	svc     *reference.Service
	graphql http.Handler
	ping    func(context.Context) error
	logger  *slog.Logger
	version string
	// requestTimeout bounds each request end to end (DefaultRequestTimeout
	// unless set): work stops at the deadline, or when the client goes.
	requestTimeout time.Duration
	// accessLevel is the level of the access-log lines (info unless set).
	accessLevel slog.Level
	// pages are the browser pages; nil serves none.
	pages Pages
	// hosts are the names the service answers to (hosts.go).
	hosts hosts
	// publicHTTPS: the public URL is https; trusted: the proxies whose
	// forwarding headers are believed (client.go).
	publicHTTPS bool
	trusted     []netip.Prefix
	// memory bounds the bytes the requests in flight hold, maxReadBytes
	// what one reads from the store (reference's memory.go).
	memory       *reference.MemoryPool
	maxReadBytes int64
}

// SetMemoryLimits sets the process-wide bound on the bytes the requests in
// flight hold and each request's read budget (CATALOGD_MAX_BYTES_IN_FLIGHT
// and CATALOGD_MAX_READ_BYTES); zero keeps a default.
func (s *Server) SetMemoryLimits(inFlight, readBytes int64) {
	if inFlight > 0 {
		s.memory = reference.NewMemoryPool(inFlight)
	}
	if readBytes > 0 {
		s.maxReadBytes = readBytes
	}
}

// Memory is the process-wide bound on the bytes requests hold.
func (s *Server) Memory() *reference.MemoryPool { return s.memory }

// Pages are the browser pages (reference/web): sign-in and the settings
// pages on the frontend, GraphiQL on both tiers, and their assets.
type Pages interface {
	// Mount adds the frontend's pages to its mux.
	Mount(mux *http.ServeMux)
	// GraphiQL serves the explorer; the tier puts it behind authentication.
	GraphiQL() http.Handler
	// Assets serves the pages' stylesheets and scripts under /assets/.
	Assets() http.Handler
	// WithSession turns a session cookie into the bearer token the
	// frontend's proxy sends on.
	WithSession(next http.Handler) http.Handler
}

// SetPages serves p's browser pages on both tiers.
func (s *Server) SetPages(p Pages) { s.pages = p }

// SetAccessLogLevel sets the level of the one line logged per request:
// slog.LevelInfo by default, slog.LevelDebug to keep them out of an
// info-level log.
func (s *Server) SetAccessLogLevel(l slog.Level) { s.accessLevel = l }

// DefaultRequestTimeout bounds a request unless SetRequestTimeout says
// otherwise.
const DefaultRequestTimeout = 30 * time.Second

// SetRequestTimeout sets the deadline of every request (d > 0).
func (s *Server) SetRequestTimeout(d time.Duration) {
	if d > 0 {
		s.requestTimeout = d
	}
}

// NewServer returns a Server. graphql is the GraphQL handler (reference/graph),
// ping checks the database for /health.
func NewServer(svc *reference.Service, graphql http.Handler, ping func(context.Context) error, version string, logger *slog.Logger) *Server {
	return &Server{svc: svc, graphql: graphql, ping: ping, logger: logger, version: version, requestTimeout: DefaultRequestTimeout, accessLevel: slog.LevelInfo,
		memory: reference.NewMemoryPool(reference.DefaultMaxBytesInFlight), maxReadBytes: reference.DefaultMaxReadBytes}
}

// maxPathShown bounds the request path an error body repeats.
const maxPathShown = 200

// errorBody is the JSON shape of every non-GraphQL error.
type errorBody struct {
	Status  int    `json:"status"`
	Error   string `json:"error,omitempty"`
	Message string `json:"message"`
	Path    string `json:"path,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_ = encodeJSON(w, v) // stream.go: written as it is encoded
}

func writeProblem(w http.ResponseWriter, r *http.Request, status int, message string) {
	// The path is the client's input: show a prefix, cut at a character.
	path := reference.Truncate(r.URL.Path, maxPathShown)
	writeJSON(w, status, errorBody{Status: status, Error: http.StatusText(status), Message: message, Path: path})
}

// writeError answers with the status of a domain error. Unknown errors are
// logged in full and shown as "An unknown error occurred.".
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	code := reference.ErrorCodeOf(err)
	switch code {
	case reference.EINTERNAL:
		s.logger.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "error", err)
	case reference.EUNAVAILABLE:
		if errors.Is(err, reference.ErrBusy) {
			s.logger.InfoContext(r.Context(), "request refused: the requests in flight hold as much memory as they may", "method", r.Method, "path", r.URL.Path)
			break
		}
		s.logger.WarnContext(r.Context(), "request refused: database unavailable", "method", r.Method, "path", r.URL.Path, "error", err)
	}
	if ra := reference.RetryAfterOf(err); ra != "" {
		w.Header().Set("Retry-After", ra)
	}
	if code == reference.EUNAUTHENTICATED {
		s.unauthenticated(w, r, true)
		return
	}
	writeProblem(w, r, reference.HTTPStatus(code), reference.ErrorMessageOf(err))
}

// unauthenticated answers 401 per RFC 6750.
func (s *Server) unauthenticated(w http.ResponseWriter, r *http.Request, tokenSent bool) {
	challenge := `Bearer realm="datahub"`
	message := "Unauthorized: a valid bearer token is required"
	if tokenSent {
		challenge += `, error="invalid_token"`
		message = "Unauthorized: the bearer token is invalid, expired or revoked"
	}
	w.Header().Set("WWW-Authenticate", challenge)
	refuseBody(w, r)
	writeProblem(w, r, http.StatusUnauthorized, message)
}

// refuseBody closes the connection after a refusal that did not read the
// request's body: the server would otherwise read what is left of it, as
// slowly as the client cares to send it, for someone it has not let in.
func refuseBody(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength != 0 {
		w.Header().Set("Connection", "close")
		// net/http would still read up to 256 KB of the body before
		// closing; a read deadline in the past makes it give up at once.
		_ = http.NewResponseController(w).SetReadDeadline(time.Now())
	}
}

// refusedAmbiguous answers 400, without reading the body, a request with
// more than one Authorization header: which of them counts is not for the
// server to guess. It says whether it answered.
func refusedAmbiguous(w http.ResponseWriter, r *http.Request) bool {
	if len(r.Header.Values("Authorization")) <= 1 {
		return false
	}
	refuseBody(w, r)
	writeProblem(w, r, http.StatusBadRequest, "more than one Authorization header was sent; send exactly one")
	return true
}

// bearer returns the token of an Authorization header, and whether any
// credential was sent at all.
func bearer(r *http.Request) (token string, sent bool) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return "", false
	}
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", true
	}
	return strings.TrimSpace(token), true
}

func (s *Server) handleNotFound(w http.ResponseWriter, r *http.Request) {
	writeProblem(w, r, http.StatusNotFound, "no such path")
}
