//go:build unix

package upstream

import "syscall"

// writeNow writes b to fd, a nonblocking pipe, without waiting for room.
func writeNow(fd uintptr, b []byte) (int, error) {
	return syscall.Write(int(fd), b)
}
