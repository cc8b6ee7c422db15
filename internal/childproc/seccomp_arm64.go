//go:build linux

package childproc

import "golang.org/x/sys/unix"

const auditArch = unix.AUDIT_ARCH_AARCH64

// metadataSyscalls are the system calls that change a file's mode,
// owner, times or extended attributes on arm64 (which has only the *at
// and f* forms: no chmod, chown, lchown, utime, utimes, futimesat).
func metadataSyscalls() []string {
	return []string{
		"fchmod", "fchmodat", "fchmodat2",
		"fchown", "fchownat",
		"utimensat",
		"setxattr", "lsetxattr", "fsetxattr", "setxattrat",
		"removexattr", "lremovexattr", "fremovexattr", "removexattrat",
	}
}
