package pgprovider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

const (
	// superuser is the cluster's superuser role.
	superuser = "postgres"
	// localConfFile is the settings file Provide (re)writes in the data
	// directory before each start; postgresql.conf includes it.
	localConfFile = "pgprovider.conf"
	// startTimeout is handed to pg_ctl -t.
	startTimeout = 60 * time.Second
	// startAttempts is how many free ports are tried before giving up.
	startAttempts = 3
)

// pgBinaries locates initdb and pg_ctl.
type pgBinaries struct {
	dir    string // directory holding both
	initdb string
	pgctl  string
}

// debianPostgresRoot is where Debian and Ubuntu install server binaries,
// one directory per major version.
const debianPostgresRoot = "/usr/lib/postgresql"

// findBinaries looks for initdb and pg_ctl on PATH and then under
// root/*/bin, picking the highest version there.
func findBinaries(root string) (pgBinaries, error) {
	if i, err := exec.LookPath("initdb"); err == nil {
		if p, err := exec.LookPath("pg_ctl"); err == nil {
			return pgBinaries{dir: filepath.Dir(p), initdb: i, pgctl: p}, nil
		}
	}
	return findBinariesIn(root)
}

// findBinariesIn picks the highest-versioned root/<version>/bin holding
// both initdb and pg_ctl.
func findBinariesIn(root string) (pgBinaries, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return pgBinaries{}, errors.New("initdb and pg_ctl are not on PATH and " + root + " does not exist")
	}
	type candidate struct {
		version []int
		bins    pgBinaries
	}
	var found []candidate
	for _, e := range entries {
		v, ok := parseVersion(e.Name())
		if !ok {
			continue
		}
		dir := filepath.Join(root, e.Name(), "bin")
		b := pgBinaries{dir: dir, initdb: filepath.Join(dir, "initdb"), pgctl: filepath.Join(dir, "pg_ctl")}
		if isExecutable(b.initdb) && isExecutable(b.pgctl) {
			found = append(found, candidate{v, b})
		}
	}
	if len(found) == 0 {
		return pgBinaries{}, errors.New("initdb and pg_ctl are not on PATH nor under " + root + "/*/bin")
	}
	sort.Slice(found, func(i, j int) bool { return versionLess(found[i].version, found[j].version) })
	return found[len(found)-1].bins, nil
}

// parseVersion parses "15" or "9.6" into its numeric parts.
func parseVersion(s string) ([]int, bool) {
	var v []int
	for _, part := range strings.Split(s, ".") {
		n, err := strconv.Atoi(part)
		if err != nil || n < 0 {
			return nil, false
		}
		v = append(v, n)
	}
	return v, true
}

func versionLess(a, b []int) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// owner is the OS account the server runs as when we are root (PostgreSQL
// refuses to run as root). A nil *owner means "ourselves".
type owner struct {
	name     string
	uid, gid int
}

// serverOwner returns nil when not root, else the postgres OS user.
func serverOwner() (*owner, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup(superuser)
	if err != nil {
		return nil, fmt.Errorf("running as root, and PostgreSQL refuses to run as root, but there is no %q OS user to run it as: %w", superuser, err)
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("OS user %q has non-numeric uid/gid %q/%q", superuser, u.Uid, u.Gid)
	}
	return &owner{name: superuser, uid: uid, gid: gid}, nil
}

func (o *owner) uidOrZero() int {
	if o == nil {
		return 0
	}
	return o.uid
}

func (o *owner) gidOrZero() int {
	if o == nil {
		return 0
	}
	return o.gid
}

// chown hands path to the owner; a no-op for a nil owner.
func (o *owner) chown(path string) error {
	if o == nil {
		return nil
	}
	return os.Chown(path, o.uid, o.gid)
}

// cluster is one local PostgreSQL cluster run with pg_ctl.
type cluster struct {
	bins       pgBinaries
	owner      *owner
	dataDir    string
	socketDir  string
	logFile    string
	port       int
	persistent bool
	launched   bool      // pg_ctl start ran, so a server of ours may run
	removeDirs []string  // temporary directories removed by stop
	watchdog   *exec.Cmd // cleans up if we die without Close; see watchdog.go
}

// command builds an exec.Cmd running as the cluster owner, with a clean
// PG* environment and a working directory the owner can enter.
func (c *cluster) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = "/"
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PG") || strings.HasPrefix(kv, "LC_") || strings.HasPrefix(kv, "LANG=") {
			continue
		}
		env = append(env, kv)
	}
	cmd.Env = append(env, "LC_ALL=C")
	if c.owner != nil {
		setSysProcAttr(cmd, true, c.owner.uid, c.owner.gid, false)
	}
	return cmd
}

