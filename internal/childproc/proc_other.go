//go:build !linux

package childproc

import "os/exec"

func setProcAttr(cmd *exec.Cmd) {}
