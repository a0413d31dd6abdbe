package httpapi

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"

	"github.com/catalogspec/catalogspec/reference"
)

// Server holds what both tiers' handlers need.
type Server struct {
	svc     *reference.Service
	graphql http.Handler
	ping    func(context.Context) error
	logger  *slog.Logger
	version string
}

// NewServer returns a Server. graphql is the GraphQL handler (reference/graph),
// ping checks the database for /health.
func NewServer(svc *reference.Service, graphql http.Handler, ping func(context.Context) error, version string, logger *slog.Logger) *Server {
	return &Server{svc: svc, graphql: graphql, ping: ping, logger: logger, version: version}
}

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
	_ = json.NewEncoder(w).Encode(v)
}

func writeProblem(w http.ResponseWriter, r *http.Request, status int, message string) {
	writeJSON(w, status, errorBody{Status: status, Error: http.StatusText(status), Message: message, Path: r.URL.Path})
}

// writeError answers with the status of a domain error. Unknown errors are
// logged in full and shown as "An unknown error occurred.".
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	code := reference.ErrorCodeOf(err)
	if code == reference.EINTERNAL {
		s.logger.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "error", err)
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
	writeProblem(w, r, http.StatusUnauthorized, message)
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