// run runs a command built with ctx and folds its combined output into the
// error; when ctx is done the error wraps ctx.Err() instead.
func (c *cluster) run(ctx context.Context, cmd *exec.Cmd) error {
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%s interrupted: %w", filepath.Base(cmd.Path), ctx.Err())
		}
		msg := strings.TrimSpace(out.String())
		if msg == "" {
			return fmt.Errorf("%s: %w", filepath.Base(cmd.Path), err)
		}
		return fmt.Errorf("%s: %w: %s", filepath.Base(cmd.Path), err, msg)
	}
	return nil
}

// provideLocal creates (or reuses) a cluster, starts it and creates the
// DatabaseName database. On any failure, including ctx being cancelled, it
// stops and removes what it started.
func provideLocal(ctx context.Context, bins pgBinaries, dataDir string, mustExist bool) (db *Database, desc string, err error) {
	o, err := serverOwner()
	if err != nil {
		return nil, "", err
	}
	c := &cluster{bins: bins, owner: o}
	if dataDir != "" {
		abs, err := filepath.Abs(dataDir)
		if err != nil {
			return nil, "", err
		}
		if _, err := os.Stat(filepath.Join(abs, "PG_VERSION")); err != nil && mustExist {
			return nil, "", fmt.Errorf("no database in %s (looked for a PostgreSQL cluster there): start `catalogd serve` with this --data-dir first, or pass the service's --data-dir or DATABASE_URL", abs)
		}
		// A server already running on the directory (another catalogd, or
		// one left behind) is used as it is: never stopped, never a second.
		c.dataDir = abs
		if port, sock, ok := c.runningServer(ctx); ok {
			desc := fmt.Sprintf("%s@%s/.s.PGSQL.%d/%s, the server already running on data directory %s (%s)", superuser, sock, port, DatabaseName, abs, bins.dir)
			return &Database{URL: socketURL(sock, port, DatabaseName), Source: SourceLocal}, desc, nil
		}
	}
	// From here on, every failure cleans up what exists so far.
	defer func() {
		if err != nil {
			if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
				err = fmt.Errorf("%w (%v)", ctx.Err(), err)
			}
			stopErr := c.stop(context.WithoutCancel(ctx), true)
			if stopErr != nil {
				err = errors.Join(err, fmt.Errorf("cleaning up: %w", stopErr))
			}
		}
	}()

	if dataDir == "" {
		root, err := os.MkdirTemp("", "pgprovider-")
		if err != nil {
			return nil, "", err
		}
		c.removeDirs = append(c.removeDirs, root)
		if err := o.chown(root); err != nil {
			return nil, "", err
		}
		c.dataDir = filepath.Join(root, "data")
		c.socketDir = root
		c.logFile = filepath.Join(root, "postgres.log")
		c.startWatchdog(root)
		if err := c.initdb(ctx); err != nil {
			return nil, "", err
		}
	} else {
		c.persistent = true
		if c.dataDir, err = filepath.Abs(dataDir); err != nil {
			return nil, "", err
		}
		c.logFile = filepath.Join(c.dataDir, "pgprovider.log")
		if err := c.prepareDataDir(ctx); err != nil {
			return nil, "", err
		}
		// The socket lives in the data directory, which only the server's
		// OS user (and root) may enter, and whose path, unlike a temporary
		// directory's, stays the same: so does the URL. A path too long for
		// a unix socket's name gets a short private directory instead.
		if len(c.dataDir)+len("/.s.PGSQL.65535") <= maxSocketPath {
			c.socketDir = c.dataDir
			c.startWatchdog()
		} else {
			sock, err := os.MkdirTemp("", "pgprovider-sock-")
			if err != nil {
				return nil, "", err
			}
			c.removeDirs = append(c.removeDirs, sock)
			if err := o.chown(sock); err != nil {
				return nil, "", err
			}
			c.socketDir = sock
			c.startWatchdog(sock)
		}
	}

	if err := c.start(ctx); err != nil {
		return nil, "", err
	}
	if err := c.createDatabase(ctx); err != nil {
		return nil, "", err
	}
	mode := "temporary directory " + c.dataDir
	if c.persistent {
		mode = "data directory " + c.dataDir
	}
	desc = fmt.Sprintf("%s@%s/.s.PGSQL.%d/%s in %s, reachable by its unix socket alone (%s)", superuser, c.socketDir, c.port, DatabaseName, mode, bins.dir)
	return &Database{
		URL:     socketURL(c.socketDir, c.port, DatabaseName),
		Source:  SourceLocal,
		local:   c,
		closeFn: func(ctx context.Context) error { return c.stop(ctx, false) },
	}, desc, nil
}

