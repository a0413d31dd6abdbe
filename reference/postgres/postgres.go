// Package postgres implements reference.Store on PostgreSQL through pgx.
package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/catalogspec/catalogspec/reference"
)

// DB is the store.
type DB struct {
	pool *pgxpool.Pool
}

var _ reference.Store = (*DB)(nil)

// Open connects to the database at url and checks that it answers.
func Open(ctx context.Context, url string) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, errors.New("postgres: the database URL is not valid")
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	return &DB{pool: pool}, nil
}

// Close closes the pool.
func (db *DB) Close() { db.pool.Close() }

// Ping checks the database answers.
func (db *DB) Ping(ctx context.Context) error { return db.pool.Ping(ctx) }

// translate turns pgx errors into the domain's codes: the one place that does.
func translate(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return reference.Errorf(reference.ENOTFOUND, "not found")
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return reference.Errorf(reference.ECONFLICT, "already exists")
	}
	return err
}
