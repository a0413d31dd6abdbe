//go:build !linux

package runner

import "os/exec"

// setProcAttr does nothing where the parent's death cannot stop a child.
func setProcAttr(*exec.Cmd) {}
