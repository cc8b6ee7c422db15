package harness

import "golang.org/x/sys/unix"

// pipeQueued is how many bytes wait in the pipe fd (FIONREAD).
func pipeQueued(fd uintptr) (int, error) { return unix.IoctlGetInt(int(fd), unix.TIOCINQ) }
