// Package pgtest gives a test package one migrated database from the same
// provider the suite uses (DATABASE_URL, a container, or local binaries). It
// fails loudly when none can be had: tests never fall back to a mock.
package pgtest

import (
	"context"
	"fmt"
	"os"
	"testing"

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
