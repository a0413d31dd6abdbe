package postgres

import "context"

// Exec runs SQL on db, for tests that damage the database on purpose.
func Exec(ctx context.Context, db *DB, sql string, args ...any) error {
	_, err := db.pool.Exec(ctx, sql, args...)
	return err
}
