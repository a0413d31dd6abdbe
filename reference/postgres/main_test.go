package postgres_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/catalogspec/catalogspec/reference/pgprovider"
	"github.com/catalogspec/catalogspec/reference/postgres"
)

// testDB is the one database of this package's tests, from the same
// provider the suite uses: DATABASE_URL, a container, or local binaries.
var testDB *postgres.DB

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	ctx := context.Background()
	provided, err := pgprovider.Provide(ctx, pgprovider.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "postgres tests need a database:", err)
		return 1
	}
	defer provided.Close(context.Background())
	db, err := postgres.Open(ctx, provided.URL)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	testDB = db
	return m.Run()
}
