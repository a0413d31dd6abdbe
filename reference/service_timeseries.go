package reference

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
)

// Timeseries aspects: a dataset's profiles and usage, an ingestion
// pipeline's checkpoints and run summaries, an assertion's runs. Ingestion
// writes them like any aspect; each entity keeps every value, and DataHub's
// Rest.li action POST /aspects?action=getTimeseriesAspectValues
// (AspectResource, ElasticSearchTimeseriesAspectService.getAspectValues)
// reads them, latest first. DataHub's SDK reads them so: stateful
// ingestion's checkpoint (get_latest_timeseries_value, filtered on the
// pipeline's name), `datahub get -a datasetProfile` (latestValue), and
// get_timeseries_values.

// Limits of a timeseries read, DataHub's (application.yaml,
// timeseriesAspectService.limit.results): a read that names no limit, or a
// larger one than the most, gets the default.
const (
	TimeseriesDefaultLimit = 5000
	TimeseriesMaxLimit     = 10000
)

// Bounds on a read's filter, which DataHub's clients come nowhere near.
const (
	maxCriteria        = 64
	maxCriterionValues = 1000
	maxFieldBytes      = 256
)

// TimeseriesRequest is a read of one timeseries aspect of one entity, as
// getTimeseriesAspectValues takes it.
type TimeseriesRequest struct {
	URN    string
	Entity string // the entity type, which must be the URN's
	Aspect string
	// Start and End bound the values' timestampMillis, both included.
	Start, End *int64
	// Limit is how many values at most; nil for DataHub's default.
	Limit *int64
	// LatestValue asks for the latest value alone.
	LatestValue bool
	Filter      *QueryFilter
	Sort        *SortCriterion
}

// QueryFilter is DataHub's Filter (metadata/query/filter/Filter.pdl): any of
// Or's conjunctions, or, in its older form, every one of Criteria.
type QueryFilter struct {
	Or []struct {
		And []QueryCriterion `json:"and"`
	} `json:"or"`
	Criteria []QueryCriterion `json:"criteria"`
}

// QueryCriterion is DataHub's Criterion: a field, a condition (EQUAL
// when absent), the values (or, in its older form, one value), negated or
// not.
type QueryCriterion struct {
	Field     string   `json:"field"`
	Value     *string  `json:"value"`
	Values    []string `json:"values"`
	Condition string   `json:"condition"`
	Negated   bool     `json:"negated"`
}

// SortCriterion is DataHub's SortCriterion.
type SortCriterion struct {
	Field string `json:"field"`
	Order string `json:"order"`
}

// TimeseriesResult is what getTimeseriesAspectValues answers.
type TimeseriesResult struct {
	EntityName, AspectName string
	Start, End             *int64
	Limit                  *int64
	Values                 []TimeseriesValue
}

