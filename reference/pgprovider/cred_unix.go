//go:build unix

package pgprovider

import (
	"os/exec"
	"syscall"
)

// setCredential makes cmd run as uid/gid (used when we are root).
func setCredential(cmd *exec.Cmd, uid, gid int) {
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)},
	}
}