// prepareDataDir makes sure the persistent data directory holds a cluster,
// creating one when the directory is missing or empty.
func (c *cluster) prepareDataDir(ctx context.Context) error {
	if _, err := os.Stat(filepath.Join(c.dataDir, "PG_VERSION")); err == nil {
		// A cluster an earlier catalogd made may trust TCP connections:
		// its access rules are rewritten too.
		if err := c.writeOwned(filepath.Join(c.dataDir, "pg_hba.conf"), hbaConf); err != nil {
			return err
		}
		return c.ensureInclude()
	}
	// Parents we create must stay traversable for the server's OS user.
	if err := os.MkdirAll(filepath.Dir(c.dataDir), 0o755); err != nil {
		return err
	}
	if err := os.Mkdir(c.dataDir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	entries, err := os.ReadDir(c.dataDir)
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		return fmt.Errorf("DataDir %s is neither empty nor a PostgreSQL data directory (no PG_VERSION)", c.dataDir)
	}
	if err := c.owner.chown(c.dataDir); err != nil {
		return err
	}
	if err := c.initdb(ctx); err != nil {
		// Leave the directory empty so the next run can start afresh.
		if entries, rerr := os.ReadDir(c.dataDir); rerr == nil {
			for _, e := range entries {
				_ = os.RemoveAll(filepath.Join(c.dataDir, e.Name()))
			}
		}
		if c.owner != nil {
			err = fmt.Errorf("%w (running as root, the server runs as OS user %q, which needs search permission on every parent directory of %s)", err, c.owner.name, c.dataDir)
		}
		return err
	}
	return nil
}

// Who may connect. The server listens on no TCP address at all, only on a
// unix socket in a directory (and with a mode) that only the server's OS
// user can reach; root can reach anything. Connections through it are
// trusted: reaching the socket is the proof. So no other local user can
// open the database, read the signing secrets, mint a token or run
// commands as its superuser, and no password exists to leak.
const hbaConf = "# Written by pgprovider: the unix socket only, which only the server's OS user can reach.\n" +
	"local all all trust\n"

// maxSocketPath is the longest path of a unix socket (sun_path, less its
// terminating NUL).
const maxSocketPath = 107

// socketURL is the URL of database on the server whose socket is in dir.
// The directory is percent-encoded as libpq (and pgx) decode a URI, where
// "+" is itself, not a space.
func socketURL(dir string, port int, database string) string {
	var host strings.Builder
	for _, b := range []byte(dir) {
		if 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || strings.IndexByte("-._~/", b) >= 0 {
			host.WriteByte(b)
		} else {
			fmt.Fprintf(&host, "%%%02X", b)
		}
	}
	return fmt.Sprintf("postgres://%s@/%s?host=%s&port=%d&sslmode=disable", superuser, database, host.String(), port)
}

// initdb creates the cluster, reachable only by its unix socket (hbaConf),
// and hooks localConfFile into postgresql.conf.
func (c *cluster) initdb(ctx context.Context) error {
	args := []string{"-D", c.dataDir, "-U", superuser, "-A", "trust", "-E", "UTF8", "--locale=C"}
	if !c.persistent {
		args = append(args, "--no-sync")
	}
	cmd := c.command(ctx, c.bins.initdb, args...)
	// On cancellation let initdb remove what it created before killing it.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 2 * time.Second
	if err := c.run(ctx, cmd); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := c.writeOwned(filepath.Join(c.dataDir, "pg_hba.conf"), hbaConf); err != nil {
		return err
	}
	return c.ensureInclude()
}

// ensureInclude makes postgresql.conf include localConfFile.
func (c *cluster) ensureInclude() error {
	conf := filepath.Join(c.dataDir, "postgresql.conf")
	b, err := os.ReadFile(conf)
	if err != nil {
		return err
	}
	line := "include_if_exists = '" + localConfFile + "'"
	if strings.Contains(string(b), line) {
		return nil
	}
	f, err := os.OpenFile(conf, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "\n# Added by pgprovider: listen address, port and socket directory.\n%s\n", line)
	return errors.Join(err, f.Close())
}

