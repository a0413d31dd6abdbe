package httpapi

import (
	"encoding/json"
	"net/http"
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
