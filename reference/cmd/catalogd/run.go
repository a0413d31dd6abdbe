package main

import (
	"context"
	"crypto/subtle"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/catalogspec/catalogspec/reference"
	"github.com/catalogspec/catalogspec/reference/jwt"
	"github.com/catalogspec/catalogspec/reference/pgprovider"
	"github.com/catalogspec/catalogspec/reference/postgres"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "v0.1.0-catalogd"

const usage = `usage:
  catalogd serve [flags]          run the metadata service and the frontend
  catalogd token create [flags]   mint a personal access token and print it once
  catalogd version                print the version and the commit
  catalogd help                   show this text

Run 'catalogd serve -h' or 'catalogd token create -h' for flags.`

// run is the whole program; main only calls it.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	err := dispatch(ctx, args, getenv, stdout, stderr)
	if errors.Is(err, errHelp) {
		return nil
	}
	return err
}

func dispatch(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) < 2 {
		fmt.Fprintln(stderr, usage)
		return errors.New("no command given")
	}
	switch args[1] {
	case "serve":
		return serve(ctx, args[2:], getenv, stdout, stderr)
	case "token":
		if len(args) < 3 || args[2] != "create" {
			fmt.Fprintln(stderr, usage)
			return errors.New("unknown token command: use 'catalogd token create'")
		}
		return tokenCreate(ctx, args[3:], getenv, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, usage)
		return nil
	case "version", "--version":
		fmt.Fprintln(stdout, versionText())
		return nil
	default:
		fmt.Fprintln(stderr, usage)
		return fmt.Errorf("unknown command %q", args[1])
	}
}

// common holds the settings both commands share.
type common struct {
	dataDir  string
	logLevel string
	// postgres is where serve gets a database without DATABASE_URL:
	// "local" (a cluster in --data-dir) or "container".
	postgres string
	// existing: use only a database the service already has (token create).
	existing bool
	// behind sets the clock back by this much (token create --expired): a
	// token minted then has expired already. Never used by serve: a clock
	// behind would keep expired tokens alive.
	behind time.Duration
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.dataDir, "data-dir", defaultDataDir(), "where the local Postgres cluster keeps its data when DATABASE_URL is unset (kept across restarts)")
	fs.StringVar(&c.logLevel, "log-level", "info", "one of "+strings.Join(logLevels, ", "))
}

// defaultDataDir is where a local cluster lives unless --data-dir says
// otherwise: the same place from any working directory, so that `token
// create` finds the database `serve` uses. As root (whose home the
// postgres user cannot enter) it is /var/lib/catalogd/pgdata; otherwise
// $XDG_STATE_HOME/catalogd/pgdata, or ~/.local/state/catalogd/pgdata.
func defaultDataDir() string {
	if os.Geteuid() == 0 {
		return "/var/lib/catalogd/pgdata"
	}
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "catalogd", "pgdata")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "state", "catalogd", "pgdata")
	}
	return filepath.Join(".catalogd", "pgdata")
}

func (c *common) logger(stderr io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := checkLogLevel(c.logLevel); err != nil {
		return nil, err
	}
	if err := level.UnmarshalText([]byte(c.logLevel)); err != nil {
		return nil, checkLogLevel("")
	}
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})), nil
}

// backend is an open, migrated database and a Service over it.
type backend struct {
	limits   limits // read from the environment once, before any I/O
	lag      lag    // CATALOGD_POLICY_REFRESH, CATALOGD_SEARCH_LAG: for conformance testing only
	provided *pgprovider.Database
	db       *postgres.DB
	// cache is the store serve uses (nil for token create, or with
	// CATALOGD_CACHE=false).
	cache *postgres.Cache
	svc   *reference.Service
}

func (b *backend) close() {
	if b.cache != nil {
		b.cache.Close()
	}
	if b.db != nil {
		b.db.Close()
	}
	if b.provided != nil {
		_ = b.provided.Close(context.Background())
	}
}

