package sdkclient

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Search by filter and token listing by condition, as DataHub's SDK sends
// them through execute_graphql: get_urns_by_filter
// (ingestion/graph/client.py, with generate_filter of
// ingestion/graph/filters.py) paging with _scroll_across_entities, and
// datahub-gc's _get_expired_tokens and _revoke_token
// (ingestion/source/gc/datahub_gc.py).

// ScrollURNsQuery is get_urns_by_filter's document, as textwrap.dedent
// leaves it.
const ScrollURNsQuery = "\nquery scrollUrnsWithFilters(\n    $types: [EntityType!],\n    $query: String!,\n    $orFilters: [AndFilterInput!],\n    $batchSize: Int!,\n    $scrollId: String,\n    $skipCache: Boolean!,\n    $includeSoftDeleted: Boolean) {\n\n    scrollAcrossEntities(input: {\n        query: $query,\n        count: $batchSize,\n        scrollId: $scrollId,\n        types: $types,\n        orFilters: $orFilters,\n        searchFlags: {\n            skipHighlighting: true\n            skipAggregates: true\n            skipCache: $skipCache\n            includeSoftDeleted: $includeSoftDeleted\n        }\n    }) {\n        nextScrollId\n        searchResults {\n            entity {\n                urn\n            }\n        }\n    }\n}\n"

// RemovedStatus is RemovedStatusFilter (ingestion/graph/filters.py).
type RemovedStatus string

const (
	StatusNotSoftDeleted  RemovedStatus = "NOT_SOFT_DELETED" // the default
	StatusAll             RemovedStatus = "ALL"
	StatusOnlySoftDeleted RemovedStatus = "ONLY_SOFT_DELETED"
	// StatusNone is status=None: no filter, and includeSoftDeleted null.
	StatusNone RemovedStatus = "-"
)

// Filter is get_urns_by_filter's arguments (those the CLI and this client
// use).
type Filter struct {
	EntityTypes []string // entity names or GraphQL enum values; nil: every type
	Platforms   []string // names (hive) or URNs
	Env         string
	Query       string
	Status      RemovedStatus // "": NOT_SOFT_DELETED
	BatchSize   int           // 0: 5000
	SkipCache   bool
}

// EntityTypeToGraphQL is entity_type_to_graphql (ingestion/graph/client.py).
func EntityTypeToGraphQL(entityType string) string {
	special := map[string]string{"corpuser": "CORP_USER", "mlModel": "MLMODEL", "mlModelGroup": "MLMODEL_GROUP",
		"mlFeatureTable": "MLFEATURE_TABLE", "mlFeature": "MLFEATURE", "mlPrimaryKey": "MLPRIMARY_KEY"}
	if s, ok := special[entityType]; ok {
		return s
	}
	var b strings.Builder
	for _, r := range entityType {
		if unicode.IsUpper(r) {
			b.WriteString("_" + string(unicode.ToLower(r)))
		} else {
			b.WriteRune(r)
		}
	}
	s := strings.ToUpper(strings.TrimLeft(b.String(), "_"))
	return strings.TrimPrefix(s, "DATA_HUB_")
}

// flexibleEntityType is flexible_entity_type_to_graphql.
func flexibleEntityType(t string) string {
	if strings.ToUpper(t) == t {
		return t
	}
	return EntityTypeToGraphQL(t)
}

// PlatformURN is make_data_platform_urn.
func PlatformURN(platform string) string {
	if strings.HasPrefix(platform, "urn:li:dataPlatform:") {
		return platform
	}
	return "urn:li:dataPlatform:" + platform
}

