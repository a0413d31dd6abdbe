package postgres_test

import (
	"os"
	"testing"

	"github.com/catalogspec/catalogspec/reference/postgres"
	"github.com/catalogspec/catalogspec/reference/postgres/pgtest"
)

// testDB is the one database of this package's tests.
var testDB *postgres.DB

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, &testDB)) }
