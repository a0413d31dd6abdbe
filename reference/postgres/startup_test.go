package postgres_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/catalogspec/catalogspec/reference"
	"github.com/catalogspec/catalogspec/reference/postgres"
	"github.com/catalogspec/catalogspec/reference/postgres/pgtest"
)

// TestOpenRefusesWhatItCannotUse: a URL that does not parse, and a server
// that does not answer, are errors at start-up, never a DB that fails later.
func TestOpenRefusesWhatItCannotUse(t *testing.T) {
	for _, u := range []string{"postgres://[::1", "postgres://catalog@127.0.0.1:1/catalog?connect_timeout=2"} {
		db, err := postgres.Open(context.Background(), u)
		if err == nil || db != nil {
			t.Errorf("Open(%q) = %v, %v; want an error", u, db, err)
		}
	}
}

// role makes a login role on the test server and returns the URL of the
// database at dbURL as that role.
func role(t *testing.T, dbURL string) (name, asRole string) {
	t.Helper()
	name = "r_" + uuid.NewString()[:8]
	pgtest.Admin(t, "CREATE ROLE "+name+" LOGIN PASSWORD 'pw'")
	t.Cleanup(func() { pgtest.Admin(t, "DROP OWNED BY "+name+" CASCADE", dbURL); pgtest.Admin(t, "DROP ROLE "+name) })
	return name, pgtest.WithDatabase(t, dbURL, "", name, "pw")
}

// TestMigrationFailuresStopTheStart: whichever step of a migration the
// database refuses, Migrate reports it (catalogd stops with the cause) and
// does not record the migration as applied.
func TestMigrationFailuresStopTheStart(t *testing.T) {
	for _, tc := range []struct {
		name  string
		grant func(dbURL, role string)
	}{
		{"no right to create tables", func(string, string) {}},
		{"no right to read the migrations table", func(dbURL, role string) {
			pgtest.Admin(t, "CREATE TABLE schema_migrations (version int PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now()); GRANT CREATE ON SCHEMA public TO "+role, dbURL)
		}},
		{"no right to record a migration", func(dbURL, role string) {
			pgtest.Admin(t, "CREATE TABLE schema_migrations (version int PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now()); GRANT CREATE ON SCHEMA public TO "+role+"; GRANT SELECT ON schema_migrations TO "+role, dbURL)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dbURL := pgtest.Empty(t)
			name, asRole := role(t, dbURL)
			tc.grant(dbURL, name)
			db, err := postgres.Open(context.Background(), asRole)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if err := db.Migrate(context.Background()); err == nil {
				t.Fatal("Migrate reported no error")
			}
			admin, err := postgres.Open(context.Background(), dbURL)
			if err != nil {
				t.Fatal(err)
			}
			defer admin.Close()
			if err := postgres.Exec(context.Background(), admin, `SELECT 1 FROM aspects`); err == nil {
				t.Error("the aspects table is there after a failed migration")
			}
		})
	}
	closed, _ := pgtest.Fresh(t)
	closed.Close()
	if err := closed.Migrate(context.Background()); err == nil {
		t.Error("Migrate over a closed pool reported no error")
	}
}

