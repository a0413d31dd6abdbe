package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

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

// handleIngestEntity serves POST /entities?action=ingest, as DataHub's SDK
// sends it (emit_mce): {"entity": {"value": {"<snapshot's full name>":
// {"urn": ..., "aspects": [{"<record's full name>": {...}}, ...]}}},
// "systemMetadata": {...}}. A void action: 200 and no body.
func (s *Server) handleIngestEntity(w http.ResponseWriter, r *http.Request) {
	body, ok := s.readWrite(w, r, restliSnapshot, "")
	if !ok {
		return
	}
	class, urn, aspects, err := decodeSnapshot(body)
	if err != nil {
		writeProblem(w, r, http.StatusBadRequest, err.Error())
		return
	}
	if err := s.svc.IngestSnapshot(r.Context(), class, urn, aspects); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// decodeSnapshot reads an ingest action's entity. Its messages name the
// fault, never quote the body.
func decodeSnapshot(body []byte) (class, urn string, aspects []reference.SnapshotAspect, err error) {
	var req struct {
		Entity *struct {
			Value map[string]json.RawMessage `json:"value"`
		} `json:"entity"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return "", "", nil, errors.New("request body is not a valid ingest JSON document")
	}
	if req.Entity == nil || len(req.Entity.Value) != 1 {
		return "", "", nil, errors.New(`request body must hold "entity": {"value": {"<snapshot's full name>": {...}}}`)
	}
	var raw json.RawMessage
	for c, v := range req.Entity.Value {
		class, raw = c, v
	}
	var snap struct {
		URN     *string                      `json:"urn"`
		Aspects []map[string]json.RawMessage `json:"aspects"`
	}
	if err := json.Unmarshal(raw, &snap); err != nil || snap.URN == nil {
		return "", "", nil, errors.New(`the snapshot must be {"urn": "<urn>", "aspects": [...]}`)
	}
	for i, a := range snap.Aspects {
		if len(a) != 1 {
			return "", "", nil, fmt.Errorf(`aspect %d of the snapshot must be {"<record's full name>": {...}}`, i+1)
		}
		for c, v := range a {
			if len(v) == 0 || v[0] != '{' {
				return "", "", nil, fmt.Errorf("aspect %d of the snapshot must be a JSON object", i+1)
			}
			aspects = append(aspects, reference.SnapshotAspect{Class: c, Value: v})
		}
	}
	return class, *snap.URN, aspects, nil
}
