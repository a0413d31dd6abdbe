package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/catalogspec/catalogspec/reference"
)

// Timeseries values (migration 006): every value of an entity's
// timeseries aspect, keyed by its time and partition.

// upsertTimeseries writes values, each replacing the one of the same
// entity, aspect, time and partition.
const upsertTimeseries = `INSERT INTO timeseries_aspects (urn, entity_type, aspect, timestamp_millis, partition_key, value, created_at, created_by, trace_id)
	SELECT u, t, n, ts, p, v, a, b, NULLIF(tr, '') FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::jsonb[], $7::timestamptz[], $8::text[], $9::text[]) AS x(u, t, n, ts, p, v, a, b, tr)
	ON CONFLICT (urn, aspect, timestamp_millis, partition_key) DO UPDATE SET value = EXCLUDED.value, created_at = EXCLUDED.created_at, created_by = EXCLUDED.created_by, trace_id = EXCLUDED.trace_id`

// timeseriesArrays are values as the columns of upsertTimeseries' unnest.
func timeseriesArrays(vs []reference.TimeseriesValue) []any {
	n := len(vs)
	urns, types, names, parts, by, traces := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	times, values, at := make([]int64, n), make([][]byte, n), make([]time.Time, n)
	for i, v := range vs {
		urns[i], types[i], names[i], parts[i] = v.URN.String(), v.URN.EntityType, v.Name, v.Partition
		times[i], values[i], at[i], by[i], traces[i] = v.TimestampMillis, []byte(v.Value), v.CreatedAt, v.CreatedBy, v.TraceID
	}
	return []any{urns, types, names, times, parts, values, at, by, traces}
}

// comparisons are the conditions that compare a number, with their SQL.
var comparisons = map[string]string{
	"GREATER_THAN": ">", "GREATER_THAN_OR_EQUAL_TO": ">=", "LESS_THAN": "<", "LESS_THAN_OR_EQUAL_TO": "<=",
}

// TimeseriesValues returns the values q selects. Field names and values
// are bound as parameters, never spliced into the SQL.
func (db *DB) TimeseriesValues(ctx context.Context, q reference.TimeseriesQuery) ([]reference.TimeseriesValue, error) {
	ctx, cancel := db.bound(ctx)
	defer cancel()
	args := []any{q.URN.String(), q.Aspect}
	where := `urn = $1 AND aspect = $2`
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	if q.Start != nil {
		where += ` AND timestamp_millis >= ` + arg(*q.Start)
	}
	if q.End != nil {
		where += ` AND timestamp_millis <= ` + arg(*q.End)
	}
	if q.TraceID != "" {
		where += ` AND trace_id = ` + arg(q.TraceID)
	}
	if len(q.Filter) > 0 {
		var anyOf []string
		for _, conj := range q.Filter {
			all := []string{"TRUE"}
			for _, c := range conj {
				cond, err := criterionSQL(c, arg)
				if err != nil {
					return nil, err
				}
				all = append(all, cond)
			}
			anyOf = append(anyOf, "("+strings.Join(all, " AND ")+")")
		}
		where += ` AND (` + strings.Join(anyOf, " OR ") + `)`
	}
	order := `DESC`
	if q.Ascending {
		order = `ASC`
	}
	sql := `SELECT urn, aspect, timestamp_millis, partition_key, value, created_at, created_by, COALESCE(trace_id, '')
		FROM timeseries_aspects WHERE ` + where + ` ORDER BY timestamp_millis ` + order + `, created_at ` + order + ` LIMIT ` + arg(q.Limit)
	rows, err := db.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, translate(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (reference.TimeseriesValue, error) {
		var (
			v   reference.TimeseriesValue
			urn string
			raw []byte
		)
		if err := r.Scan(&urn, &v.Name, &v.TimestampMillis, &v.Partition, &raw, &v.CreatedAt, &v.CreatedBy, &v.TraceID); err != nil {
			return v, err
		}
		u, err := reference.ParseURN(urn)
		if err != nil {
			return v, fmt.Errorf("stored urn %q: %w", urn, err)
		}
		v.URN, v.Value = u, json.RawMessage(raw)
		return v, nil
	})
	return out, translate(err)
}

// criterionSQL is one criterion as a condition on a row: timestampMillis
// is the column; any other field is the value's top-level field of that
// name, compared as text (EQUAL) or as a number (the comparisons).
func criterionSQL(c reference.Criterion, arg func(any) string) (string, error) {
	// Each placeholder is bound only where it is used: Postgres cannot
	// type one the statement never uses.
	text := func() string { return `(value ->> ` + arg(c.Field) + `)` }
	number := func() string {
		f := arg(c.Field)
		return `(CASE WHEN jsonb_typeof(value -> ` + f + `) = 'number' THEN (value ->> ` + f + `)::numeric END)`
	}
	if c.Field == "timestampMillis" {
		text = func() string { return `timestamp_millis::text` }
		number = func() string { return `timestamp_millis::numeric` }
	}
	var cond string
	switch c.Condition {
	case "EQUAL":
		cond = `COALESCE(` + text() + ` = ANY(` + arg(c.Values) + `), FALSE)`
	case "EXISTS":
		cond = `(` + text() + ` IS NOT NULL)`
	default:
		op, ok := comparisons[c.Condition]
		if !ok || len(c.Values) != 1 {
			return "", reference.Errorf(reference.EBADREQUEST, "condition %s cannot be used here", reference.Excerpt(c.Condition))
		}
		cond = `COALESCE(` + number() + ` ` + op + ` ` + arg(c.Values[0]) + `::numeric, FALSE)`
	}
	if c.Negated {
		cond = `NOT ` + cond
	}
	return cond, nil
}
