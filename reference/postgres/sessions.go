package postgres

import (
	"context"

	"github.com/catalogspec/catalogspec/reference"
)

// CreateSession records a browser session while its user exists:
// ENOTFOUND otherwise. A removal of the user waits for it (lockUserKey),
// and so ends it too.
func (db *DB) CreateSession(ctx context.Context, s reference.Session) error {
	ctx, cancel := db.bound(ctx)
	defer cancel()
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return translate(err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	ok, err := lockUserKey(ctx, tx, s.ActorURN)
	if err != nil {
		return translate(err)
	}
	if !ok {
		return reference.Errorf(reference.ENOTFOUND, "user %s does not exist", reference.Excerpt(s.ActorURN))
	}
	if _, err := tx.Exec(ctx, `INSERT INTO sessions (id, actor_urn, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
		s.ID, s.ActorURN, s.CreatedAt, s.ExpiresAt); err != nil {
		return translate(err)
	}
	return translate(tx.Commit(ctx))
}

// Session returns the session with id; ENOTFOUND when there is none.
func (db *DB) Session(ctx context.Context, id string) (reference.Session, error) {
	ctx, cancel := db.bound(ctx)
	defer cancel()
	s := reference.Session{ID: id}
	err := db.pool.QueryRow(ctx, `SELECT actor_urn, created_at, expires_at FROM sessions WHERE id = $1`, id).Scan(&s.ActorURN, &s.CreatedAt, &s.ExpiresAt)
	if err != nil {
		return reference.Session{}, translate(err)
	}
	return s, nil
}

// DeleteSession removes the session with id, if there is one, and with it
// every session that has expired.
func (db *DB) DeleteSession(ctx context.Context, id string) error {
	ctx, cancel := db.bound(ctx)
	defer cancel()
	_, err := db.pool.Exec(ctx, `DELETE FROM sessions WHERE id = $1 OR expires_at < now()`, id)
	return translate(err)
}

// EndSessions removes the sessions of actorURN but its keep newest.
func (db *DB) EndSessions(ctx context.Context, actorURN string, keep int) error {
	ctx, cancel := db.bound(ctx)
	defer cancel()
	_, err := db.pool.Exec(ctx, `DELETE FROM sessions WHERE actor_urn = $1 AND id NOT IN (
		SELECT id FROM sessions WHERE actor_urn = $1 ORDER BY created_at DESC, id DESC LIMIT $2)`, actorURN, keep)
	return translate(err)
}