// writeOwned writes a file readable by the server owner only.
func (c *cluster) writeOwned(path, content string) error {
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		return err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		return err
	}
	return c.owner.chown(path)
}

// confQuote quotes a value for postgresql.conf.
func confQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// writeConf (re)writes localConfFile for the current port.
func (c *cluster) writeConf() error {
	var b strings.Builder
	b.WriteString("# Written by pgprovider before each start.\n")
	// No TCP address at all: the unix socket alone (hbaConf).
	fmt.Fprintf(&b, "listen_addresses = ''\n")
	// The port names the socket file (.s.PGSQL.<port>).
	fmt.Fprintf(&b, "port = %d\n", c.port)
	// unix_socket_directories is a list; double quotes protect commas.
	fmt.Fprintf(&b, "unix_socket_directories = %s\n", confQuote(`"`+strings.ReplaceAll(c.socketDir, `"`, `""`)+`"`))
	b.WriteString("unix_socket_permissions = 0700\n")
	if !c.persistent {
		b.WriteString("fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n")
	}
	return c.writeOwned(filepath.Join(c.dataDir, localConfFile), b.String())
}

// runningServer returns the port and the socket directory of a server
// running on the cluster's data directory, from its postmaster.pid, when
// pg_ctl says one runs.
func (c *cluster) runningServer(ctx context.Context) (port int, socketDir string, ok bool) {
	b, err := os.ReadFile(filepath.Join(c.dataDir, "postmaster.pid"))
	if err != nil {
		return 0, "", false
	}
	if c.run(ctx, c.command(ctx, c.bins.pgctl, "status", "-D", c.dataDir)) != nil {
		return 0, "", false // a stale pid file
	}
	// Lines: pid, data directory, start time, port, socket directory, ...
	lines := strings.Split(string(b), "\n")
	if len(lines) < 5 {
		return 0, "", false
	}
	port, err = strconv.Atoi(strings.TrimSpace(lines[3]))
	socketDir = strings.TrimSpace(lines[4])
	return port, socketDir, err == nil && port > 0 && socketDir != ""
}

// previousPort is the port the cluster last ran on, from localConfFile: a
// persistent cluster keeps it while it is free, so the URL logged for it
// stays valid across restarts.
func (c *cluster) previousPort() int {
	b, err := os.ReadFile(filepath.Join(c.dataDir, localConfFile))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "port = "); ok {
			if p, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
				return p
			}
		}
	}
	return 0
}

// freePort asks the kernel for a port number free on 127.0.0.1: the name
// of a new cluster's socket file (its server binds no TCP port).
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	return port, l.Close()
}

// start runs pg_ctl -w start on a free port, retrying on another port when
// the chosen one was taken in the meantime.
func (c *cluster) start(ctx context.Context) error {
	var lastErr error
	previous := 0
	if c.persistent {
		previous = c.previousPort()
	}
	for attempt := 0; attempt < startAttempts; attempt++ {
		// No TCP port is bound: the number names the socket file, in a
		// directory of this cluster's own, so the last one is kept.
		port, err := freePort()
		if err != nil {
			return err
		}
		if attempt == 0 && previous > 0 {
			port = previous
		}
		c.port = port
		if err := c.writeConf(); err != nil {
			return err
		}
		logStart := fileSize(c.logFile)
		c.launched = true
		cmd := c.command(ctx, c.bins.pgctl, "start", "-w", "-s",
			"-t", strconv.Itoa(int(startTimeout/time.Second)),
			"-D", c.dataDir, "-l", c.logFile)
		err = c.run(ctx, cmd)
		if err == nil {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("server started, then: %w", err)
			}
			return nil
		}
		if ctx.Err() != nil {
			return err
		}
		tail := logTail(c.logFile, logStart)
		lastErr = fmt.Errorf("pg_ctl start failed: %w\n--- tail of %s ---\n%s", err, c.logFile, tail)
		if !strings.Contains(tail, "could not bind") && !strings.Contains(tail, "already in use") {
			return lastErr
		}
		// Port taken between freePort and the server's bind: make sure no
		// half-started server lingers, then try another port.
		if err := c.abortServer(context.WithoutCancel(ctx)); err != nil {
			return errors.Join(lastErr, err)
		}
	}
	return lastErr
}

