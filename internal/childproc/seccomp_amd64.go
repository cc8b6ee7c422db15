//go:build linux

package childproc

import "golang.org/x/sys/unix"

const auditArch = unix.AUDIT_ARCH_X86_64

// metadataSyscalls are the system calls that change a file's mode,
// owner, times or extended attributes on amd64.
func metadataSyscalls() []uint32 {
	return []uint32{
		unix.SYS_CHMOD, unix.SYS_FCHMOD, unix.SYS_FCHMODAT, unix.SYS_FCHMODAT2,
		unix.SYS_CHOWN, unix.SYS_FCHOWN, unix.SYS_LCHOWN, unix.SYS_FCHOWNAT,
		unix.SYS_UTIME, unix.SYS_UTIMES, unix.SYS_UTIMENSAT, unix.SYS_FUTIMESAT,
		unix.SYS_SETXATTR, unix.SYS_LSETXATTR, unix.SYS_FSETXATTR, setxattrat,
		unix.SYS_REMOVEXATTR, unix.SYS_LREMOVEXATTR, unix.SYS_FREMOVEXATTR, removexattrat,
	}
}