// open provides the database, applies migrations, builds the Service with
// the token signing key and salt from the environment (or from the database,
// where they were generated once), and bootstraps the root user and the boot
// policies. A root password it had to generate is shown once on announce.
// With cached, the Service reads users, tokens and policies through a
// postgres.Cache that follows every change made through any replica.
func open(ctx context.Context, c common, getenv func(string) string, announce, stderr io.Writer, cached bool) (_ *backend, _ *slog.Logger, err error) {
	logger, err := c.logger(stderr)
	if err != nil {
		return nil, nil, err
	}
	b := &backend{}
	if b.limits, err = limitsFrom(getenv); err != nil {
		return nil, nil, err
	}
	if b.lag, err = lagFrom(getenv); err != nil {
		return nil, nil, err
	}
	defer func() {
		if err != nil {
			b.close()
		}
	}()
	opts := pgprovider.Options{DataDir: c.dataDir, Getenv: getenv, Logger: logger, Containers: pgprovider.ContainersNever, MustExist: c.existing}
	if c.postgres == "container" {
		// A throw-away database, only when asked for: its data goes at exit.
		opts.DataDir, opts.Containers = "", pgprovider.ContainersOnly
	}
	b.provided, err = pgprovider.Provide(ctx, opts)
	if err != nil {
		return nil, nil, err
	}
	if b.db, err = postgres.Open(ctx, b.provided.URL, postgres.WithQueryTimeout(b.limits.dbTimeout)); err != nil {
		return nil, nil, err
	}
	if err := b.db.Migrate(ctx); err != nil {
		return nil, nil, err
	}
	key, err := secret(ctx, b.db, getenv, "DATAHUB_TOKEN_SERVICE_SIGNING_KEY", "token_signing_key")
	if err != nil {
		return nil, nil, err
	}
	salt, err := secret(ctx, b.db, getenv, "DATAHUB_TOKEN_SERVICE_SALT", "token_salt")
	if err != nil {
		return nil, nil, err
	}
	codec, err := jwt.New(key, getenv("DATAHUB_TOKEN_SERVICE_ISSUER"))
	if err != nil {
		return nil, nil, fmt.Errorf("DATAHUB_TOKEN_SERVICE_SIGNING_KEY: %w", err)
	}
	authEnabled := true
	if v := getenv("METADATA_SERVICE_AUTH_ENABLED"); v != "" {
		if authEnabled, err = strconv.ParseBool(strings.TrimSpace(v)); err != nil {
			return nil, nil, fmt.Errorf("METADATA_SERVICE_AUTH_ENABLED must be true or false, not %q", v)
		}
	}
	allowNoExpiry := true
	if v := getenv("ACCESS_TOKEN_ALLOW_NO_EXPIRY"); v != "" {
		if allowNoExpiry, err = strconv.ParseBool(strings.TrimSpace(v)); err != nil {
			return nil, nil, fmt.Errorf("ACCESS_TOKEN_ALLOW_NO_EXPIRY must be true or false, not %q", v)
		}
	}
	now, err := clock(getenv)
	if err != nil {
		return nil, nil, err
	}
	if c.behind > 0 {
		now = func() time.Time { return time.Now().Add(-c.behind) }
	}
	if now != nil && c.behind == 0 {
		logger.Warn("this instance's clock runs ahead: for conformance testing only", "CATALOGD_CLOCK_OFFSET", getenv("CATALOGD_CLOCK_OFFSET"))
		codec = codec.WithClock(now)
	}
	var store reference.Store = b.db
	if cached && b.limits.cache {
		b.cache = postgres.NewCache(b.db, b.provided.URL, logger)
		store = b.cache
	}
	cost, err := passwordCost(getenv)
	if err != nil {
		return nil, nil, err
	}
	if cost != 0 && cost < bcrypt.DefaultCost {
		logger.Warn("passwords are hashed at less than bcrypt's default cost: for conformance testing only", "CATALOGD_PASSWORD_COST", cost)
	}
	if b.lag.on() {
		logger.Warn("this instance lags as DataHub does: for conformance testing only",
			"CATALOGD_POLICY_REFRESH", b.lag.policyRefresh.String(), "CATALOGD_SEARCH_LAG", b.lag.search.String())
	}
	var searchLag *reference.SearchLag
	if b.lag.search > 0 {
		searchLag = reference.NewSearchLag(store, b.lag.search, now)
		store = searchLag
	}
	b.svc = reference.NewService(store, reference.Config{AuthEnabled: authEnabled, Codec: codec, Salt: salt, Logger: logger, Now: now, SessionLifetime: b.limits.sessionTTL, PolicyRefresh: b.lag.policyRefresh, RefuseNoExpiry: !allowNoExpiry, PasswordCost: cost,
		MaxTokensPerUser: b.limits.tokensPerUser, MaxSessionsPerUser: b.limits.sessionsPerUser, SignInThrottle: b.limits.throttle})
	generated, err := b.svc.Bootstrap(ctx, getenv("CATALOGD_ROOT_PASSWORD"))
	if err != nil {
		return nil, nil, err
	}
	if searchLag != nil {
		// This instance's index starts with what the database holds.
		built := time.Now()
		if now != nil {
			built = now()
		}
		searchLag.BuiltAt(built)
	}
	if generated != "" {
		dir := ""
		if getenv("DATABASE_URL") == "" && c.postgres != "container" {
			dir = filepath.Dir(c.dataDir) // beside the local cluster
		}
		path, err := writeRootPassword(getenv("CATALOGD_ROOT_PASSWORD_FILE"), dir, generated)
		if err != nil {
			return nil, nil, fmt.Errorf("the root user's generated password could not be kept (%w): set CATALOGD_ROOT_PASSWORD, or CATALOGD_ROOT_PASSWORD_FILE to a file this user may create", err)
		}
		fmt.Fprintf(announce, "catalogd: generated a password for the root user %s, in the file %s (mode 0600, readable by this OS user alone): sign in with it, then delete the file\n", reference.RootUser, path)
	}
	return b, logger, nil
}

