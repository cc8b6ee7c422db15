package main

// What Landlock alone does not cover (issue 39, finding 5), attacked end
// to end: the hostile fixture server, started by the real gateway, tries
//
//   - under a sandbox: to change the mode, owner, times and extended
//     attributes of the gateway's own config file (outside its grants) and
//     of a file it may write; to listen() on a socket it never bound
//     (network: [port]); to read a file through a descriptor the gateway
//     inherited without close-on-exec;
//   - without a sandbox: to read the inherited descriptor too; to read the
//     memory and (TestUpstreamProcEnviron, the gateway run as a user
//     other than root) the environment of the gateway, of another
//     upstream's supervisor and of that upstream from /proc; to kill its
//     own supervisor after starting a grandchild in its own session,
//     which must not outlive the gateway.

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

func TestUpstreamSandboxGaps(t *testing.T) {
	t.Parallel()
	hostile := bins.GoFixture(t, "testdata/upstreams/hostile")
	base := t.TempDir()
	out, secretDir := filepath.Join(base, "out"), filepath.Join(base, "secret")
	for _, d := range []string{out, secretDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const fdSecret = "inherited-descriptor-secret"
	secretFile := filepath.Join(secretDir, "inherited.txt")
	harness.WriteFile(t, secretFile, []byte(fdSecret))
	own := filepath.Join(out, "own.txt")
	harness.WriteFile(t, own, []byte("the server's own file"))
	granted, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer granted.Close()

	cfg := harness.WriteConfig(t, upstreamYAML(t, fmt.Sprintf(`  - name: jail
    command: [%q]
    sandbox: {read: [/usr, %q], write: [%q], network: [%d]}
    prefix: jail
  - name: plain
    command: [%q]
    prefix: plain
  - name: other
    command: [%q]
    prefix: other
`, hostile, filepath.Dir(hostile), out, granted.Addr().(*net.TCPAddr).Port, hostile, hostile)))
	// The gateway inherits descriptor 7, open on a file outside every
	// grant, without close-on-exec (a shell's redirection does that).
	wrapper := filepath.Join(base, "wasmgate-with-fd")
	harness.WriteFile(t, wrapper, []byte(fmt.Sprintf("#!/bin/sh\nexec 7<%q\nexec %q \"$@\"\n", secretFile, bins.Path)))
	if err := os.Chmod(wrapper, 0o755); err != nil {
		t.Fatal(err)
	}
	g := bins.Start(t, harness.Options{Config: cfg, Binary: wrapper})
	ctx := harness.Ctx(t, 2*time.Minute)
	c := g.SessionClient(t)
	gw := g.Cmd.Process.Pid

	call := func(tool string, args map[string]any) (string, bool) {
		t.Helper()
		return harness.CallTool(ctx, t, c, tool, args)
	}
	refused := func(tool string, args map[string]any, want string) {
		t.Helper()
		text, isErr := call(tool, args)
		if !isErr || !strings.Contains(strings.ToLower(text), want) {
			t.Errorf("%s %v = %q (isError %v), want refused with %q", tool, args, text, isErr, want)
		}
	}

	t.Run("metadata", func(t *testing.T) {
		stat := func(p string) (os.FileInfo, syscall.Stat_t) {
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			return fi, *fi.Sys().(*syscall.Stat_t)
		}
		for _, p := range []string{cfg, own} {
			before, bst := stat(p)
			refused("jail_chmod", map[string]any{"path": p, "mode": 0o666}, "operation not permitted")
			refused("jail_chown", map[string]any{"path": p, "uid": 65534, "gid": 65534}, "operation not permitted")
			refused("jail_touch", map[string]any{"path": p}, "operation not permitted")
			refused("jail_setxattr", map[string]any{"path": p}, "operation not permitted")
			after, ast := stat(p)
			if after.Mode() != before.Mode() || ast.Uid != bst.Uid || ast.Gid != bst.Gid || !after.ModTime().Equal(before.ModTime()) {
				t.Errorf("%s changed: mode %v -> %v, owner %d:%d -> %d:%d, mtime %v -> %v", p,
					before.Mode(), after.Mode(), bst.Uid, bst.Gid, ast.Uid, ast.Gid, before.ModTime(), after.ModTime())
			}
			var buf [64]byte
			if n, err := syscall.Getxattr(p, "user.hostile", buf[:]); err == nil {
				t.Errorf("%s has the attribute user.hostile = %q", p, buf[:n])
			}
		}
		// What it was granted still works.
		if text, isErr := call("jail_write_file", map[string]any{"path": own, "content": "x"}); isErr {
			t.Errorf("write inside the write grant: %q", text)
		}
	})

	t.Run("listen without bind", func(t *testing.T) {
		refused("jail_listen_unbound", nil, "permission denied")
		if text, isErr := call("jail_connect", map[string]any{"port": granted.Addr().(*net.TCPAddr).Port}); isErr {
			t.Errorf("connect to the granted port: %q", text)
		}
	})

	t.Run("inherited descriptor", func(t *testing.T) {
		for _, tool := range []string{"jail_read_fds", "plain_read_fds"} {
			text, isErr := call(tool, nil)
			if isErr || strings.Contains(text, fdSecret) {
				t.Errorf("%s = %q (isError %v): an inherited descriptor reached the server", tool, text, isErr)
			}
		}
	})

	text, _ := call("plain_pid", nil)
	plain, _ := strconv.Atoi(text)
	plainShim := ppidOf(t, plain)

	t.Run("proc mem", func(t *testing.T) {
		// As root the environment stays readable to an unsandboxed root
		// process (TestUpstreamProcEnviron runs the gateway as another
		// user); the memory does not: the gateway and the supervisor are
		// not dumpable and another upstream's command is outside the
		// reader's Landlock domain. Refused when opened (a read of mem at
		// offset 0 fails anyway).
		for _, p := range []int{gw, plainShim, plain} {
			path := fmt.Sprintf("/proc/%d/mem", p)
			text, isErr := call("other_read_file", map[string]any{"path": path})
			if !isErr || !(strings.Contains(text, "permission denied") || strings.Contains(text, "operation not permitted")) {
				t.Errorf("an unsandboxed upstream opened %s: %.200q (isError %v)", path, text, isErr)
			}
		}
		// The sandboxed one, as before.
		refused("jail_read_file", map[string]any{"path": fmt.Sprintf("/proc/%d/environ", gw)}, "permission denied")
	})

	t.Run("supervisor", func(t *testing.T) {
		text, isErr := call("plain_spawn_sleeper", map[string]any{"escape": true})
		sleeper, err := strconv.Atoi(text)
		if isErr || err != nil {
			t.Fatalf("spawn_sleeper: %q", text)
		}
		t.Cleanup(func() { _ = syscall.Kill(sleeper, syscall.SIGKILL) })
		refused("plain_kill_parent", nil, "operation not permitted")
		if !processAlive(plainShim) {
			t.Errorf("the supervisor %d of the plain upstream is gone", plainShim)
		}
		if err := g.Stop(t); err != nil {
			t.Errorf("stop: %v", err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for processAlive(sleeper) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if processAlive(sleeper) {
			t.Errorf("the grandchild %d (own session) outlived the gateway", sleeper)
		}
	})
}

// TestUpstreamProcEnviron: an unsandboxed upstream server reads the
// environment of its gateway (which holds every token and secret the
// config reads from it) and of another upstream's supervisor (which held
// that upstream's environment), all of them run by the same user other
// than root (root reads any process's environment: what keeps a root
// upstream out of /proc is a sandbox).
func TestUpstreamProcEnviron(t *testing.T) {
	t.Parallel()
	hostileBuilt := bins.GoFixture(t, "testdata/upstreams/hostile")
	dir, err := os.MkdirTemp("", "wasmgate-e2e-environ-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	cache, ready := filepath.Join(dir, "cache"), filepath.Join(dir, "ready")
	for _, d := range []string{dir, cache, ready} {
		if err := os.MkdirAll(d, 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(hostileBuilt)
	if err != nil {
		t.Fatal(err)
	}
	hostile := filepath.Join(dir, "hostile")
	if err := os.WriteFile(hostile, b, 0o755); err != nil {
		t.Fatal(err)
	}
	const gatewaySecret, upstreamSecret = "gateway-env-secret-4711", "upstream-env-secret-0815"
	cfg := filepath.Join(dir, "gateway.yaml")
	harness.WriteFile(t, cfg, []byte(fmt.Sprintf(`server:
  cache_dir: %q
  shutdown_timeout: 5s
transports:
  http: {enabled: true, listen: 127.0.0.1:0}
admin: {enabled: true, listen: 127.0.0.1:0}
upstreams:
  - name: plain
    command: [%q]
    env: {UPSTREAM_SECRET: %q, HOME: %q}
    prefix: plain
  - name: other
    command: [%q]
    env: {HOME: %q}
    prefix: other
`, cache, hostile, upstreamSecret, dir, hostile, dir)))
	opts := harness.Options{Config: cfg, ReadyDir: ready, Env: []string{"GATEWAY_TOKEN=" + gatewaySecret, "HOME=" + dir}}
	if os.Geteuid() == 0 {
		wrapper := filepath.Join(dir, "wasmgate-as-nobody")
		harness.WriteFile(t, wrapper, []byte(fmt.Sprintf("#!/bin/sh\nexec setpriv --reuid=65534 --regid=65534 --clear-groups -- %q \"$@\"\n", bins.Path)))
		if err := os.Chmod(wrapper, 0o755); err != nil {
			t.Fatal(err)
		}
		opts.Binary = wrapper
	}
	g := bins.Start(t, opts)
	ctx := harness.Ctx(t, 2*time.Minute)
	c := g.SessionClient(t)
	gw := g.Cmd.Process.Pid
	if env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", gw)); err != nil || !strings.Contains(string(env), gatewaySecret) {
		t.Fatalf("the test's premise: the gateway's environment has the secret: %v", err)
	}
	text, _ := harness.CallTool(ctx, t, c, "plain_pid", nil)
	plain, _ := strconv.Atoi(text)
	plainShim := ppidOf(t, plain)
	if text, _ := harness.CallTool(ctx, t, c, "other_pid", nil); text == "" {
		t.Fatal("other_pid: empty")
	}
	for _, p := range []int{gw, plainShim} {
		path := fmt.Sprintf("/proc/%d/environ", p)
		text, isErr := harness.CallTool(ctx, t, c, "other_read_file", map[string]any{"path": path})
		if !isErr || strings.Contains(text, gatewaySecret) || strings.Contains(text, upstreamSecret) {
			t.Errorf("an unsandboxed upstream of the same user read %s: %.200q (isError %v)", path, text, isErr)
		}
	}
}

// ppidOf is the parent pid of pid, from /proc.
func ppidOf(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		t.Fatal(err)
	}
	return ppid
}

// processAlive reports whether pid runs and is not a zombie.
func processAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}
