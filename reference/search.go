package reference

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Search by filter, as DataHub's GraphQL scrollAcrossEntities answers it
// (datahub-graphql-core/.../resolvers/search/ScrollAcrossEntitiesResolver.java
// at commit 7e93355), which DataHub's SDK pages through for
// get_urns_by_filter (ingestion/graph/client.py) and the CLI for `datahub
// delete --platform/--entity-type/--env/--query`: entity types, a query,
// filters as an OR of ANDs of field conditions, a page size, and a scroll id
// that says where the next page starts. DataHub answers from its search
// index; the reference answers from PostgreSQL, each entity a document of
// the fields below read from its aspects (postgres/search.go), in URN order.

// SearchablePath is where a search field's values are in an entity's
// aspects: the aspect ("" for the entity's key aspect), and the path
// inside it, "*" standing for each element of a list. KeyValues, for a
// map, gives each member as "key=value".
type SearchablePath struct {
	Aspect    string
	Path      []string
	KeyValues bool
}

// propertyAspects are the aspects whose name, description, qualified name
// and custom properties DataHub indexes (each @Searchable in its record).
var propertyAspects = []string{
	"datasetProperties", "editableDatasetProperties", "containerProperties", "editableContainerProperties",
	"dataFlowInfo", "editableDataFlowProperties", "dataJobInfo", "editableDataJobProperties",
	"chartInfo", "editableChartProperties", "dashboardInfo", "editableDashboardProperties",
	"tagProperties", "glossaryTermInfo", "glossaryNodeInfo", "domainProperties", "dataProductProperties",
	"corpUserInfo", "corpUserEditableInfo", "corpGroupInfo", "mlModelProperties", "mlModelGroupProperties",
	"notebookInfo", "dataHubIngestionSourceInfo",
}

func inProperties(path ...string) []SearchablePath {
	out := make([]SearchablePath, len(propertyAspects))
	for i, a := range propertyAspects {
		out[i] = SearchablePath{Aspect: a, Path: path}
	}
	return out
}

// SearchFields are the fields a search filter may name, DataHub's index
// field names (the @Searchable fieldName of each record's field, at commit
// 7e93355: DatasetKey's platform and origin, DataPlatformInstance's
// platform and instance, Status's removed, GlobalTags' tags, ...). "urn"
// is the entity's URN. A filter on a field not here matches nothing, as a
// query on a field an index does not map does.
var SearchFields = map[string][]SearchablePath{
	"platform":         {{Path: []string{"platform"}}, {Aspect: "dataPlatformInstance", Path: []string{"platform"}}},
	"origin":           {{Path: []string{"origin"}}},
	"env":              inProperties("env"),
	"customProperties": func() []SearchablePath { p := inProperties("customProperties"); return setKeyValues(p) }(),
	"removed":          {{Aspect: "status", Path: []string{"removed"}}},
	"platformInstance": {{Aspect: "dataPlatformInstance", Path: []string{"instance"}}},
	"tags":             {{Aspect: "globalTags", Path: []string{"tags", "*", "tag"}}},
	"glossaryTerms":    {{Aspect: "glossaryTerms", Path: []string{"terms", "*", "urn"}}},
	"owners":           {{Aspect: "ownership", Path: []string{"owners", "*", "owner"}}},
	"container":        {{Aspect: "container", Path: []string{"container"}}},
	"domains":          {{Aspect: "domains", Path: []string{"domains", "*"}}},
	"typeNames":        {{Aspect: "subTypes", Path: []string{"typeNames", "*"}}},
	"browsePathV2":     {{Aspect: "browsePathsV2", Path: []string{"path", "*", "urn"}}},
	"name":             append([]SearchablePath{{Path: []string{"name"}}}, inProperties("name")...),
	"qualifiedName":    inProperties("qualifiedName"),
	"description":      inProperties("description"),
}

func setKeyValues(ps []SearchablePath) []SearchablePath {
	for i := range ps {
		ps[i].KeyValues = true
	}
	return ps
}

// textFields are what a query's words are looked for in, besides the URN.
var textFields = []string{"name", "qualifiedName", "description"}

// SearchFieldName is the field a filter names, as DataHub's index knows
// it: "platform.keyword" is the platform.
func SearchFieldName(field string) string { return strings.TrimSuffix(field, ".keyword") }

// SearchQuery is what the store is asked: the entities of Types (each
// known by its key aspect, Keys), whose document matches one of Or's
// conjunctions (any entity when there is none) and holds every word of
// Terms, after the URN After, Count of them (0: all).
type SearchQuery struct {
	Types []string
	Keys  map[string]string
	Or    [][]Criterion
	Terms []string
	After string
	Count int
	// MadeBy, when set, leaves out the entities whose key aspect was
	// written after it: what the search index does not hold yet
	// (SearchLag).
	MadeBy time.Time
}

// SearchHit is one entity found.
type SearchHit struct {
	URN    URN
	MadeAt time.Time
}

// SearchPage is one page of hits, in URN order: Total matches in all,
// More when some come after the page.
type SearchPage struct {
	Hits  []SearchHit
	Total int
	More  bool
}

