//go:build linux

package catalogdtest

import (
	"os/exec"
	"syscall"
)

// StopWithParent has Linux send cmd's process SIGTERM when this process
// dies without stopping it (killed, or timed out before its cleanup ran).
// Start does it for catalogd; the self-test, for its runs of the suite.
func StopWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
