package pgprovider

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestLocalServerIsReachableByItsOwnerAlone: the local server listens on
// no TCP address, its socket is in a directory only the server's OS user
// (and root) can enter, its access rules name the socket alone, and
// another local user cannot connect. Before issue 22 it trusted every
// connection on 127.0.0.1 as its superuser.
func TestLocalServerIsReachableByItsOwnerAlone(t *testing.T) {
	for _, persistent := range []bool{false, true} {
		name := "temporary"
		if persistent {
			name = "persistent"
		}
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			opts := Options{Getenv: noEnv, Logger: testLogger(new(bytes.Buffer))}
			if persistent {
				opts.DataDir = filepath.Join(sharedDir(t), "pgdata")
			}
			db, err := Provide(ctx, opts)
			if err != nil {
				t.Fatalf("Provide: %v", err)
			}
			t.Cleanup(func() { _ = db.Close(context.Background()) })
			cfg, err := pgx.ParseConfig(db.URL)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(cfg.Host, "/") {
				t.Fatalf("the URL's host is %q, want a socket directory", cfg.Host)
			}
			if persistent && cfg.Host != db.local.dataDir {
				t.Errorf("socket directory %s, want the data directory %s (a stable URL)", cfg.Host, db.local.dataDir)
			}
			for _, addr := range []string{"127.0.0.1", "::1", "0.0.0.0"} {
				if c, err := net.DialTimeout("tcp", net.JoinHostPort(addr, strconv.Itoa(int(cfg.Port))), time.Second); err == nil {
					c.Close()
					t.Errorf("the server accepts TCP connections on %s:%d", addr, cfg.Port)
				}
			}
			conn := connect(t, ctx, db.URL)
			var listen string
			if err := conn.QueryRow(ctx, "SHOW listen_addresses").Scan(&listen); err != nil || listen != "" {
				t.Errorf("listen_addresses = %q, %v; want none", listen, err)
			}
			conn.Close(ctx)
			hba, err := os.ReadFile(filepath.Join(db.local.dataDir, "pg_hba.conf"))
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(string(hba), "\n") {
				if f := strings.Fields(line); len(f) > 0 && !strings.HasPrefix(f[0], "#") && f[0] != "local" {
					t.Errorf("pg_hba.conf has a rule for other than the socket: %q", line)
				}
			}
			for _, p := range []string{cfg.Host, filepath.Join(cfg.Host, ".s.PGSQL."+strconv.Itoa(int(cfg.Port)))} {
				fi, err := os.Stat(p)
				if err != nil {
					t.Fatal(err)
				}
				if fi.Mode().Perm()&0o077 != 0 {
					t.Errorf("%s has mode %v: others may reach it", p, fi.Mode().Perm())
				}
			}
			otherUserCannotConnect(t, db.URL)
		})
	}
}

// otherUserCannotConnect runs psql as nobody against url: it must fail.
// It needs root (to be someone else) and psql; without them it says so.
func otherUserCannotConnect(t *testing.T, url string) {
	t.Helper()
	psql, err := exec.LookPath("psql")
	if os.Geteuid() != 0 || err != nil {
		t.Logf("not checked as another user (root and psql needed)")
		return
	}
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Logf("not checked as another user: %v", err)
		return
	}
	uid, _ := strconv.Atoi(nobody.Uid)
	gid, _ := strconv.Atoi(nobody.Gid)
	cmd := exec.Command(psql, url, "-Atc", "SELECT 1")
	cmd.Dir = "/"
	cmd.Env = []string{"PGCONNECT_TIMEOUT=5", "PATH=/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Errorf("user nobody connected to the server: %s", out)
		return
	}
	t.Logf("as nobody: %s", strings.TrimSpace(string(out)))
}
