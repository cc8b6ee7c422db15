//go:build linux

package childproc

import "golang.org/x/sys/unix"

// testMetadataSyscalls are the system calls TestFilterProgram expects
// refused with EPERM on amd64.
var testMetadataSyscalls = []uint32{
	unix.SYS_CHMOD, unix.SYS_FCHMOD, unix.SYS_FCHMODAT, unix.SYS_FCHMODAT2,
	unix.SYS_CHOWN, unix.SYS_FCHOWN, unix.SYS_LCHOWN, unix.SYS_FCHOWNAT,
	unix.SYS_UTIME, unix.SYS_UTIMES, unix.SYS_UTIMENSAT, unix.SYS_FUTIMESAT,
	unix.SYS_SETXATTR, unix.SYS_LSETXATTR, unix.SYS_FSETXATTR, 463, // setxattrat
	unix.SYS_REMOVEXATTR, unix.SYS_LREMOVEXATTR, unix.SYS_FREMOVEXATTR, 466, // removexattrat
}
