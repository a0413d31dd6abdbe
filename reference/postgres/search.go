package postgres

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/catalogspec/catalogspec/reference"
)

// Search and filter conditions in SQL. An entity is found by its key
// aspect's row (the index aspects_by_type), its other aspects read by the
// primary key; each search field (reference.SearchFields) is a set of text
// values read from them with a jsonpath, and each condition
// (reference.Criterion) a test of that set, as reference.SearchDocument and
// Criterion.Matches apply them in Go. URNs are ordered bytewise (COLLATE
// "C"), as Go compares strings, so that a scroll id means the same to both.

// sqlArgs collects a statement's parameters.
type sqlArgs struct{ list []any }

// add binds v and returns its placeholder.
func (a *sqlArgs) add(v any) string {
	a.list = append(a.list, v)
	return fmt.Sprintf("$%d", len(a.list))
}

// isNumber tests a text value x for a number PostgreSQL can cast.
const isNumber = `x ~ '^\s*-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?\s*$'`

// criterionSQL is the SQL of c over the values that set (a query whose
// one column is x) gives: true when any value passes (for EXISTS, when
// there is one), negated when c is.
func criterionSQL(set string, c reference.Criterion, args *sqlArgs) string {
	trimmed := make([]string, len(c.Values))
	lower := make([]string, len(c.Values))
	for i, v := range c.Values {
		trimmed[i] = strings.TrimSpace(v)
		lower[i] = strings.ToLower(trimmed[i])
	}
	var test string
	switch c.Condition {
	case reference.CondExists:
		test = "true"
	case reference.CondIEqual:
		test = `lower(x) = ANY(` + args.add(lower) + `::text[])`
	case reference.CondContain:
		test = `EXISTS (SELECT 1 FROM unnest(` + args.add(lower) + `::text[]) w WHERE strpos(lower(x), w) > 0)`
	case reference.CondStartWith:
		test = `EXISTS (SELECT 1 FROM unnest(` + args.add(lower) + `::text[]) w WHERE left(lower(x), length(w)) = w)`
	case reference.CondEndWith:
		test = `EXISTS (SELECT 1 FROM unnest(` + args.add(lower) + `::text[]) w WHERE right(lower(x), length(w)) = w)`
	case reference.CondGreaterThan, reference.CondGreaterOrEqual, reference.CondLessThan, reference.CondLessOrEqual:
		op := map[string]string{reference.CondGreaterThan: ">", reference.CondGreaterOrEqual: ">=", reference.CondLessThan: "<", reference.CondLessOrEqual: "<="}[c.Condition]
		test = isNumber + ` AND x::numeric ` + op + ` ` + args.add(trimmed[0]) + `::numeric`
	default: // EQUAL
		if c.Numeric {
			test = isNumber + ` AND x::numeric = ANY(` + args.add(trimmed) + `::numeric[])`
		} else {
			test = `x = ANY(` + args.add(c.Values) + `::text[])`
		}
	}
	sql := `EXISTS (SELECT 1 FROM (` + set + `) s WHERE ` + test + `)`
	if c.Negated {
		return `NOT ` + sql
	}
	return sql
}

// topLevelSet is the value of an aspect's top-level field, as text.
func topLevelSet(field string, args *sqlArgs) string {
	return `SELECT x FROM (SELECT value ->> ` + args.add(field) + `::text) v(x) WHERE x IS NOT NULL`
}

// jsonPath writes a path of reference.SearchablePath as a jsonpath.
func jsonPath(path []string) string {
	var b strings.Builder
	b.WriteString("$")
	for _, p := range path {
		if p == "*" {
			b.WriteString("[*]")
			continue
		}
		b.WriteString(`."` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(p) + `"`)
	}
	return b.String()
}

// fieldSet is the SQL of a search field's values for the entity k (its
// key aspect's row) whose other aspects are the object d.doc.
func fieldSet(field string, args *sqlArgs) string {
	if field == "urn" {
		return `SELECT k.urn AS x`
	}
	paths, ok := reference.SearchFields[field]
	if !ok {
		return `SELECT NULL::text AS x WHERE false`
	}
	parts := make([]string, 0, len(paths))
	for _, p := range paths {
		base := `k.value`
		if p.Aspect != "" {
			base = `(d.doc -> ` + args.add(p.Aspect) + `::text)`
		}
		if p.KeyValues {
			at := base + ` #> ` + args.add(p.Path) + `::text[]`
			parts = append(parts, `SELECT e.key || '=' || e.value AS x FROM jsonb_each_text(CASE WHEN jsonb_typeof(`+at+`) = 'object' THEN `+at+` END) e`)
			continue
		}
		parts = append(parts, `SELECT v #>> '{}' AS x FROM jsonb_path_query(`+base+`, `+args.add(jsonPath(p.Path))+`::jsonpath) v WHERE jsonb_typeof(v) NOT IN ('object', 'array', 'null')`)
	}
	return strings.Join(parts, " UNION ALL ")
}

