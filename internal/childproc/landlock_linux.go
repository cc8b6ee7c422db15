package childproc

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// kernelABI is the running kernel's Landlock ABI version (0: none), as
// go-landlock itself counts it: an ABI 6 or later whose signal scoping
// erratum is not fixed counts as 5.
func kernelABI() int {
	v, err := ll.LandlockGetABIVersion()
	if err != nil || v < 0 {
		return 0
	}
	if v >= 6 {
		if errata, err := ll.LandlockGetErrata(); err != nil || errata&0x2 == 0 {
			v = 5
		}
	}
	return v
}

// landlockMissing says why the kernel reports no Landlock ("" if it
// does).
func landlockMissing() string {
	_, err := ll.LandlockGetABIVersion()
	switch {
	case err == nil:
		return ""
	case errors.Is(err, unix.ENOSYS):
		return "this kernel is built without Landlock (CONFIG_SECURITY_LANDLOCK)"
	case errors.Is(err, unix.EOPNOTSUPP):
		return "this kernel has Landlock but it is not enabled (add landlock to the lsm= boot parameter)"
	case errors.Is(err, unix.EPERM), errors.Is(err, unix.EACCES):
		return "the landlock system calls are refused to this process (a seccomp filter: under systemd, SystemCallFilter= must allow landlock_create_ruleset landlock_add_rule landlock_restrict_self)"
	default:
		return fmt.Sprintf("landlock_create_ruleset: %v", err)
	}
}

// abiConfigs are go-landlock's full configurations by ABI (index 0 is ABI 1).
var abiConfigs = [...]landlock.Config{landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5, landlock.V6, landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}

// The device files every sandbox may use: /dev/null to read and write,
// the others to read.
const devNull = "/dev/null"

var devReadable = []string{"/dev/zero", "/dev/random", "/dev/urandom"}

// plan is the Landlock ruleset of s on a kernel with Landlock ABI abi:
// every filesystem access right and scope the kernel knows is handled
// (so denied unless a rule grants it); Read paths get read and execute
// beneath, Write paths read, write, create, remove (and, from ABI 2,
// moves between them), /dev/null is readable and writable and
// /dev/zero, /dev/random, /dev/urandom readable; unless s.Network, TCP bind and connect are
// handled and Ports are the only connect rules. The enforcement is
// strict: what the kernel cannot do is an error from supported, never
// a weaker sandbox.
func plan(s *Sandbox, abi int) (landlock.Config, []landlock.Rule, error) {
	if err := s.supported(abi); err != nil {
		return landlock.Config{}, nil, err
	}
	full := abiConfigs[min(abi, len(abiConfigs))-1]
	cfg := landlock.Config{HandledAccessFS: full.HandledAccessFS, Scoped: full.Scoped}
	if s.restrictsNetwork() {
		cfg.HandledAccessNet = ll.AccessNetBindTCP | ll.AccessNetConnectTCP
	}
	if abi >= 7 {
		// The kernel's audit log then records the command's denials.
		cfg = cfg.EnableLoggingForSubprocesses()
	}
	// What nearly every program opens, harmless to grant.
	rules := []landlock.Rule{
		landlock.PathAccess((ll.AccessFSReadFile|ll.AccessFSWriteFile|ll.AccessFSTruncate)&cfg.HandledAccessFS, devNull).IgnoreIfMissing(),
		landlock.PathAccess(ll.AccessFSReadFile, devReadable...).IgnoreIfMissing(),
	}
	for _, p := range s.Read {
		st, err := os.Stat(p)
		if err != nil {
			return landlock.Config{}, nil, fmt.Errorf("sandbox read %q: %w", p, err)
		}
		if st.IsDir() {
			rules = append(rules, landlock.RODirs(p))
		} else {
			rules = append(rules, landlock.ROFiles(p))
		}
	}
	for _, p := range s.Write {
		st, err := os.Stat(p)
		if err != nil {
			return landlock.Config{}, nil, fmt.Errorf("sandbox write %q: %w", p, err)
		}
		switch {
		case !st.IsDir():
			rules = append(rules, landlock.RWFiles(p))
		case abi >= 2:
			rules = append(rules, landlock.RWDirs(p).WithRefer())
		default:
			rules = append(rules, landlock.RWDirs(p))
		}
	}
	if s.restrictsNetwork() {
		for _, port := range s.Ports {
			rules = append(rules, landlock.ConnectTCP(port))
		}
	}
	return cfg, rules, nil
}

// restrict puts the calling thread under s, with no_new_privs and the
// seccomp filter of installFilter; the
// caller then executes the command from the same thread (the new
// program has that thread's restrictions), so it locks the thread.
func restrict(s *Sandbox) error {
	cfg, rules, err := plan(s, kernelABI())
	if err != nil {
		return err
	}
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("build the Landlock ruleset: %w", err)
	}
	if fd < 0 {
		return fmt.Errorf("%w: Landlock has nothing to enforce", ErrUnsupported)
	}
	defer unix.Close(fd)
	runtime.LockOSThread() // never unlocked: the process executes the command next
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	if err := installFilter(s.restrictsNetwork()); err != nil {
		return err
	}
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("enforce the Landlock ruleset: %w", err)
	}
	return nil
}

// minScopeABI is the Landlock ABI with signal scoping (Linux 6.12).
const minScopeABI = 6

// isolate puts the calling thread of an unsandboxed command, with
// no_new_privs, in a Landlock domain of its own that restricts no file
// or network access, only signals: the command and what it starts can
// then neither signal nor ptrace a process outside the domain (Landlock
// refuses ptrace, and so opening /proc/<pid>/mem, outside a domain from
// its first ABI; not reading /proc/<pid>/environ, checked on Linux
// 6.18): not the shim that supervises it, not the gateway, not another
// upstream. It reports false (and does nothing) on
// a kernel before Landlock ABI 6, or one without Landlock.
func isolate() (bool, error) {
	if kernelABI() < minScopeABI {
		return false, nil
	}
	cfg := landlock.Config{Scoped: ll.ScopeSignal}
	if kernelABI() >= 7 {
		cfg = cfg.EnableLoggingForSubprocesses()
	}
	fd, flags, err := cfg.NewRulesetFD()
	if err != nil {
		return false, fmt.Errorf("build the Landlock ruleset: %w", err)
	}
	if fd < 0 {
		return false, nil
	}
	defer unix.Close(fd)
	runtime.LockOSThread() // never unlocked: the process executes the command next
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return false, fmt.Errorf("set no_new_privs: %w", err)
	}
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return false, fmt.Errorf("enforce the Landlock ruleset: %w", err)
	}
	return true, nil
}
