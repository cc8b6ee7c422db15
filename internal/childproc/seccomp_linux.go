//go:build linux && (amd64 || arm64)

package childproc

import (
	"errors"
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

// seccompSupported: this architecture has the filter below.
const seccompSupported = true

// The ioctls that change an inode's flags (immutable, append-only, ...)
// and its extended attributes (project id): metadata that Landlock does
// not govern either. The request is an unsigned int: its low 32 bits.
const (
	fsIocSetflags    = unix.FS_IOC_SETFLAGS
	fsIocFssetxattr  = 0x401c5820 // FS_IOC_FSSETXATTR: _IOW('X', 32, struct fsxattr)
	setxattrat       = 463        // the same number on every architecture (Linux 6.13)
	removexattrat    = 466
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
// prctl, unlogged).
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

// filterProgram is the BPF program of installFilter.
func filterProgram(restrictNet bool) ([]unix.SockFilter, error) {
	const (
		archOff = 4  // offsetof(struct seccomp_data, arch)
		nrOff   = 0  // offsetof(struct seccomp_data, nr)
		argOff  = 16 // offsetof(struct seccomp_data, args); each 8 bytes, low half first
	)
	var a bpf
	a.ld(archOff)
	a.jeq(auditArch, "", "nosys")
	a.ld(nrOff)
	a.jge(x32SyscallBit, "nosys", "")
	for _, nr := range metadataSyscalls() {
		a.jeq(nr, "eperm", "")
	}
	a.jeq(unix.SYS_IO_URING_SETUP, "nosys", "")
	if restrictNet {
		a.jeq(unix.SYS_LISTEN, "eacces", "")
	}
	a.jeq(unix.SYS_IOCTL, "", "not-ioctl")
	a.ld(argOff + 1*8)
	a.jeq(fsIocSetflags, "eperm", "")
	a.jeq(fsIocFssetxattr, "eperm", "allow")
	a.label("not-ioctl")
	if restrictNet {
		a.jeq(unix.SYS_SOCKET, "", "allow")
		a.ld(argOff + 2*8)
		a.jeq(ipprotoMPTCP, "eacces", "allow")
	}
	a.label("allow")
	a.ret(unix.SECCOMP_RET_ALLOW)
	a.label("eperm")
	a.ret(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	a.label("eacces")
	a.ret(unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES))
	a.label("nosys")
	a.ret(unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS))
	return a.assemble()
}

// bpf assembles a classic BPF program whose conditional jumps name
// labels ("" is the next instruction).
type bpf struct {
	prog   []unix.SockFilter
	labels map[string]int
	jumps  []jump
}

type jump struct {
	at     int
	jt, jf string
}

func (a *bpf) ld(off uint32) {
	a.prog = append(a.prog, unix.SockFilter{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: off})
}

func (a *bpf) jeq(k uint32, jt, jf string) { a.jmp(unix.BPF_JEQ, k, jt, jf) }
func (a *bpf) jge(k uint32, jt, jf string) { a.jmp(unix.BPF_JGE, k, jt, jf) }

func (a *bpf) jmp(op uint16, k uint32, jt, jf string) {
	a.jumps = append(a.jumps, jump{len(a.prog), jt, jf})
	a.prog = append(a.prog, unix.SockFilter{Code: unix.BPF_JMP | op | unix.BPF_K, K: k})
}

func (a *bpf) ret(k uint32) {
	a.prog = append(a.prog, unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: k})
}

func (a *bpf) label(name string) {
	if a.labels == nil {
		a.labels = map[string]int{}
	}
	a.labels[name] = len(a.prog)
}

func (a *bpf) assemble() ([]unix.SockFilter, error) {
	off := func(from int, name string) (uint8, error) {
		if name == "" {
			return 0, nil
		}
		to, ok := a.labels[name]
		if !ok || to <= from || to-from-1 > 255 {
			return 0, fmt.Errorf("seccomp filter: jump from %d to %q (%d) out of range", from, name, to)
		}
		return uint8(to - from - 1), nil
	}
	var errs []error
	for _, j := range a.jumps {
		jt, err1 := off(j.at, j.jt)
		jf, err2 := off(j.at, j.jf)
		errs = append(errs, err1, err2)
		a.prog[j.at].Jt, a.prog[j.at].Jf = jt, jf
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if len(a.prog) > unix.BPF_MAXINSNS {
		return nil, fmt.Errorf("seccomp filter: %d instructions", len(a.prog))
	}
	return a.prog, nil
}
