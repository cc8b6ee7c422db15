//go:build linux && !amd64 && !arm64

package childproc

import "errors"

// seccompSupported: no seccomp filter here (it completes Landlock: file
// metadata, io_uring, Multipath TCP, listen), so no sandbox on this
// architecture.
const seccompSupported = false

func installFilter(bool) error { return errors.New("no seccomp filter for this architecture") }
