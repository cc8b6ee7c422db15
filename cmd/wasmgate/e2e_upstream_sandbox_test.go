package main

// upstreams[].sandbox end to end (issue 17, item 4): the real
// @modelcontextprotocol/server-filesystem, started by the gateway under
// Landlock, sees one folder; a hostile fixture server under the same
// kind of sandbox tries to read outside its read list, write outside its
// write list and connect to a port it was not granted: each is refused,
// while what was granted works and the plugin keeps serving.

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

func TestUpstreamSandbox(t *testing.T) {
	t.Parallel()
	modules := harness.NodeModules()
	fsServer := harness.NodeBin(t, "@modelcontextprotocol/server-filesystem", "mcp-server-filesystem")
	node, _ := filepath.EvalSymlinks(harness.Node(t))
	hostile := bins.GoFixture(t, "testdata/upstreams/hostile")

	base := t.TempDir()
	shared, out, secret := filepath.Join(base, "shared"), filepath.Join(base, "out"), filepath.Join(base, "secret")
	for _, d := range []string{shared, out, secret} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	harness.WriteFile(t, filepath.Join(shared, "hello.txt"), []byte("hello from the shared folder"))
	harness.WriteFile(t, filepath.Join(secret, "plans.txt"), []byte("the secret plans"))
	// A port the hostile server may connect to, and one it may not.
	granted, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer granted.Close()
	other, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	port := func(l net.Listener) int { return l.Addr().(*net.TCPAddr).Port }
	nodeRead := fmt.Sprintf("%q, %q, %q, %q", "/usr", "/etc/ssl", modules, shared)
	if !strings.HasPrefix(node, "/usr/") {
		nodeRead += fmt.Sprintf(", %q", filepath.Dir(filepath.Dir(node)))
	}
	cfg := harness.WriteConfig(t, upstreamYAML(t, fmt.Sprintf(`  - name: files
    command: [%q, %q]
    env: {PATH: %q, HOME: %q}
    sandbox: {read: [%s], network: false}
    prefix: fs
    limits: {timeout: 60s}
  - name: hostile
    command: [%q]
    sandbox: {read: [/usr, %q, %q], write: [%q], network: [%d]}
    prefix: bad
`, fsServer, shared, filepath.Join(modules, ".bin")+":"+filepath.Dir(node)+":/usr/bin:/bin", shared, nodeRead,
		hostile, filepath.Dir(hostile), shared, out, port(granted))))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 2*time.Minute)
	c := g.SessionClient(t)

	// server-filesystem: the granted folder works.
	text, isErr := harness.CallTool(ctx, t, c, "fs_read_text_file", map[string]any{"path": filepath.Join(shared, "hello.txt")})
	if isErr || !strings.Contains(text, "hello from the shared folder") {
		t.Errorf("fs_read_text_file in the shared folder = %q (isError %v)", text, isErr)
	}
	text, isErr = harness.CallTool(ctx, t, c, "fs_list_directory", map[string]any{"path": shared})
	if isErr || !strings.Contains(text, "hello.txt") {
		t.Errorf("fs_list_directory = %q (isError %v)", text, isErr)
	}

	// The hostile server: what it was granted works, the rest is refused
	// by the kernel (EACCES / permission denied), not by the server.
	for _, tc := range []struct {
		tool string
		args map[string]any
		ok   bool
		want string
	}{
		{"read_file", map[string]any{"path": filepath.Join(shared, "hello.txt")}, true, "hello from the shared folder"},
		{"read_file", map[string]any{"path": filepath.Join(secret, "plans.txt")}, false, "permission denied"},
		{"read_file", map[string]any{"path": "/etc/hostname"}, false, "permission denied"},
		{"write_file", map[string]any{"path": filepath.Join(out, "ok.txt"), "content": "x"}, true, "written"},
		{"write_file", map[string]any{"path": filepath.Join(shared, "evil.txt"), "content": "x"}, false, "permission denied"},
		{"connect", map[string]any{"port": port(granted)}, true, "connected"},
		{"connect", map[string]any{"port": port(other)}, false, "permission denied"},
		{"connect", map[string]any{"port": port(other), "mptcp": true}, false, "permission denied"},
	} {
		text, isErr := harness.CallTool(ctx, t, c, "bad_"+tc.tool, tc.args)
		if isErr == tc.ok || !strings.Contains(strings.ToLower(text), tc.want) {
			t.Errorf("bad_%s %v = %q (isError %v), want ok=%v with %q", tc.tool, tc.args, text, isErr, tc.ok, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(shared, "evil.txt")); err == nil {
		t.Error("the hostile server wrote into a read-only folder")
	}
	harness.Calc(ctx, t, c, 2, 3)
}