// SearchInput is a search as scrollAcrossEntities asks for it.
type SearchInput struct {
	Types              []string // entity type names; nil: DataHub's searchable types
	Query              string
	Or                 [][]Criterion
	ScrollID           string
	Count              *int
	IncludeSoftDeleted bool
}

// SearchResult is one page of URNs and where the next starts ("" at the end).
type SearchResult struct {
	URNs         []URN
	NextScrollID string
	Total        int
}

// SearchableEntityTypes are searched when a search names no type:
// DataHub's SearchUtils.SEARCHABLE_ENTITY_TYPES, by entity name.
var SearchableEntityTypes = []string{
	"dataset", "dashboard", "chart", "mlModel", "mlModelGroup", "mlFeatureTable", "mlFeature", "mlPrimaryKey",
	"dataFlow", "dataJob", "glossaryTerm", "glossaryNode", "tag", "role", "corpuser", "corpGroup", "container",
	"domain", "dataProduct", "notebook", "businessAttribute", "schemaField", "application", "document",
}

// Page sizes: with no count, 10 (ScrollAcrossEntitiesResolver's
// DEFAULT_COUNT); at most 1,000, the largest page any GraphQL field of the
// reference serves, which its response budget counts on (graph/budget.go).
// DataHub answers up to SEARCH_SERVICE_LIMIT_RESULTS_MAX (10,000), and 5,000
// for a larger count; its SDK asks for 5,000 (the CLI 3,000) and pages on by
// the scroll id, whatever a page holds.
const (
	searchMaxCount     = 1000
	scrollDefaultCount = 10
)

// scrollPrefix marks a scroll id as the reference's.
const scrollPrefix = "catalogd-scroll-v1:"

func encodeScroll(after string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(scrollPrefix + after))
}

func decodeScroll(id string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(id)
	after, ok := strings.CutPrefix(string(b), scrollPrefix)
	if err != nil || !ok {
		return "", Errorf(EBADREQUEST, "scrollId %s is not one this service gave", Excerpt(id))
	}
	return after, nil
}

// KeyAspectOf is the key aspect of an entity type of DataHub's entity
// registry (registry.go).
func KeyAspectOf(entityType string) (string, bool) {
	spec := lookupEntity(entityType)
	if spec == nil {
		return "", false
	}
	return spec.keyAspect, true
}

// Search answers one page of a search. Any caller signed in may search, as
// in DataHub (its resolver checks no privilege, and its search shows every
// entity unless VIEW_AUTHORIZATION_ENABLED); the reference leaves out what
// the caller may not read (requireRead), so a search shows no one the URN
// of an entity they could not read.
func (s *Service) Search(ctx context.Context, in SearchInput) (*SearchResult, error) {
	caller, err := s.actor(ctx)
	if err != nil {
		return nil, err
	}
	count := scrollDefaultCount
	if in.Count != nil {
		count = *in.Count
	}
	switch {
	case count < 0:
		return nil, Errorf(EBADREQUEST, "count must not be negative")
	case count > searchMaxCount:
		count = searchMaxCount
	}
	after := ""
	if in.ScrollID != "" {
		if after, err = decodeScroll(in.ScrollID); err != nil {
			return nil, err
		}
	}
	types := in.Types
	if types == nil {
		types = SearchableEntityTypes
	}
	q := SearchQuery{Keys: map[string]string{}, After: after, Count: count}
	for _, t := range types {
		if key, ok := KeyAspectOf(t); ok && !slices.Contains(q.Types, t) {
			q.Types = append(q.Types, t)
			q.Keys[t] = key
		}
	}
	for _, and := range in.Or {
		conj := make([]Criterion, 0, len(and)+1)
		for _, c := range and {
			c.Field = SearchFieldName(c.Field)
			if err := CheckCriterion(&c); err != nil {
				return nil, err
			}
			conj = append(conj, c)
		}
		q.Or = append(q.Or, conj)
	}
	if !in.IncludeSoftDeleted {
		// DataHub leaves soft-deleted entities out unless asked.
		notRemoved := Criterion{Field: "removed", Condition: CondEqual, Values: []string{"true"}, Negated: true}
		if len(q.Or) == 0 {
			q.Or = [][]Criterion{{}}
		}
		for i := range q.Or {
			q.Or[i] = append(q.Or[i], notRemoved)
		}
	}
	q.Terms = queryTerms(in.Query)
	out := &SearchResult{URNs: []URN{}}
	if len(q.Types) == 0 {
		return out, nil
	}
	readsAll, err := s.readsAllOf(ctx, caller, q.Types)
	if err != nil {
		return nil, err
	}
	if readsAll {
		// A count of 0 asks for the total alone.
		q.Count = max(count, 1)
		page, err := s.store.SearchEntities(ctx, q)
		if err != nil {
			return nil, err
		}
		out.Total = page.Total
		if count == 0 {
			return out, nil
		}
		for _, h := range page.Hits {
			out.URNs = append(out.URNs, h.URN)
		}
		if page.More && len(page.Hits) > 0 {
			out.NextScrollID = encodeScroll(page.Hits[len(page.Hits)-1].URN.String())
		}
		return out, nil
	}
	// Someone who may not read everything searched: every match is
	// checked, and the page made of those they may read.
	q.After, q.Count = "", 0
	page, err := s.store.SearchEntities(ctx, q)
	if err != nil {
		return nil, err
	}
	var visible []URN
	for _, h := range page.Hits {
		ok, err := s.mayRead(ctx, caller, h.URN)
		if err != nil {
			return nil, err
		}
		if ok {
			visible = append(visible, h.URN)
		}
	}
	out.Total = len(visible)
	start := 0
	for start < len(visible) && after != "" && visible[start].String() <= after {
		start++
	}
	end := min(start+count, len(visible))
	out.URNs = append(out.URNs, visible[start:end]...)
	if end < len(visible) && end > start {
		out.NextScrollID = encodeScroll(visible[end-1].String())
	}
	return out, nil
}

