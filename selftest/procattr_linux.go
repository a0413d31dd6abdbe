//go:build linux

package selftest

import (
	"os/exec"
	"syscall"
)

// setProcAttr has Linux stop a child (catalogd, a run of the suite) when the
// test binary dies without stopping it: killed, or timed out.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
