//go:build linux && (amd64 || arm64)

package childproc

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ipprotoMPTCP is IPPROTO_MPTCP: Multipath TCP sockets, which Landlock's
// TCP rules do not cover (checked on Linux 6.18, Landlock ABI 7: a
// sandbox with no TCP connect still connects with one), while they fall
// back to plain TCP with any server.
const ipprotoMPTCP = 262

// x32SyscallBit marks the x32 system calls of amd64 (another numbering).
const x32SyscallBit = 0x40000000

// mptcpGuardSupported: this architecture has the filter below.
const mptcpGuardSupported = true

// guardNetwork installs a seccomp filter on the calling thread (which
// must have no_new_privs) that completes Landlock's TCP rules: socket()
// with IPPROTO_MPTCP fails with EACCES; io_uring_setup fails with ENOSYS
// (io_uring creates sockets without the socket system call); system
// calls of another architecture or numbering fail with ENOSYS. Every
// other system call is allowed.
func guardNetwork() error {
	const (
		archOff  = 4        // offsetof(struct seccomp_data, arch)
		nrOff    = 0        // offsetof(struct seccomp_data, nr)
		arg2Off  = 16 + 2*8 // args[2], its low 32 bits (little endian)
		retAllow = unix.SECCOMP_RET_ALLOW
		retAcces = unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)
		retNosys = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
	)
	ld := func(off uint32) unix.SockFilter {
		return unix.SockFilter{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: off}
	}
	jeq := func(k uint32, jt, jf uint8) unix.SockFilter {
		return unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: k, Jt: jt, Jf: jf}
	}
	ret := func(k uint32) unix.SockFilter { return unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: k} }
	prog := []unix.SockFilter{
		/* 0 */ ld(archOff),
		/* 1 */ jeq(auditArch, 0, 8), // -> 10
		/* 2 */ ld(nrOff),
		/* 3 */ {Code: unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K, K: x32SyscallBit, Jt: 6}, // -> 10
		/* 4 */ jeq(unix.SYS_IO_URING_SETUP, 5, 0), // -> 10
		/* 5 */ jeq(unix.SYS_SOCKET, 0, 2), // else -> 8
		/* 6 */ ld(arg2Off),
		/* 7 */ jeq(ipprotoMPTCP, 1, 0), // -> 9
		/* 8 */ ret(retAllow),
		/* 9 */ ret(retAcces),
		/* 10 */ ret(retNosys),
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)), 0, 0); err != nil {
		return fmt.Errorf("install the seccomp filter against Multipath TCP: %w", err)
	}
	return nil
}