// readsAllOf says whether the caller may read every entity of the types:
// a read privilege that covers a URN no policy can name.
func (s *Service) readsAllOf(ctx context.Context, caller Actor, types []string) (bool, error) {
	for _, t := range types {
		ok, err := s.can(ctx, caller, URN{EntityType: t, ID: "\x00any"}, PrivViewEntityPage, PrivGetEntity, PrivEditEntity, PrivDeleteEntity)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// mayRead is requireRead's rule as a question.
func (s *Service) mayRead(ctx context.Context, caller Actor, urn URN) (bool, error) {
	if caller.URN == urn {
		return true, nil
	}
	return s.can(ctx, caller, urn, PrivViewEntityPage, PrivGetEntity, PrivEditEntity, PrivDeleteEntity)
}

// queryTerms are the words of a search query, each of which an entity's
// URN, name, qualified name or description must hold (in any case): "*"
// and "" ask for everything, quotes and wildcards are dropped. (DataHub
// runs an Elasticsearch query string over many more fields, with stemming.)
func queryTerms(query string) []string {
	var out []string
	for _, w := range strings.Fields(query) {
		w = strings.Trim(w, `"'`)
		w = strings.ReplaceAll(w, "*", "")
		w = strings.ReplaceAll(w, `\/`, "/")
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

// SearchDocument is an entity's search fields, computed in Go from its
// aspects as the store computes them in SQL (for entities a SearchLag
// still lists after their deletion, and for tests that hold the two to
// one another).
func SearchDocument(urn URN, key string, aspects map[string]json.RawMessage) map[string][]string {
	decoded := map[string]any{}
	for name, raw := range aspects {
		var v any
		if json.Unmarshal(raw, &v) == nil {
			decoded[name] = v
		}
	}
	doc := map[string][]string{"urn": {urn.String()}}
	for field, paths := range SearchFields {
		var values []string
		for _, p := range paths {
			aspect := p.Aspect
			if aspect == "" {
				aspect = key
			}
			root, ok := decoded[aspect]
			if !ok {
				continue
			}
			values = append(values, walkSearchPath(root, p.Path, p.KeyValues)...)
		}
		if len(values) > 0 {
			doc[field] = values
		}
	}
	return doc
}

// walkSearchPath collects the values at path, as PostgreSQL's jsonpath
// in lax mode does (a list where a value is expected stands for each of
// its elements).
func walkSearchPath(v any, path []string, keyValues bool) []string {
	if len(path) == 0 {
		if keyValues {
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			var out []string
			for k, e := range m {
				out = append(out, k+"="+scalarText(e))
			}
			return out
		}
		if list, ok := v.([]any); ok {
			var out []string
			for _, e := range list {
				if t, ok := scalar(e); ok {
					out = append(out, t)
				}
			}
			return out
		}
		if t, ok := scalar(v); ok {
			return []string{t}
		}
		return nil
	}
	if list, ok := v.([]any); ok {
		var out []string
		for _, e := range list {
			out = append(out, walkSearchPath(e, path, keyValues)...)
		}
		return out
	}
	if path[0] == "*" {
		return walkSearchPath(v, path[1:], keyValues)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	e, ok := m[path[0]]
	if !ok {
		return nil
	}
	return walkSearchPath(e, path[1:], keyValues)
}

func scalar(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case bool, float64:
		return fmt.Sprint(t), true
	}
	return "", false
}

func scalarText(v any) string {
	if t, ok := scalar(v); ok {
		return t
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// MatchesSearch says whether a search document passes q's conditions and
// words (not its types, position or count).
func MatchesSearch(doc map[string][]string, q SearchQuery) bool {
	if len(q.Or) > 0 && !slices.ContainsFunc(q.Or, func(and []Criterion) bool {
		for _, c := range and {
			values := doc[c.Field]
			if _, known := SearchFields[c.Field]; !known && c.Field != "urn" {
				values = nil
			}
			if !c.Matches(values) {
				return false
			}
		}
		return true
	}) {
		return false
	}
	for _, term := range q.Terms {
		t := strings.ToLower(term)
		found := false
		for _, f := range append([]string{"urn"}, textFields...) {
			if slices.ContainsFunc(doc[f], func(v string) bool { return strings.Contains(strings.ToLower(v), t) }) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
