package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
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

// startReference starts the reference and returns it as the target: five
// instances of catalogd on one database (the first, one with
// authentication off, one whose clock runs ahead, a replica, one behind a
// proxy that terminates TLS), each logging
// to a file of its own in reportsDir, and an admin token made by the first.
func startReference(ctx context.Context, getenv func(string) string, reportsDir string, lag referenceLag) (_ *Target, err error) {
	var stops stopList
	defer func() {
		if err != nil {
			_ = stops.all(context.WithoutCancel(ctx))
		}
	}()
	logFile, err := stops.create(filepath.Join(reportsDir, "catalogd.log"))
	if err != nil {
		return nil, err
	}
	bin, removeBin, err := catalogdBinary(ctx, getenv)
	if err != nil {
		return nil, err
	}
	stops.add(func(context.Context) error { return removeBin() })
	logger := slog.New(slog.NewTextHandler(logFile, nil))
	db, err := pgprovider.Provide(ctx, pgprovider.Options{Getenv: getenv, Logger: logger})
	if err != nil {
		return nil, fmt.Errorf("no database for the reference: %w", err)
	}
	stops.add(db.Close)

	h := &harness{ctx: ctx, bin: bin, db: db.URL, stops: &stops, reportsDir: reportsDir}
	env := referenceEnv(lag)
	first, err := h.start(withEnv(env, "METADATA_SERVICE_AUTH_ENABLED", "true"), logFile)
	if err != nil {
		return nil, err
	}
	t, err := h.startOthers(first, env)
	if err != nil {
		return nil, err
	}
	t.GMS, t.Frontend, t.Reference, t.Lag, t.stop = first.GMS, first.Frontend, true, lag, stops.all
	return t, nil
}

// referenceEnv is what every instance of the reference runs with.
func referenceEnv(lag referenceLag) []string {
	// Every scenario signs in from 127.0.0.1, four at a time, and the
	// self-test runs the suite some fifty times against one instance: the
	// failures they make on purpose (a few dozen a run) must not throttle
	// one another's sign-ins as one client's. Each scenario's own users
	// are throttled as everyone's are (signin-11).
	env := withEnv(nil, "CATALOGD_SIGNIN_MAX_FAILURES_PER_CLIENT", "100000")
	// Passwords at bcrypt's least cost: a run sets and checks some 200 of
	// them, which at the default cost took most of the reference's CPU.
	return lag.env(withEnv(env, "CATALOGD_PASSWORD_COST", "4"))
}

// harness starts the reference's instances, on one database, each stopped
// with the rest.
type harness struct {
	ctx        context.Context
	bin, db    string
	stops      *stopList
	reportsDir string
}

// start starts one instance logging to log.
func (h *harness) start(env []string, log *os.File) (*catalogdtest.Server, error) {
	srv, err := catalogdtest.Start(h.ctx, catalogdtest.Options{Binary: h.bin, DatabaseURL: h.db, Env: env, Log: log})
	if err != nil {
		return nil, fmt.Errorf("%w\n(all of it in %s)", err, log.Name())
	}
	h.stops.add(func(context.Context) error { return srv.Stop() })
	return srv, nil
}

