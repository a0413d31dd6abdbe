package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catalogspec/catalogspec/internal/syncbuf"
)

// These tests use catalogd as an operator does, with no DATABASE_URL: the
// local cluster in a data directory, kept across restarts.

// noEnv is an environment with nothing set but extra.
func noEnv(extra map[string]string) func(string) string {
	return func(k string) string { return extra[k] }
}

// dataDir is a fresh directory for a cluster, reachable by the postgres
// user the server runs as.
func dataDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "catalogd-operator-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "pgdata")
}

// served is one `catalogd serve` running in the test.
type served struct {
	gms    string
	dbURL  string
	log    *syncbuf.Buffer
	cancel context.CancelFunc
	done   chan error
}

func serveOn(t *testing.T, dir string, env func(string) string) *served {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stdoutR, stdoutW := io.Pipe()
	s := &served{log: &syncbuf.Buffer{}, cancel: cancel, done: make(chan error, 1)}
	go func() {
		s.done <- run(ctx, []string{"catalogd", "serve", "--data-dir", dir, "--gms-addr", "127.0.0.1:0", "--frontend-addr", "127.0.0.1:0"}, env, stdoutW, s.log)
		stdoutW.Close()
	}()
	sc := bufio.NewScanner(stdoutR)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "catalogd: gms listening on "); ok {
			s.gms = rest
		}
		if strings.HasPrefix(line, "catalogd: frontend listening on ") {
			break
		}
	}
	go io.Copy(io.Discard, stdoutR) //nolint:errcheck // drain the rest
	if s.gms == "" {
		cancel()
		t.Fatalf("serve did not start: %v\n%s", <-s.done, s.log.String())
	}
	// The URL is logged just after the listening lines.
	for deadline := time.Now().Add(5 * time.Second); s.dbURL == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for _, line := range strings.Split(s.log.String(), "\n") {
			if _, rest, ok := strings.Cut(line, "DATABASE_URL="); ok {
				s.dbURL = strings.Fields(rest)[0]
			}
		}
	}
	return s
}

func (s *served) stop(t *testing.T) {
	t.Helper()
	s.cancel()
	select {
	case err := <-s.done:
		if err != nil {
			t.Errorf("serve returned %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
}

func works(t *testing.T, gms, token string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", gms+"/entities/urn:li:corpuser:datahub", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

func mint(t *testing.T, args []string, env func(string) string) (string, error) {
	t.Helper()
	var stdout, stderr strings.Builder
	err := run(context.Background(), append([]string{"catalogd", "token", "create", "--name", "op", "--duration", "ONE_HOUR"}, args...), env, &stdout, &stderr)
	return strings.TrimSpace(stdout.String()), err
}

// TestTokenCreateWhileServing: token create, from another working
// directory, mints into the database the running service uses (never a
// second cluster, never stopping the service's), and the service accepts
// the token.
func TestTokenCreateWhileServing(t *testing.T) {
	dir := dataDir(t)
	s := serveOn(t, dir, noEnv(nil))
	defer s.stop(t)

	wd, _ := os.Getwd()
	other := t.TempDir()
	if err := os.Chdir(other); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd) //nolint:errcheck // back where the test started
	token, err := mint(t, []string{"--data-dir", dir}, noEnv(nil))
	if err != nil {
		t.Fatalf("token create while serve runs: %v", err)
	}
	if code := works(t, s.gms, token); code != 200 {
		t.Fatalf("the running service answers %d to the token", code)
	}
	if entries, _ := os.ReadDir(other); len(entries) != 0 {
		t.Errorf("token create left %d entries in its working directory", len(entries))
	}
	// The service's database is still there: a second token works too.
	if code := works(t, s.gms, token); code != 200 {
		t.Fatalf("after token create the service answers %d", code)
	}
}

// TestTokenCreateExpired: --expired mints a token the running service
// refuses as expired, while the same command without it mints one it takes.
func TestTokenCreateExpired(t *testing.T) {
	dir := dataDir(t)
	s := serveOn(t, dir, noEnv(nil))
	defer s.stop(t)
	var stdout, stderr strings.Builder
	err := run(context.Background(), []string{"catalogd", "token", "create", "--name", "old", "--expired", "--data-dir", dir}, noEnv(nil), &stdout, &stderr)
	if err != nil {
		t.Fatalf("token create --expired: %v", err)
	}
	if code := works(t, s.gms, strings.TrimSpace(stdout.String())); code != 401 {
		t.Errorf("the service answers %d to the expired token, want 401", code)
	}
	fresh, err := mint(t, []string{"--data-dir", dir}, noEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	if code := works(t, s.gms, fresh); code != 200 {
		t.Errorf("the service answers %d to a token minted without --expired, want 200", code)
	}
	err = run(context.Background(), []string{"catalogd", "token", "create", "--name", "old", "--expired", "--duration", "NO_EXPIRY", "--data-dir", dir}, noEnv(nil), &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "--expired") {
		t.Errorf("--expired with NO_EXPIRY: err = %v, want a refusal naming --expired", err)
	}
}

// TestTokenCreateWithoutDatabase: with no cluster in the data directory,
// token create says where it looked and creates nothing.
func TestTokenCreateWithoutDatabase(t *testing.T) {
	dir := dataDir(t)
	_, err := mint(t, []string{"--data-dir", dir}, noEnv(nil))
	if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "DATABASE_URL") {
		t.Fatalf("err = %v; want it to name %s and what to pass", err, dir)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("token create made %s", dir)
	}
}

// TestRestartKeepsDataAndURL: a restart of serve on the same data directory
// keeps the tokens and the logged DATABASE_URL.
func TestRestartKeepsDataAndURL(t *testing.T) {
	dir := dataDir(t)
	s := serveOn(t, dir, noEnv(nil))
	token, err := mint(t, []string{"--data-dir", dir}, noEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	first := s.dbURL
	s.stop(t)

	s = serveOn(t, dir, noEnv(nil))
	defer s.stop(t)
	if first == "" || s.dbURL != first {
		t.Errorf("DATABASE_URL was %q, after the restart %q", first, s.dbURL)
	}
	if code := works(t, s.gms, token); code != 200 {
		t.Errorf("after a restart the token gets %d", code)
	}
}

// TestSigningKeyMustAgree: a signing key in the environment that differs
// from the one the database holds is refused, by serve and token create
// alike, saying so.
func TestSigningKeyMustAgree(t *testing.T) {
	dir := dataDir(t)
	s := serveOn(t, dir, noEnv(nil))
	defer s.stop(t)
	wrong := noEnv(map[string]string{"DATAHUB_TOKEN_SERVICE_SIGNING_KEY": strings.Repeat("w", 40)})
	if _, err := mint(t, []string{"--data-dir", dir}, wrong); err == nil || !strings.Contains(err.Error(), "differs") {
		t.Errorf("token create with another key: err = %v", err)
	}
	err := run(context.Background(), []string{"catalogd", "serve", "--data-dir", dir, "--gms-addr", "127.0.0.1:0", "--frontend-addr", "127.0.0.1:0"}, wrong, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "differs") {
		t.Errorf("serve with another key: err = %v", err)
	}
}
