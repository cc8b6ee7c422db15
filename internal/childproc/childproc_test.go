//go:build linux

package childproc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// listener is a TCP listener on loopback that accepts (and closes)
// connections until the test ends; its port.
func listener(t *testing.T) uint16 {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return uint16(l.Addr().(*net.TCPAddr).Port)
}

// freePort is a TCP port on loopback that was free a moment ago.
func freePort(t *testing.T) uint16 {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return uint16(l.Addr().(*net.TCPAddr).Port)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// needLandlock fails the test on a kernel that cannot enforce a
// sandbox with TCP rules (the gateway's deployment kernels can; one
// that cannot is a finding, not a skip).
func needLandlock(t *testing.T) {
	t.Helper()
	if err := (&Sandbox{}).supportedHere(); err != nil {
		t.Fatalf("this kernel cannot run the sandbox tests: %v", err)
	}
}

func sortedEnv(env []string) []string {
	out := slices.Clone(env)
	slices.Sort(out)
	return out
}

func hostileEnv(home string) []string {
	return []string{"PATH=/usr/bin:/bin", "HOME=" + home, "UPSTREAM_TOKEN=s3cret-value", "EMPTY="}
}

// TestUnsandboxed: without a sandbox the fixture reaches what the
// sandbox tests refuse it (so their refusals are the sandbox's), and
// its environment is exactly the Spec's, nothing of the test's.
func TestUnsandboxed(t *testing.T) {
	t.Setenv("CHILDPROC_GATEWAY_ONLY", "must-not-leak")
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "secret.txt"), "outside secret")
	port := listener(t)
	env := hostileEnv(outside)
	s := startT(t, Spec{Argv: []string{fix.hostile}, Env: env})

	if text, isErr := s.callT(t, "read_file", map[string]any{"path": filepath.Join(outside, "secret.txt")}); isErr || text != "outside secret" {
		t.Errorf("read without a sandbox: %q (isError %v)", text, isErr)
	}
	if text, isErr := s.callT(t, "write_file", map[string]any{"path": filepath.Join(outside, "w.txt")}); isErr {
		t.Errorf("write without a sandbox: %q", text)
	}
	if text, isErr := s.callT(t, "connect", map[string]any{"port": port}); isErr {
		t.Errorf("connect without a sandbox: %q", text)
	}
	if text, isErr := s.callT(t, "connect", map[string]any{"port": port, "mptcp": true}); isErr {
		if strings.Contains(text, "socket: protocol not") { // net.mptcp.enabled=0, or no MPTCP in the kernel
			t.Logf("no Multipath TCP on this kernel: %s", text)
		} else {
			t.Errorf("connect with Multipath TCP without a sandbox: %q", text)
		}
	}
	if text, isErr := s.callT(t, "listen", map[string]any{"port": 0}); isErr {
		t.Errorf("listen without a sandbox: %q", text)
	}
	text, _ := s.callT(t, "env", nil)
	var got []string
	if err := json.Unmarshal([]byte(text), &got); err != nil {
		t.Fatalf("env: %v: %s", err, text)
	}
	if !slices.Equal(sortedEnv(got), sortedEnv(env)) {
		t.Errorf("environment of the command:\n got %q\nwant %q", got, env)
	}
}

