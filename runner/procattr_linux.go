//go:build linux

package runner

import (
	"os/exec"
	"syscall"
)

// setProcAttr has Linux stop catalogd when the test binary dies without
// stopping it (killed, or interrupted before its cleanup ran).
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
