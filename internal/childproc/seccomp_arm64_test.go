//go:build linux

package childproc

import "golang.org/x/sys/unix"

// testMetadataSyscalls are the system calls TestFilterProgram expects
// refused with EPERM on arm64.
var testMetadataSyscalls = []uint32{
	unix.SYS_FCHMOD, unix.SYS_FCHMODAT, unix.SYS_FCHMODAT2,
	unix.SYS_FCHOWN, unix.SYS_FCHOWNAT,
	unix.SYS_UTIMENSAT,
	unix.SYS_SETXATTR, unix.SYS_LSETXATTR, unix.SYS_FSETXATTR, 463, // setxattrat
	unix.SYS_REMOVEXATTR, unix.SYS_LREMOVEXATTR, unix.SYS_FREMOVEXATTR, 466, // removexattrat
}
