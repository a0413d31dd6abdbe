package pgprovider

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// noEnv hides DATABASE_URL (and DOCKER_HOST) from Provide and passes the
// rest of the environment through.
func noEnv(key string) string {
	switch key {
	case "DATABASE_URL", "DOCKER_HOST":
		return ""
	}
	return os.Getenv(key)
}

func testLogger(buf *bytes.Buffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

func connect(t *testing.T, ctx context.Context, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// sharedDir returns a fresh directory the postgres OS user can reach when
// the test runs as root (t.TempDir is root-owned and mode 0700).
func sharedDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if os.Geteuid() == 0 {
		for d := dir; d != filepath.Dir(d) && strings.HasPrefix(d, os.TempDir()) && d != os.TempDir(); d = filepath.Dir(d) {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

func TestProvideLocal(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var logs bytes.Buffer
	start := time.Now()
	db, err := Provide(ctx, Options{Getenv: noEnv, Logger: testLogger(&logs)})
	if err != nil {
		t.Fatalf("Provide: %v", err)
	}
	t.Logf("Provide took %v; log: %s", time.Since(start).Round(time.Millisecond), strings.TrimSpace(logs.String()))
	t.Cleanup(func() { _ = db.Close(context.Background()) })
	if db.Source != SourceLocal {
		t.Fatalf("Source = %q, want %q (no DATABASE_URL, no Docker engine here)", db.Source, SourceLocal)
	}
	if !strings.Contains(logs.String(), `source="local binaries"`) || strings.Count(logs.String(), "level=INFO") != 1 {
		t.Errorf("want one Info line naming the source, got %q", logs.String())
	}
	if !strings.HasPrefix(db.URL, "postgres://postgres@/catalog?host=/") || strings.Contains(db.URL, "127.0.0.1") {
		t.Errorf("unexpected URL %q: want the unix socket's", db.URL)
	}

	conn := connect(t, ctx, db.URL)
	var one int
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1 = %d, %v", one, err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO items VALUES (1, 'one'), (2, 'two')"); err != nil {
		t.Fatal(err)
	}
	var name string
	if err := conn.QueryRow(ctx, "SELECT name FROM items WHERE id = $1", 2).Scan(&name); err != nil || name != "two" {
		t.Fatalf("SELECT name = %q, %v", name, err)
	}
	var dbName string
	if err := conn.QueryRow(ctx, "SELECT current_database()").Scan(&dbName); err != nil || dbName != "catalog" {
		t.Fatalf("current_database() = %q, %v", dbName, err)
	}
	conn.Close(ctx)

	if db.local == nil || len(db.local.removeDirs) == 0 {
		t.Fatal("Database has no local cluster with a temp dir")
	}
	root := db.local.removeDirs[0]
	if _, err := os.Stat(root); err != nil {
		t.Fatalf("temp dir: %v", err)
	}

	// Close even with an already-cancelled context (the Ctrl-C case).
	cancelled, cancelNow := context.WithCancel(context.Background())
	cancelNow()
	start = time.Now()
	if err := db.Close(cancelled); err != nil {
		t.Fatalf("Close: %v", err)
	}
	t.Logf("Close took %v", time.Since(start).Round(time.Millisecond))
	if _, err := os.Stat(root); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temp dir %s still there after Close (err=%v)", root, err)
	}
	if procs := processesMentioning(root); len(procs) > 0 {
		t.Errorf("processes left after Close: %v", procs)
	}
	shortCtx, cancelShort := context.WithTimeout(ctx, 3*time.Second)
	defer cancelShort()
	if c, err := pgx.Connect(shortCtx, db.URL); err == nil {
		c.Close(ctx)
		t.Error("server still answers after Close")
	}
	if err := db.Close(context.Background()); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestProvideLocalDataDirPersists(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dataDir := filepath.Join(sharedDir(t), "pg data") // a space, for quoting
	opts := Options{Getenv: noEnv, DataDir: dataDir, Logger: testLogger(new(bytes.Buffer))}

	db, err := Provide(ctx, opts)
	if err != nil {
		t.Fatalf("first Provide: %v", err)
	}
	conn := connect(t, ctx, db.URL)
	if _, err := conn.Exec(ctx, "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('still here')"); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	if err := db.Close(ctx); err != nil {
		t.Fatalf("first Close: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dataDir, "PG_VERSION")); err != nil {
		t.Fatalf("DataDir removed by Close: %v", err)
	}

	db2, err := Provide(ctx, opts)
	if err != nil {
		t.Fatalf("second Provide: %v", err)
	}
	t.Cleanup(func() { _ = db2.Close(context.Background()) })

	// The cluster keeps its port across the restart, so a URL logged for
	// it stays valid.
	if db2.URL != db.URL {
		t.Errorf("URL after the restart %q, before %q", db2.URL, db.URL)
	}
	// While db2 runs, a third Provide on the same DataDir attaches to the
	// running server (never a second one), and its Close does not stop it.
	db3, err := Provide(ctx, opts)
	if err != nil {
		t.Fatalf("third Provide on a DataDir in use: %v", err)
	}
	if db3.URL != db2.URL {
		t.Errorf("third Provide gave %q, want the running server's %q", db3.URL, db2.URL)
	}
	if _, ok := db3.Faults(); ok {
		t.Error("an attached server offers fault controls: it is not ours to stop")
	}
	if err := db3.Close(ctx); err != nil {
		t.Fatalf("third Close: %v", err)
	}
	conn2 := connect(t, ctx, db2.URL)
	var v string
	if err := conn2.QueryRow(ctx, "SELECT v FROM kept").Scan(&v); err != nil || v != "still here" {
		t.Fatalf("row after restart = %q, %v", v, err)
	}
	conn2.Close(ctx)
	if err := db2.Close(ctx); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if procs := processesMentioning(dataDir); len(procs) > 0 {
		t.Errorf("processes left after Close: %v", procs)
	}
	if _, err := os.Stat(filepath.Join(dataDir, "PG_VERSION")); err != nil {
		t.Fatalf("DataDir removed by Close: %v", err)
	}
}

func TestProvideEnvUnreachable(t *testing.T) {
	port, err := freePort() // nothing listens there once freePort returns
	if err != nil {
		t.Fatal(err)
	}
	url := "postgres://someone:s3cret@127.0.0.1:" + strconv.Itoa(port) + "/catalog?sslmode=disable"
	getenv := func(k string) string {
		if k == "DATABASE_URL" {
			return url
		}
		return ""
	}
	start := time.Now()
	db, err := Provide(context.Background(), Options{Getenv: getenv, Logger: testLogger(new(bytes.Buffer))})
	elapsed := time.Since(start)
	if err == nil {
		_ = db.Close(context.Background())
		t.Fatal("Provide succeeded against a closed port")
	}
	t.Logf("error after %v: %v", elapsed.Round(time.Millisecond), err)
	if elapsed > envCheckTimeout+time.Second {
		t.Errorf("took %v, want a quick failure", elapsed)
	}
	if !strings.Contains(err.Error(), "DATABASE_URL") {
		t.Errorf("error does not name DATABASE_URL: %v", err)
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Errorf("error leaks the password: %v", err)
	}
}

func TestProvideEnvWorks(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	local, err := Provide(ctx, Options{Getenv: noEnv, Logger: testLogger(new(bytes.Buffer))})
	if err != nil {
		t.Fatalf("Provide local: %v", err)
	}
	defer local.Close(context.Background())

	var logs bytes.Buffer
	getenv := func(k string) string {
		if k == "DATABASE_URL" {
			return local.URL
		}
		return ""
	}
	db, err := Provide(ctx, Options{Getenv: getenv, Logger: testLogger(&logs)})
	if err != nil {
		t.Fatalf("Provide with DATABASE_URL: %v", err)
	}
	if db.Source != SourceEnv || db.URL != local.URL {
		t.Errorf("got %q %q, want DATABASE_URL as-is", db.Source, db.URL)
	}
	if !strings.Contains(logs.String(), "source=DATABASE_URL") {
		t.Errorf("log does not name the source: %q", logs.String())
	}
	if err := db.Close(ctx); err != nil {
		t.Errorf("Close: %v", err)
	}
	// Closing the DATABASE_URL database must not touch the server.
	conn := connect(t, ctx, local.URL)
	if err := conn.Ping(ctx); err != nil {
		t.Errorf("server gone after closing the DATABASE_URL Database: %v", err)
	}
}

func TestDockerCheckFailsFast(t *testing.T) {
	if _, ok := dockerHint(os.Getenv); ok {
		t.Skip("this machine shows signs of a Docker engine")
	}
	start := time.Now()
	err := dockerAvailable(context.Background(), os.Getenv)
	elapsed := time.Since(start)
	t.Logf("dockerAvailable: %v after %v", err, elapsed)
	if err == nil {
		t.Fatal("dockerAvailable reported an engine on a machine without one")
	}
	if elapsed > 3*time.Second {
		t.Errorf("took %v, want well under 3s", elapsed)
	}

	// A DOCKER_HOST pointing at a port nobody listens on must fail within
	// the ping timeout too.
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("DOCKER_HOST", "tcp://127.0.0.1:"+strconv.Itoa(port))
	start = time.Now()
	err = dockerAvailable(context.Background(), os.Getenv)
	elapsed = time.Since(start)
	t.Logf("dockerAvailable(DOCKER_HOST=tcp://...): %v after %v", err, elapsed)
	if err == nil {
		t.Fatal("dockerAvailable reported an engine at a closed port")
	}
	if elapsed > 3*time.Second {
		t.Errorf("took %v, want well under 3s", elapsed)
	}
}

// TestProvideCancelledCleansUp cancels Provide at several points of the
// local start-up (before it begins, during initdb, during pg_ctl start,
// once the server accepts connections) and checks that neither a temp dir
// nor a process is left behind. TMPDIR points at a private directory so
// that other users of pgprovider on the machine do not disturb the check.
func TestProvideCancelledCleansUp(t *testing.T) {
	// cancelWhen returns a trigger that cancels once the server has been
	// launched (pg_ctl start runs only after localConfFile is written) and
	// its postmaster.pid contains substr.
	cancelWhen := func(substr string) func(tmp string, cancel func()) {
		return func(tmp string, cancel func()) {
			go func() {
				for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
					m, _ := filepath.Glob(filepath.Join(tmp, "pgprovider-*", "data", localConfFile))
					if len(m) == 0 {
						continue
					}
					b, err := os.ReadFile(filepath.Join(filepath.Dir(m[0]), "postmaster.pid"))
					if err == nil && strings.Contains(string(b), substr) {
						cancel()
						return
					}
				}
			}()
		}
	}
	after := func(d time.Duration) func(string, func()) {
		return func(_ string, cancel func()) { time.AfterFunc(d, cancel) }
	}
	cases := []struct {
		name    string
		trigger func(tmp string, cancel func())
	}{
		{"before start", func(_ string, cancel func()) { cancel() }},
		{"during initdb", after(300 * time.Millisecond)},
		{"during pg_ctl start", cancelWhen("")},
		{"as the server becomes ready", cancelWhen("ready")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tmp := sharedDir(t)
			t.Setenv("TMPDIR", tmp)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			tc.trigger(tmp, cancel)
			start := time.Now()
			db, err := Provide(ctx, Options{Getenv: noEnv, Logger: testLogger(new(bytes.Buffer))})
			t.Logf("Provide returned after %v: %v", time.Since(start).Round(time.Millisecond), err)
			if err == nil {
				// Start-up beat the cancellation; Close must clean up even
				// though ctx is (about to be) cancelled.
				if err := db.Close(ctx); err != nil {
					t.Fatalf("Close: %v", err)
				}
			} else if !errors.Is(err, context.Canceled) {
				t.Errorf("error is not context.Canceled: %v", err)
			}
			if left, _ := os.ReadDir(tmp); len(left) > 0 {
				t.Errorf("left behind in TMPDIR: %v", left)
			}
			if procs := processesMentioning(tmp); len(procs) > 0 {
				t.Errorf("processes left behind: %v", procs)
			}
		})
	}
}

// processesMentioning lists processes whose command line contains s.
func processesMentioning(s string) []string {
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var found []string
	for _, f := range cmdlines {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if cl := strings.ReplaceAll(string(b), "\x00", " "); strings.Contains(cl, s) {
			found = append(found, f+": "+cl)
		}
	}
	return found
}

// TestOrphanCleanup kills (SIGKILL) a process that provided a local
// database without closing it, and checks that the watchdog stops the
// server and removes the temp dir.
func TestOrphanCleanup(t *testing.T) {
	if !canWatch {
		t.Skip("no watchdog on this platform")
	}
	tmp := sharedDir(t)
	// Like /tmp: the watchdog runs as the server's OS user and must be able
	// to remove its own directory.
	if err := os.Chmod(tmp, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperProvideAndHang$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "PGPROVIDER_TEST_HELPER=1")
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("helper printed no URL: %v", err)
	}
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "URL ")
	if !ok {
		t.Fatalf("helper said %q", line)
	}
	conn := connect(t, ctx, url)
	if err := conn.Ping(ctx); err != nil {
		t.Fatalf("helper's database does not answer: %v", err)
	}
	conn.Close(ctx)

	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	killed := time.Now()
	for {
		left, _ := os.ReadDir(tmp)
		procs := processesMentioning(tmp)
		if len(left) == 0 && len(procs) == 0 {
			break
		}
		if time.Since(killed) > 10*time.Second {
			t.Fatalf("10s after the kill: left in TMPDIR %v, processes %v", left, procs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("watchdog cleaned up %v after the kill", time.Since(killed).Round(time.Millisecond))
	shortCtx, cancelShort := context.WithTimeout(ctx, 3*time.Second)
	defer cancelShort()
	if c, err := pgx.Connect(shortCtx, url); err == nil {
		c.Close(ctx)
		t.Error("server still answers after the watchdog ran")
	}
}

// TestHelperProvideAndHang is the process TestOrphanCleanup kills.
func TestHelperProvideAndHang(t *testing.T) {
	if os.Getenv("PGPROVIDER_TEST_HELPER") != "1" {
		t.Skip("helper process for TestOrphanCleanup")
	}
	db, err := Provide(context.Background(), Options{Getenv: noEnv, Logger: testLogger(new(bytes.Buffer))})
	if err != nil {
		t.Fatalf("Provide: %v", err)
	}
	fmt.Printf("URL %s\n", db.URL)
	time.Sleep(60 * time.Second) // killed long before
}

func TestProvideNothingAvailable(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no initdb, no pg_ctl
	_, err := provide(context.Background(), Options{Getenv: noEnv, Logger: testLogger(new(bytes.Buffer))},
		filepath.Join(t.TempDir(), "no-postgresql"))
	if err == nil {
		t.Fatal("provide succeeded with no source available")
	}
	t.Logf("error: %v", err)
	for _, want := range []string{"DATABASE_URL", "Docker engine", "apt-get install postgresql"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not mention %q: %v", want, err)
		}
	}
}

func TestFindBinariesPicksHighest(t *testing.T) {
	root := t.TempDir()
	for _, v := range []string{"9.6", "13", "15", "16", "notaversion"} {
		dir := filepath.Join(root, v, "bin")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if v == "16" {
			continue // incomplete: no binaries
		}
		for _, b := range []string{"initdb", "pg_ctl"} {
			if err := os.WriteFile(filepath.Join(dir, b), []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	bins, err := findBinariesIn(root)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "15", "bin"); bins.dir != want {
		t.Errorf("picked %s, want %s", bins.dir, want)
	}
	if _, err := findBinariesIn(filepath.Join(root, "missing")); err == nil {
		t.Error("no error for a missing root")
	}
}
