package childproc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// selfExe is the running binary, whatever happened to its file since.
const selfExe = "/proc/self/exe"

// parentDeathSignal is what the kernel sends the shim when the gateway
// thread that started it exits (Pdeathsig). The shim then looks at its
// parent pid: changed means the gateway is gone; unchanged means only a
// thread of it ended (the signal comes again when the next one does).
const parentDeathSignal = syscall.SIGUSR2

func command(ctx context.Context, s shimSpec) (*exec.Cmd, error) {
	env, err := encodeSpec(s)
	if err != nil {
		return nil, fmt.Errorf("upstream command %q: %w", s.Argv[0], err)
	}
	cmd := exec.CommandContext(ctx, selfExe, shimMarker)
	cmd.Args[0] = os.Args[0]
	cmd.Env = []string{env}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: parentDeathSignal}
	cmd.Cancel = func() error {
		// The descendants that left the group first (found by their
		// parents), then the group, the shim with it.
		for _, p := range tree(cmd.Process.Pid) {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
			if errors.Is(err, syscall.ESRCH) {
				return os.ErrProcessDone
			}
			return err
		}
		return nil
	}
	return cmd, nil
}

// Main serves the supervision shim and the sandbox stage when the
// binary was started as one of them (os.Args[1] is a marker) and never
// returns then; else it returns at once. main calls it first (a test
// binary that starts commands, in TestMain).
func Main() {
	if len(os.Args) < 2 {
		return
	}
	switch os.Args[1] {
	case shimMarker:
		closeInherited()
		os.Exit(shim())
	case execMarker:
		closeInherited()
		// Its environment holds the spec until it executes the command.
		if err := Protect(); err != nil {
			os.Exit(fail(127, "%v", err))
		}
		os.Exit(sandboxExec())
	}
}

// dropPtrace removes CAP_SYS_PTRACE from the bounding and ambient sets
// of the calling thread, so that the command it executes never has it,
// also as root: without it, a process can neither ptrace a non-dumpable
// one (the gateway, a shim) nor open its /proc/<pid>/mem, even with the
// same user id. (Root still reads its /proc/<pid>/environ: checked on
// Linux 6.18.) Dropping from the bounding set needs CAP_SETPCAP: a process
// without it (a gateway not run as root) has no CAP_SYS_PTRACE to lose
// unless it was given as an ambient capability, which is lowered.
func dropPtrace() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_LOWER, unix.CAP_SYS_PTRACE, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("lower the ambient CAP_SYS_PTRACE: %w", err)
	}
	if err := unix.Prctl(unix.PR_CAPBSET_DROP, unix.CAP_SYS_PTRACE, 0, 0, 0); err != nil && !errors.Is(err, unix.EPERM) && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("drop CAP_SYS_PTRACE: %w", err)
	}
	return nil
}

// Protect makes the calling process non-dumpable, as OpenSSH does: its
// /proc/<pid>/environ, mem, maps and fd become root's, and a process of
// the same user that is not root can neither read them nor ptrace it.
// A root process still reads its environment (also without
// CAP_SYS_PTRACE, and from a Landlock domain, which refuses only mem and
// ptrace): only a sandbox, which denies /proc, keeps a root upstream
// out. It also disables core dumps. The gateway calls it when it starts; the shim
// does it for itself. A child that executes a program is dumpable
// again.
func Protect() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("make the process non-dumpable: %w", err)
	}
	return nil
}

// closeInherited marks every descriptor above 2 close-on-exec: what the
// gateway itself inherited without the flag (from a shell's `exec
// 7<file`, a service manager, a parent that leaks) never reaches the
// command, nor does anything of the shim's. The shim's own descriptors
// (the Go runtime's) stay open for the shim. Before Linux 5.11 (no
// CLOSE_RANGE_CLOEXEC) it walks /proc/self/fd.
func closeInherited() {
	if unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC) == nil {
		return
	}
	d, err := os.Open("/proc/self/fd")
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, n := range names {
		if fd, err := strconv.Atoi(n); err == nil && fd > 2 {
			_, _ = unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC)
		}
	}
}

func fail(code int, format string, args ...any) int {
	fmt.Fprintf(os.Stderr, "wasmgate childproc: "+format+"\n", args...)
	return code
}

