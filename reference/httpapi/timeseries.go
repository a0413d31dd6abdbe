package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/catalogspec/catalogspec/reference"
)

// Timeseries reads and the traces of writes, as DataHub serves them:
// POST /aspects?action=getTimeseriesAspectValues (AspectResource; the SDK's
// get_latest_timeseries_value, get_timeseries_values, and `datahub get`
// for a timeseries aspect), and POST /openapi/v1/trace/write/{traceId}
// (TraceController; the SDK's wait on an ASYNC_WAIT emit).

// traced gives a write a trace: the answer carries its traceparent, as
// DataHub's TracingInterceptor sets it on every answer (set before the
// handler writes, so refusals carry it too), and the aspects written
// record its id.
func (s *Server) traced(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := s.svc.NewTraceID()
		w.Header().Set("traceparent", reference.Traceparent(id))
		h(w, r.WithContext(reference.WithTrace(r.Context(), id)))
	})
}

// timeseriesRequest is the body of getTimeseriesAspectValues: the action's
// parameters, urn, entity and aspect required.
type timeseriesRequest struct {
	URN         *string                  `json:"urn"`
	Entity      *string                  `json:"entity"`
	Aspect      *string                  `json:"aspect"`
	Start       *int64                   `json:"startTimeMillis"`
	End         *int64                   `json:"endTimeMillis"`
	Limit       *int64                   `json:"limit"`
	LatestValue bool                     `json:"latestValue"`
	Filter      *reference.QueryFilter   `json:"filter"`
	Sort        *reference.SortCriterion `json:"sort"`
}

// handleTimeseriesValues serves POST /aspects?action=getTimeseriesAspectValues:
// {"value": GetTimeseriesAspectValuesResponse}, each value an
// EnvelopedAspect whose aspect holds the value as JSON text.
func (s *Server) handleTimeseriesValues(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	var req timeseriesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeProblem(w, r, http.StatusBadRequest, "request body is not a valid getTimeseriesAspectValues JSON document")
		return
	}
	if req.URN == nil || req.Entity == nil || req.Aspect == nil {
		writeProblem(w, r, http.StatusBadRequest, `request body must name the "urn", the "entity" and the "aspect"`)
		return
	}
	res, err := s.svc.TimeseriesValues(r.Context(), reference.TimeseriesRequest{
		URN: *req.URN, Entity: *req.Entity, Aspect: *req.Aspect, Start: req.Start, End: req.End,
		Limit: req.Limit, LatestValue: req.LatestValue, Filter: req.Filter, Sort: req.Sort,
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	type genericAspect struct {
		Value       string `json:"value"`
		ContentType string `json:"contentType"`
	}
	type envelopedAspect struct {
		Aspect genericAspect `json:"aspect"`
	}
	values := make([]envelopedAspect, len(res.Values))
	for i, v := range res.Values {
		values[i] = envelopedAspect{Aspect: genericAspect{Value: string(v.Value), ContentType: "application/json"}}
	}
	writeJSON(w, http.StatusOK, map[string]any{"value": struct {
		EntityName string            `json:"entityName"`
		AspectName string            `json:"aspectName"`
		Start      *int64            `json:"startTimeMillis,omitempty"`
		End        *int64            `json:"endTimeMillis,omitempty"`
		Limit      *int64            `json:"limit,omitempty"`
		Values     []envelopedAspect `json:"values"`
	}{res.EntityName, res.AspectName, res.Start, res.End, res.Limit, values}})
}

// handleTrace serves POST /openapi/v1/trace/write/{traceId}
// ?onlyIncludeErrors=&detailed=: the body names, by URN, the aspects to
// trace; the answer says of each whether it was written, and is it still
// (onlyIncludeErrors, true unless false, leaves out those written).
func (s *Server) handleTrace(w http.ResponseWriter, r *http.Request) {
	onlyErrors := true
	if v := r.URL.Query().Get("onlyIncludeErrors"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			openAPIProblem(w, r, http.StatusBadRequest, "onlyIncludeErrors must be true or false")
			return
		}
		onlyErrors = b
	}
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	var req map[string][]string
	if err := json.Unmarshal(body, &req); err != nil || req == nil {
		openAPIProblem(w, r, http.StatusBadRequest, `request body must be a JSON object naming, by URN, the aspects to trace: {"<urn>": ["<aspect>", ...]}`)
		return
	}
	res, err := s.svc.TraceWrites(r.Context(), r.PathValue("traceId"), req, onlyErrors)
	if err != nil {
		s.writeOpenAPIError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}
