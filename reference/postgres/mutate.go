package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/catalogspec/catalogspec/reference"
)

// updateAttempts bounds how often UpdateAspects starts over when an aspect
// it found absent was written by someone else before it could make it.
const updateAttempts = 5

// errRaced says an aspect read as absent was made meanwhile.
var errRaced = errors.New("an aspect was made while it was being changed")

// UpdateAspects reads the aspects keys names and writes what change makes
// of them, in one transaction. Every caller of UpdateAspects takes a
// transaction-scoped advisory lock on each aspect it names, in one order
// (so two of them never deadlock), whether the aspect is stored or not; the
// rows that are there are read FOR UPDATE, so a plain write waits too. An
// aspect read as absent that another writer makes before this one commits
// makes it start over, change and all.
func (db *DB) UpdateAspects(ctx context.Context, keys []reference.AspectKey, change func([]reference.Aspect) (reference.Change, error)) error {
	ids := make([]string, 0, len(keys))
	for _, k := range keys {
		// An aspect's name has no space: the last one ends the URN.
		ids = append(ids, k.URN.String()+" "+k.Name)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	var err error
	for range updateAttempts {
		err = db.updateOnce(ctx, ids, change)
		if !errors.Is(err, errRaced) {
			return err
		}
	}
	return fmt.Errorf("postgres: %w, %d times", err, updateAttempts)
}

func (db *DB) updateOnce(ctx context.Context, ids []string, change func([]reference.Aspect) (reference.Change, error)) error {
	ctx, cancel := db.bound(ctx)
	defer cancel()
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return translate(err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended(id, 7)) FROM unnest($1::text[]) WITH ORDINALITY AS t(id, n) ORDER BY n`, ids); err != nil {
		return translate(err)
	}
	urns, names := make([]string, len(ids)), make([]string, len(ids))
	for i, id := range ids {
		at := strings.LastIndexByte(id, ' ')
		urns[i], names[i] = id[:at], id[at+1:]
	}
	rows, err := tx.Query(ctx, `SELECT `+aspectColumns+` FROM aspects
		WHERE (urn, aspect) IN (SELECT * FROM unnest($1::text[], $2::text[])) ORDER BY urn, aspect FOR UPDATE`, urns, names)
	if err != nil {
		return translate(err)
	}
	current, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (reference.Aspect, error) { return scanAspect(r) })
	if err != nil {
		return translate(err)
	}
	c, err := change(current)
	if err != nil {
		return err
	}
	stored := map[string]bool{}
	for _, a := range current {
		stored[a.URN.String()+" "+a.Name] = true
	}
	if len(c.Deletes) > 0 {
		du, dn := make([]string, len(c.Deletes)), make([]string, len(c.Deletes))
		for i, d := range c.Deletes {
			du[i], dn[i] = d.URN.String(), d.Name
		}
		if _, err := tx.Exec(ctx, `DELETE FROM aspects WHERE (urn, aspect) IN (SELECT * FROM unnest($1::text[], $2::text[]))`, du, dn); err != nil {
			return translate(err)
		}
	}
	var updates, inserts []reference.Aspect
	for _, a := range c.Upserts {
		if stored[a.URN.String()+" "+a.Name] {
			updates = append(updates, a)
		} else {
			inserts = append(inserts, a)
		}
	}
	if len(updates) > 0 {
		if _, err := tx.Exec(ctx, `UPDATE aspects SET value = u.value, created_at = u.created_at, created_by = u.created_by, trace_id = NULLIF(u.trace_id, '')
			FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::timestamptz[], $6::text[], $7::text[]) AS u(urn, entity_type, aspect, value, created_at, created_by, trace_id)
			WHERE aspects.urn = u.urn AND aspects.aspect = u.aspect`, aspectArrays(updates)...); err != nil {
			return translate(err)
		}
	}
	if len(inserts) > 0 {
		tag, err := tx.Exec(ctx, insertAspects+` ON CONFLICT (urn, aspect) DO NOTHING`, aspectArrays(inserts)...)
		if err != nil {
			return translate(err)
		}
		if tag.RowsAffected() != int64(len(inserts)) {
			return errRaced
		}
	}
	if len(c.Keys) > 0 {
		if _, err := tx.Exec(ctx, insertAspects+` ON CONFLICT (urn, aspect) DO NOTHING`, aspectArrays(c.Keys)...); err != nil {
			return translate(err)
		}
	}
	if len(c.Series) > 0 {
		if _, err := tx.Exec(ctx, upsertTimeseries, timeseriesArrays(c.Series)...); err != nil {
			return translate(err)
		}
	}
	return translate(tx.Commit(ctx))
}

// ReferencingAspects returns the aspects that contain what a probe looks
// for, each probe one containment query the GIN index on the aspects'
// values answers (migration 015).
func (db *DB) ReferencingAspects(ctx context.Context, probes []reference.ReferenceProbe, limit int) ([]reference.Aspect, error) {
	if len(probes) == 0 {
		return nil, nil
	}
	ctx, cancel := db.bound(ctx)
	defer cancel()
	var (
		parts []string
		args  []any
	)
	for _, p := range probes {
		if !identifier(p.Aspect) {
			return nil, fmt.Errorf("postgres: %q is not an aspect name", p.Aspect)
		}
		// The aspect's name is written into the query, so that the planner
		// sees that the partial index covers it.
		args = append(args, []byte(p.Contains))
		parts = append(parts, fmt.Sprintf(`SELECT `+aspectColumns+` FROM aspects WHERE aspect = '%s' AND value @> $%d::jsonb`, p.Aspect, len(args)))
	}
	args = append(args, limit)
	sql := `SELECT DISTINCT ON (urn, aspect) * FROM (` + strings.Join(parts, " UNION ALL ") + fmt.Sprintf(`) r ORDER BY urn, aspect LIMIT $%d`, len(args))
	rows, err := db.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, translate(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (reference.Aspect, error) { return scanAspect(r) })
	return out, translate(err)
}

// identifier says whether s is letters and digits, starting with a letter.
func identifier(s string) bool {
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
