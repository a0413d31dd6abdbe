package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/catalogspec/catalogspec/reference"
)

// The actions of Rest.li's entities resource that DataHub's SDK and CLI
// post, named only by ?action= (the SDK never sends X-RestLi-Method): the
// hard deletion of an entity (DataHubGraph.hard_delete_entity and
// hard_delete_timeseries_aspect, `datahub delete --hard`) and of the
// references to it (delete_references_to_urn), answered as DataHub's
// EntityResource.deleteEntity and deleteReferencesTo answer them:
// {"value": DeleteEntityResponse} and {"value": DeleteReferencesResponse}.

// entityActions serves POST /entities?action=...; another action of the
// resource joins by its name here.
func (s *Server) entityActions() http.Handler {
	return restliActions(map[string]http.Handler{
		"delete":           requireJSON(http.HandlerFunc(s.handleDeleteEntity)),
		"deleteReferences": requireJSON(http.HandlerFunc(s.handleDeleteReferences)),
		"ingest":           requireJSON(s.traced(s.handleIngestEntity)), // entities.go: emit_mce
	})
}

// decodeAction reads a Rest.li action's parameters, refusing a body that
// is not one JSON object or a parameter of the wrong type.
func decodeAction(w http.ResponseWriter, r *http.Request, v any) bool {
	body, ok := readBody(w, r)
	if !ok {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		writeProblem(w, r, http.StatusBadRequest, "request body is not the action's JSON parameters")
		return false
	}
	if dec.More() {
		writeProblem(w, r, http.StatusBadRequest, "request body holds more than one JSON value")
		return false
	}
	return true
}

// handleDeleteEntity serves POST /entities?action=delete with {"urn": ...}
// and, for a timeseries aspect, "aspectName", "startTimeMillis" and
// "endTimeMillis".
func (s *Server) handleDeleteEntity(w http.ResponseWriter, r *http.Request) {
	var req struct {
		URN        *string `json:"urn"`
		AspectName *string `json:"aspectName"`
		Start      *int64  `json:"startTimeMillis"`
		End        *int64  `json:"endTimeMillis"`
	}
	if !decodeAction(w, r, &req) {
		return
	}
	if req.URN == nil {
		writeProblem(w, r, http.StatusBadRequest, `the action's parameters have no "urn"`)
		return
	}
	res, err := s.svc.HardDelete(r.Context(), *req.URN, req.AspectName, req.Start, req.End)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	value := map[string]any{"urn": res.URN, "rows": res.Rows, "timeseriesRows": res.TimeseriesRows}
	writeJSON(w, http.StatusOK, map[string]any{"value": value})
}

// handleDeleteReferences serves POST /entities?action=deleteReferences
// with {"urn": ..., "dryRun": true|false}.
func (s *Server) handleDeleteReferences(w http.ResponseWriter, r *http.Request) {
	var req struct {
		URN    *string `json:"urn"`
		DryRun *bool   `json:"dryRun"`
	}
	if !decodeAction(w, r, &req) {
		return
	}
	if req.URN == nil {
		writeProblem(w, r, http.StatusBadRequest, `the action's parameters have no "urn"`)
		return
	}
	res, err := s.svc.DeleteReferences(r.Context(), *req.URN, req.DryRun != nil && *req.DryRun)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	related := res.RelatedAspects
	if related == nil {
		related = []reference.RelatedAspect{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"value": map[string]any{"total": res.Total, "relatedAspects": related}})
}
