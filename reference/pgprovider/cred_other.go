//go:build !unix

package pgprovider

import "os/exec"

// setCredential is a no-op where processes cannot switch user; there
// os.Geteuid never reports root, so it is never called.
func setCredential(cmd *exec.Cmd, uid, gid int) {}
