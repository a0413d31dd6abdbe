// Package pgprovider hands a real PostgreSQL database to whoever needs one:
// the reference service's tests, the conformance suite's harness and
// `catalogd serve`.
//
// Provide picks the first source that works, in this order:
//
//  1. the DATABASE_URL environment variable, used as-is after checking that
//     it answers `SELECT 1`;
//  2. a throw-away container started with testcontainers-go, when a Docker
//     engine answers;
//  3. a PostgreSQL cluster run from the local server binaries (initdb and
//     pg_ctl), in a temporary directory or in Options.DataDir.
//
// When none works, Provide returns an error naming the three ways to fix it.
package pgprovider

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Source names where a Database came from.
type Source string

// The sources Provide can pick, in the order it tries them.
const (
	// SourceEnv is a database named by the DATABASE_URL environment variable.
	SourceEnv Source = "DATABASE_URL"
	// SourceContainer is a PostgreSQL container started with testcontainers-go.
	SourceContainer Source = "testcontainers"
	// SourceLocal is a cluster run from local PostgreSQL server binaries.
	SourceLocal Source = "local binaries"
)

// DefaultImage is the container image used when Options.Image is empty.
const DefaultImage = "postgres:15-alpine"

// DatabaseName is the name of the database created in containers and local
// clusters.
const DatabaseName = "catalog"

// envCheckTimeout bounds the check that DATABASE_URL answers.
const envCheckTimeout = 5 * time.Second

// Options tunes Provide. The zero value is ready to use.
type Options struct {
	// DataDir, when set, is where a local cluster lives across runs instead
	// of a temporary directory. An existing cluster there (a PG_VERSION
	// file is present) is reused; Close stops it but never removes it.
	DataDir string
	// Getenv reads DATABASE_URL, and DOCKER_HOST when deciding whether a
	// Docker engine is worth asking (testcontainers-go itself always reads
	// the process environment). Nil means os.Getenv.
	Getenv func(string) string
	// Logger receives the line naming the chosen source. Nil means
	// slog.Default().
	Logger *slog.Logger
	// Image is the container image; "" means DefaultImage.
	Image string
	// Containers says whether Provide may start a container:
	// ContainersAuto (the zero value) when a Docker engine answers,
	// ContainersNever, or ContainersOnly.
	Containers ContainerPolicy
	// MustExist, with DataDir, uses the cluster already in DataDir (running
	// or not) and never creates one: for a command that must reach the
	// database a service already uses.
	MustExist bool
}

// ContainerPolicy says when Provide starts a container.
type ContainerPolicy int

// The container policies.
const (
	ContainersAuto ContainerPolicy = iota
	ContainersNever
	ContainersOnly
)

// Database is a PostgreSQL database ready for use. Call Close when done.
type Database struct {
	// URL is a pgx-compatible connection string.
	URL string
	// Source tells where the database came from.
	Source Source

	closeOnce sync.Once
	closeErr  error
	closeFn   func(ctx context.Context) error
	local     *cluster // the local cluster, for SourceLocal
}