// startOthers starts the other four instances and makes the admin token,
// all at once: the first has migrated the database and made the root user.
// The target it returns has their addresses and the token.
func (h *harness) startOthers(first *catalogdtest.Server, env []string) (*Target, error) {
	type instance struct {
		what, log string
		env       []string
		srv       *catalogdtest.Server
		err       error
	}
	noAuth := &instance{what: "the auth-disabled instance", log: "catalogd-noauth.log",
		env: withEnv(env, "METADATA_SERVICE_AUTH_ENABLED", "false")}
	// Its clock runs laterBy ahead: tokens made on the first are judged
	// there as they will be a day on.
	later := &instance{what: "the later-clock instance", log: "catalogd-later.log",
		env: withEnv(withEnv(env, "METADATA_SERVICE_AUTH_ENABLED", "true"), "CATALOGD_CLOCK_OFFSET", laterBy.String())}
	// Like the first, for what replicas sharing a database must agree on
	// (@cap:replicas).
	replica := &instance{what: "the replica instance", log: "catalogd-replica.log",
		env: withEnv(env, "METADATA_SERVICE_AUTH_ENABLED", "true")}
	// Like the first, behind a proxy that terminates TLS, whose
	// X-Forwarded-Proto it believes (@cap:https-frontend): the loopback
	// address the proxy connects from is its only trusted proxy.
	behindTLS := &instance{what: "the instance behind a TLS proxy", log: "catalogd-tls.log",
		env: withEnv(withEnv(env, "METADATA_SERVICE_AUTH_ENABLED", "true"), "CATALOGD_TRUSTED_PROXIES", "127.0.0.1/32")}

	var wg sync.WaitGroup
	for _, in := range []*instance{noAuth, later, replica, behindTLS} {
		f, err := h.stops.create(filepath.Join(h.reportsDir, in.log))
		if err != nil {
			wg.Wait()
			return nil, err
		}
		wg.Go(func() {
			if in.srv, in.err = h.start(in.env, f); in.err != nil {
				in.err = fmt.Errorf("%s: %w", in.what, in.err)
			}
		})
	}
	var token, expired string
	var tokenErr, expiredErr error
	wg.Go(func() { token, tokenErr = first.Token(h.ctx, RootUser, "catalogspec-admin", "ONE_DAY") })
	wg.Go(func() { expired, expiredErr = first.ExpiredToken(h.ctx, RootUser, "catalogspec-expired") })
	wg.Wait()
	if err := errors.Join(tokenErr, expiredErr, noAuth.err, later.err, replica.err, behindTLS.err); err != nil {
		return nil, err
	}
	revoked, err := revokedToken(h.ctx, first, token)
	if err != nil {
		return nil, err
	}
	proxy, err := startTLSProxy(behindTLS.srv.Frontend)
	if err != nil {
		return nil, err
	}
	h.stops.add(proxy.stop)
	return &Target{
		HTTPSFrontend:  proxy.URL,
		TLSRoots:       proxy.Roots,
		AdminToken:     token,
		RevokedToken:   revoked,
		ExpiredToken:   expired,
		NoAuthGMS:      noAuth.srv.GMS,
		NoAuthFrontend: noAuth.srv.Frontend,
		LaterGMS:       later.srv.GMS,
		LaterFrontend:  later.srv.Frontend,
		ReplicaGMS:     replica.srv.GMS,
	}, nil
}

// stopList is what stops the reference, undone last first; instances
// started at once add to it together.
type stopList struct {
	mu  sync.Mutex
	fns []func(context.Context) error
}

func (l *stopList) add(f func(context.Context) error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.fns = append(l.fns, f)
}

// create creates the file at path, closed with the rest.
func (l *stopList) create(path string) (*os.File, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	l.add(func(context.Context) error { return f.Close() })
	return f, nil
}

// all runs every stop, the last added first, and joins their errors.
func (l *stopList) all(ctx context.Context) error {
	l.mu.Lock()
	fns := l.fns
	l.fns = nil
	l.mu.Unlock()
	var errs []error
	for i := len(fns) - 1; i >= 0; i-- {
		errs = append(errs, fns[i](ctx))
	}
	return errors.Join(errs...)
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

// revokedToken makes a token of the root user and revokes it through the
// API, as the administrator: a token the reference must refuse on every
// path (the read-only scenarios' CATALOGSPEC_REVOKED_TOKEN).
func revokedToken(ctx context.Context, first *catalogdtest.Server, admin string) (string, error) {
	token, err := first.Token(ctx, RootUser, "catalogspec-revoked", "ONE_HOUR")
	if err != nil {
		return "", err
	}
	ask := func(doc string, vars map[string]any, v any) error {
		body, _ := json.Marshal(map[string]any{"query": doc, "variables": vars})
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, first.GMS+"/api/graphql", bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+admin)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("status %d", resp.StatusCode)
		}
		return json.Unmarshal(b, v)
	}
	var meta struct {
		Data struct {
			Meta *struct {
				ID string `json:"id"`
			} `json:"getAccessTokenMetadata"`
		} `json:"data"`
	}
	var revoked struct {
		Data struct {
			Revoked bool `json:"revokeAccessToken"`
		} `json:"data"`
	}
	err = ask(`query($t: String!) { getAccessTokenMetadata(token: $t) { id } }`, map[string]any{"t": token}, &meta)
	if err == nil && (meta.Data.Meta == nil || meta.Data.Meta.ID == "") {
		err = errors.New("no id")
	}
	if err == nil {
		err = ask(`mutation($id: String!) { revokeAccessToken(tokenId: $id) }`, map[string]any{"id": meta.Data.Meta.ID}, &revoked)
	}
	if err == nil && !revoked.Data.Revoked {
		err = errors.New("revokeAccessToken answered false")
	}
	if err != nil {
		return "", fmt.Errorf("revoking a token for the read-only scenarios: %w", err)
	}
	return token, nil
}
