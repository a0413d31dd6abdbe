// Package pgtest gives a test package one migrated database from the same
// provider the suite uses (DATABASE_URL, a container, or local binaries). It
// fails loudly when none can be had: tests never fall back to a mock.
package pgtest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/catalogspec/catalogspec/reference/pgprovider"
	"github.com/catalogspec/catalogspec/reference/postgres"
)

// Main provides a database, runs m with it in *db, and tears it down. Call it
// from TestMain: os.Exit(pgtest.Main(m, &testDB)).
func Main(m *testing.M, db **postgres.DB) int {
	ctx := context.Background()
	provided, err := pgprovider.Provide(ctx, pgprovider.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "these tests need a PostgreSQL database:", err)
		return 1
	}
	defer provided.Close(context.Background())
	serverURL = provided.URL
	opened, err := postgres.Open(ctx, provided.URL)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer opened.Close()
	if err := opened.Migrate(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	*db = opened
	return m.Run()
}

// serverURL is the database Main provided.
var serverURL string

// Empty makes a new, empty database on the server Main provided and
// returns its URL; it is dropped when the test ends.
func Empty(t testing.TB) string {
	t.Helper()
	ctx := context.Background()
	name := "fresh_" + uuid.NewString()[:8]
	Admin(t, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	t.Cleanup(func() {
		if c, err := pgx.Connect(ctx, serverURL); err == nil {
			_, _ = c.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
			_ = c.Close(ctx)
		}
	})
	return WithDatabase(t, serverURL, name)
}

// WithDatabase is url naming another database (and, when user is given,
// connecting as that user with that password).
func WithDatabase(t testing.TB, rawURL, name string, user ...string) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	if name != "" {
		u.Path = "/" + name
	}
	if len(user) == 2 {
		u.User = url.UserPassword(user[0], user[1])
	}
	return u.String()
}

// Admin runs statements as the server's superuser, on the database at
// rawURL (the server's own by default).
func Admin(t testing.TB, sql string, rawURL ...string) {
	t.Helper()
	ctx := context.Background()
	target := serverURL
	if len(rawURL) > 0 {
		target = rawURL[0]
	}
	c, err := pgx.Connect(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// Fresh makes a new database on the server Main provided, opened with opts
// and migrated, for a test that needs a first start: it is dropped when the
// test ends.
func Fresh(t testing.TB, opts ...postgres.Option) (*postgres.DB, string) {
	t.Helper()
	u := Empty(t)
	db, err := postgres.Open(context.Background(), u, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db, u
}
