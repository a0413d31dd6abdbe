package catalogdtest_test

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/catalogspec/catalogspec/reference/catalogdtest"
	"github.com/catalogspec/catalogspec/reference/postgres"
	"github.com/catalogspec/catalogspec/reference/postgres/pgtest"
)

var (
	bin    string
	testDB *postgres.DB
)

func TestMain(m *testing.M) {
	os.Exit(catalogdtest.Main("", &bin, func() int { return pgtest.Main(m, &testDB) }))
}

func get(t *testing.T, u, token string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestStartTokenStop: catalogd on free loopback ports, healthy when Start
// returns, its URLs from the ready file; a minted root token works on both
// tiers; its output reaches the log, credentials masked; Stop ends the
// process and may be called again.
func TestStartTokenStop(t *testing.T) {
	log, err := os.Create(filepath.Join(t.TempDir(), "catalogd.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	pwFile := filepath.Join(t.TempDir(), "root-password")
	s, err := catalogdtest.Start(context.Background(), catalogdtest.Options{
		Binary: bin, DatabaseURL: pgtest.Empty(t), Log: log,
		// Generated, and written to a new file of mode 0600 only.
		Env: []string{"CATALOGD_ROOT_PASSWORD=", "CATALOGD_ROOT_PASSWORD_FILE=" + pwFile},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop() })
	for _, base := range []string{s.GMS, s.Frontend} {
		u, err := url.Parse(base)
		if err != nil || u.Scheme != "http" || u.Hostname() != "127.0.0.1" || u.Port() == "" || u.Path != "" {
			t.Fatalf("base URL %q: want http://127.0.0.1:<port> (%v)", base, err)
		}
	}
	if s.GMS == s.Frontend {
		t.Fatalf("both tiers at %s", s.GMS)
	}
	if code := get(t, s.GMS+"/health", ""); code != 200 {
		t.Errorf("/health answers %d once Start returned", code)
	}

	fi, err := os.Stat(pwFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the generated root password's file: %v, %v; want a file of mode 0600", fi, err)
	}
	pw, err := os.ReadFile(pwFile)
	password := strings.TrimSpace(string(pw))
	if err != nil || len(password) < 20 {
		t.Fatalf("the generated root password's file holds %d characters (%v)", len(password), err)
	}
	token, err := s.Token(context.Background(), catalogdtest.Root, "catalogdtest", "ONE_HOUR")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(token, ".") != 2 {
		t.Fatalf("Token returned %d characters that are not a JWT", len(token))
	}
	for _, base := range []string{s.GMS, s.Frontend + "/api/gms"} {
		if code := get(t, base+"/entities/urn:li:corpuser:datahub", token); code != 200 {
			t.Errorf("%s with the minted token: %d, want 200", base, code)
		}
		if code := get(t, base+"/entities/urn:li:corpuser:datahub", ""); code != 401 {
			t.Errorf("%s with no token: %d, want 401 (authentication is on by default)", base, code)
		}
	}
	if _, err := s.Token(context.Background(), catalogdtest.Root, "catalogdtest", "FOREVER"); err == nil {
		t.Error("Token with a duration catalogd refuses returned no error")
	}

	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if p, _ := os.FindProcess(s.PID); p.Signal(syscall.Signal(0)) == nil {
		t.Errorf("catalogd (pid %d) still runs after Stop", s.PID)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("a second Stop: %v", err)
	}
	logged, err := os.ReadFile(log.Name())
	if err != nil {
		t.Fatal(err)
	}
	for what, out := range map[string]string{"the log": string(logged), "Tail": s.Tail(1000)} {
		if !strings.Contains(out, "stdout: catalogd: gms listening on "+s.GMS) {
			t.Errorf("%s lacks catalogd's stdout:\n%s", what, out)
		}
		if !strings.Contains(out, "msg=\"catalogd started\"") {
			t.Errorf("%s lacks catalogd's log:\n%s", what, out)
		}
		if strings.Contains(out, token) || strings.Contains(out, password) || !strings.Contains(out, "generated a password for the root user") {
			t.Errorf("%s shows a credential, or does not say where the generated password is:\n%s", what, out)
		}
	}
	if tail := s.Tail(1); strings.Contains(tail, "\n") || tail == "" {
		t.Errorf("Tail(1) = %q, want one line", tail)
	}
}

// TestEnvReachesCatalogd: two instances on one database, one with
// authentication turned off through Env: it serves without a token, and
// the other, next to it, does not.
func TestEnvReachesCatalogd(t *testing.T) {
	db := pgtest.Empty(t)
	on := catalogdtest.New(t, catalogdtest.Options{Binary: bin, DatabaseURL: db, Args: []string{"--log-level", "warn"}})
	off := catalogdtest.New(t, catalogdtest.Options{Binary: bin, DatabaseURL: db,
		Env: []string{"METADATA_SERVICE_AUTH_ENABLED=true", "METADATA_SERVICE_AUTH_ENABLED=false"}})
	if code := get(t, off.GMS+"/entities/urn:li:corpuser:datahub", ""); code != 200 {
		t.Errorf("with METADATA_SERVICE_AUTH_ENABLED=false last in Env: %d without a token, want 200", code)
	}
	if code := get(t, on.GMS+"/entities/urn:li:corpuser:datahub", ""); code != 401 {
		t.Errorf("the instance beside it: %d without a token, want 401", code)
	}
	if strings.Contains(on.Tail(1000), "level=INFO") {
		t.Errorf("--log-level warn did not reach catalogd:\n%s", on.Tail(20))
	}
}

// TestStartFails: a catalogd that cannot start is an error naming what it
// said, soon, and leaves no process behind; so is a program that is not
// there.
func TestStartFails(t *testing.T) {
	began := time.Now()
	_, err := catalogdtest.Start(context.Background(), catalogdtest.Options{
		Binary: bin, DatabaseURL: "postgres://nobody@127.0.0.1:1/none?connect_timeout=2", Timeout: 30 * time.Second})
	if err == nil {
		t.Fatal("Start with a database that does not answer returned no error")
	}
	if !strings.Contains(err.Error(), "exited before it listened") || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("the error does not say catalogd exited, with its complaint: %v", err)
	}
	if took := time.Since(began); took > 25*time.Second {
		t.Errorf("took %s to fail", took)
	}
	if _, err := catalogdtest.Start(context.Background(), catalogdtest.Options{Binary: "/no/such/catalogd", DatabaseURL: "postgres://x"}); err == nil {
		t.Error("Start with no program returned no error")
	}
	if _, _, err := catalogdtest.Binary(context.Background(), "/no/such/catalogd"); err == nil {
		t.Error("Binary of a path with nothing there returned no error")
	}
}

func TestLastLines(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{{"a\nb\nc\n", 2, "b\nc"}, {"a\nb", 5, "a\nb"}, {"", 3, ""}} {
		if got := catalogdtest.LastLines(c.in, c.n); got != c.want {
			t.Errorf("LastLines(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
