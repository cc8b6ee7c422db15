//go:build linux && (amd64 || arm64)

package childproc

import (
	"fmt"
	"unsafe"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// ipprotoMPTCP is IPPROTO_MPTCP: Multipath TCP sockets, which Landlock's
// TCP rules do not cover (checked on Linux 6.18, Landlock ABI 7: a
// sandbox with no TCP connect still connects with one), while they fall
// back to plain TCP with any server.
const ipprotoMPTCP = 262

// x32SyscallBit marks the x32 system calls of amd64 (another numbering).
const x32SyscallBit = 0x40000000

// seccompSupported: this architecture has the filter below.
const seccompSupported = true

// The ioctls that change an inode's flags (immutable, append-only, ...)
// and its extended attributes (project id): metadata that Landlock does
// not govern either. The request is an unsigned int: its low 32 bits.
const (
	fsIocSetflags    = unix.FS_IOC_SETFLAGS
	fsIocFssetxattr  = 0x401c5820 // FS_IOC_FSSETXATTR: _IOW('X', 32, struct fsxattr)
	seccompFilterLog = unix.SECCOMP_FILTER_FLAG_LOG
)

// installFilter installs the seccomp filter of a sandboxed command on
// the calling thread, which must have no_new_privs. It completes what
// Landlock does not govern:
//
//   - file metadata: chmod, chown, utimes and the extended attribute
//     system calls (all of them: seccomp sees a path only as a pointer,
//     so it cannot tell a granted path from another) and the ioctls that
//     set inode flags fail with EPERM;
//   - io_uring_setup fails with ENOSYS (io_uring opens sockets and sets
//     extended attributes without the system calls above);
//   - with restrictNet: socket() with IPPROTO_MPTCP and listen() fail
//     with EACCES (Landlock's TCP rules see neither a Multipath TCP
//     socket nor the port listen() picks for a socket never bound);
//   - system calls of another architecture or numbering fail with
//     ENOSYS.
//
// Every other system call is allowed. The kernel logs the refusals to
// its audit log (SECCOMP_FILTER_FLAG_LOG) when auditing is on and the
// seccomp system call may be used (else the filter is installed with
// prctl, unlogged: go-seccomp-bpf's LoadFilter has no such fallback, so
// the filter is installed here).
func installFilter(restrictNet bool) error {
	prog, err := filterProgram(restrictNet)
	if err != nil {
		return err
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, seccompFilterLog, uintptr(unsafe.Pointer(&fprog)))
	if errno == 0 {
		return nil
	}
	// Without the log flag (before Linux 4.14), or where the seccomp
	// system call itself is filtered (systemd's @system-service does
	// not list it; prctl is in @process).
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)), 0, 0); err != nil {
		return fmt.Errorf("install the seccomp filter: %w (seccomp: %v)", err, errno)
	}
	return nil
}

// filterProgram is the BPF program of installFilter. The system calls
// refused by number alone are a go-seccomp-bpf policy; the library
// assembles them with its own checks of the architecture and of x32.
// Three parts are ours, in front of the library's program, because the
// library cannot express them:
//
//   - another architecture's system calls: the library lets them
//     through to the policy's default action (allow, here), where ours
//     refuse them with ENOSYS;
//   - numbers with the x32 bit on arm64 (the library checks x32 on
//     amd64 only), which we refuse the same on both;
//   - the arguments of ioctl and socket: the kernel reads them as an
//     unsigned int and an int, their low 32 bits, while the library's
//     argument conditions compare all 64, so FS_IOC_SETFLAGS with a high
//     bit set would slip past them.
//
// Our part is a list of "unless A <cond> K, return R" pairs (a jump of
// one instruction) and two blocks skipped as a whole for any other
// system call: no jump offset is counted by hand.
func filterProgram(restrictNet bool) ([]unix.SockFilter, error) {
	const (
		archOff = 4  // offsetof(struct seccomp_data, arch)
		nrOff   = 0  // offsetof(struct seccomp_data, nr)
		argOff  = 16 // offsetof(struct seccomp_data, args): 8 bytes each, the low half first (little-endian)
	)
	var (
		allow  = bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW}
		eperm  = errno(unix.EPERM)
		eacces = errno(unix.EACCES)
		enosys = errno(unix.ENOSYS)
	)
	load := func(off uint32) bpf.Instruction { return bpf.LoadAbsolute{Off: off, Size: 4} }
	prog := []bpf.Instruction{load(archOff)}
	prog = append(prog, returnUnless(bpf.JumpEqual, auditArch, enosys)...)
	prog = append(prog, load(nrOff))
	prog = append(prog, returnUnless(bpf.JumpLessThan, x32SyscallBit, enosys)...)
	ioctl := []bpf.Instruction{load(argOff + 1*8)}
	ioctl = append(ioctl, returnUnless(bpf.JumpNotEqual, fsIocSetflags, eperm)...)
	ioctl = append(ioctl, returnUnless(bpf.JumpNotEqual, fsIocFssetxattr, eperm)...)
	prog = append(prog, only(unix.SYS_IOCTL, append(ioctl, allow))...)
	if restrictNet {
		socket := append([]bpf.Instruction{load(argOff + 2*8)}, returnUnless(bpf.JumpNotEqual, ipprotoMPTCP, eacces)...)
		prog = append(prog, only(unix.SYS_SOCKET, append(socket, allow))...)
	}

	policy := seccomp.Policy{
		DefaultAction: seccomp.ActionAllow,
		Syscalls: []seccomp.SyscallGroup{
			{Names: metadataSyscalls(), Action: seccomp.ActionErrno | seccomp.Action(unix.EPERM)},
			{Names: []string{"io_uring_setup"}, Action: seccomp.ActionErrno | seccomp.Action(unix.ENOSYS)},
		},
	}
	if restrictNet {
		policy.Syscalls = append(policy.Syscalls, seccomp.SyscallGroup{Names: []string{"listen"}, Action: seccomp.ActionErrno | seccomp.Action(unix.EACCES)})
	}
	byNumber, err := policy.Assemble()
	if err != nil {
		return nil, fmt.Errorf("seccomp filter: %w", err)
	}
	raw, err := bpf.Assemble(append(prog, byNumber...))
	if err != nil {
		return nil, fmt.Errorf("seccomp filter: %w", err)
	}
	if len(raw) > unix.BPF_MAXINSNS {
		return nil, fmt.Errorf("seccomp filter: %d instructions", len(raw))
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	return filter, nil
}

func errno(e unix.Errno) bpf.RetConstant {
	return bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(e)}
}

// returnUnless returns ret unless the accumulator compares to k by cond.
func returnUnless(cond bpf.JumpTest, k uint32, ret bpf.RetConstant) []bpf.Instruction {
	return []bpf.Instruction{bpf.JumpIf{Cond: cond, Val: k, SkipTrue: 1}, ret}
}

// only runs block (which must end in a return) for system call nr and
// skips it for any other; the accumulator holds the system call number.
func only(nr uint32, block []bpf.Instruction) []bpf.Instruction {
	return append([]bpf.Instruction{bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: nr, SkipTrue: uint8(len(block))}}, block...)
}
