//go:build !unix

package pgprovider

import "os/exec"

// canWatch tells whether the orphan watchdog can run here.
const canWatch = false

// setSysProcAttr is a no-op where processes cannot switch user; there
// os.Geteuid never reports root, so asOther is never true.
func setSysProcAttr(cmd *exec.Cmd, asOther bool, uid, gid int, setsid bool) {}
