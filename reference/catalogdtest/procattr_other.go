//go:build !linux

package catalogdtest

import "os/exec"

// StopWithParent does nothing where a parent's death cannot stop a child.
func StopWithParent(*exec.Cmd) {}