// TimeseriesValues reads an entity's timeseries aspect, as DataHub's
// getTimeseriesAspectValues does: the caller needs
// GET_TIMESERIES_ASPECT_PRIVILEGE, EDIT_ENTITY or DELETE_ENTITY on the
// entity (DataHub's TIMESERIES READ), checked before anything else is
// said of it.
func (s *Service) TimeseriesValues(ctx context.Context, r TimeseriesRequest) (*TimeseriesResult, error) {
	urn, err := ParseURN(r.URN)
	if err != nil {
		return nil, err
	}
	if _, err := s.require(ctx, urn, PrivGetTimeseriesAspect, PrivEditEntity, PrivDeleteEntity); err != nil {
		return nil, err
	}
	if r.Entity != urn.EntityType {
		return nil, Errorf(EBADREQUEST, "entity %s is not the entity type of %s", Excerpt(r.Entity), urn)
	}
	spec := lookupEntity(urn.EntityType)
	if spec == nil {
		return nil, Errorf(EBADREQUEST, "Failed to find entity with name %s in EntityRegistry", Excerpt(urn.EntityType))
	}
	if !aspectNameShape(r.Aspect) || !spec.has(r.Aspect) {
		return nil, Errorf(EBADREQUEST, "Unknown aspect %s for entity %s", Excerpt(r.Aspect), urn.EntityType)
	}
	if !isTimeseries(r.Aspect) {
		return nil, Errorf(EBADREQUEST, "%s is not a timeseries aspect: read it with GET /aspects/<urn>?aspect=%s&version=0", r.Aspect, r.Aspect)
	}
	q := TimeseriesQuery{URN: urn, Aspect: r.Aspect, Start: r.Start, End: r.End}
	if q.Filter, err = conjunctions(r.Filter); err != nil {
		return nil, err
	}
	if r.Sort != nil {
		if r.Sort.Field != "timestampMillis" && r.Sort.Field != "@timestamp" {
			return nil, Errorf(EBADREQUEST, "timeseries values are sorted by timestampMillis alone, not %s", Excerpt(r.Sort.Field))
		}
		switch r.Sort.Order {
		case "ASCENDING":
			q.Ascending = true
		case "DESCENDING", "":
		default:
			return nil, Errorf(EBADREQUEST, "sort order must be ASCENDING or DESCENDING")
		}
	}
	res := &TimeseriesResult{EntityName: r.Entity, AspectName: r.Aspect, Start: r.Start, End: r.End, Limit: r.Limit}
	switch {
	case r.LatestValue:
		one := int64(1)
		q.Limit, res.Limit = 1, &one
	case r.Limit == nil || *r.Limit < 0 || *r.Limit > TimeseriesMaxLimit:
		q.Limit = TimeseriesDefaultLimit
	default:
		q.Limit = int(*r.Limit)
	}
	if q.Limit == 0 {
		return res, nil
	}
	res.Values, err = s.store.TimeseriesValues(Metered(ctx), q)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// conjunctions turns a QueryFilter into what the store reads, as DataHub's
// CriterionUtils.validateAndConvert does (criteria become one
// conjunction; a lone value becomes the values), refusing a condition
// the reference does not evaluate.
func conjunctions(f *QueryFilter) ([][]Criterion, error) {
	if f == nil {
		return nil, nil
	}
	var in [][]QueryCriterion
	for _, c := range f.Or {
		in = append(in, c.And)
	}
	if len(in) == 0 && len(f.Criteria) > 0 {
		in = [][]QueryCriterion{f.Criteria}
	}
	n := 0
	var out [][]Criterion
	for _, conj := range in {
		var cs []Criterion
		for _, c := range conj {
			if n++; n > maxCriteria {
				return nil, Errorf(EBADREQUEST, "a filter may have at most %d criteria", maxCriteria)
			}
			crit, err := criterion(c)
			if err != nil {
				return nil, err
			}
			cs = append(cs, crit)
		}
		out = append(out, cs)
	}
	return out, nil
}

func criterion(c QueryCriterion) (Criterion, error) {
	if c.Field == "" || len(c.Field) > maxFieldBytes {
		return Criterion{}, Errorf(EBADREQUEST, "a criterion names a field of 1 to %d bytes", maxFieldBytes)
	}
	values := c.Values
	if len(values) == 0 && c.Value != nil {
		values = []string{*c.Value}
	}
	if len(values) > maxCriterionValues {
		return Criterion{}, Errorf(EBADREQUEST, "a criterion may list at most %d values", maxCriterionValues)
	}
	out := Criterion{Field: strings.TrimSuffix(c.Field, ".keyword"), Condition: c.Condition, Values: values, Negated: c.Negated}
	// A value's time compares as a number; any other field as its text,
	// as the search compares fields (criteria.go).
	out.Numeric = out.Field == "timestampMillis"
	if err := CheckCriterion(&out); err != nil {
		return Criterion{}, err
	}
	return out, nil
}

// timeseriesKey reads what tells a timeseries value from another: its
// timestampMillis, which DataHub requires (TimeseriesAspectBase), and its
// partition: eventGranularity, messageId and partitionSpec as canonical
// JSON (TimeseriesAspectTransformer.getDocId).
func timeseriesKey(aspect string, value json.RawMessage) (int64, string, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(value, &fields); err != nil {
		return 0, "", Errorf(EBADREQUEST, "aspect value must be a JSON object in a string")
	}
	raw, ok := fields["timestampMillis"]
	if !ok {
		return 0, "", Errorf(EUNPROCESSABLE, "aspect %s: the field \"timestampMillis\" is required", aspect)
	}
	ts, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64)
	if err != nil {
		return 0, "", Errorf(EUNPROCESSABLE, "aspect %s: field \"timestampMillis\" must be a whole number of milliseconds since the epoch", aspect)
	}
	partition := map[string]any{}
	for _, k := range []string{"eventGranularity", "messageId", "partitionSpec"} {
		if v, ok := fields[k]; ok && string(v) != "null" {
			var decoded any
			if err := json.Unmarshal(v, &decoded); err != nil {
				return 0, "", Errorf(EBADREQUEST, "aspect value must be a JSON object in a string")
			}
			partition[k] = decoded
		}
	}
	if len(partition) == 0 {
		return ts, "", nil
	}
	canonical, err := json.Marshal(partition)
	if err != nil {
		return 0, "", err
	}
	return ts, string(canonical), nil
}
