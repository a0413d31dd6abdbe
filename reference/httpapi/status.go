package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/catalogspec/catalogspec/reference"
)

// handleConfig serves GET /config, open to all, in the shape DataHub's own
// clients check before they ingest (fetch_server_config and
// RestServiceConfig in DataHub's SDK): noCode the string "true", and under
// versions["acryldata/datahub"] the DataHub version whose behaviour the
// reference follows, from which the SDK chooses its ingestion path;
// catalogd's own version is beside it. patchCapable is false: JSON Patch
// is not served.
func (s *Server) handleConfig(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"noCode": "true",
		"versions": map[string]any{
			"acryldata/datahub":    map[string]string{"version": reference.DataHubVersion, "commit": reference.DataHubCommit},
			"catalogspec/catalogd": map[string]string{"version": s.version},
		},
		"authEnabled":              s.svc.AuthEnabled(),
		"statefulIngestionCapable": true,
		"patchCapable":             false,
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
		w.Header().Set("Retry-After", reference.RetryAfterSeconds)
		writeProblem(w, r, http.StatusServiceUnavailable, "database unavailable")
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}
