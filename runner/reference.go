package runner

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/catalogspec/catalogspec/reference/pgprovider"
)

// Starting the reference service when no target is given: a database from
// pgprovider, catalogd serving on free ports (a second instance with auth
// disabled on the same database), and an admin token from catalogd itself.

const (
	RootUser       = "urn:li:corpuser:datahub"
	startTimeout   = 30 * time.Second
	stopTimeout    = 10 * time.Second
	gmsLinePrefix  = "catalogd: gms listening on "
	feLinePrefix   = "catalogd: frontend listening on "
	catalogdSource = "./reference/cmd/catalogd" // relative to the module root
)

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

	env := withEnv(os.Environ(), "DATABASE_URL", db.URL)
	// Every scenario signs in from 127.0.0.1, four at a time, and the
	// self-test runs the suite some fifty times against one instance: the
	// failures they make on purpose (a few dozen a run) must not throttle
	// one another's sign-ins as one client's. Each scenario's own users
	// are throttled as everyone's are (signin-11).
	env = withEnv(env, "CATALOGD_SIGNIN_MAX_FAILURES_PER_CLIENT", "100000")
	// Passwords at bcrypt's least cost: a run sets and checks some 200 of
	// them, which at the default cost took most of the reference's CPU.
	env = lag.env(withEnv(env, "CATALOGD_PASSWORD_COST", "4"))

	gms, frontend, stop, err := startCatalogd(ctx, bin, withEnv(env, "METADATA_SERVICE_AUTH_ENABLED", "true"), logFile, logPath)
	if err != nil {
		return nil, err
	}
	stops = append(stops, stop)

	// The other three instances, and the admin token, at once: the first
	// has migrated the database and made the root user.
	type instance struct {
		what, log  string
		env        []string
		gms, front string
		stop       func(context.Context) error
		err        error
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
		path := filepath.Join(reportsDir, in.log)
		f, err := os.Create(path)
		if err != nil {
			return nil, err
		}
		stops = append(stops, func(context.Context) error { return f.Close() })
		wg.Add(1)
		go func() {
			defer wg.Done()
			in.gms, in.front, in.stop, in.err = startCatalogd(ctx, bin, in.env, f, path)
		}()
	}
	var token string
	var tokenErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		token, tokenErr = mintAdminToken(ctx, bin, env)
	}()
	wg.Wait()
	var errs []error
	for _, in := range others {
		if in.err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", in.what, in.err))
			continue
		}
		stops = append(stops, in.stop)
	}
	if err := errors.Join(append(errs, tokenErr)...); err != nil {
		return nil, err
	}
	noAuthGMS, noAuthFrontend := others[0].gms, others[0].front
	laterGMS, laterFrontend, replicaGMS := others[1].gms, others[1].front, others[2].gms
	return &Target{
		GMS:        gms,
		Frontend:   frontend,
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
	goTool, err := exec.LookPath("go")
	if err != nil {
		return "", noop, fmt.Errorf("%w: cannot build it, no go tool on PATH (set %s to a built catalogd)", errNoCatalogd, envCatalogd)
	}
	dir, err := os.MkdirTemp("", "catalogspec-catalogd-")
	if err != nil {
		return "", noop, err
	}
	remove = func() error { return os.RemoveAll(dir) }
	bin = filepath.Join(dir, "catalogd")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	cmd := exec.CommandContext(ctx, goTool, "build", "-o", bin, catalogdSource)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		_ = remove()
		return "", noop, fmt.Errorf("building catalogd (%s) failed: %v\n%s", catalogdSource, err, out)
	}
	return bin, remove, nil
}

// startCatalogd runs `catalogd serve` on free ports, reads the URLs it
// prints, and waits until its metadata service is healthy. Its stderr (the
// logs) and the rest of its stdout go to log.
func startCatalogd(ctx context.Context, bin string, env []string, log *os.File, logPath string) (gms, frontend string, stop func(context.Context) error, err error) {
	cmd := exec.Command(bin, "serve", "--gms-addr", "127.0.0.1:0", "--frontend-addr", "127.0.0.1:0")
	cmd.Env = env
	cmd.Stderr = log
	setProcAttr(cmd)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", "", nil, fmt.Errorf("starting %s serve: %w", bin, err)
	}

	type urls struct{ gms, frontend string }
	found := make(chan urls, 1)
	exited := make(chan struct{})
	var waitErr error
	go func() {
		var u urls
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, gmsLinePrefix):
				u.gms = strings.TrimRight(strings.TrimSpace(strings.TrimPrefix(line, gmsLinePrefix)), "/")
			case strings.HasPrefix(line, feLinePrefix):
				u.frontend = strings.TrimRight(strings.TrimSpace(strings.TrimPrefix(line, feLinePrefix)), "/")
			}
			if u.gms != "" && u.frontend != "" {
				select {
				case found <- u:
				default:
				}
			}
			fmt.Fprintln(log, "stdout: "+maskLogLine(line))
		}
		_, _ = io.Copy(io.Discard, stdout)
		waitErr = cmd.Wait()
		close(exited)
	}()

	stop = func(context.Context) error {
		select {
		case <-exited:
			return nil
		default:
		}
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			_ = cmd.Process.Kill()
		}
		select {
		case <-exited:
		case <-time.After(stopTimeout):
			_ = cmd.Process.Kill()
			<-exited
		}
		return nil
	}
	failed := func(format string, args ...any) (string, string, func(context.Context) error, error) {
		_ = stop(ctx)
		return "", "", nil, fmt.Errorf("catalogd serve: "+format+"\nits last output (%s):\n%s", append(args, logPath, logTail(logPath, 40))...)
	}

	var u urls
	select {
	case u = <-found:
	case <-exited:
		return failed("exited before saying where it listens (%v)", waitErr)
	case <-time.After(startTimeout):
		return failed("did not say where it listens within %s", startTimeout)
	case <-ctx.Done():
		return failed("%v", ctx.Err())
	}
	if err := waitHealthy(ctx, u.gms+"/health", exited); err != nil {
		return failed("%v", err)
	}
	return u.gms, u.frontend, stop, nil
}

// waitHealthy polls url until it answers 200, the process exits, or the
// start timeout passes.
func waitHealthy(ctx context.Context, url string, exited <-chan struct{}) error {
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(startTimeout)
	var last string
	for time.Now().Before(deadline) {
		resp, err := client.Get(url)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		select {
		case <-exited:
			return fmt.Errorf("exited while waiting for %s", url)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return fmt.Errorf("%s did not answer 200 within %s (last: %s)", url, startTimeout, last)
}

// mintAdminToken has catalogd make a token for the root user. catalogd
// prints the raw token alone on stdout; it is never logged.
func mintAdminToken(ctx context.Context, bin string, env []string) (string, error) {
	cmd := exec.CommandContext(ctx, bin, "token", "create", "--actor", RootUser, "--name", "catalogspec-admin", "--duration", "ONE_DAY")
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("catalogd token create: %v\n%s", err, Mask(stderr.String(), stdout.String()))
	}
	lines := strings.Fields(strings.TrimSpace(stdout.String()))
	if len(lines) != 1 {
		return "", fmt.Errorf("catalogd token create printed %d words on stdout, expected the token alone", len(lines))
	}
	return lines[0], nil
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

// logTail returns the last n lines of the file at path, masked.
func logTail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", path, err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		lines[i] = maskLogLine(l)
	}
	return strings.Join(lines, "\n")
}