// TestSandboxHostile: under a sandbox the fixture reads only its read
// list, writes only its write list, connects only to granted ports and
// binds none; its environment is exactly the Spec's.
func TestSandboxHostile(t *testing.T) {
	needLandlock(t)
	readDir, outDir, outside := t.TempDir(), t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(readDir, "in.txt"), "inside")
	writeFile(t, filepath.Join(outside, "secret.txt"), "outside secret")
	granted, other := listener(t), listener(t)
	base := Sandbox{Read: []string{filepath.Dir(fix.hostile), "/usr", readDir}, Write: []string{outDir}}
	const denied = "permission denied"

	cases := []struct {
		name      string
		net       func(*Sandbox)
		connectOK map[uint16]bool
		listenOK  bool
	}{
		{"ports", func(s *Sandbox) { s.Ports = []uint16{granted} }, map[uint16]bool{granted: true, other: false}, false},
		{"no network", func(s *Sandbox) {}, map[uint16]bool{granted: false, other: false}, false},
		{"network", func(s *Sandbox) { s.Network = true }, map[uint16]bool{granted: true, other: true}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sb := base
			tc.net(&sb)
			env := hostileEnv(outDir)
			s := startT(t, Spec{Argv: []string{fix.hostile}, Env: env, Sandbox: &sb})

			if text, isErr := s.callT(t, "read_file", map[string]any{"path": filepath.Join(readDir, "in.txt")}); isErr || text != "inside" {
				t.Errorf("read inside the read list: %q (isError %v)", text, isErr)
			}
			for _, p := range []string{filepath.Join(outside, "secret.txt"), "/etc/passwd", "/proc/1/environ"} {
				if text, isErr := s.callT(t, "read_file", map[string]any{"path": p}); !isErr || !strings.Contains(text, denied) {
					t.Errorf("read %s outside the read list: %q (isError %v), want %q", p, text, isErr, denied)
				}
			}
			w := filepath.Join(outDir, tc.name+".txt")
			if text, isErr := s.callT(t, "write_file", map[string]any{"path": w, "content": "ok"}); isErr {
				t.Errorf("write inside the write list: %q", text)
			} else if b, err := os.ReadFile(w); err != nil || string(b) != "ok" {
				t.Errorf("the file written inside: %q, %v", b, err)
			}
			if text, isErr := s.callT(t, "read_file", map[string]any{"path": w}); isErr || text != "ok" {
				t.Errorf("read back inside the write list: %q (isError %v)", text, isErr)
			}
			for _, p := range []string{filepath.Join(outside, "w.txt"), filepath.Join(readDir, "w.txt")} {
				if text, isErr := s.callT(t, "write_file", map[string]any{"path": p}); !isErr || !strings.Contains(text, denied) {
					t.Errorf("write %s outside the write list: %q (isError %v), want %q", p, text, isErr, denied)
				}
				if _, err := os.Stat(p); err == nil {
					t.Errorf("%s exists", p)
				}
			}
			for port, ok := range tc.connectOK {
				text, isErr := s.callT(t, "connect", map[string]any{"port": port})
				if ok && isErr {
					t.Errorf("connect to port %d (allowed): %q", port, text)
				}
				if !ok && (!isErr || !strings.Contains(text, denied)) {
					t.Errorf("connect to port %d (not allowed): %q (isError %v), want %q", port, text, isErr, denied)
				}
				// Landlock's TCP rules do not see Multipath TCP: the
				// sandbox refuses such sockets unless the network is open.
				text, isErr = s.callT(t, "connect", map[string]any{"port": port, "mptcp": true})
				if sb.Network && isErr {
					t.Errorf("connect with Multipath TCP to port %d (network open): %q", port, text)
				}
				if !sb.Network && (!isErr || !strings.Contains(text, denied)) {
					t.Errorf("connect with Multipath TCP to port %d (network restricted): %q (isError %v), want %q", port, text, isErr, denied)
				}
			}
			text, isErr := s.callT(t, "listen", map[string]any{"port": freePort(t)})
			if tc.listenOK && isErr {
				t.Errorf("listen (allowed): %q", text)
			}
			if !tc.listenOK && (!isErr || !strings.Contains(text, denied)) {
				t.Errorf("listen (not allowed): %q (isError %v), want %q", text, isErr, denied)
			}
			text, _ = s.callT(t, "env", nil)
			var got []string
			if err := json.Unmarshal([]byte(text), &got); err != nil {
				t.Fatalf("env: %v: %s", err, text)
			}
			if !slices.Equal(sortedEnv(got), sortedEnv(env)) {
				t.Errorf("environment of the sandboxed command:\n got %q\nwant %q", got, env)
			}
		})
	}
}