// OrFilters is generate_filter (ingestion/graph/filters.py) for the
// platform, env and status arguments: one conjunction, multiplied by the
// four places an environment may be kept.
func OrFilters(f Filter) []any {
	var and []any
	if len(f.Platforms) > 0 {
		urns := make([]any, len(f.Platforms))
		for i, p := range f.Platforms {
			urns[i] = PlatformURN(p)
		}
		and = append(and, Obj{{"field", "platform.keyword"}, {"condition", "EQUAL"}, {"values", urns}})
	}
	switch f.Status {
	case "", StatusNotSoftDeleted:
		and = append(and, Obj{{"field", "removed"}, {"condition", "EQUAL"}, {"values", []any{"true"}}, {"negated", true}})
	case StatusOnlySoftDeleted:
		and = append(and, Obj{{"field", "removed"}, {"condition", "EQUAL"}, {"values", []any{"true"}}})
	}
	if and == nil {
		and = []any{}
	}
	ors := []any{Obj{{"and", and}}}
	if f.Env != "" {
		envs := []Obj{
			{{"field", "origin"}, {"values", []any{f.Env}}, {"condition", "EQUAL"}},
			{{"field", "customProperties"}, {"values", []any{"env=" + f.Env}}},
			{{"field", "customProperties"}, {"values", []any{"instance=" + f.Env}}},
			{{"field", "env"}, {"values", []any{f.Env}}},
		}
		ors = nil
		for _, e := range envs {
			conj := append(append([]any{}, and...), e)
			ors = append(ors, Obj{{"and", conj}})
		}
	}
	return ors
}

// ScrollVariables are get_urns_by_filter's variables, before
// _scroll_across_entities adds scrollId.
func ScrollVariables(f Filter) Obj {
	var types any
	if f.EntityTypes != nil {
		list := make([]any, len(f.EntityTypes))
		for i, t := range f.EntityTypes {
			list[i] = flexibleEntityType(t)
		}
		types = list
	}
	query := f.Query
	if query == "" {
		query = "*"
	}
	batch := f.BatchSize
	if batch == 0 {
		batch = 5000
	}
	var includeSoftDeleted any
	switch f.Status {
	case StatusNone:
	case "", StatusNotSoftDeleted:
		includeSoftDeleted = false
	default:
		includeSoftDeleted = true
	}
	return Obj{{"types", types}, {"query", query}, {"orFilters", OrFilters(f)}, {"batchSize", batch},
		{"skipCache", f.SkipCache}, {"includeSoftDeleted", includeSoftDeleted}}
}

// ScrollPage is one page of _scroll_across_entities: the URNs and the
// next scroll id ("" when there is none).
type ScrollPage struct {
	URNs     []string
	ScrollID string
}

// ScrollOnce sends one page's request, as _scroll_across_entities does,
// and reads data["scrollAcrossEntities"]["nextScrollId"] and each
// entry["entity"]["urn"] as it reads them.
func (c *Client) ScrollOnce(ctx context.Context, f Filter, scrollID string) (ScrollPage, error) {
	const fn = "DataHubGraph._scroll_across_entities"
	vars := ScrollVariables(f)
	var id any
	if scrollID != "" {
		id = scrollID
	}
	vars = append(vars, Member{"scrollId", id})
	data, err := c.ExecuteGraphQL(ctx, ScrollURNsQuery, vars, "")
	if err != nil {
		return ScrollPage{}, err
	}
	d, err := object(fn, "data", data)
	if err != nil {
		return ScrollPage{}, err
	}
	res, ok := d["scrollAcrossEntities"]
	if !ok {
		return ScrollPage{}, &Error{Kind: "KeyError", Func: fn, Reason: "data has no scrollAcrossEntities"}
	}
	m, err := object(fn, "scrollAcrossEntities", res)
	if err != nil {
		return ScrollPage{}, err
	}
	next, present := m["nextScrollId"]
	if !present {
		return ScrollPage{}, &Error{Kind: "KeyError", Func: fn, Reason: "scrollAcrossEntities has no nextScrollId"}
	}
	var page ScrollPage
	if next != nil {
		s, ok := next.(string)
		if !ok {
			return ScrollPage{}, &Error{Kind: "TypeError", Func: fn, Reason: "nextScrollId is " + kindOf(next)}
		}
		page.ScrollID = s
	}
	results, ok := m["searchResults"].([]any)
	if !ok {
		return ScrollPage{}, &Error{Kind: "TypeError", Func: fn, Reason: "searchResults is not a list"}
	}
	for _, r := range results {
		entry, err := object(fn, "a search result", r)
		if err != nil {
			return ScrollPage{}, err
		}
		entity, err := object(fn, "entity", entry["entity"])
		if err != nil {
			return ScrollPage{}, err
		}
		urn, ok := entity["urn"].(string)
		if !ok {
			return ScrollPage{}, &Error{Kind: "KeyError", Func: fn, Reason: "an entity has no urn"}
		}
		page.URNs = append(page.URNs, urn)
	}
	return page, nil
}

