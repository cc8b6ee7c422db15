//go:build linux && !amd64 && !arm64

package childproc

import "errors"

// mptcpGuardSupported: no filter against Multipath TCP here, so a
// sandbox cannot restrict TCP on this architecture.
const mptcpGuardSupported = false

func guardNetwork() error { return errors.New("no Multipath TCP guard on this architecture") }
