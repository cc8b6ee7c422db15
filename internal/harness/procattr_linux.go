package harness

import "syscall"

// dieWithTest is the SysProcAttr of a process the harness starts (a
// gateway, Redis, HAProxy): the kernel kills it when the thread that
// started it exits, so a test binary that is interrupted, times out or
// panics leaves none of them running. The kernel ties the signal to the
// forking thread, not the process; Go's runtime ends a thread only when a
// goroutine locked to it (runtime.LockOSThread) returns without unlocking,
// and no test goroutine that starts a process is locked.
func dieWithTest() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