// GetURNsByFilter is DataHubGraph.get_urns_by_filter: every page, while
// the last names a next one.
func (c *Client) GetURNsByFilter(ctx context.Context, f Filter) ([]string, error) {
	if f.EntityTypes != nil && len(f.EntityTypes) == 0 {
		return nil, &Error{Kind: "ValueError", Func: "DataHubGraph.get_urns_by_filter", Reason: "entity_types cannot be an empty list; use None for all entities"}
	}
	var (
		out      []string
		scrollID string
	)
	for first := true; first || scrollID != ""; first = false {
		page, err := c.ScrollOnce(ctx, f, scrollID)
		if err != nil {
			return nil, err
		}
		out = append(out, page.URNs...)
		scrollID = page.ScrollID
	}
	return out, nil
}

// ExpiredTokensQuery and RevokeTokenMutation are datahub-gc's documents.
const (
	ExpiredTokensQuery  = "query listAccessTokens($input: ListAccessTokenInput!) {\n  listAccessTokens(input: $input) {\n    start\n    count\n    total\n    tokens {\n      urn\n      type\n      id\n      name\n      description\n      actorUrn\n      ownerUrn\n      createdAt\n      expiresAt\n      __typename\n    }\n    __typename\n  }\n}\n"
	RevokeTokenMutation = "mutation revokeAccessToken($tokenId: String!) {\n  revokeAccessToken(tokenId: $tokenId)\n}\n"
)

// ExpiredTokensVariables are _get_expired_tokens's variables at now:
// the first ten tokens whose expiresAt is LESS_THAN now in milliseconds.
func ExpiredTokensVariables(now time.Time) Obj {
	return Obj{{"input", Obj{{"start", 0}, {"count", 10}, {"filters", []any{
		Obj{{"field", "expiresAt"}, {"values", []any{strconv.FormatInt(now.UnixMilli(), 10)}}, {"condition", "LESS_THAN"}},
	}}}}}
}

// ExpiredTokens is datahub-gc's _get_expired_tokens at now: the ids of
// the tokens listed and the total, read as revoke_expired_tokens reads
// them (.get("listAccessTokens", {}).get("tokens", []), token["id"]).
func (c *Client) ExpiredTokens(ctx context.Context, now time.Time) ([]string, int, error) {
	const fn = "DataHubGcSource._get_expired_tokens"
	data, err := c.ExecuteGraphQL(ctx, ExpiredTokensQuery, ExpiredTokensVariables(now), "")
	if err != nil {
		return nil, 0, err
	}
	d, err := object(fn, "data", data)
	if err != nil {
		return nil, 0, err
	}
	list, err := getObject(fn, "data", d, "listAccessTokens")
	if err != nil {
		return nil, 0, err
	}
	total, err := intOf(fn, list, "total")
	if err != nil {
		return nil, 0, err
	}
	var ids []string
	if raw, ok := list["tokens"].([]any); ok {
		for _, t := range raw {
			tok, err := object(fn, "a token", t)
			if err != nil {
				return nil, 0, err
			}
			id, ok := tok["id"].(string)
			if !ok {
				return nil, 0, &Error{Kind: "KeyError", Func: fn, Reason: "a token has no id"}
			}
			ids = append(ids, id)
		}
	}
	return ids, total, nil
}

// RevokeExpiredTokens is datahub-gc's revoke_expired_tokens at now: list
// the expired tokens ten at a time and revoke each, until a page is empty.
// It returns how many it revoked.
func (c *Client) RevokeExpiredTokens(ctx context.Context, now time.Time) (int, error) {
	revoked := 0
	for total := 1; total > 0; {
		ids, n, err := c.ExpiredTokens(ctx, now)
		if err != nil {
			return revoked, err
		}
		total = n
		if len(ids) == 0 {
			break // "Due to a server bug we cannot rely on just total"
		}
		for _, id := range ids {
			if _, err := c.ExecuteGraphQL(ctx, RevokeTokenMutation, Obj{{"tokenId", id}}, ""); err != nil {
				return revoked, fmt.Errorf("revoking %s: %w", id, err)
			}
			revoked++
		}
	}
	return revoked, nil
}