// TestSandboxMissingLibraries: a sandbox whose read list lacks the
// dynamic loader (here /usr) stops the command at its start, with a
// message that says what to list.
func TestSandboxMissingLibraries(t *testing.T) {
	needLandlock(t)
	sb := &Sandbox{Read: []string{filepath.Dir(fix.hostile)}, Network: true}
	cmd, err := Command(t.Context(), Spec{Argv: []string{fix.hostile}, Env: []string{"PATH=/usr/bin"}, Sandbox: sb})
	if err != nil {
		t.Fatal(err)
	}
	var stderr harness.SyncBuffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 126 {
		t.Fatalf("run: %v, want exit status 126; stderr: %s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "must be in sandbox.read") || !strings.Contains(stderr.String(), "permission denied") {
		t.Errorf("stderr: %s", stderr.String())
	}
}

// TestCommandErrors: what Command refuses, and the PATH it looks in.
func TestCommandErrors(t *testing.T) {
	binDir := filepath.Dir(fix.hostile)
	// The test's own PATH has go; the command's does not.
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatal(err)
	}
	_, err := Command(t.Context(), Spec{Argv: []string{"go", "version"}, Env: []string{"PATH=" + binDir}})
	if want := `upstream command "go" not found in PATH "` + binDir + `"`; err == nil || err.Error() != want {
		t.Errorf("a command only the gateway's PATH has: %v, want %s", err, want)
	}
	_, err = Command(t.Context(), Spec{Argv: []string{"no-such-server"}, Env: []string{"HOME=/"}})
	if want := `upstream command "no-such-server" not found in PATH ""`; err == nil || err.Error() != want {
		t.Errorf("no PATH: %v, want %s", err, want)
	}
	_, err = Command(t.Context(), Spec{Argv: []string{"./nope"}, Env: []string{"PATH=/usr/bin"}, Dir: binDir})
	if err == nil || !strings.Contains(err.Error(), `upstream command "./nope"`) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing relative command: %v", err)
	}
	if _, err := Command(t.Context(), Spec{Env: []string{"PATH=/usr/bin"}}); err == nil {
		t.Error("no command: no error")
	}
	if _, err := Command(t.Context(), Spec{Argv: []string{"hostile"}, Env: []string{"PATH=/usr/bin", "X=1"}, Dir: "/no/such/dir"}); err == nil || !strings.Contains(err.Error(), "working directory") {
		t.Errorf("a missing working directory: %v", err)
	}
	// Found in the command's PATH (the test's PATH does not have it).
	s := startT(t, Spec{Argv: []string{"hostile"}, Env: []string{"PATH=/nonexistent:" + binDir}})
	if text, isErr := s.callT(t, "pid", nil); isErr || text == "" {
		t.Errorf("pid: %q", text)
	}
}

// TestSandboxCheck: the load-time check names the bad entries.
func TestSandboxCheck(t *testing.T) {
	dir := t.TempDir()
	err := (&Sandbox{Read: []string{"/usr", filepath.Join(dir, "missing")}, Write: []string{"rel/out"}}).Check()
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{`sandbox.read[1]: "` + filepath.Join(dir, "missing") + `" does not exist`, `sandbox.write[0]: "rel/out" is not an absolute path`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if err := (&Sandbox{Network: true, Ports: []uint16{80}}).Check(); err == nil {
		t.Error("network true with ports: no error")
	}
	if err := (*Sandbox)(nil).Check(); err != nil {
		t.Errorf("no sandbox: %v", err)
	}
	_, err = Command(t.Context(), Spec{Argv: []string{fix.hostile}, Env: []string{"PATH=/usr/bin"}, Sandbox: &Sandbox{Read: []string{filepath.Join(dir, "missing")}}})
	if err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("Command with a missing read path: %v", err)
	}
}

// TestSupportDecision: which kernels can enforce which sandbox, with
// the ABI injected; and the ruleset each gets.
func TestSupportDecision(t *testing.T) {
	noNet, ports, open := &Sandbox{}, &Sandbox{Ports: []uint16{443}}, &Sandbox{Network: true}
	for _, tc := range []struct {
		s    *Sandbox
		abi  int
		want string // "" is supported
	}{
		{open, 0, "Landlock is not available"},
		{noNet, 0, "Landlock is not available"},
		{open, 1, ""},
		{open, 3, ""},
		{noNet, 3, "needs Landlock ABI 4"},
		{ports, 3, "needs Landlock ABI 4"},
		{noNet, 4, ""},
		{ports, 7, ""},
		{ports, 42, ""},
	} {
		err := tc.s.supported(tc.abi)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%+v on ABI %d: %v", *tc.s, tc.abi, err)
			}
		} else if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v on ABI %d: %v, want ErrUnsupported saying %q", *tc.s, tc.abi, err, tc.want)
		}
		// plan makes the same decision.
		if _, _, perr := plan(tc.s, tc.abi); (perr == nil) != (err == nil) {
			t.Errorf("%+v on ABI %d: plan says %v, supported %v", *tc.s, tc.abi, perr, err)
		}
	}
	cfg, _, err := plan(open, 3)
	if err != nil || cfg.HandledAccessNet != 0 || cfg.HandledAccessFS == 0 {
		t.Errorf("network true on ABI 3: %v, %v", cfg, err)
	}
	cfg, rules, err := plan(ports, 7)
	if err != nil || cfg.HandledAccessNet != ll.AccessNetBindTCP|ll.AccessNetConnectTCP || !strings.Contains(fmt.Sprint(rules), "{connect_tcp} on port 443") {
		t.Errorf("ports on ABI 7: %v, %v, %v", cfg, rules, err)
	}
	// The running kernel: Supported and ABI agree.
	if err, abi := Supported(), ABI(); (abi >= 1) != (err == nil) || (err != nil && !errors.Is(err, ErrUnsupported)) {
		t.Errorf("Supported() = %v with ABI %d", err, abi)
	}
}

