// Package catalogdtest runs catalogd, the reference service, as a process
// of its own on free loopback ports, for whatever needs a real one: the
// suite's harness, the self-test, the hardening, smoke and SDK tests, and
// the benchmark. It is to catalogd what net/http/httptest is to a handler
// and pgtest to the database: Build or Binary gives the program (Main, in
// a TestMain), Start runs `catalogd serve` over a database and waits until
// it answers, Token mints a personal access token with `catalogd token
// create`, Stop ends it, and Tail shows its last lines when something went
// wrong. New and NewToken are Start and Token for a test, which fails when
// they fail; New stops catalogd when the test ends.
//
// catalogd says where it listens in the file named by its --ready-file
// flag (JSON, written whole once both tiers listen); the "listening on"
// lines it prints are for people, and nothing here reads them.
package catalogdtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

const (
	// Package is catalogd's import path, which Build compiles.
	Package = "github.com/catalogspec/catalogspec/reference/cmd/catalogd"
	// Root is the root user, who holds every privilege.
	Root = "urn:li:corpuser:datahub"
	// DefaultTimeout bounds a start when Options.Timeout is zero.
	DefaultTimeout = 60 * time.Second
	// stopTimeout is how long Stop waits after SIGTERM before it kills.
	stopTimeout = 15 * time.Second
	// keptLines is how many of its last lines a Server keeps for Tail.
	keptLines = 2000
)

// Build compiles catalogd into dir and returns the program's path. flags go
// to `go build` before the package (tools/replicaproof builds a broken one
// with -overlay). It runs the go tool in the working directory, which must
// be inside this module.
func Build(ctx context.Context, dir string, flags ...string) (string, error) {
	bin := filepath.Join(dir, "catalogd")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	args := append(append([]string{"build", "-o", bin}, flags...), Package)
	out, err := exec.CommandContext(ctx, "go", args...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return bin, nil
}

// Binary is given, when it names a program (someone built catalogd: a
// mutant, an older build), or else catalogd built into a new temporary
// directory, which remove deletes.
func Binary(ctx context.Context, given string) (bin string, remove func(), err error) {
	if given != "" {
		if info, err := os.Stat(given); err != nil || info.IsDir() {
			return "", func() {}, fmt.Errorf("%s is not a catalogd program (%v)", given, err)
		}
		return given, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "catalogdtest-")
	if err != nil {
		return "", func() {}, err
	}
	remove = func() { _ = os.RemoveAll(dir) }
	if bin, err = Build(ctx, dir); err != nil {
		remove()
		return "", func() {}, err
	}
	return bin, remove, nil
}

// Main is for a TestMain: it sets *bin to given, or to catalogd built for
// the run, calls run (m.Run, or pgtest.Main's), removes what it built, and
// returns run's exit code. It exits when catalogd cannot be built.
//
//	os.Exit(catalogdtest.Main(os.Getenv("CATALOGSPEC_X_CATALOGD"), &catalogdBin, m.Run))
func Main(given string, bin *string, run func() int) int {
	b, remove, err := Binary(context.Background(), given)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer remove()
	*bin = b
	return run()
}

// Options say how to run `catalogd serve`. Binary and DatabaseURL are
// needed; the rest may be left zero.
type Options struct {
	// Binary is the catalogd to run.
	Binary string
	// DatabaseURL is the PostgreSQL it serves from (its DATABASE_URL).
	DatabaseURL string
	// Env is set over the environment catalogd inherits, later entries
	// winning: METADATA_SERVICE_AUTH_ENABLED=false, CATALOGD_CLOCK_OFFSET,
	// CATALOGD_POLICY_REFRESH and the rest of `catalogd serve -h`.
	Env []string
	// Inherit is the environment to start from; nil means this process's.
	Inherit []string
	// Args are more flags for serve, such as --log-level warn.
	Args []string
	// Log, when set, receives all catalogd prints: its log (stderr) as it
	// is, and each line of its stdout after "stdout: ", credentials masked.
	Log io.Writer
	// Timeout bounds the start: until it listens and /health answers 200.
	// Zero means DefaultTimeout.
	Timeout time.Duration
}

// Server is a running `catalogd serve`.
type Server struct {
	// GMS and Frontend are the base URLs of the two tiers, such as
	// http://127.0.0.1:41234, with no slash at the end.
	GMS, Frontend string
	// PID is the process's id.
	PID int

	bin      string
	env      []string
	cmd      *exec.Cmd
	exited   chan struct{}
	waitErr  error
	readyDir string
	lines    *lines
	stopOnce sync.Once
	stopErr  error
}

// Start runs `catalogd serve` on free loopback ports and returns once it
// listens and its /health answers 200. ctx bounds the start only: the
// server runs until Stop. When it fails to start, the error holds its last
// lines.
func Start(ctx context.Context, o Options) (*Server, error) {
	if o.Binary == "" || o.DatabaseURL == "" {
		return nil, errors.New("catalogdtest: Options need a Binary and a DatabaseURL")
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	env := o.Inherit
	if env == nil {
		env = os.Environ()
	}
	env = append(append(append([]string(nil), env...), "DATABASE_URL="+o.DatabaseURL), o.Env...)
	dir, err := os.MkdirTemp("", "catalogdtest-")
	if err != nil {
		return nil, err
	}
	ready := filepath.Join(dir, "ready.json")
	s := &Server{bin: o.Binary, env: env, exited: make(chan struct{}), readyDir: dir, lines: newLines(keptLines, o.Log)}
	args := append([]string{"serve", "--gms-addr", "127.0.0.1:0", "--frontend-addr", "127.0.0.1:0", "--ready-file", ready}, o.Args...)
	s.cmd = exec.Command(o.Binary, args...)
	s.cmd.Env = env
	s.cmd.Stdout = s.lines.writer("stdout: ")
	s.cmd.Stderr = s.lines.writer("")
	s.cmd.WaitDelay = 5 * time.Second // a child holding its output open
	StopWithParent(s.cmd)
	if err := s.cmd.Start(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("starting %s serve: %w", o.Binary, err)
	}
	s.PID = s.cmd.Process.Pid
	go func() {
		s.waitErr = s.cmd.Wait()
		s.lines.flush()
		close(s.exited)
	}()

	failed := func(format string, args ...any) (*Server, error) {
		_ = s.Stop()
		return nil, fmt.Errorf("catalogd serve "+format+"; its last output:\n%s", append(args, s.Tail(40))...)
	}
	addrs, err := s.waitReady(ctx, ready)
	if err != nil {
		return failed("%v", err)
	}
	s.GMS, s.Frontend = strings.TrimRight(addrs.GMS, "/"), strings.TrimRight(addrs.Frontend, "/")
	if err := s.waitHealthy(ctx); err != nil {
		return failed("%v", err)
	}
	return s, nil
}

// New starts catalogd for the test t, which fails if it cannot, and stops
// it when t ends, showing its last lines in t's log if t failed.
func New(t testing.TB, o Options) *Server {
	t.Helper()
	s, err := Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Log(err)
		}
		if t.Failed() {
			t.Logf("catalogd's last output:\n%s", s.Tail(keptLines))
		}
	})
	return s
}

