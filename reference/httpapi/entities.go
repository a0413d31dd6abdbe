package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/catalogspec/catalogspec/reference"
)

// handleEntity serves GET /entities/{urn}; the URN may be raw or
// percent-encoded (the mux unescapes wildcard values).
func (s *Server) handleEntity(w http.ResponseWriter, r *http.Request) {
	snap, err := s.svc.Entity(r.Context(), r.PathValue("urn"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	aspects := make([]map[string]json.RawMessage, 0, len(snap.Aspects))
	for _, a := range snap.Aspects {
		aspects = append(aspects, map[string]json.RawMessage{a.Class: a.Value})
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"value": map[string]any{
			snap.Class: map[string]any{"urn": snap.URN.String(), "aspects": aspects},
		},
	})
}

// handleIngestProposal serves POST /aspects?action=ingestProposal.
func (s *Server) handleIngestProposal(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	var req struct {
		Proposal *reference.Proposal `json:"proposal"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		writeProblem(w, r, http.StatusBadRequest, "request body is not a valid ingestProposal JSON document")
		return
	}
	if req.Proposal == nil {
		writeProblem(w, r, http.StatusBadRequest, `request body has no "proposal"`)
		return
	}
	urn, err := s.svc.IngestProposal(r.Context(), *req.Proposal)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"value": urn.String()})
}

// handleConfig serves GET /config, open to all, in the shape DataHub's own
// clients check before they ingest.
func (s *Server) handleConfig(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"noCode": "true",
		"versions": map[string]any{
			"acryldata/datahub": map[string]string{"version": s.version},
		},
		"authEnabled":              s.svc.AuthEnabled(),
		"statefulIngestionCapable": true,
	})
}

// healthTimeout bounds /health's look at the database.
const healthTimeout = time.Second

// handleHealth serves GET /health: 200 when the database answers.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), healthTimeout)
	defer cancel()
	if err := s.ping(ctx); err != nil {
		s.logger.WarnContext(r.Context(), "health check failed", "error", err)
		w.Header().Set("Retry-After", RetryAfter)
		writeProblem(w, r, http.StatusServiceUnavailable, "database unavailable")
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// handleGraphiQL guards the GraphiQL explorer's path like every other API
// path. The explorer page itself (the GraphiQL explorer; not yet in SPEC.md) is not served yet: an
// authenticated caller is told so plainly rather than shown a page that does
// not work.
func (s *Server) handleGraphiQL(w http.ResponseWriter, r *http.Request) {
	writeProblem(w, r, http.StatusNotImplemented, "the GraphiQL explorer is not served by this version of catalogd; POST GraphQL requests to /api/graphql")
}
