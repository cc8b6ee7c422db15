//go:build linux

package childproc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"golang.org/x/sys/unix"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// fixtures are the binaries TestMain builds for the tests.
type fixtures struct {
	hostile string // testdata/upstreams/hostile
}

var fix fixtures // set once by TestMain, read only by the tests

// parentVar makes the test binary the "gateway" of the orphan test (see
// parentMain).
const parentVar = "CHILDPROC_TEST_PARENT"

func TestMain(m *testing.M) {
	Main() // the test binary is the shim and the sandbox stage too
	if v := os.Getenv(parentVar); v != "" {
		os.Exit(parentMain(v))
	}
	if os.Getenv(noLandlockVar) != "" {
		os.Exit(noLandlockMain())
	}
	if v := os.Getenv(noSeccompVar); v != "" {
		os.Exit(noSeccompMain(v))
	}
	dir, err := os.MkdirTemp("", "childproc-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	_ = os.Chmod(dir, 0o755)
	fix.hostile = filepath.Join(dir, "hostile")
	build := exec.Command("go", "build", "-o", fix.hostile, "./testdata/upstreams/hostile")
	build.Dir = repoRoot()
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build the hostile fixture:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// server is one command started by Command and driven by mcp-go's
// stdio client.
type server struct {
	c      *client.Client
	cmd    *exec.Cmd
	stderr *harness.SyncBuffer
}

// start starts spec through Command under ctx, with an initialized
// mcp-go client on its stdio.
func start(ctx context.Context, spec Spec) (*server, error) {
	s := &server{stderr: &harness.SyncBuffer{}}
	tr := transport.NewStdioWithOptions(spec.Argv[0], nil, spec.Argv[1:], transport.WithCommandFunc(
		func(ctx context.Context, _ string, _ []string, _ []string) (*exec.Cmd, error) {
			cmd, err := Command(ctx, spec)
			if err != nil {
				return nil, err
			}
			cmd.Stderr = s.stderr
			s.cmd = cmd
			return cmd, nil
		}))
	if err := tr.Start(ctx); err != nil {
		return nil, err
	}
	s.c = client.NewClient(tr)
	ictx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "childproc-test", Version: "1"}
	if _, err := s.c.Initialize(ictx, init); err != nil {
		s.c.Close()
		return nil, fmt.Errorf("initialize: %w (stderr: %s)", err, s.stderr.String())
	}
	return s, nil
}

// startT is start for a test: ended (and the process group killed) when
// the test ends.
func startT(t *testing.T, spec Spec) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s, err := start(ctx, spec)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		s.c.Close()
		if t.Failed() {
			t.Logf("stderr of %v:\n%s", spec.Argv, s.stderr.String())
		}
	})
	return s
}

// call calls a tool: its text and whether it is an isError result.
func (s *server) call(ctx context.Context, name string, args map[string]any) (string, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := s.c.CallTool(ctx, req)
	if err != nil {
		return "", false, fmt.Errorf("call %s: %w", name, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	return text.String(), res.IsError, nil
}

func (s *server) callT(t *testing.T, name string, args map[string]any) (string, bool) {
	t.Helper()
	text, isErr, err := s.call(t.Context(), name, args)
	if err != nil {
		t.Fatalf("%v (stderr: %s)", err, s.stderr.String())
	}
	return text, isErr
}

// describe is what /proc says of pids, for failure messages.
func describe(pids []int) string {
	var b strings.Builder
	for _, p := range pids {
		stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
		fmt.Fprintf(&b, "\n  %d: %s [%s]", p, bytes.TrimSpace(stat), bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))
	}
	return b.String()
}

// alive reports whether pid is a process that is not a zombie.
func alive(pid int) bool {
	state, _, _, ok := procStat(pid)
	return ok && state != 'Z' && state != 'X'
}

// waitGone waits (generously) until none of pids is alive; it returns
// those still alive.
func waitGone(pids []int, within time.Duration) []int {
	deadline := time.Now().Add(within)
	for {
		var left []int
		for _, p := range pids {
			if alive(p) {
				left = append(left, p)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// refusing is a seccomp filter program that refuses the system call nr
// with EPERM and allows every other, as a SystemCallFilter= that does not
// list it does. (It reads the call's number only: the tests' processes
// are of the machine's one architecture.)
func refusing(nr uint32) *unix.SockFprog {
	prog := []unix.SockFilter{
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 0},
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: nr, Jt: 0, Jf: 1},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW},
	}
	return &unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
}

// noLandlockVar makes the test binary a process whose landlock system
// calls a seccomp filter refuses (as systemd's SystemCallFilter= does
// when it does not list them): it prints what Supported and Check say.
const noLandlockVar = "CHILDPROC_TEST_NO_LANDLOCK"

func noLandlockMain() int {
	runtime.LockOSThread() // the filter is this thread's
	fprog := refusing(unix.SYS_LANDLOCK_CREATE_RULESET)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		fmt.Println("no_new_privs:", err)
		return 2
	}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(fprog)), 0, 0); err != nil {
		fmt.Println("seccomp:", err)
		return 2
	}
	fmt.Printf("Supported: %v\nunsupported: %v\n", Supported(), errors.Is(Supported(), ErrUnsupported))
	fmt.Printf("Check: %v\n", (&Sandbox{Read: []string{"/usr"}}).Check())
	return 0
}