// docAspects are the aspects the fields read, besides the key.
func docAspects(fields []string) []string {
	var out []string
	for _, f := range fields {
		for _, p := range reference.SearchFields[f] {
			if p.Aspect != "" && !slices.Contains(out, p.Aspect) {
				out = append(out, p.Aspect)
			}
		}
	}
	return out
}

// SearchEntities answers one page of a search: the matches after q.After
// in URN order, Count of them (all when 0), with how many match in all.
func (db *DB) SearchEntities(ctx context.Context, q reference.SearchQuery) (reference.SearchPage, error) {
	ctx, cancel := db.bound(ctx)
	defer cancel()
	var page reference.SearchPage
	if len(q.Types) == 0 {
		return page, nil
	}
	args := &sqlArgs{}
	types, keys := make([]string, len(q.Types)), make([]string, len(q.Types))
	for i, t := range q.Types {
		types[i], keys[i] = t, q.Keys[t]
	}
	fields := map[string]bool{}
	for _, and := range q.Or {
		for _, c := range and {
			fields[c.Field] = true
		}
	}
	if len(q.Terms) > 0 {
		fields["name"], fields["qualifiedName"], fields["description"] = true, true, true
	}
	where := []string{`k.entity_type = t.entity_type`}
	if !q.MadeBy.IsZero() {
		where = append(where, `k.created_at <= `+args.add(q.MadeBy))
	}
	if len(q.Or) > 0 {
		var ors []string
		for _, and := range q.Or {
			conj := []string{"true"}
			for _, c := range and {
				conj = append(conj, criterionSQL(fieldSet(c.Field, args), c, args))
			}
			ors = append(ors, "("+strings.Join(conj, " AND ")+")")
		}
		where = append(where, "("+strings.Join(ors, " OR ")+")")
	}
	for _, term := range q.Terms {
		var sets []string
		for _, f := range []string{"urn", "name", "qualifiedName", "description"} {
			sets = append(sets, fieldSet(f, args))
		}
		where = append(where, `EXISTS (SELECT 1 FROM (`+strings.Join(sets, " UNION ALL ")+`) s WHERE strpos(lower(x), `+args.add(strings.ToLower(term))+`) > 0)`)
	}
	doc := `NULL::jsonb AS doc`
	if names := docAspects(slices.Sorted(maps.Keys(fields))); len(names) > 0 {
		doc = `(SELECT jsonb_object_agg(a.aspect, a.value) FROM aspects a WHERE a.urn = k.urn AND a.aspect = ANY(` + args.add(names) + `::text[])) AS doc`
	}
	matches := `SELECT k.urn, k.created_at FROM aspects k
		JOIN unnest(` + args.add(types) + `::text[], ` + args.add(keys) + `::text[]) t(entity_type, aspect) ON k.aspect = t.aspect
		CROSS JOIN LATERAL (SELECT ` + doc + `) d
		WHERE ` + strings.Join(where, " AND ")
	pageSQL := `SELECT urn, created_at, 0 FROM m WHERE urn COLLATE "C" > ` + args.add(q.After) + ` ORDER BY urn COLLATE "C"`
	if q.Count > 0 {
		pageSQL += ` LIMIT ` + args.add(q.Count+1)
	}
	sql := `WITH m AS MATERIALIZED (` + matches + `)
		SELECT NULL, NULL, count(*) FROM m
		UNION ALL (` + pageSQL + `)`
	rows, err := db.pool.Query(ctx, sql, args.list...)
	if err != nil {
		return page, translate(err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			urn   *string
			at    *time.Time
			total int
		)
		if err := rows.Scan(&urn, &at, &total); err != nil {
			return page, translate(err)
		}
		if urn == nil {
			page.Total = total
			continue
		}
		u, err := reference.ParseURN(*urn)
		if err != nil {
			return page, fmt.Errorf("stored urn %q: %w", *urn, err)
		}
		page.Hits = append(page.Hits, reference.SearchHit{URN: u, MadeAt: *at})
	}
	if err := rows.Err(); err != nil {
		return page, translate(err)
	}
	if q.Count > 0 && len(page.Hits) > q.Count {
		page.Hits, page.More = page.Hits[:q.Count], true
	}
	return page, nil
}
