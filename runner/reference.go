package runner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/catalogspec/catalogspec/reference/catalogdtest"
	"github.com/catalogspec/catalogspec/reference/pgprovider"
)

// Starting the reference service when no target is given: a database from
// pgprovider, catalogd serving on free ports (a second instance with auth
// disabled on the same database), and an admin token from catalogd itself,
// all through catalogdtest.

// RootUser is DataHub's root user, whom the reference's admin token acts as.
const RootUser = catalogdtest.Root

// catalogdSource is where catalogd's source is, relative to the module root.
const catalogdSource = "./reference/cmd/catalogd"

// startReference starts the reference and returns it as the target. Logs go
// to reportsDir/catalogd.log and reportsDir/catalogd-noauth.log.
func startReference(ctx context.Context, getenv func(string) string, reportsDir string, lag referenceLag) (_ *Target, err error) {
	var stops []func(context.Context) error
	stopAll := func(ctx context.Context) error {
		var errs []error
		for i := len(stops) - 1; i >= 0; i-- {
			errs = append(errs, stops[i](ctx))
		}
		return errors.Join(errs...)
	}
	defer func() {
		if err != nil {
			_ = stopAll(context.WithoutCancel(ctx))
		}
	}()

	logPath := filepath.Join(reportsDir, "catalogd.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	stops = append(stops, func(context.Context) error { return logFile.Close() })

	bin, removeBin, err := catalogdBinary(ctx, getenv)
	if err != nil {
		return nil, err
	}
	stops = append(stops, func(context.Context) error { return removeBin() })

	logger := slog.New(slog.NewTextHandler(logFile, nil))
	db, err := pgprovider.Provide(ctx, pgprovider.Options{Getenv: getenv, Logger: logger})
	if err != nil {
		return nil, fmt.Errorf("no database for the reference: %w", err)
	}
	stops = append(stops, db.Close)

	// Every scenario signs in from 127.0.0.1, four at a time, and the
	// self-test runs the suite some fifty times against one instance: the
	// failures they make on purpose (a few dozen a run) must not throttle
	// one another's sign-ins as one client's. Each scenario's own users
	// are throttled as everyone's are (signin-11).
	env := withEnv(nil, "CATALOGD_SIGNIN_MAX_FAILURES_PER_CLIENT", "100000")
	// Passwords at bcrypt's least cost: a run sets and checks some 200 of
	// them, which at the default cost took most of the reference's CPU.
	env = lag.env(withEnv(env, "CATALOGD_PASSWORD_COST", "4"))

	var mu sync.Mutex // stops, for the instances started at once
	start := func(env []string, log *os.File) (*catalogdtest.Server, error) {
		srv, err := catalogdtest.Start(ctx, catalogdtest.Options{Binary: bin, DatabaseURL: db.URL, Env: env, Log: log})
		if err != nil {
			return nil, fmt.Errorf("%w\n(all of it in %s)", err, log.Name())
		}
		mu.Lock()
		defer mu.Unlock()
		stops = append(stops, func(context.Context) error { return srv.Stop() })
		return srv, nil
	}
	first, err := start(withEnv(env, "METADATA_SERVICE_AUTH_ENABLED", "true"), logFile)
	if err != nil {
		return nil, err
	}

	// The other three instances, and the admin token, at once: the first
	// has migrated the database and made the root user.
	type instance struct {
		what, log string
		env       []string
		srv       *catalogdtest.Server
		err       error
	}
	others := []*instance{
		// With authentication off.
		{what: "the auth-disabled instance", log: "catalogd-noauth.log", env: withEnv(env, "METADATA_SERVICE_AUTH_ENABLED", "false")},
		// Whose clock runs laterBy ahead: tokens made on the first are
		// judged there as they will be a day on.
		{what: "the later-clock instance", log: "catalogd-later.log",
			env: withEnv(withEnv(env, "METADATA_SERVICE_AUTH_ENABLED", "true"), "CATALOGD_CLOCK_OFFSET", laterBy.String())},
		// Like the first, for what replicas sharing a database must agree
		// on (@cap:replicas).
		{what: "the replica instance", log: "catalogd-replica.log", env: withEnv(env, "METADATA_SERVICE_AUTH_ENABLED", "true")},
	}
	var wg sync.WaitGroup
	for _, in := range others {
		f, err := os.Create(filepath.Join(reportsDir, in.log))
		if err != nil {
			return nil, err
		}
		mu.Lock() // the instances started before this one add their stops
		stops = append(stops, func(context.Context) error { return f.Close() })
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			if in.srv, in.err = start(in.env, f); in.err != nil {
				in.err = fmt.Errorf("%s: %w", in.what, in.err)
			}
		}()
	}
	var token string
	var tokenErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		token, tokenErr = first.Token(ctx, RootUser, "catalogspec-admin", "ONE_DAY")
	}()
	wg.Wait()
	errs := []error{tokenErr}
	for _, in := range others {
		errs = append(errs, in.err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	noAuth, later, replica := others[0].srv, others[1].srv, others[2].srv
	noAuthGMS, noAuthFrontend := noAuth.GMS, noAuth.Frontend
	laterGMS, laterFrontend, replicaGMS := later.GMS, later.Frontend, replica.GMS
	return &Target{
		GMS:        first.GMS,
		Frontend:   first.Frontend,
		AdminToken: token,
		NoAuthGMS:  noAuthGMS,
		Reference:  true,
		Lag:        lag,

		NoAuthFrontend: noAuthFrontend,
		LaterGMS:       laterGMS,
		LaterFrontend:  laterFrontend,
		ReplicaGMS:     replicaGMS,
		stop:           stopAll,
	}, nil
}

// catalogdBinary is CATALOGSPEC_CATALOGD, or catalogd built into a
// temporary directory that remove deletes.
func catalogdBinary(ctx context.Context, getenv func(string) string) (bin string, remove func() error, err error) {
	noop := func() error { return nil }
	if p := getenv(envCatalogd); p != "" {
		if info, err := os.Stat(p); err != nil || info.IsDir() {
			return "", noop, fmt.Errorf("%s=%q: %w: build it with `go build -o bin/catalogd %s` or unset %s to let the harness build it", envCatalogd, p, errNoCatalogd, catalogdSource, envCatalogd)
		}
		return p, noop, nil
	}
	// The module root: the parent of steps/ under go test, the working
	// directory when bin/catalogspec runs from the project's root.
	var root string
	for _, dir := range []string{"..", "."} {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return "", noop, err
		}
		if _, err := os.Stat(filepath.Join(abs, catalogdSource)); err == nil {
			root = abs
			break
		}
	}
	if root == "" {
		wd, _ := os.Getwd()
		return "", noop, fmt.Errorf("%w: no source at %s or in its parent to build, and %s is unset", errNoCatalogd, filepath.Join(wd, catalogdSource), envCatalogd)
	}
	if _, err := exec.LookPath("go"); err != nil {
		return "", noop, fmt.Errorf("%w: cannot build it, no go tool on PATH (set %s to a built catalogd)", errNoCatalogd, envCatalogd)
	}
	bin, removeBuild, err := catalogdtest.Binary(ctx, "")
	if err != nil {
		return "", noop, fmt.Errorf("building catalogd (%s) failed: %w", catalogdSource, err)
	}
	return bin, func() error { removeBuild(); return nil }, nil
}

// withEnv returns env with key set to value, replacing any earlier value.
func withEnv(env []string, key, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, key+"=") {
			out = append(out, kv)
		}
	}
	return append(out, key+"="+value)
}

// maskLogLine hides credentials in a line catalogd printed: tokens, and a
// generated password, which catalogd shows once after the last ": ".
func maskLogLine(line string) string {
	line = Mask(line)
	if strings.Contains(strings.ToLower(line), "password") {
		if i := strings.LastIndex(line, ": "); i >= 0 {
			line = line[:i+2] + maskedText
		}
	}
	return line
}