// TestCancelKillsGroup: the context's end kills the server and what it
// started, also a grandchild that left the process group.
func TestCancelKillsGroup(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := start(ctx, Spec{Argv: []string{fix.hostile}, Env: hostileEnv(t.TempDir())})
	if err != nil {
		t.Fatal(err)
	}
	defer s.c.Close()
	pids := []int{s.cmd.Process.Pid}
	for _, tool := range []string{"pid", "spawn_sleeper", "spawn_sleeper"} {
		args := map[string]any{"escape": len(pids) == 3}
		text, isErr, err := s.call(ctx, tool, args)
		p, perr := strconv.Atoi(text)
		if err != nil || isErr || perr != nil {
			t.Fatalf("%s: %q %v %v", tool, text, err, perr)
		}
		pids = append(pids, p)
	}
	for _, p := range pids {
		if !alive(p) {
			t.Fatalf("pid %d is not running before the cancel", p)
		}
	}
	cancel()
	if left := waitGone(pids, 10*time.Second); len(left) > 0 {
		t.Errorf("still running after the context ended: %v (of shim, server, sleeper, escaped sleeper %v):%s", left, pids, describe(left))
	}
	err = s.cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Errorf("the shim's end: %v, want killed", err)
	}
}

// TestStopForwardsAndExits: SIGTERM to the shim reaches the server,
// the shim exits the way the server did and kills what it left behind
// (a sleeper in its own session).
func TestStopForwardsAndExits(t *testing.T) {
	s := startT(t, Spec{Argv: []string{fix.hostile}, Env: hostileEnv(t.TempDir())})
	text, _ := s.callT(t, "pid", nil)
	server, _ := strconv.Atoi(text)
	text, _ = s.callT(t, "spawn_sleeper", map[string]any{"escape": true})
	sleeper, _ := strconv.Atoi(text)
	if !alive(server) || !alive(sleeper) {
		t.Fatalf("server %d or sleeper %d not running", server, sleeper)
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// mcp-go's stdio server ends on SIGTERM with this message and status 1.
	err := s.cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(s.stderr.String(), "hostile: context canceled") {
		t.Errorf("the shim's end: %v, want the server's (exit status 1 after SIGTERM); stderr: %s", err, s.stderr.String())
	}
	if left := waitGone([]int{server, sleeper}, 10*time.Second); len(left) > 0 {
		t.Errorf("still running after the server ended: %v:%s", left, describe(left))
	}
}

// TestNoOrphansAfterKill9: a gateway (this test binary in parent mode)
// starts the fixture, which starts two sleepers (one in its own
// session); kill -9 of the gateway ends all of them.
func TestNoOrphansAfterKill9(t *testing.T) {
	for _, sandboxed := range []bool{false, true} {
		t.Run("sandbox="+strconv.FormatBool(sandboxed), func(t *testing.T) {
			spec := Spec{Argv: []string{fix.hostile}, Env: hostileEnv(t.TempDir())}
			if sandboxed {
				needLandlock(t)
				spec.Sandbox = &Sandbox{Read: []string{filepath.Dir(fix.hostile), "/usr"}}
			}
			b, _ := json.Marshal(spec)
			parent := exec.Command(os.Args[0])
			parent.Env = append(os.Environ(), parentVar+"="+string(b))
			var stderr harness.SyncBuffer
			parent.Stderr = &stderr
			out, err := parent.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := parent.Start(); err != nil {
				t.Fatal(err)
			}
			defer parent.Process.Kill()
			lines := make(chan string, 1)
			go func() {
				buf := make([]byte, 4096)
				n, _ := out.Read(buf)
				lines <- string(buf[:n])
			}()
			var line string
			select {
			case line = <-lines:
			case <-time.After(60 * time.Second):
				t.Fatalf("the parent reported nothing; stderr: %s", stderr.String())
			}
			var rep parentReport
			if err := json.Unmarshal([]byte(line), &rep); err != nil || len(rep.Sleepers) != 2 {
				t.Fatalf("parent said %q (%v); stderr: %s", line, err, stderr.String())
			}
			pids := append([]int{rep.Shim, rep.Server}, rep.Sleepers...)
			for _, p := range pids {
				if !alive(p) {
					t.Fatalf("pid %d not running before the kill (%+v)", p, rep)
				}
			}
			if err := parent.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = parent.Wait()
			killed := time.Now()
			if left := waitGone(pids, 10*time.Second); len(left) > 0 {
				t.Errorf("running after kill -9 of their gateway: %v (shim, server, sleeper, escaped sleeper: %v):%s", left, pids, describe(left))
			}
			t.Logf("all gone %v after the gateway's death", time.Since(killed).Round(time.Millisecond))
		})
	}
}

// TestSandboxFilesystemServer: @modelcontextprotocol/server-filesystem
// (npm, tests/node) runs under a sandbox that lets it see one folder
// (and node's install, /usr): listing and reading there work through
// mcp-go's client; what is outside is refused, by the server's own
// checks, and by the sandbox for the hostile fixture given the same
// folder.
func TestSandboxFilesystemServer(t *testing.T) {
	needLandlock(t)
	modules := harness.NodeModules()
	harness.NodeBin(t, "@modelcontextprotocol/server-filesystem", "mcp-server-filesystem")
	node, _ := filepath.EvalSymlinks(harness.Node(t))
	shared, outside := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(shared, "notes.txt"), "shared notes")
	writeFile(t, filepath.Join(outside, "secret.txt"), "outside secret")
	read := []string{"/usr", "/etc/ssl", modules, shared} // node reads /etc/ssl/openssl.cnf at start
	if !strings.HasPrefix(node, "/usr/") {
		read = append(read, filepath.Dir(filepath.Dir(node))) // node's own prefix
	}
	sb := &Sandbox{Read: read}
	env := []string{"PATH=" + filepath.Join(modules, ".bin") + ":" + filepath.Dir(node) + ":/usr/bin:/bin", "HOME=" + shared}
	s := startT(t, Spec{Argv: []string{"mcp-server-filesystem", shared}, Env: env, Sandbox: sb})

	text, isErr := s.callT(t, "list_directory", map[string]any{"path": shared})
	if isErr || !strings.Contains(text, "notes.txt") {
		t.Errorf("list the shared folder: %q (isError %v)", text, isErr)
	}
	text, isErr = s.callT(t, "read_text_file", map[string]any{"path": filepath.Join(shared, "notes.txt")})
	if isErr || !strings.Contains(text, "shared notes") {
		t.Errorf("read in the shared folder: %q (isError %v)", text, isErr)
	}
	text, isErr = s.callT(t, "read_text_file", map[string]any{"path": filepath.Join(outside, "secret.txt")})
	if !isErr || strings.Contains(text, "outside secret") {
		t.Errorf("read outside through the server: %q (isError %v), want refused", text, isErr)
	}

	hsb := &Sandbox{Read: append([]string{filepath.Dir(fix.hostile)}, read...)}
	h := startT(t, Spec{Argv: []string{fix.hostile}, Env: env, Sandbox: hsb})
	if text, isErr := h.callT(t, "read_file", map[string]any{"path": filepath.Join(shared, "notes.txt")}); isErr || text != "shared notes" {
		t.Errorf("the hostile fixture reading in the shared folder: %q (isError %v)", text, isErr)
	}
	for _, p := range []string{filepath.Join(outside, "secret.txt"), "/etc/passwd", filepath.Join(repoRoot(), "go.mod")} {
		if text, isErr := h.callT(t, "read_file", map[string]any{"path": p}); !isErr || !strings.Contains(text, "permission denied") {
			t.Errorf("the hostile fixture reading %s: %q (isError %v), want permission denied", p, text, isErr)
		}
	}
}

