//go:build linux && (amd64 || arm64)

package childproc

import (
	"encoding/binary"
	"fmt"
	"slices"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// TestFilterProgram runs the seccomp program in x/net/bpf's virtual
// machine over every system call number up to 1023, the x32 numbers, a
// foreign architecture and the arguments the program looks at (with and
// without high bits above the 32 the kernel reads), and compares each
// answer with wantAction, the policy written out in plain Go.
func TestFilterProgram(t *testing.T) {
	var nrs []uint32
	for nr := range uint32(1024) {
		nrs = append(nrs, nr)
	}
	nrs = append(nrs, x32SyscallBit, x32SyscallBit|unix.SYS_FCHMOD, x32SyscallBit|unix.SYS_LISTEN, 0xffffffff)
	argSets := [][6]uint64{{}}
	for _, v := range []uint64{fsIocSetflags, fsIocFssetxattr, 1<<32 | fsIocSetflags, 1<<32 | fsIocFssetxattr, fsIocSetflags + 1, unix.FS_IOC_GETFLAGS} {
		argSets = append(argSets, [6]uint64{1: v})
	}
	for _, v := range []uint64{ipprotoMPTCP, 1<<32 | ipprotoMPTCP, unix.IPPROTO_TCP, 0} {
		argSets = append(argSets, [6]uint64{0: unix.AF_INET, 1: unix.SOCK_STREAM, 2: v})
	}
	for _, net := range []bool{false, true} {
		prog, err := filterProgram(net)
		if err != nil {
			t.Fatalf("restrictNet %v: %v", net, err)
		}
		raw := make([]bpf.RawInstruction, len(prog))
		for i, f := range prog {
			raw[i] = bpf.RawInstruction{Op: f.Code, Jt: f.Jt, Jf: f.Jf, K: f.K}
		}
		insns, ok := bpf.Disassemble(raw)
		if !ok {
			t.Fatalf("restrictNet %v: the program does not disassemble", net)
		}
		vm, err := bpf.NewVM(insns)
		if err != nil {
			t.Fatalf("restrictNet %v: %v", net, err)
		}
		checked, denied := 0, 0
		for _, arch := range []uint32{auditArch, unix.AUDIT_ARCH_I386, unix.AUDIT_ARCH_ARM} {
			for _, nr := range nrs {
				for _, args := range argSets {
					got, err := vm.Run(seccompData(nr, arch, args))
					if err != nil {
						t.Fatal(err)
					}
					want := wantAction(net, arch, nr, args)
					if uint32(got) != want {
						t.Errorf("restrictNet %v, arch %#x, nr %d, args %#x: got %s, want %s", net, arch, nr, args, action(uint32(got)), action(want))
					}
					checked++
					if want != unix.SECCOMP_RET_ALLOW {
						denied++
					}
				}
			}
		}
		t.Logf("restrictNet %v: %d instructions, %d cases, %d denied", net, len(prog), checked, denied)
	}
}

// wantAction is the filter's policy (see installFilter).
func wantAction(restrictNet bool, arch, nr uint32, args [6]uint64) uint32 {
	const (
		allow = unix.SECCOMP_RET_ALLOW
		eperm = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
		eacc  = unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)
		nosys = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
	)
	lo := func(i int) uint32 { return uint32(args[i]) } // the kernel reads an int or unsigned int argument's low half
	switch {
	case arch != auditArch, nr >= x32SyscallBit:
		return nosys
	case slices.Contains(testMetadataSyscalls, nr):
		return eperm
	case nr == unix.SYS_IO_URING_SETUP:
		return nosys
	case restrictNet && nr == unix.SYS_LISTEN:
		return eacc
	case nr == unix.SYS_IOCTL && (lo(1) == fsIocSetflags || lo(1) == fsIocFssetxattr):
		return eperm
	case restrictNet && nr == unix.SYS_SOCKET && lo(2) == ipprotoMPTCP:
		return eacc
	}
	return allow
}

// seccompData lays out struct seccomp_data for the virtual machine,
// whose 32-bit loads are big-endian: each word is stored big-endian at
// the offset where the kernel's native (little-endian) load finds it.
func seccompData(nr, arch uint32, args [6]uint64) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[0:], nr)
	binary.BigEndian.PutUint32(b[4:], arch)
	for i, a := range args {
		binary.BigEndian.PutUint32(b[16+8*i:], uint32(a))
		binary.BigEndian.PutUint32(b[16+8*i+4:], uint32(a>>32))
	}
	return b
}

func action(v uint32) string {
	if v&unix.SECCOMP_RET_ACTION_FULL == unix.SECCOMP_RET_ERRNO {
		return unix.ErrnoName(unix.Errno(v & unix.SECCOMP_RET_DATA))
	}
	return fmt.Sprintf("%#x", v)
}
