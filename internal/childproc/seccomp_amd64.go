//go:build linux

package childproc

import "golang.org/x/sys/unix"

const auditArch = unix.AUDIT_ARCH_X86_64

// metadataSyscalls are the system calls that change a file's mode,
// owner, times or extended attributes on amd64.
func metadataSyscalls() []string {
	return []string{
		"chmod", "fchmod", "fchmodat", "fchmodat2",
		"chown", "fchown", "lchown", "fchownat",
		"utime", "utimes", "utimensat", "futimesat",
		"setxattr", "lsetxattr", "fsetxattr", "setxattrat",
		"removexattr", "lremovexattr", "fremovexattr", "removexattrat",
	}
}
