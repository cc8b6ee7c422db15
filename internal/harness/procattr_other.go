//go:build !linux

package harness

import "syscall"

// dieWithTest has no equivalent outside Linux: a process a test started
// outlives an interrupted test binary there.
func dieWithTest() *syscall.SysProcAttr { return nil }