// TestSecretFailures: a secret that cannot be read, generated or stored is
// an error, never an empty key.
func TestSecretFailures(t *testing.T) {
	db, dbURL := pgtest.Fresh(t)
	boom := errors.New("no entropy")
	if v, err := db.Secret(context.Background(), "s-"+uuid.NewString(), func() ([]byte, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Errorf("generate failing: %q, %v", v, err)
	}
	name, asRole := role(t, dbURL)
	pgtest.Admin(t, "GRANT SELECT ON secrets TO "+name, dbURL)
	reader, err := postgres.Open(context.Background(), asRole)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	if v, err := reader.Secret(context.Background(), "s-"+uuid.NewString(), nil); err == nil {
		t.Errorf("storing refused: %q, no error", v)
	}
	closed, _ := pgtest.Fresh(t)
	closed.Close()
	if v, err := closed.Secret(context.Background(), "s", nil); err == nil {
		t.Errorf("over a closed pool: %q, no error", v)
	}
}

// TestSecretStoredButNotReadBackIsAnError: when the secret it has just
// stored cannot be read back (here a trigger removes it at once), Secret
// says so; it never answers no value and no error, which would leave a
// replica signing with an empty key.
func TestSecretStoredButNotReadBackIsAnError(t *testing.T) {
	db, dbURL := pgtest.Fresh(t)
	pgtest.Admin(t, `CREATE FUNCTION vanish() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN DELETE FROM secrets WHERE name = NEW.name; RETURN NULL; END $$;
		CREATE TRIGGER vanish AFTER INSERT ON secrets FOR EACH ROW EXECUTE FUNCTION vanish()`, dbURL)
	v, err := db.Secret(context.Background(), "s-"+uuid.NewString(), nil)
	if err == nil {
		t.Errorf("a secret that was not there to read back: %q, no error", v)
	}
}

// TestListAspectsRefusedIsAnError: a listing the database refuses is an
// error, never an empty page (which would read as "no tokens", "no
// policies").
func TestListAspectsRefusedIsAnError(t *testing.T) {
	_, dbURL := pgtest.Fresh(t)
	_, asRole := role(t, dbURL)
	noReads, err := postgres.Open(context.Background(), asRole)
	if err != nil {
		t.Fatal(err)
	}
	defer noReads.Close()
	got, total, err := noReads.ListAspects(context.Background(), reference.Filter{EntityType: "dataHubPolicy", Aspect: reference.AspectPolicyInfo, Count: 10})
	if err == nil {
		t.Errorf("a listing the database refused: %d aspects of %d, no error", len(got), total)
	}
}

// TestAMigrationTheDatabaseRefusesStopsTheStart: a migration whose own SQL
// fails (here a table of the same name is in the way) is reported with the
// database's reason, and not recorded as applied.
func TestAMigrationTheDatabaseRefusesStopsTheStart(t *testing.T) {
	dbURL := pgtest.Empty(t)
	pgtest.Admin(t, "CREATE TABLE aspects (something_else int)", dbURL)
	db, err := postgres.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(context.Background()); err == nil || !strings.Contains(err.Error(), "001_aspects.sql") || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("Migrate = %v; want the failure of 001_aspects.sql with its cause", err)
	}
	if err := postgres.Exec(context.Background(), db, `DO $$ BEGIN IF EXISTS (SELECT 1 FROM schema_migrations WHERE version = 1) THEN RAISE 'recorded'; END IF; END $$`); err != nil {
		t.Errorf("the failed migration is recorded as applied: %v", err)
	}
}

// TestMigrateGivesUpWaitingForAnotherStart: while another catalogd holds the
// migration lock, Migrate waits; when its time runs out first it says so,
// never carrying on as if the schema were there.
func TestMigrateGivesUpWaitingForAnotherStart(t *testing.T) {
	dbURL := pgtest.Empty(t)
	holder, err := postgres.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	// Held in a transaction on one connection until the test ends.
	release := make(chan struct{})
	held := make(chan error, 1)
	go func() {
		held <- postgres.Exec(context.Background(), holder, `BEGIN; SELECT pg_advisory_xact_lock(`+postgres.MigrateLock+`); SELECT pg_sleep(1.5); COMMIT`)
		close(release)
	}()
	time.Sleep(300 * time.Millisecond) // the holder has the lock
	db, err := postgres.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if err := db.Migrate(ctx); err == nil || !strings.Contains(err.Error(), "lock") {
		t.Errorf("Migrate while another start held the lock = %v; want an error about the lock", err)
	}
	<-release
	if err := <-held; err != nil {
		t.Fatal(err)
	}
}
