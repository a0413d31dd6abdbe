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

// TimeseriesValues returns the values q selects. Field names and values
// are bound as parameters, never spliced into the SQL; each criterion is
// judged as the search judges one (criterionSQL, search.go), over the
// value's top-level field of its name, or over timestampMillis.
func (db *DB) TimeseriesValues(ctx context.Context, q reference.TimeseriesQuery) ([]reference.TimeseriesValue, error) {
	ctx, cancel := db.bound(ctx)
	defer cancel()
	args := &sqlArgs{}
	where := `urn = ` + args.add(q.URN.String()) + ` AND aspect = ` + args.add(q.Aspect)
	if q.Start != nil {
		where += ` AND timestamp_millis >= ` + args.add(*q.Start)
	}
	if q.End != nil {
		where += ` AND timestamp_millis <= ` + args.add(*q.End)
	}
	if q.TraceID != "" {
		where += ` AND trace_id = ` + args.add(q.TraceID)
	}
	if len(q.Filter) > 0 {
		var anyOf []string
		for _, conj := range q.Filter {
			all := []string{"TRUE"}
			for _, c := range conj {
				set := `SELECT timestamp_millis::text AS x`
				if c.Field != "timestampMillis" {
					set = topLevelSet(c.Field, args)
				}
				all = append(all, criterionSQL(set, c, args))
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
		FROM timeseries_aspects WHERE ` + where + ` ORDER BY timestamp_millis ` + order + `, created_at ` + order + ` LIMIT ` + args.add(q.Limit)
	rows, err := db.pool.Query(ctx, sql, args.list...)
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
		// A read the caller asked for stops at its read budget.
		return v, reference.ChargeRead(ctx, len(raw)+len(urn)+len(v.Name)+len(v.Partition)+len(v.CreatedBy)+64)
	})
	return out, translate(err)
}

// DeleteTimeseries removes urn's values of aspect within [start, end].
func (db *DB) DeleteTimeseries(ctx context.Context, urn reference.URN, aspect string, start, end *int64) (int, error) {
	ctx, cancel := db.bound(ctx)
	defer cancel()
	tag, err := db.pool.Exec(ctx, `DELETE FROM timeseries_aspects WHERE urn = $1 AND aspect = $2
		AND ($3::bigint IS NULL OR timestamp_millis >= $3) AND ($4::bigint IS NULL OR timestamp_millis <= $4)`, urn.String(), aspect, start, end)
	if err != nil {
		return 0, translate(err)
	}
	return int(tag.RowsAffected()), nil
}

// CountTimeseries says how many timeseries values urn has.
func (db *DB) CountTimeseries(ctx context.Context, urn reference.URN) (int, error) {
	ctx, cancel := db.bound(ctx)
	defer cancel()
	var n int
	err := db.pool.QueryRow(ctx, `SELECT count(*) FROM timeseries_aspects WHERE urn = $1`, urn.String()).Scan(&n)
	return n, translate(err)
}