// shim supervises one command (see the package comment).
func shim() int {
	// The command's own parent-death signal (SIGKILL when the shim dies)
	// follows the thread that forks it: this one, which never exits.
	runtime.LockOSThread()
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, parentDeathSignal)
	spec, err := readSpec()
	if err != nil {
		return fail(127, "%v", err)
	}
	if os.Getppid() != spec.Parent {
		return fail(1, "the gateway (pid %d) is gone; not starting %s", spec.Parent, spec.Path)
	}
	// Its environment held the command's (the spec): not for other
	// processes of the same user to read.
	if err := Protect(); err != nil {
		return fail(127, "%v", err)
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fail(127, "become a child subreaper: %v", err)
	}
	// The stage: this binary again, restricted (sandboxed, or isolated),
	// then the command.
	stage := spec
	stage.Parent = os.Getpid()
	e, err := encodeSpec(stage)
	if err != nil {
		return fail(127, "%v", err)
	}
	path, argv, env := selfExe, []string{os.Args[0], execMarker}, []string{e}
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Dir:   spec.Dir,
		Env:   env,
		Files: []uintptr{0, 1, 2},
		Sys:   &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		return fail(127, "start %s: %v", spec.Path, err)
	}
	// stdin and stdout are the command's now: without the shim's copies,
	// the gateway sees EOF when the command closes them.
	if null, err := syscall.Open(os.DevNull, syscall.O_RDWR|syscall.O_CLOEXEC, 0); err == nil {
		_ = unix.Dup3(null, 0, 0)
		_ = unix.Dup3(null, 1, 0)
		syscall.Close(null)
	}

	exited := make(chan syscall.WaitStatus, 1)
	go reap(pid, exited)
	// The parent pid is also polled: when the gateway dies, its threads
	// exit one by one and the shim is reparented (and signalled) at each,
	// and signals that arrive together count once; after a signal the
	// poll is fast for a while.
	const slow, fast = 500 * time.Millisecond, 10 * time.Millisecond
	tick := time.NewTicker(slow)
	defer tick.Stop()
	var fastUntil time.Time
	for {
		select {
		case ws := <-exited:
			sweep()
			return exitLike(ws)
		case now := <-tick.C:
			if os.Getppid() != spec.Parent {
				sweep()
				return 1
			}
			if !fastUntil.IsZero() && now.After(fastUntil) {
				fastUntil = time.Time{}
				tick.Reset(slow)
			}
		case sig := <-sigs:
			if sig == parentDeathSignal {
				if os.Getppid() != spec.Parent {
					sweep()
					return 1
				}
				fastUntil = time.Now().Add(2 * time.Second)
				tick.Reset(fast)
				continue
			}
			_ = syscall.Kill(pid, sig.(syscall.Signal))
		}
	}
}

// reap waits for every child of the shim (the command and, as a
// subreaper, the orphans among its descendants) until none is left, and
// reports the command's status. It ends with ECHILD, after the command.
func reap(pid int, exited chan<- syscall.WaitStatus) {
	for {
		var ws syscall.WaitStatus
		p, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return
		}
		if p == pid {
			exited <- ws
		}
	}
}

// sweep kills every process left in the shim's process group and every
// child of the shim (descendants that left the group are reparented to
// the shim when their parents die), and reaps them, until none is left,
// zombies included: a zombie group leader whose other threads still
// exit still has children, which reach the shim only when the last
// thread is gone. It gives up after 10 seconds (a process stuck in the
// kernel).
func sweep() {
	self, pgid := os.Getpid(), syscall.Getpgrp()
	deadline := time.Now().Add(10 * time.Second)
	for {
		live, any := descendants(self, pgid)
		for _, p := range live {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		for {
			var ws syscall.WaitStatus
			if p, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil); p <= 0 && !errors.Is(err, syscall.EINTR) {
				break
			}
		}
		if !any || time.Now().After(deadline) {
			return
		}
		time.Sleep(5 * time.Millisecond) // let them die and be reparented
	}
}

// descendants are the processes other than self whose parent is self or
// whose process group is pgid: live ones (to kill), and whether there is
// any, zombies included.
func descendants(self, pgid int) (live []int, any bool) {
	for _, pid := range procPids() {
		if pid == self {
			continue
		}
		state, ppid, pg, ok := procStat(pid)
		if !ok || (ppid != self && pg != pgid) {
			continue
		}
		any = true
		if state != 'Z' && state != 'X' {
			live = append(live, pid)
		}
	}
	return live, any
}

// tree is every descendant of root, by parent pid (zombies too: a
// zombie group leader whose other threads still exit has children).
func tree(root int) []int {
	children := map[int][]int{}
	for _, pid := range procPids() {
		if _, ppid, _, ok := procStat(pid); ok {
			children[ppid] = append(children[ppid], pid)
		}
	}
	var out []int
	next := children[root]
	for len(next) > 0 {
		p := next[0]
		next = append(next[1:], children[p]...)
		out = append(out, p)
	}
	return out
}

// procPids are the pids in /proc.
func procPids() []int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	out := make([]int, 0, len(names))
	for _, n := range names {
		if pid, err := strconv.Atoi(n); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// procStat reads state, parent pid and process group of pid from
// /proc/pid/stat.
func procStat(pid int) (state byte, ppid, pgrp int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, 0, false
	}
	// pid (comm) state ppid pgrp ...; comm may contain anything but
	// ends at the last ')'.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, 0, 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, 0, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgrp, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil {
		return 0, 0, 0, false
	}
	return f[0][0], ppid, pgrp, true
}

// exitLike ends the shim the way the command ended: its exit code, or
// the signal that killed it.
func exitLike(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		sig := ws.Signal()
		signal.Reset(sig)
		_ = syscall.Kill(os.Getpid(), sig)
		return 128 + int(sig)
	}
	return ws.ExitStatus()
}

// sandboxExec is the stage: restrict this process (the sandbox, or
// without one the isolation of isolate), then become the command.
func sandboxExec() int {
	spec, err := readSpec()
	if err != nil {
		return fail(127, "%v", err)
	}
	if err := dropPtrace(); err != nil {
		return fail(126, "start %s: %v", spec.Path, err)
	}
	if spec.Sandbox == nil {
		if _, err := isolate(); err != nil {
			return fail(126, "isolate %s: %v", spec.Path, err)
		}
		err = syscall.Exec(spec.Path, spec.Argv, spec.Env)
		return fail(127, "start %s: %v", spec.Path, err)
	}
	if err := restrict(spec.Sandbox); err != nil {
		return fail(126, "sandbox for %s: %v", spec.Path, err)
	}
	err = syscall.Exec(spec.Path, spec.Argv, spec.Env)
	if errors.Is(err, syscall.EACCES) {
		return fail(126, "start %s in the sandbox: %v (its folder, and its dynamic loader's and libraries', must be in sandbox.read)", spec.Path, err)
	}
	return fail(127, "start %s in the sandbox: %v", spec.Path, err)
}
