package postgres

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/catalogspec/catalogspec/reference"
)

const aspectColumns = `urn, aspect, value, created_at, created_by, COALESCE(trace_id, '')`

// scanAspect scans the aspect columns, then any extra columns into extra.
func scanAspect(row pgx.Row, extra ...any) (reference.Aspect, error) {
	var (
		a   reference.Aspect
		urn string
		raw []byte
	)
	if err := row.Scan(append([]any{&urn, &a.Name, &raw, &a.CreatedAt, &a.CreatedBy, &a.TraceID}, extra...)...); err != nil {
		return reference.Aspect{}, err
	}
	u, err := reference.ParseURN(urn)
	if err != nil {
		return reference.Aspect{}, fmt.Errorf("stored urn %q: %w", urn, err)
	}
	a.URN, a.Value = u, json.RawMessage(raw)
	return a, nil
}

// Aspects returns every aspect of urn.
func (db *DB) Aspects(ctx context.Context, urn reference.URN) ([]reference.Aspect, error) {
	ctx, cancel := db.bound(ctx)
	defer cancel()
	rows, err := db.pool.Query(ctx, `SELECT `+aspectColumns+` FROM aspects WHERE urn = $1 ORDER BY created_at, aspect`, urn.String())
	if err != nil {
		return nil, translate(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (reference.Aspect, error) {
		a, err := scanAspect(r)
		if err == nil {
			// A read the caller asked for stops at its read budget.
			err = reference.ChargeRead(ctx, reference.AspectBytes(a))
		}
		return a, err
	})
	return out, translate(err)
}

// Aspect returns one aspect, ENOTFOUND when absent.
func (db *DB) Aspect(ctx context.Context, urn reference.URN, name string) (reference.Aspect, error) {
	ctx, cancel := db.bound(ctx)
	defer cancel()
	row := db.pool.QueryRow(ctx, `SELECT `+aspectColumns+` FROM aspects WHERE urn = $1 AND aspect = $2`, urn.String(), name)
	a, err := scanAspect(row)
	if err == nil {
		err = reference.ChargeRead(ctx, reference.AspectBytes(a))
	}
	return a, translate(err)
}

const insertAspect = `INSERT INTO aspects (urn, entity_type, aspect, value, created_at, created_by, trace_id) VALUES ($1, $2, $3, $4, $5, $6, NULLIF($7, ''))`

func aspectArgs(a reference.Aspect) []any {
	return []any{a.URN.String(), a.URN.EntityType, a.Name, []byte(a.Value), a.CreatedAt, a.CreatedBy, a.TraceID}
}

// CreateEntity writes a new entity's aspects in one statement (one round
// trip, one transaction): ECONFLICT, and nothing written, when any exists.
func (db *DB) CreateEntity(ctx context.Context, aspects []reference.Aspect) error {
	ctx, cancel := db.bound(ctx)
	defer cancel()
	_, err := db.pool.Exec(ctx, insertAspects, aspectArrays(aspects)...)
	return translate(err)
}

// aspectArrays are aspects as the columns of an unnest, for writing many
// in one statement.
func aspectArrays(aspects []reference.Aspect) []any {
	urns, types, names := make([]string, len(aspects)), make([]string, len(aspects)), make([]string, len(aspects))
	values, at, by := make([][]byte, len(aspects)), make([]time.Time, len(aspects)), make([]string, len(aspects))
	traces := make([]string, len(aspects))
	for i, a := range aspects {
		urns[i], types[i], names[i] = a.URN.String(), a.URN.EntityType, a.Name
		values[i], at[i], by[i], traces[i] = []byte(a.Value), a.CreatedAt, a.CreatedBy, a.TraceID
	}
	return []any{urns, types, names, values, at, by, traces}
}

const insertAspects = `INSERT INTO aspects (urn, entity_type, aspect, value, created_at, created_by, trace_id)
	SELECT u, t, n, v, a, b, NULLIF(tr, '') FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::timestamptz[], $6::text[], $7::text[]) AS x(u, t, n, v, a, b, tr)`

// WriteAspects inserts the keys that are missing, upserts the rest and
// the timeseries values, in one transaction: a batch of proposals is
// written whole or not at all.
func (db *DB) WriteAspects(ctx context.Context, upserts, keys []reference.Aspect, series []reference.TimeseriesValue) error {
	ctx, cancel := db.bound(ctx)
	defer cancel()
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return translate(err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	for _, keys := range statementChunks(keys) {
		if _, err := tx.Exec(ctx, insertAspects+` ON CONFLICT (urn, aspect) DO NOTHING`, aspectArrays(keys)...); err != nil {
			return translate(err)
		}
	}
	for _, upserts := range statementChunks(upserts) {
		if _, err := tx.Exec(ctx, insertAspects+`
		ON CONFLICT (urn, aspect) DO UPDATE SET value = EXCLUDED.value, created_at = EXCLUDED.created_at, created_by = EXCLUDED.created_by, trace_id = EXCLUDED.trace_id`,
			aspectArrays(upserts)...); err != nil {
			return translate(err)
		}
	}
	if len(series) > 0 {
		if _, err := tx.Exec(ctx, upsertTimeseries, timeseriesArrays(series)...); err != nil {
			return translate(err)
		}
	}
	return translate(tx.Commit(ctx))
}

// statementBytes bounds the values one statement of a write carries: pgx
// builds a statement's whole message in memory, growing its buffers by
// doubling, so that one statement of 15 MB of values allocated some 120 MB
// (issue 29); the statements of a write share its transaction.
const statementBytes = 1 << 20

// statementChunks splits aspects into runs of at most statementBytes of
// values, each of one aspect at least.
func statementChunks(as []reference.Aspect) [][]reference.Aspect {
	var out [][]reference.Aspect
	for len(as) > 0 {
		n, size := 0, 0
		for n < len(as) && (n == 0 || size+len(as[n].Value) <= statementBytes) {
			size += len(as[n].Value)
			n++
		}
		out = append(out, as[:n])
		as = as[n:]
	}
	return out
}

// UpsertAspect writes an aspect, replacing one of the same name.
func (db *DB) UpsertAspect(ctx context.Context, a reference.Aspect) error {
	ctx, cancel := db.bound(ctx)
	defer cancel()
	_, err := db.pool.Exec(ctx, insertAspect+`
		ON CONFLICT (urn, aspect) DO UPDATE SET value = EXCLUDED.value, created_at = EXCLUDED.created_at, created_by = EXCLUDED.created_by, trace_id = EXCLUDED.trace_id`,
		aspectArgs(a)...)
	return translate(err)
}

// ReplaceAspect replaces an existing aspect, ENOTFOUND when absent.
func (db *DB) ReplaceAspect(ctx context.Context, a reference.Aspect) error {
	ctx, cancel := db.bound(ctx)
	defer cancel()
	tag, err := db.pool.Exec(ctx, `UPDATE aspects SET value = $3, created_at = $4, created_by = $5, trace_id = NULLIF($6, '') WHERE urn = $1 AND aspect = $2`,
		a.URN.String(), a.Name, []byte(a.Value), a.CreatedAt, a.CreatedBy, a.TraceID)
	if err != nil {
		return translate(err)
	}
	if tag.RowsAffected() == 0 {
		return reference.Errorf(reference.ENOTFOUND, "not found")
	}
	return nil
}

// DeleteEntity removes every aspect of urn, its timeseries values
// included, in one transaction.
func (db *DB) DeleteEntity(ctx context.Context, urn reference.URN) (bool, error) {
	ctx, cancel := db.bound(ctx)
	defer cancel()
	var found bool
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM aspects WHERE urn = $1`, urn.String())
		if err != nil {
			return err
		}
		series, err := tx.Exec(ctx, `DELETE FROM timeseries_aspects WHERE urn = $1`, urn.String())
		found = tag.RowsAffected() > 0 || series.RowsAffected() > 0
		return err
	})
	if err != nil {
		return false, translate(err)
	}
	return found, nil
}

// ListAspects returns the aspects matching f, newest first, and the total.
// Field names are bound as parameters, never spliced into the SQL.
func (db *DB) ListAspects(ctx context.Context, f reference.Filter) ([]reference.Aspect, int, error) {
	ctx, cancel := db.bound(ctx)
	defer cancel()
	where := ` FROM aspects WHERE entity_type = $1 AND aspect = $2`
	args := []any{f.EntityType, f.Aspect}
	fields := make([]string, 0, len(f.Where))
	for field := range f.Where {
		fields = append(fields, field)
	}
	sort.Strings(fields)
	for _, field := range fields {
		args = append(args, field, f.Where[field])
		where += fmt.Sprintf(` AND value ->> $%d = ANY($%d)`, len(args)-1, len(args))
	}
	for _, field := range slices.Sorted(maps.Keys(f.Not)) {
		args = append(args, field, f.Not[field])
		where += fmt.Sprintf(` AND (value ->> $%d IS NULL OR NOT (value ->> $%d = ANY($%d)))`, len(args)-1, len(args)-1, len(args))
	}
	for _, field := range slices.Sorted(maps.Keys(f.Contains)) {
		args = append(args, field, f.Contains[field])
		where += fmt.Sprintf(` AND strpos(lower(value ->> $%d), lower($%d)) > 0`, len(args)-1, len(args))
	}
	sa := &sqlArgs{list: args} // search.go
	for _, c := range f.Criteria {
		where += ` AND ` + criterionSQL(topLevelSet(c.Field, sa), c, sa)
	}
	args = sa.list
	filterArgs := args[:len(args):len(args)] // the filter alone, for the count below
	sql := `SELECT ` + aspectColumns + `, count(*) OVER ()` + where
	sql += ` ORDER BY created_at DESC, urn`
	if f.Count > 0 {
		args = append(args, f.Count)
		sql += fmt.Sprintf(` LIMIT $%d`, len(args))
	}
	if f.Start > 0 {
		args = append(args, f.Start)
		sql += fmt.Sprintf(` OFFSET $%d`, len(args))
	}
	rows, err := db.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, 0, translate(err)
	}
	defer rows.Close()
	var (
		out   []reference.Aspect
		total int
	)
	for rows.Next() {
		a, err := scanAspect(rows, &total)
		if err == nil {
			err = reference.ChargeRead(ctx, reference.AspectBytes(a))
		}
		if err != nil {
			return nil, 0, translate(err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, translate(err)
	}
	if len(out) == 0 && f.Start > 0 {
		// A page past the end has no row to carry the window count.
		if err := db.pool.QueryRow(ctx, `SELECT count(*)`+where, filterArgs...).Scan(&total); err != nil {
			return nil, 0, translate(err)
		}
	}
	return out, total, nil
}

// Secret returns the named secret, generating it on first use. Replicas
// racing on first use all end up with the value that was stored first.
func (db *DB) Secret(ctx context.Context, name string, generate func() ([]byte, error)) ([]byte, error) {
	ctx, cancel := db.bound(ctx)
	defer cancel()
	var v []byte
	err := db.pool.QueryRow(ctx, `SELECT value FROM secrets WHERE name = $1`, name).Scan(&v)
	if err == nil {
		return v, nil
	}
	if err != pgx.ErrNoRows {
		return nil, translate(err)
	}
	if generate == nil {
		generate = func() ([]byte, error) {
			b := make([]byte, 32)
			_, err := rand.Read(b)
			return b, err
		}
	}
	fresh, err := generate()
	if err != nil {
		return nil, err
	}
	if _, err := db.pool.Exec(ctx, `INSERT INTO secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, name, fresh); err != nil {
		return nil, translate(err)
	}
	err = db.pool.QueryRow(ctx, `SELECT value FROM secrets WHERE name = $1`, name).Scan(&v)
	return v, translate(err)
}
