package postgres

import (
	"context"

	"github.com/catalogspec/catalogspec/reference"
)

// CreateSession records a browser session.
func (db *DB) CreateSession(ctx context.Context, s reference.Session) error {
	ctx, cancel := db.bound(ctx)
	defer cancel()
	_, err := db.pool.Exec(ctx, `INSERT INTO sessions (id, actor_urn, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
		s.ID, s.ActorURN.String(), s.CreatedAt, s.ExpiresAt)
	return translate(err)
}

// Session returns the session with id; ENOTFOUND when there is none.
func (db *DB) Session(ctx context.Context, id string) (reference.Session, error) {
	ctx, cancel := db.bound(ctx)
	defer cancel()
	var (
		s     = reference.Session{ID: id}
		actor string
	)
	err := db.pool.QueryRow(ctx, `SELECT actor_urn, created_at, expires_at FROM sessions WHERE id = $1`, id).Scan(&actor, &s.CreatedAt, &s.ExpiresAt)
	if err != nil {
		return reference.Session{}, translate(err)
	}
	if s.ActorURN, err = reference.ParseURN(actor); err != nil {
		return reference.Session{}, err
	}
	return s, nil
}

// DeleteSession removes the session with id, and with it every session
// that has expired; false when there was no session with id.
func (db *DB) DeleteSession(ctx context.Context, id string) (bool, error) {
	ctx, cancel := db.bound(ctx)
	defer cancel()
	var n int
	err := db.pool.QueryRow(ctx, `WITH gone AS (DELETE FROM sessions WHERE id = $1 OR expires_at < now() RETURNING id)
		SELECT count(*) FROM gone WHERE id = $1`, id).Scan(&n)
	if err != nil {
		return false, translate(err)
	}
	return n > 0, nil
}
