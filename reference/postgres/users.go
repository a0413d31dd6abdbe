package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/catalogspec/catalogspec/reference"
)

// lockUserKey takes a share lock on user's key aspect in tx: a removal of
// the user (which deletes that row) waits until tx ends, and tx waits for a
// removal under way. False when the user does not exist.
func lockUserKey(ctx context.Context, tx pgx.Tx, user string) (bool, error) {
	var one int
	err := tx.QueryRow(ctx, `SELECT 1 FROM aspects WHERE urn = $1 AND aspect = $2 FOR KEY SHARE`, user, reference.AspectCorpUserKey).Scan(&one)
	if err == pgx.ErrNoRows {
		return false, nil
	}
	return err == nil, err
}

// CreateUserEntity writes a new entity's aspects while user exists.
func (db *DB) CreateUserEntity(ctx context.Context, user reference.URN, aspects []reference.Aspect) error {
	ctx, cancel := db.bound(ctx)
	defer cancel()
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return translate(err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	ok, err := lockUserKey(ctx, tx, user.String())
	if err != nil {
		return translate(err)
	}
	if !ok {
		return reference.Errorf(reference.ENOTFOUND, "user %s does not exist", user)
	}
	if _, err := tx.Exec(ctx, insertAspects, aspectArrays(aspects)...); err != nil {
		return translate(err)
	}
	return translate(tx.Commit(ctx))
}

// RemoveUser removes user and everything bound to them, in one
// transaction. Deleting the key aspect first takes its row lock, so a
// token or session being made for the user (CreateUserEntity,
// CreateSession) has committed before the statements below look for it,
// or finds no user.
func (db *DB) RemoveUser(ctx context.Context, user reference.URN) (bool, error) {
	ctx, cancel := db.bound(ctx)
	defer cancel()
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return false, translate(err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	urn := user.String()
	tag, err := tx.Exec(ctx, `DELETE FROM aspects WHERE urn = $1`, urn)
	if err != nil {
		return false, translate(err)
	}
	if tag.RowsAffected() == 0 {
		return false, nil
	}
	for _, stmt := range []string{
		// The access tokens that act as the user, every aspect of each.
		`DELETE FROM aspects WHERE entity_type = 'dataHubAccessToken' AND urn IN (
			SELECT urn FROM aspects WHERE entity_type = 'dataHubAccessToken' AND aspect = 'dataHubAccessTokenInfo' AND value ->> 'actorUrn' = $1)`,
		`DELETE FROM sessions WHERE actor_urn = $1`,
		// The invite tokens the user made.
		`DELETE FROM aspects WHERE entity_type = 'inviteToken' AND created_by = $1`,
		// The user's name in the policies that name them.
		`UPDATE aspects SET value = jsonb_set(value, '{actors,users}',
			COALESCE((SELECT jsonb_agg(u) FROM jsonb_array_elements(value -> 'actors' -> 'users') AS u WHERE u <> to_jsonb($1::text)), '[]'::jsonb))
		 WHERE entity_type = 'dataHubPolicy' AND aspect = 'dataHubPolicyInfo'
		   AND jsonb_typeof(value -> 'actors' -> 'users') = 'array' AND (value -> 'actors' -> 'users') @> jsonb_build_array($1::text)`,
	} {
		if _, err := tx.Exec(ctx, stmt, urn); err != nil {
			return false, translate(err)
		}
	}
	return true, translate(tx.Commit(ctx))
}

// ReplaceAspectIf replaces an aspect while its field is want, in one
// statement: of updates racing on the same row, the first to commit
// changes the field and the rest, re-checking the row after it, find it
// changed.
func (db *DB) ReplaceAspectIf(ctx context.Context, a reference.Aspect, field, want string) (bool, error) {
	ctx, cancel := db.bound(ctx)
	defer cancel()
	tag, err := db.pool.Exec(ctx, `UPDATE aspects SET value = $3, created_at = $4, created_by = $5
		WHERE urn = $1 AND aspect = $2 AND value ->> $6 = $7`,
		a.URN.String(), a.Name, []byte(a.Value), a.CreatedAt, a.CreatedBy, field, want)
	if err != nil {
		return false, translate(err)
	}
	return tag.RowsAffected() == 1, nil
}
