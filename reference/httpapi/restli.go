package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/catalogspec/catalogspec/reference"
)

// The Rest.li resources DataHub's SDK reads and writes through, in the
// shapes DataHub's AspectResource and EntityV2Resource answer: GET
// /aspects/{urn}?aspect=&version= (get_aspect, exists), GET
// /entitiesV2/{urn} (get_entity_raw), and the ingestProposal and
// ingestProposalBatch actions of POST /aspects (emit_mcp, emit_mcps;
// POST /aspects/?action=... as `datahub put` sends it).

// ingestActions serves POST /aspects?action=...: Rest.li names the method
// in the query string.
func (s *Server) ingestActions() http.Handler {
	return restliActions(map[string]http.Handler{
		"ingestProposal":            requireJSON(s.traced(s.handleIngestProposal)),
		"ingestProposalBatch":       requireJSON(s.traced(s.handleIngestProposalBatch)),
		"getTimeseriesAspectValues": requireJSON(http.HandlerFunc(s.handleTimeseriesValues)),
	})
}

// restliActions serves the actions of one Rest.li resource, each named by
// ?action= on a POST.
func restliActions(handlers map[string]http.Handler) http.Handler {
	names := make([]string, 0, len(handlers))
	for n := range handlers {
		names = append(names, "action="+n)
	}
	slices.Sort(names)
	served := strings.Join(names, ", ")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, ok := handlers[r.URL.Query().Get("action")]
		if !ok {
			writeProblem(w, r, http.StatusBadRequest, "unsupported action: only "+served+" are served here")
			return
		}
		h.ServeHTTP(w, r)
	})
}

// handleAspects serves /aspects/{urn}: GET reads one aspect; POST to
// /aspects/ (no URN) is an action, as `datahub put` posts it.
func (s *Server) handleAspects(actions http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		urn := r.PathValue("urn")
		switch {
		case r.Method == http.MethodPost && urn == "":
			actions.ServeHTTP(w, r)
		case r.Method == http.MethodGet:
			s.handleAspect(w, r, urn)
		default:
			allowed := http.MethodGet
			if urn == "" {
				allowed = "GET, POST"
			}
			w.Header().Set("Allow", allowed)
			writeProblem(w, r, http.StatusMethodNotAllowed, "method "+r.Method+" is not allowed here; use "+allowed)
		}
	})
}

// handleAspect serves GET /aspects/{urn}?aspect=NAME&version=0:
// {"aspect": {"<record's full name>": value}, "version": 0}.
func (s *Server) handleAspect(w http.ResponseWriter, r *http.Request, urn string) {
	q := r.URL.Query()
	version := int64(0)
	if v := q.Get("version"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			writeProblem(w, r, http.StatusBadRequest, "version must be a whole number (0: the latest)")
			return
		}
		version = n
	}
	a, err := s.svc.ReadAspect(r.Context(), urn, q.Get("aspect"), version)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"aspect":  map[string]json.RawMessage{a.Class: a.Value},
		"version": 0,
	})
}

// handleEntityV2 serves GET /entitiesV2/{urn}[?aspects=List(a,b)]: the
// EntityResponse {"entityName", "urn", "aspects": {name: EnvelopedAspect}}.
func (s *Server) handleEntityV2(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	names, err := restliList(rawQuery(r, "aspects"))
	if err != nil {
		writeProblem(w, r, http.StatusBadRequest, err.Error())
		return
	}
	includeKey := true
	if v := q.Get("alwaysIncludeKeyAspect"); v != "" {
		if includeKey, err = strconv.ParseBool(v); err != nil {
			writeProblem(w, r, http.StatusBadRequest, "alwaysIncludeKeyAspect must be true or false")
			return
		}
	}
	e, err := s.svc.EntityV2(r.Context(), r.PathValue("urn"), names, includeKey)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, entityResponse(*e))
}

