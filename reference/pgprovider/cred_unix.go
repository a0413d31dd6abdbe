//go:build unix

package pgprovider

import (
	"os/exec"
	"syscall"
)

// canWatch tells whether the orphan watchdog can run here.
const canWatch = true

// setSysProcAttr makes cmd run as uid/gid (when asOther; used when we are
// root) and, when setsid, in a session of its own so that a Ctrl-C sent to
// our process group does not reach it.
func setSysProcAttr(cmd *exec.Cmd, asOther bool, uid, gid int, setsid bool) {
	attr := &syscall.SysProcAttr{Setsid: setsid}
	if asOther {
		attr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	cmd.SysProcAttr = attr
}