// writeRootPassword keeps a generated root password where only its
// operator can read it: a new file of mode 0600 (never one that exists, nor
// through a link), at path when it is set, else with a fresh name in dir
// (the system's temporary directory when dir is ""). Not on stdout or in a
// log: those go to terminals' scrollback, journals and log collectors that
// others read; the file is readable by the OS user who could read the
// database anyway, and root. It returns the file's path.
func writeRootPassword(path, dir, password string) (string, error) {
	var (
		f   *os.File
		err error
	)
	if path != "" {
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	} else {
		f, err = os.CreateTemp(dir, "catalogd-root-password-*") // 0600, O_EXCL
	}
	if err != nil {
		return "", err
	}
	if _, err := f.WriteString(password + "\n"); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return "", err
	}
	abs, err := filepath.Abs(f.Name())
	if err != nil {
		return f.Name(), nil
	}
	return abs, nil
}

// secret returns the value of env, or a random value generated once and kept
// in the database so that every replica agrees. There is no public default.
func secret(ctx context.Context, db *postgres.DB, getenv func(string) string, env, name string) ([]byte, error) {
	if v := getenv(env); v != "" {
		if len(v) < 32 {
			return nil, fmt.Errorf("%s must be at least 32 characters", env)
		}
		// The database keeps the value every replica and `token create`
		// use: the environment may set it first, never contradict it.
		stored, err := db.Secret(ctx, name, func() ([]byte, error) { return []byte(v), nil })
		if err != nil {
			return nil, err
		}
		if subtle.ConstantTimeCompare(stored, []byte(v)) != 1 {
			return nil, fmt.Errorf("%s differs from the %s this database already holds, which its tokens are signed with: unset it to use the stored one (a token made with the other would be refused)", env, strings.ReplaceAll(name, "_", " "))
		}
		return stored, nil
	}
	return db.Secret(ctx, name, nil)
}

// clock reads CATALOGD_CLOCK_OFFSET, a duration by which this instance's
// clock runs ahead of the real one. It exists for conformance testing: an
// instance a day ahead, sharing the database of a normal one, shows that
// tokens expire when they should. Only offsets ahead are accepted, since a
// clock behind would keep expired tokens alive. Unset means the real clock
// (nil).
func clock(getenv func(string) string) (func() time.Time, error) {
	v := strings.TrimSpace(getenv("CATALOGD_CLOCK_OFFSET"))
	if v == "" {
		return nil, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return nil, fmt.Errorf("CATALOGD_CLOCK_OFFSET must be a duration of zero or more, such as 25h, not %q", v)
	}
	return func() time.Time { return time.Now().Add(d) }, nil
}