// waitReady waits for the --ready-file, while catalogd runs.
func (s *Server) waitReady(ctx context.Context, path string) (addrs struct{ GMS, Frontend string }, err error) {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if b, err := os.ReadFile(path); err == nil {
			if err := json.Unmarshal(b, &addrs); err != nil || addrs.GMS == "" || addrs.Frontend == "" {
				return addrs, fmt.Errorf("wrote %q to its --ready-file, not its two URLs (%v)", b, err)
			}
			return addrs, nil
		}
		select {
		case <-s.exited:
			return addrs, fmt.Errorf("exited before it listened (%v)", s.waitErr)
		case <-ctx.Done():
			return addrs, fmt.Errorf("did not listen in time (%v)", context.Cause(ctx))
		case <-tick.C:
		}
	}
}

// waitHealthy polls /health until it answers 200.
func (s *Server) waitHealthy(ctx context.Context) error {
	client := &http.Client{Timeout: 2 * time.Second}
	last := "no answer"
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.GMS+"/health", nil)
		if err != nil {
			return err
		}
		if resp, err := client.Do(req); err == nil {
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
		case <-s.exited:
			return fmt.Errorf("exited while waiting for %s/health (%v)", s.GMS, s.waitErr)
		case <-ctx.Done():
			return fmt.Errorf("%s/health did not answer 200 in time (last: %s)", s.GMS, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Stop ends catalogd: SIGTERM, and a kill if it has not stopped 15 seconds
// later (which Stop reports). It may be called more than once.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		defer os.RemoveAll(s.readyDir)
		select {
		case <-s.exited:
			return
		default:
		}
		if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			_ = s.cmd.Process.Kill()
		}
		select {
		case <-s.exited:
		case <-time.After(stopTimeout):
			_ = s.cmd.Process.Kill()
			<-s.exited
			s.stopErr = fmt.Errorf("catalogd (pid %d) did not stop within %s of SIGTERM, and was killed", s.PID, stopTimeout)
		}
	})
	return s.stopErr
}

// Token has `catalogd token create` mint a personal access token for
// actor, named name, lasting duration (ONE_HOUR, ONE_DAY, NO_EXPIRY, ...),
// in this server's database. catalogd prints the token alone on stdout; it
// is never logged, nor shown in an error.
func (s *Server) Token(ctx context.Context, actor, name, duration string) (string, error) {
	return s.mint(ctx, actor, "--name", name, "--duration", duration)
}

// ExpiredToken mints, as Token does, a token of actor that expired an hour
// ago (token create --expired): one the service must refuse as expired.
func (s *Server) ExpiredToken(ctx context.Context, actor, name string) (string, error) {
	return s.mint(ctx, actor, "--name", name, "--expired")
}

func (s *Server) mint(ctx context.Context, actor string, flags ...string) (string, error) {
	cmd := exec.CommandContext(ctx, s.bin, append([]string{"token", "create", "--actor", actor}, flags...)...)
	cmd.Env = s.env
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	words := strings.Fields(stdout.String())
	if err != nil || len(words) != 1 {
		return "", fmt.Errorf("catalogd token create --actor %s: %v, %d word(s) on stdout (want the token alone)\n%s",
			actor, err, len(words), maskText(strings.TrimSpace(stderr.String()+"\n"+stdout.String())))
	}
	return words[0], nil
}

// NewToken is Token for the test t, which fails if it cannot.
func (s *Server) NewToken(t testing.TB, actor, name, duration string) string {
	t.Helper()
	token, err := s.Token(context.Background(), actor, name, duration)
	if err != nil {
		t.Fatal(err)
	}
	return token
}

// Tail is the last n lines catalogd printed (its log and its stdout, in the
// order they came), credentials masked.
func (s *Server) Tail(n int) string {
	return s.lines.last(n)
}
