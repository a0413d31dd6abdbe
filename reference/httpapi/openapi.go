package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/catalogspec/catalogspec/reference"
)

// DataHub's OpenAPI v3 entity endpoints (EntityController and
// GenericEntitiesController in metadata-service/openapi-servlet), which
// DataHub's SDK writes through from DataHub 1.0.1 on: POST
// /openapi/v3/entity/{type} (emit_mcp, emit_mcps), DELETE
// /openapi/v3/entity/{type}/{urn} (a proposal to delete), POST
// /openapi/v3/entity/{type}/batchGet (get_entities), and GET of one entity
// or one aspect. An entity is {"urn": ..., <aspect name>: {"value": ...}}.
// A refusal is JSON with the reason in "error", as DataHub's exception
// handler writes it, and in "message", where DataHub's SDK looks for it.

// openAPIProblem answers an OpenAPI error.
func openAPIProblem(w http.ResponseWriter, r *http.Request, status int, message string) {
	path := reference.Truncate(r.URL.Path, maxPathShown)
	writeJSON(w, status, errorBody{Status: status, Error: message, Message: message, Path: path})
}

// writeOpenAPIError answers a domain error on the OpenAPI endpoints. A
// value that does not match its aspect's schema is 400 here, as DataHub's
// GlobalControllerExceptionHandler answers a ValidationException (Rest.li
// answers it with 422).
func (s *Server) writeOpenAPIError(w http.ResponseWriter, r *http.Request, err error) {
	code := reference.ErrorCodeOf(err)
	switch code {
	case reference.EUNAUTHENTICATED, reference.EINTERNAL, reference.EUNAVAILABLE:
		s.writeError(w, r, err)
		return
	}
	status := reference.HTTPStatus(code)
	if code == reference.EUNPROCESSABLE {
		status = http.StatusBadRequest
	}
	openAPIProblem(w, r, status, reference.ErrorMessageOf(err))
}