// handleEntitiesV2 serves GET /entitiesV2?ids=List(<urn>,<urn>) (Rest.li's
// BATCH_GET, each URN percent-encoded inside the list, as `datahub migrate`
// sends it): {"results": {urn: EntityResponse}, "statuses": {}, "errors": {}}.
func (s *Server) handleEntitiesV2(w http.ResponseWriter, r *http.Request) {
	ids, err := restliList(rawQuery(r, "ids"))
	if err == nil && len(ids) == 0 {
		err = errors.New("name the entities to read: ?ids=List(<urn>,<urn>)")
	}
	if err != nil {
		writeProblem(w, r, http.StatusBadRequest, err.Error())
		return
	}
	names, err := restliList(rawQuery(r, "aspects"))
	if err != nil {
		writeProblem(w, r, http.StatusBadRequest, err.Error())
		return
	}
	found, err := s.svc.EntitiesV2(r.Context(), ids, names, true)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	results := make(map[string]any, len(found))
	for _, e := range found {
		results[e.URN.String()] = entityResponse(e)
	}
	writeJSON(w, http.StatusOK, map[string]any{"results": results, "statuses": map[string]any{}, "errors": map[string]any{}})
}

// entityResponse is DataHub's EntityResponse.
func entityResponse(e reference.EntityAspects) map[string]any {
	aspects := make(map[string]any, len(e.Aspects))
	for _, a := range e.Aspects {
		aspects[a.Name] = envelopedAspect(a)
	}
	return map[string]any{"entityName": e.URN.EntityType, "urn": e.URN.String(), "aspects": aspects}
}

// envelopedAspect is DataHub's EnvelopedAspect: the value is the aspect's
// record itself. A key aspect derived from the URN was made by no one: the
// system actor, at time 0.
func envelopedAspect(a reference.EntityAspect) map[string]any {
	created := map[string]any{"time": int64(0), "actor": reference.SystemUser.String()}
	if !a.CreatedAt.IsZero() {
		created = map[string]any{"time": a.CreatedAt.UnixMilli(), "actor": a.CreatedBy}
	}
	return map[string]any{"name": a.Name, "type": "VERSIONED", "version": 0, "value": a.Value, "created": created}
}

// rawQuery returns the values of a query parameter as sent, still
// percent-encoded: a Rest.li list encodes each item, so a comma inside one
// (a dataset URN's) is told from the commas between them only before
// decoding.
func rawQuery(r *http.Request, key string) []string {
	var out []string
	for _, kv := range strings.Split(r.URL.RawQuery, "&") {
		k, v, _ := strings.Cut(kv, "=")
		if k == key {
			out = append(out, v)
		}
	}
	return out
}

// restliList reads a list query parameter, as rawQuery gives it, as
// Rest.li 2.0 writes it, List(a,b) with each item percent-encoded, or as
// Rest.li 1.0 and plain clients do, the parameter repeated (or
// comma-separated); nil when absent.
func restliList(values []string) ([]string, error) {
	if len(values) == 0 {
		return nil, nil
	}
	var out []string
	for _, v := range values {
		if rest, ok := strings.CutPrefix(v, "List("); ok {
			inner, ok := strings.CutSuffix(rest, ")")
			if !ok {
				return nil, errors.New("a Rest.li list is written List(a,b): the closing parenthesis is missing")
			}
			v = inner
		}
		for _, item := range strings.Split(v, ",") {
			item, err := url.PathUnescape(item)
			if err != nil {
				return nil, errors.New("a list item is not validly percent-encoded")
			}
			if item != "" {
				out = append(out, item)
			}
		}
	}
	if out == nil {
		return []string{}, nil
	}
	return out, nil
}

// handleIngestProposalBatch serves POST /aspects?action=ingestProposalBatch
// with {"proposals": [...], "async": "true"|"false"}: written whole, or
// not at all. The reference writes at once either way (async asks DataHub
// only to queue the write). It answers as DataHub does, {"value": "success"}.
func (s *Server) handleIngestProposalBatch(w http.ResponseWriter, r *http.Request) {
	body, ok := s.readWrite(w, r, restliBatch, "")
	if !ok {
		return
	}
	var req struct {
		Proposals *[]reference.Proposal `json:"proposals"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		writeProblem(w, r, http.StatusBadRequest, "request body is not a valid ingestProposalBatch JSON document")
		return
	}
	if req.Proposals == nil {
		writeProblem(w, r, http.StatusBadRequest, `request body has no "proposals"`)
		return
	}
	if err := s.svc.IngestProposals(r.Context(), *req.Proposals); err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"value": "success"})
}
