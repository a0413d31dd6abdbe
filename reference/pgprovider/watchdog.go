package pgprovider

import (
	"context"
	"os"
	"os/exec"
	"strconv"
)

// watchdogScript guards against a process that dies without calling Close
// (SIGKILL, a `go test -timeout` panic, a crash): pg_ctl detaches the server
// into its own session, so it would otherwise run on forever. The script
// waits for that process ($1) to go, then stops the server ($2 is pg_ctl,
// $3 the data directory) and removes the remaining arguments (temporary
// directories). Close kills the watchdog before it stops the server itself.
const watchdogScript = `parent=$1; pgctl=$2; data=$3; shift 3
alive() {
	if [ -d /proc/self ]; then [ -d "/proc/$1" ]; else kill -0 "$1" 2>/dev/null; fi
}
while alive "$parent"; do sleep 1; done
i=0
while [ -f "$data/postmaster.pid" ] && [ "$i" -lt 10 ]; do
	"$pgctl" stop -D "$data" -m immediate -w -t 10 -s >/dev/null 2>&1 || sleep 1
	i=$((i + 1))
done
[ "$#" -gt 0 ] && rm -rf "$@"
exit 0
`

// startWatchdog starts the watchdog for c, removing the given directories
// after the server is stopped. It is best effort: without a shell there is
// no watchdog, and Close still works.
func (c *cluster) startWatchdog(removeDirs ...string) {
	if !canWatch {
		return
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		return
	}
	args := append([]string{"-c", watchdogScript, "pgprovider-watchdog",
		strconv.Itoa(os.Getpid()), c.bins.pgctl, c.dataDir}, removeDirs...)
	// Not tied to any context: it must outlive cancellations.
	cmd := c.command(context.Background(), sh, args...)
	setSysProcAttr(cmd, c.owner != nil, c.owner.uidOrZero(), c.owner.gidOrZero(), true)
	if err := cmd.Start(); err != nil {
		return
	}
	c.watchdog = cmd
}

// stopWatchdog kills the watchdog (we are cleaning up ourselves) and reaps it.
func (c *cluster) stopWatchdog() {
	if c.watchdog == nil {
		return
	}
	_ = c.watchdog.Process.Kill()
	_ = c.watchdog.Wait()
	c.watchdog = nil
}