// TestLandlockRefused: a gateway whose landlock system calls are refused
// (systemd's SystemCallFilter= without them) reports the sandbox as
// unsupported, and says why.
func TestLandlockRefused(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), noLandlockVar+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, want := range []string{"unsupported: true", "Landlock is not available", "SystemCallFilter= must allow landlock_create_ruleset", "Check: landlock sandbox not supported by this kernel"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the output does not say %q:\n%s", want, out)
		}
	}
}

// TestLandlockGaps: what Landlock alone does not govern. Under a
// sandbox, changes of file metadata fail with EPERM (also beneath a
// write path) and listen() without bind fails unless the network is
// open; with or without a sandbox, a descriptor this process holds
// without close-on-exec does not reach the command; without a sandbox,
// the command cannot kill its supervisor.
func TestLandlockGaps(t *testing.T) {
	needLandlock(t)
	outDir, outside := t.TempDir(), t.TempDir()
	own, victim := filepath.Join(outDir, "own.txt"), filepath.Join(outside, "victim.txt")
	writeFile(t, own, "own")
	writeFile(t, victim, "victim")
	const secret = "held-by-the-gateway"
	held := filepath.Join(outside, "held.txt")
	writeFile(t, held, secret)
	fd, err := syscall.Open(held, syscall.O_RDONLY, 0) // no O_CLOEXEC
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)

	base := Sandbox{Read: []string{filepath.Dir(fix.hostile), "/usr"}, Write: []string{outDir}}
	for _, network := range []bool{false, true} {
		t.Run("network="+strconv.FormatBool(network), func(t *testing.T) {
			sb := base
			sb.Network = network
			s := startT(t, Spec{Argv: []string{fix.hostile}, Env: hostileEnv(outDir), Sandbox: &sb})
			for _, p := range []string{own, victim} {
				for _, tc := range []struct {
					tool string
					args map[string]any
				}{
					{"chmod", map[string]any{"path": p, "mode": 0o666}},
					{"chown", map[string]any{"path": p, "uid": 65534, "gid": 65534}},
					{"touch", map[string]any{"path": p}},
					{"setxattr", map[string]any{"path": p}},
				} {
					if text, isErr := s.callT(t, tc.tool, tc.args); !isErr || !strings.Contains(text, "operation not permitted") {
						t.Errorf("%s %s: %q (isError %v), want operation not permitted", tc.tool, p, text, isErr)
					}
				}
				if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o644 {
					t.Errorf("%s: %v, %v", p, st.Mode(), err)
				}
			}
			text, isErr := s.callT(t, "listen_unbound", nil)
			if network && isErr {
				t.Errorf("listen_unbound with the network open: %q", text)
			}
			if !network && (!isErr || !strings.Contains(text, "permission denied")) {
				t.Errorf("listen_unbound with the network restricted: %q (isError %v), want permission denied", text, isErr)
			}
			if text, _ := s.callT(t, "read_fds", nil); strings.Contains(text, secret) {
				t.Errorf("read_fds in the sandbox: %q", text)
			}
		})
	}
	t.Run("unsandboxed", func(t *testing.T) {
		s := startT(t, Spec{Argv: []string{fix.hostile}, Env: hostileEnv(outDir)})
		if text, _ := s.callT(t, "read_fds", nil); strings.Contains(text, secret) {
			t.Errorf("read_fds: %q", text)
		}
		if ABI() < minScopeABI {
			t.Logf("Landlock ABI %d: an unsandboxed command is not isolated", ABI())
			return
		}
		if text, isErr := s.callT(t, "kill_parent", nil); !isErr || !strings.Contains(text, "operation not permitted") {
			t.Errorf("kill_parent: %q (isError %v), want operation not permitted", text, isErr)
		}
		if text, isErr := s.callT(t, "pid", nil); isErr || text == "" {
			t.Errorf("the server after kill_parent: %q", text)
		}
	})
}

// TestSeccompSyscallRefused: under a seccomp filter that refuses the
// seccomp system call itself (systemd's @system-service does not list
// it), a sandbox still gets its filter (through prctl).
func TestSeccompSyscallRefused(t *testing.T) {
	needLandlock(t)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), noSeccompVar+"="+fix.hostile)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, want := range []string{`chmod: "chmod`, `operation not permitted" isError=true`, `listen_unbound: "listen: permission denied" isError=true`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the output does not say %q:\n%s", want, out)
		}
	}
}
