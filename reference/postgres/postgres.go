// Package postgres implements reference.Store on PostgreSQL through pgx.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/puddle/v2"

	"github.com/catalogspec/catalogspec/reference"
)

// DefaultQueryTimeout bounds each call to the database unless Open is told
// otherwise: a database that does not answer within it is "unavailable".
const DefaultQueryTimeout = 5 * time.Second

// DB is the store.
type DB struct {
	pool    *pgxpool.Pool
	timeout time.Duration
}

var _ reference.Store = (*DB)(nil)

// Option configures Open.
type Option func(*DB)

// WithQueryTimeout bounds every call to the database, connecting included,
// by d (DefaultQueryTimeout when d <= 0).
func WithQueryTimeout(d time.Duration) Option {
	return func(db *DB) {
		if d > 0 {
			db.timeout = d
		}
	}
}

// Open connects to the database at url and checks that it answers.
func Open(ctx context.Context, url string, opts ...Option) (*DB, error) {
	db := &DB{timeout: DefaultQueryTimeout}
	for _, o := range opts {
		o(db)
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, errors.New("postgres: the database URL is not valid")
	}
	if cfg.ConnConfig.ConnectTimeout == 0 || cfg.ConnConfig.ConnectTimeout > db.timeout {
		cfg.ConnConfig.ConnectTimeout = db.timeout
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	db.pool = pool
	return db, nil
}

// Close closes the pool.
func (db *DB) Close() { db.pool.Close() }

// Ping checks the database answers, within the query timeout.
func (db *DB) Ping(ctx context.Context) error {
	ctx, cancel := db.bound(ctx)
	defer cancel()
	return translate(db.pool.Ping(ctx))
}

// bound gives one call to the database its deadline: a frozen or
// unreachable database makes the call fail, never hang.
func (db *DB) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, db.timeout)
}

// translate turns pgx errors into the domain's codes: the one place that
// does. The original error stays wrapped for the log.
func translate(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return reference.Errorf(reference.ENOTFOUND, "not found")
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case pgErr.Code == "23505":
			return reference.Errorf(reference.ECONFLICT, "already exists")
		case strings.HasPrefix(pgErr.Code, "22"):
			// Data exception: a value Postgres cannot keep (a NUL in
			// jsonb text, a lone surrogate); the client's input.
			return reference.Errorf(reference.EBADREQUEST, "the value holds characters that cannot be stored (for example U+0000)")
		case pgErr.Code == "54000":
			// Program limit exceeded: a value too large for an index.
			return reference.Errorf(reference.EBADREQUEST, "a value is too large to be stored")
		case strings.HasPrefix(pgErr.Code, "08"), strings.HasPrefix(pgErr.Code, "57P"), pgErr.Code == "53300":
			// Connection exception, shutdown, too many connections.
			return unavailable{err}
		}
		return err
	}
	if unreachable(err) {
		return unavailable{err}
	}
	return err
}

// unreachable says whether err means the database did not answer: a
// deadline, a refused or broken connection.
func unreachable(err error) bool {
	var (
		connectErr *pgconn.ConnectError
		netErr     net.Error
	)
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
		pgconn.Timeout(err) || errors.As(err, &connectErr) || errors.As(err, &netErr) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		pgconn.SafeToRetry(err) || errors.Is(err, puddle.ErrClosedPool) // closed: catalogd is stopping
}

// unavailable is reference.ErrUnavailable that keeps the cause for the log.
type unavailable struct{ cause error }

func (u unavailable) Error() string { return "database unavailable: " + u.cause.Error() }
func (u unavailable) Unwrap() []error {
	return []error{reference.ErrUnavailable, u.cause}
}
