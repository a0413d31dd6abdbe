package pgprovider

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Faults breaks a local server on purpose, for fault tests: stop it, start
// it again on the same port, freeze it and thaw it. Only a server this
// package started locally can be broken this way.
type Faults struct{ c *cluster }

// Faults returns the fault controls of a local database; false for
// DATABASE_URL or a container.
func (d *Database) Faults() (*Faults, bool) {
	if d == nil || d.local == nil {
		return nil, false
	}
	return &Faults{c: d.local}, true
}

// Stop stops the server with pg_ctl's mode: "fast" (sessions are ended
// cleanly) or "immediate" (the server quits without a checkpoint).
func (f *Faults) Stop(ctx context.Context, mode string) error {
	return f.c.stopServer(ctx, mode)
}

// Start starts the stopped server again on its port, so that clients
// holding its URL reconnect.
func (f *Faults) Start(ctx context.Context) error {
	return f.c.run(ctx, f.c.command(ctx, f.c.bins.pgctl, "start", "-w", "-s",
		"-t", strconv.Itoa(int(startTimeout.Seconds())), "-D", f.c.dataDir, "-l", f.c.logFile))
}

// Freeze stops (SIGSTOP) the postmaster and every backend: connections stay
// open and the server answers nothing, as a hung host would.
func (f *Faults) Freeze() error { return f.signal(syscall.SIGSTOP) }

// Thaw resumes a frozen server (SIGCONT).
func (f *Faults) Thaw() error { return f.signal(syscall.SIGCONT) }

func (f *Faults) signal(sig syscall.Signal) error {
	pid, _ := readPid(filepath.Join(f.c.dataDir, "postmaster.pid"))
	if pid <= 0 {
		return errors.New("pgprovider: the server is not running")
	}
	pids := append([]int{pid}, children(pid)...)
	var errs []error
	for _, p := range pids {
		if err := syscall.Kill(p, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
			errs = append(errs, fmt.Errorf("signal %d: %w", p, err))
		}
	}
	return errors.Join(errs...)
}

// children lists the processes whose parent is pid, from /proc.
func children(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after ')'.
		s := string(stat)
		if i := strings.LastIndexByte(s, ')'); i >= 0 {
			fields := strings.Fields(s[i+1:])
			if len(fields) > 1 {
				if ppid, err := strconv.Atoi(fields[1]); err == nil && ppid == pid {
					out = append(out, p)
				}
			}
		}
	}
	return out
}