// createDatabase creates DatabaseName unless it exists already.
func (c *cluster) createDatabase(ctx context.Context) error {
	cfg, err := pgx.ParseConfig(socketURL(c.socketDir, c.port, "postgres"))
	if err != nil {
		return err
	}
	cfg.ConnectTimeout = 10 * time.Second
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("connect to new server: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", DatabaseName).Scan(&exists); err != nil {
		return fmt.Errorf("look up database %s: %w", DatabaseName, err)
	}
	if exists {
		return nil
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{DatabaseName}.Sanitize()); err != nil {
		return fmt.Errorf("create database %s: %w", DatabaseName, err)
	}
	return nil
}

// stop stops the server, if one of ours may run, and removes the temporary
// directories. After a cancelled or failed start (aborting is true) the
// server may still be starting, so it is stopped with abortServer.
func (c *cluster) stop(ctx context.Context, aborting bool) error {
	var errs []error
	c.stopWatchdog()
	if c.launched {
		if aborting {
			if err := c.abortServer(ctx); err != nil {
				errs = append(errs, err)
			}
		} else if err := c.stopServer(ctx, "fast"); err != nil {
			// Escalate rather than leave a server behind.
			if err2 := c.abortServer(ctx); err2 != nil {
				errs = append(errs, err, err2)
			}
		}
		c.launched = false
	}
	for _, d := range c.removeDirs {
		if err := os.RemoveAll(d); err != nil {
			errs = append(errs, err)
		}
	}
	c.removeDirs = nil
	return errors.Join(errs...)
}

const (
	// pidFileGrace is how long a just-launched postmaster may take to
	// create postmaster.pid.
	pidFileGrace = 500 * time.Millisecond
	// abortTimeout bounds abortServer's retries.
	abortTimeout = 10 * time.Second
)

// abortServer stops with -m immediate a server that may still be starting:
// pg_ctl may have been killed just after launching it, before the
// postmaster wrote postmaster.pid or while it was writing it (pg_ctl stop
// then finds no pid, or an invalid one). It retries until the pid file is
// gone or abortTimeout passes.
func (c *cluster) abortServer(ctx context.Context) error {
	pidFile := filepath.Join(c.dataDir, "postmaster.pid")
	start := time.Now()
	var lastErr error
	for {
		pid, exists := readPid(pidFile)
		switch {
		case !exists && time.Since(start) > pidFileGrace:
			return nil
		case pid > 0:
			err := c.stopServer(ctx, "immediate")
			if err == nil {
				return nil
			}
			lastErr = err
		}
		if time.Since(start) > abortTimeout || ctx.Err() != nil {
			if lastErr == nil {
				lastErr = fmt.Errorf("%s never held a valid pid", pidFile)
			}
			return fmt.Errorf("could not stop the server being started: %w", lastErr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// readPid reads the postmaster's pid from the first line of a
// postmaster.pid file; pid is 0 while the line is incomplete.
func readPid(path string) (pid int, exists bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, !errors.Is(err, os.ErrNotExist)
	}
	line, _, complete := strings.Cut(string(b), "\n")
	if !complete {
		return 0, true
	}
	pid, err = strconv.Atoi(strings.TrimSpace(line))
	if err != nil || pid <= 0 {
		return 0, true
	}
	return pid, true
}

// stopServer runs pg_ctl stop when a postmaster.pid shows a server may run.
func (c *cluster) stopServer(ctx context.Context, mode string) error {
	if _, err := os.Stat(filepath.Join(c.dataDir, "postmaster.pid")); err != nil {
		return nil
	}
	err := c.run(ctx, c.command(ctx, c.bins.pgctl, "stop", "-w", "-s", "-m", mode,
		"-t", strconv.Itoa(int(startTimeout/time.Second)), "-D", c.dataDir))
	if err != nil && strings.Contains(err.Error(), "Is server running?") {
		return nil // stale pid file
	}
	if err != nil {
		return fmt.Errorf("pg_ctl stop -m %s: %w", mode, err)
	}
	return nil
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// logTail returns the last lines of path written after offset from.
func logTail(path string, from int64) string {
	const maxBytes = 4096
	f, err := os.Open(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	defer f.Close()
	size := fileSize(path)
	if size-from > maxBytes {
		from = size - maxBytes
	}
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return "(unreadable log: " + err.Error() + ")"
	}
	b, _ := io.ReadAll(f)
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "(log is empty)"
	}
	lines := strings.Split(s, "\n")
	if len(lines) > 20 {
		lines = lines[len(lines)-20:]
	}
	return strings.Join(lines, "\n")
}