// parentReport is what parentMain prints: the pids it made.
type parentReport struct {
	Shim, Server int
	Sleepers     []int
}

// parentMain is the test binary as a gateway: it starts the spec (JSON
// in v) through Command, has the fixture spawn two sleepers (one in its
// own session), prints the pids as one JSON line and waits to be killed.
func parentMain(v string) int {
	var spec Spec
	if err := json.Unmarshal([]byte(v), &spec); err != nil {
		fmt.Fprintln(os.Stderr, "parent:", err)
		return 2
	}
	ctx := context.Background()
	s, err := start(ctx, spec)
	if err != nil {
		fmt.Fprintln(os.Stderr, "parent:", err)
		return 2
	}
	rep := parentReport{Shim: s.cmd.Process.Pid}
	text, isErr, err := s.call(ctx, "pid", nil)
	if err != nil || isErr {
		fmt.Fprintln(os.Stderr, "parent: pid:", err, text)
		return 2
	}
	rep.Server, _ = strconv.Atoi(text)
	for _, escape := range []bool{false, true} {
		text, isErr, err := s.call(ctx, "spawn_sleeper", map[string]any{"escape": escape})
		if err != nil || isErr {
			fmt.Fprintln(os.Stderr, "parent: spawn_sleeper:", err, text)
			return 2
		}
		p, _ := strconv.Atoi(text)
		rep.Sleepers = append(rep.Sleepers, p)
	}
	b, _ := json.Marshal(rep)
	fmt.Println(string(b))
	time.Sleep(time.Hour) // until killed
	return 2
}

// noSeccompVar makes the test binary a gateway whose seccomp system call
// is refused (systemd's SystemCallFilter=@system-service does not list
// it) that starts the hostile fixture (its path in the variable) under a
// sandbox and prints what its chmod and listen_unbound answer.
const noSeccompVar = "CHILDPROC_TEST_NO_SECCOMP"

func noSeccompMain(hostile string) int {
	fprog := refusing(unix.SYS_SECCOMP)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		fmt.Println("no_new_privs:", err)
		return 2
	}
	// Every thread of the process (TSYNC): children are forked from any.
	if _, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(fprog))); errno != 0 {
		fmt.Println("seccomp:", errno)
		return 2
	}
	dir, err := os.MkdirTemp("", "childproc-noseccomp-")
	if err != nil {
		fmt.Println(err)
		return 2
	}
	defer os.RemoveAll(dir)
	f := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
		fmt.Println(err)
		return 2
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sb := &Sandbox{Read: []string{filepath.Dir(hostile), "/usr"}, Write: []string{dir}}
	s, err := start(ctx, Spec{Argv: []string{hostile}, Env: []string{"PATH=/usr/bin"}, Sandbox: sb})
	if err != nil {
		fmt.Println("start:", err)
		return 2
	}
	defer s.c.Close()
	for _, tool := range []string{"chmod", "listen_unbound"} {
		text, isErr, err := s.call(ctx, tool, map[string]any{"path": f, "mode": 0o666})
		fmt.Printf("%s: %q isError=%v err=%v\n", tool, text, isErr, err)
	}
	return 0
}
