//go:build linux

package childproc

import "golang.org/x/sys/unix"

const auditArch = unix.AUDIT_ARCH_AARCH64

// metadataSyscalls are the system calls that change a file's mode,
// owner, times or extended attributes on arm64 (which has only the *at
// and f* forms: no chmod, chown, lchown, utime, utimes, futimesat).
func metadataSyscalls() []uint32 {
	return []uint32{
		unix.SYS_FCHMOD, unix.SYS_FCHMODAT, unix.SYS_FCHMODAT2,
		unix.SYS_FCHOWN, unix.SYS_FCHOWNAT,
		unix.SYS_UTIMENSAT,
		unix.SYS_SETXATTR, unix.SYS_LSETXATTR, unix.SYS_FSETXATTR, setxattrat,
		unix.SYS_REMOVEXATTR, unix.SYS_LREMOVEXATTR, unix.SYS_FREMOVEXATTR, removexattrat,
	}
}
