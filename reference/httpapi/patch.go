package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strings"

	"github.com/catalogspec/catalogspec/reference"
)

// PATCH /openapi/v3/entity/{type}, as DataHub's OpenAPI v3
// EntityController.patchEntity serves it and DataHub's SDK sends it for a
// proposal with changeType PATCH (OpenApiRequest.from_mcp,
// emitter/request_helper.py: DataHubClient.entities.update with a patch
// builder, emit_mcps of patches): a list of entities, each aspect
// {"value": {"patch": [...JSON Patch...]}, "systemMetadata": ...,
// "headers": {}}, applied whole or not at all. The answer lists each
// entity with the patches applied, as DataHub echoes them (200), or is
// empty with async=true, DataHub's default for this path (202; the
// reference writes at once either way).

// byMethod serves each method with its handler; any other is 405 with
// Allow naming those served.
func byMethod(handlers map[string]http.Handler) http.Handler {
	methods := make([]string, 0, len(handlers))
	for m := range handlers {
		methods = append(methods, m)
	}
	slices.Sort(methods)
	allowed := strings.Join(methods, ", ")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, ok := handlers[r.Method]
		if !ok {
			w.Header().Set("Allow", allowed)
			writeProblem(w, r, http.StatusMethodNotAllowed, fmt.Sprintf("method %s is not allowed here; use %s", r.Method, allowed))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// requireJSONOrPatch answers 415 unless the body is application/json or
// application/json-patch+json, which DataHub's patch endpoint consumes.
func requireJSONOrPatch(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mt != "application/json" && mt != "application/json-patch+json" {
			openAPIProblem(w, r, http.StatusUnsupportedMediaType, "Content-Type must be application/json or application/json-patch+json")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// handleOpenAPIPatch serves PATCH /openapi/v3/entity/{type}?async=.
func (s *Server) handleOpenAPIPatch(w http.ResponseWriter, r *http.Request) {
	body, ok := s.readWrite(w, r, openAPIWrite, r.PathValue("entityType"))
	if !ok {
		return
	}
	items, err := decodeOpenAPIItems(body, true)
	if err != nil {
		openAPIProblem(w, r, http.StatusBadRequest, err.Error())
		return
	}
	entityType := r.PathValue("entityType")
	var ps []reference.Proposal
	for i, it := range items {
		for _, a := range it.aspects {
			var patch struct {
				Patch json.RawMessage `json:"patch"`
			}
			if err := json.Unmarshal(a.value, &patch); err != nil || len(patch.Patch) == 0 || bytes.Equal(patch.Patch, []byte("null")) {
				openAPIProblem(w, r, http.StatusBadRequest, fmt.Sprintf("entity %d, aspect %s: Missing `patch` field.", i+1, reference.Excerpt(a.name)))
				return
			}
			ps = append(ps, reference.Proposal{
				EntityType: entityType, EntityURN: it.urn, ChangeType: reference.ChangePatch, AspectName: a.name,
				Aspect: &reference.GenericAspect{Value: string(a.value), ContentType: "application/json-patch+json"},
			})
		}
	}
	if len(ps) > 0 {
		if err := s.svc.IngestProposals(r.Context(), ps); err != nil {
			s.writeOpenAPIError(w, r, err)
			return
		}
	}
	// DataHub's default for this path is async=true.
	if r.URL.Query().Get("async") != "false" {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(http.StatusAccepted)
		return
	}
	writeJSON(w, http.StatusOK, writtenEntities(items))
}
