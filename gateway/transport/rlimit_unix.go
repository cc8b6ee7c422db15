//go:build unix

package transport

import "syscall"

// openFileLimit is the process's soft limit on open files (Go raises it
// to the hard limit at start-up), or 0 if unknown.
func openFileLimit() int {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil || l.Cur > 1<<30 {
		return 0
	}
	return int(l.Cur)
}