// aspectShape is what can be the last segment of a path naming an aspect.
var aspectShape = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]{0,99}$`)

// entityPath reads {urn}[/{aspect}] after /openapi/v3/entity/{type}/. A
// URN holding "/" raw is taken whole unless its last segment could only be
// an aspect's name (DataHub's pattern is {entityUrn:urn:li:.+}/{aspectName});
// percent-encoded, as DataHub's clients send it, it is never ambiguous.
func entityPath(r *http.Request) (urn, aspect string, err error) {
	segments := strings.Split(r.URL.EscapedPath(), "/")
	// "", "openapi", "v3", "entity", {type}, {urn...}
	if len(segments) < 6 {
		return "", "", errors.New("name the entity: /openapi/v3/entity/<type>/<urn>")
	}
	rest := segments[5:]
	if n := len(rest); n > 1 {
		last, err := url.PathUnescape(rest[n-1])
		if err == nil && aspectShape.MatchString(last) {
			aspect, rest = last, rest[:n-1]
		}
	}
	urn, err = url.PathUnescape(strings.Join(rest, "/"))
	if err != nil {
		return "", "", errors.New("the URN in the path is not validly percent-encoded")
	}
	return urn, aspect, nil
}

// handleOpenAPIEntity serves GET and DELETE /openapi/v3/entity/{type}/{urn}
// and GET .../{urn}/{aspect}.
func (s *Server) handleOpenAPIEntity(w http.ResponseWriter, r *http.Request) {
	urn, aspect, err := entityPath(r)
	if err != nil {
		openAPIProblem(w, r, http.StatusBadRequest, err.Error())
		return
	}
	entityType := r.PathValue("entityType")
	switch r.Method {
	case http.MethodGet:
		if aspect != "" {
			s.handleOpenAPIAspect(w, r, entityType, urn, aspect)
			return
		}
		names := queryList(r.URL.Query(), "aspects", "aspectNames")
		e, err := s.svc.EntityV3(r.Context(), entityType, urn, names)
		if err != nil {
			s.writeOpenAPIError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, openAPIEntity(*e))
	case http.MethodDelete:
		if aspect != "" {
			openAPIProblem(w, r, http.StatusBadRequest, "deleting one aspect is not served; DELETE /openapi/v3/entity/<type>/<urn> deletes the entity")
			return
		}
		if err := s.svc.DeleteEntity(r.Context(), entityType, urn); err != nil {
			s.writeOpenAPIError(w, r, err)
			return
		}
		w.WriteHeader(http.StatusOK)
	default:
		w.Header().Set("Allow", "GET, DELETE")
		openAPIProblem(w, r, http.StatusMethodNotAllowed, "method "+r.Method+" is not allowed here; use GET or DELETE")
	}
}

// handleOpenAPIAspect serves GET /openapi/v3/entity/{type}/{urn}/{aspect}:
// {"value": ...}.
func (s *Server) handleOpenAPIAspect(w http.ResponseWriter, r *http.Request, entityType, urn, aspect string) {
	e, err := s.svc.EntityV3(r.Context(), entityType, urn, []string{aspect})
	if err != nil {
		s.writeOpenAPIError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]json.RawMessage{"value": e.Aspects[0].Value})
}

// queryList reads a list of names from any of the parameters, each
// repeated or comma-separated, as Spring binds a Set<String>.
func queryList(q url.Values, params ...string) []string {
	var out []string
	for _, p := range params {
		for _, v := range q[p] {
			for _, item := range strings.Split(v, ",") {
				if item = strings.TrimSpace(item); item != "" {
					out = append(out, item)
				}
			}
		}
	}
	return out
}

// openAPIEntity is an entity as DataHub's GenericEntityV3 shows it.
func openAPIEntity(e reference.EntityAspects) map[string]any {
	out := make(map[string]any, len(e.Aspects)+1)
	out["urn"] = e.URN.String()
	for _, a := range e.Aspects {
		out[a.Name] = map[string]json.RawMessage{"value": a.Value}
	}
	return out
}

// openAPIItem is one entity of an OpenAPI request body: its urn and its
// aspects in the order written.
type openAPIItem struct {
	urn     string
	aspects []openAPIAspect
}

type openAPIAspect struct {
	name  string
	value json.RawMessage
}

// decodeOpenAPIItems reads a body [{"urn": ..., <aspect>: {...}}, ...].
// value says whether each aspect must carry a "value" object (a write) or
// may be anything (a batchGet names aspects with {}). Its messages name
// the fault, never quote the body.
func decodeOpenAPIItems(body []byte, value bool) ([]openAPIItem, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, errors.New("request body is not a JSON list of entities")
	}
	items := make([]openAPIItem, len(raw))
	for i, r := range raw {
		dec := json.NewDecoder(bytes.NewReader(r))
		if t, err := dec.Token(); err != nil || t != json.Delim('{') {
			return nil, fmt.Errorf("entity %d is not a JSON object", i+1)
		}
		for dec.More() {
			t, err := dec.Token()
			if err != nil {
				return nil, fmt.Errorf("entity %d is not a JSON object", i+1)
			}
			key, _ := t.(string)
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return nil, fmt.Errorf("entity %d is not a JSON object", i+1)
			}
			if key == "urn" {
				if err := json.Unmarshal(v, &items[i].urn); err != nil {
					return nil, fmt.Errorf(`entity %d: "urn" must be a string`, i+1)
				}
				continue
			}
			a := openAPIAspect{name: key}
			if value {
				var envelope struct {
					Value json.RawMessage `json:"value"`
				}
				if err := json.Unmarshal(v, &envelope); err != nil || len(envelope.Value) == 0 || envelope.Value[0] != '{' {
					return nil, fmt.Errorf(`entity %d: the aspect %s must be {"value": {...}}, its value a JSON object`, i+1, reference.Excerpt(key))
				}
				a.value = envelope.Value
			}
			items[i].aspects = append(items[i].aspects, a)
		}
		if items[i].urn == "" {
			return nil, fmt.Errorf(`entity %d has no "urn"`, i+1)
		}
	}
	return items, nil
}

// handleOpenAPIWrite serves POST /openapi/v3/entity/{type}?async=: every
// aspect of every entity written whole, or not at all; the answer lists the
// entities with the aspects written, 200 (or 202 when async=true, which
// asks DataHub only to queue the write; the reference writes at once).
func (s *Server) handleOpenAPIWrite(w http.ResponseWriter, r *http.Request) {
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
	for _, it := range items {
		for _, a := range it.aspects {
			ps = append(ps, reference.Proposal{
				EntityType: entityType, EntityURN: it.urn, ChangeType: "UPSERT", AspectName: a.name,
				Aspect: &reference.GenericAspect{Value: string(a.value), ContentType: "application/json"},
			})
		}
	}
	if err := s.svc.IngestProposals(r.Context(), ps); err != nil {
		s.writeOpenAPIError(w, r, err)
		return
	}
	status := http.StatusOK
	if r.URL.Query().Get("async") == "true" {
		status = http.StatusAccepted
	}
	writeJSON(w, status, writtenEntities(items))
}

// writtenEntities lists each entity written once, with its aspects (a
// later value of the same aspect wins), in the order first named.
func writtenEntities(items []openAPIItem) []map[string]any {
	var out []map[string]any
	at := map[string]int{}
	for _, it := range items {
		i, seen := at[it.urn]
		if !seen {
			i = len(out)
			at[it.urn] = i
			out = append(out, map[string]any{"urn": it.urn})
		}
		for _, a := range it.aspects {
			out[i][a.name] = map[string]json.RawMessage{"value": a.value}
		}
	}
	if out == nil {
		out = []map[string]any{}
	}
	return out
}

// handleOpenAPIBatchGet serves POST /openapi/v3/entity/{type}/batchGet:
// [{"urn": ..., <aspect>: {}}...], answered with the entities that have any
// of the aspects asked for (all, when none are named).
func (s *Server) handleOpenAPIBatchGet(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	items, err := decodeOpenAPIItems(body, false)
	if err != nil {
		openAPIProblem(w, r, http.StatusBadRequest, err.Error())
		return
	}
	reqs := make([]reference.EntityRequest, len(items))
	for i, it := range items {
		reqs[i].URN = it.urn
		for _, a := range it.aspects {
			reqs[i].Aspects = append(reqs[i].Aspects, a.name)
		}
	}
	found, err := s.svc.EntitiesV3(r.Context(), r.PathValue("entityType"), reqs)
	if err != nil {
		s.writeOpenAPIError(w, r, err)
		return
	}
	out := make([]map[string]any, len(found))
	for i, e := range found {
		out[i] = openAPIEntity(e)
	}
	writeJSON(w, http.StatusOK, out)
}