// Close stops and removes what Provide started: the container, or the local
// server and its temporary directory (a persistent Options.DataDir is kept).
// For SourceEnv it does nothing. Close is idempotent and safe for concurrent
// use; calls after the first return the first call's result.
//
// Leaving a server behind is worse than a slow Close, so Close ignores the
// cancellation and deadline of ctx (as after Ctrl-C, when the caller passes
// its signal.NotifyContext context) and bounds itself by a timeout of its
// own instead; ctx only carries values.
func (d *Database) Close(ctx context.Context) error {
	if d == nil {
		return nil
	}
	d.closeOnce.Do(func() {
		if d.closeFn == nil {
			return
		}
		if ctx == nil {
			ctx = context.Background()
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
		defer cancel()
		d.closeErr = d.closeFn(ctx)
	})
	return d.closeErr
}

// closeTimeout bounds Close.
const closeTimeout = 30 * time.Second

// Provide returns a PostgreSQL database from the first source that works:
// DATABASE_URL, then a testcontainers-go container when a Docker engine
// answers, then local PostgreSQL server binaries. It logs one Info line
// naming the source (never a password). The caller must Close the result.
//
// If ctx is cancelled while a container or local server is starting,
// Provide cleans up what it started and returns the context's error.
//
// A local server runs detached from the calling process, so Provide also
// starts a small watchdog (a shell process): should the caller die without
// calling Close (SIGKILL, a `go test -timeout` panic), the watchdog stops the
// server and removes its temporary directory within about a second.
// Containers are reaped by testcontainers' own Ryuk sidecar.
func Provide(ctx context.Context, opts Options) (*Database, error) {
	return provide(ctx, opts, debianPostgresRoot)
}

// provide is Provide with the directory holding versioned PostgreSQL
// installations (root/<version>/bin) as a parameter, for tests.
func provide(ctx context.Context, opts Options, pgRoot string) (*Database, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}

	// 1. DATABASE_URL.
	if url := getenv("DATABASE_URL"); url != "" {
		desc, err := checkURL(ctx, url)
		if err != nil {
			return nil, fmt.Errorf("pgprovider: DATABASE_URL is set but does not answer SELECT 1 (%s): %w", desc, err)
		}
		logger.Info("pgprovider: using PostgreSQL", "source", string(SourceEnv), "database", desc)
		return &Database{URL: url, Source: SourceEnv}, nil
	}

	// 2. testcontainers-go, when a Docker engine answers.
	var containerErr error
	if opts.Containers == ContainersNever {
		containerErr = errors.New("not asked for")
	} else if err := dockerAvailable(ctx, getenv); err != nil {
		logger.Debug("pgprovider: no Docker engine, skipping testcontainers", "reason", err.Error())
		containerErr = err
	} else {
		db, desc, err := provideContainer(ctx, opts.Image)
		if err == nil {
			logger.Info("pgprovider: using PostgreSQL", "source", string(SourceContainer), "database", desc)
			return db, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("pgprovider: starting PostgreSQL container: %w", errors.Join(ctx.Err(), err))
		}
		logger.Warn("pgprovider: Docker engine answers but the PostgreSQL container did not start; trying local binaries", "error", err.Error())
		containerErr = err
	}

	if opts.Containers == ContainersOnly {
		return nil, fmt.Errorf("pgprovider: a PostgreSQL container was asked for and none could be started: %w", containerErr)
	}

	// 3. Local server binaries.
	bins, err := findBinaries(pgRoot)
	if err != nil {
		// 4. Nothing works.
		return nil, fmt.Errorf("pgprovider: no PostgreSQL available. Do one of: "+
			"(1) set DATABASE_URL to a reachable database; "+
			"(2) start a Docker engine so testcontainers can run %s; "+
			"(3) install PostgreSQL server binaries, e.g. `apt-get install postgresql` "+
			"(docker: %v; local binaries: %v)", imageOrDefault(opts.Image), containerErr, err)
	}
	db, desc, err := provideLocal(ctx, bins, opts.DataDir, opts.MustExist)
	if err != nil {
		return nil, fmt.Errorf("pgprovider: local PostgreSQL (%s): %w", bins.dir, err)
	}
	logger.Info("pgprovider: using PostgreSQL", "source", string(SourceLocal), "database", desc)
	return db, nil
}

func imageOrDefault(image string) string {
	if image == "" {
		return DefaultImage
	}
	return image
}

// checkURL checks that url answers SELECT 1 within envCheckTimeout. It
// returns a password-free description of the target for logs and errors.
func checkURL(ctx context.Context, url string) (string, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return "unparsable connection string", err
	}
	desc := describe(cfg)
	ctx, cancel := context.WithTimeout(ctx, envCheckTimeout)
	defer cancel()
	if cfg.ConnectTimeout == 0 || cfg.ConnectTimeout > envCheckTimeout {
		cfg.ConnectTimeout = envCheckTimeout
	}
	if err := selectOne(ctx, cfg); err != nil {
		return desc, err
	}
	return desc, nil
}

// selectOne connects with cfg and runs SELECT 1.
func selectOne(ctx context.Context, cfg *pgx.ConnConfig) error {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var one int
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
		return err
	}
	if one != 1 {
		return fmt.Errorf("SELECT 1 returned %d", one)
	}
	return nil
}

// describe renders user@host:port/database without the password.
func describe(cfg *pgx.ConnConfig) string {
	return fmt.Sprintf("%s@%s:%d/%s", cfg.User, cfg.Host, cfg.Port, cfg.Database)
}
