package main

// `wasmgate validate` on every class of bad config: non-zero exit, and
// stderr naming the key and the bad value. Environment overrides in
// validate and serve.
//
// validate compiles modules without a cache, so these tests run the plain
// (non -race) build of the same source: compiling is ~10x slower under the
// race detector and validate runs no concurrent code worth checking.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// runValidate runs `wasmgate validate [--config cfg]` with the plain
// binary, env added to a clean environment.
func runValidate(t *testing.T, cfg string, env []string, setup func(*exec.Cmd)) harness.Result {
	t.Helper()
	args := []string{"validate"}
	if cfg != "" {
		args = append(args, "--config", cfg)
	}
	return bins.Run(t, harness.RunOptions{Plain: true, Env: env, Setup: setup}, args...)
}

// checkRefused checks validate refused a config as invalid (exit 1, not a
// crash), with nothing on stdout and stderr containing every want and no
// not.
func checkRefused(t *testing.T, r harness.Result, want, not []string) {
	t.Helper()
	if r.Code == 0 {
		t.Fatalf("validate exited 0; stdout %q", r.Stdout)
	}
	if r.Code != 1 { // a Go panic exits 2
		t.Errorf("validate exited %d, want 1 (an invalid config, not a crash):\n%s", r.Code, r.Stderr)
	}
	if r.Stdout != "" {
		t.Errorf("validate wrote to stdout on failure: %q", r.Stdout)
	}
	for _, w := range want {
		if !strings.Contains(r.Stderr, w) {
			t.Errorf("stderr does not contain %q:\n%s", w, r.Stderr)
		}
	}
	for _, n := range not {
		if strings.Contains(r.Stderr, n) {
			t.Errorf("stderr contains %q:\n%s", n, r.Stderr)
		}
	}
}

// TestValidateConfigErrors runs `wasmgate validate` on bad configs. Every
// class the loader catches is a file in loader/testdata/bad, checked there
// with loader.Load; a few of them run here through the binary, with the
// classes only compiling the modules or building the gateway can find.
func TestValidateConfigErrors(t *testing.T) {
	t.Parallel()
	for _, name := range []string{
		"unknown-top-level-key",
		"invalid-yaml",
		"timeout-above-range",
		"duplicate-plugin-names",
		"env-override-with-a-bad-value",
	} {
		c := harness.ReadBadConfig(t, filepath.Join(harness.RepoRoot(), harness.BadConfigDir, name+".yaml"))
		t.Run(name, func(t *testing.T) {
			checkRefused(t, runValidate(t, c.Path, c.Env, nil), c.Want, c.Not)
		})
	}

	calc := harness.Wasm(t, "examples/plugins/calculator")
	badinfo := harness.Wasm(t, "testdata/plugins/badinfo")
	data, err := os.ReadFile(calc)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	realHash := hex.EncodeToString(sum[:])
	wrongHash := strings.Repeat("ab", 32)
	one := fmt.Sprintf("plugins:\n  - name: calc\n    path: %s\n", calc)

	for _, tc := range []struct {
		name string
		yaml string
		want []string // each must appear in stderr
	}{
		{name: "two plugins with the same tool", yaml: fmt.Sprintf("plugins:\n  - name: calc-one\n    path: %s\n  - name: calc-two\n    path: %s\n", calc, calc),
			want: []string{"calculate", "calc-one", "calc-two", "plugins[0]", "plugins[1]"}},
		{name: "not a wasm module", yaml: fmt.Sprintf("plugins:\n  - name: notwasm\n    path: %s\n", filepath.Join(harness.RepoRoot(), "go.mod")),
			want: []string{"notwasm", "plugins[0]", "go.mod"}},
		{name: "sha256 mismatch", yaml: fmt.Sprintf("plugins:\n  - name: calc\n    path: %s\n    sha256: %s\n", calc, wrongHash),
			want: []string{"plugins[0].sha256", wrongHash, realHash}},
		{name: "information export panics", yaml: fmt.Sprintf("plugins:\n  - name: badinfo\n    path: %s\n", badinfo),
			want: []string{"badinfo", "plugins[0]", "tools_information"}},
		{name: "bearer token variable unset", yaml: "transports:\n  http:\n    auth: {bearer_token_env: WASMGATE_E2E_NO_SUCH_VAR}\n" + one,
			want: []string{"transports.http.auth.bearer_token_env", "WASMGATE_E2E_NO_SUCH_VAR"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkRefused(t, runValidate(t, harness.WriteConfig(t, tc.yaml), nil, nil), tc.want, nil)
		})
	}

	t.Run("every error at once", func(t *testing.T) {
		yaml := fmt.Sprintf("bogus: 1\nplugins:\n  - name: calc\n    path: %s\n    limits: {timeout: 5x, concurrency: 5000}\n  - name: calc\n    path: ./missing.wasm\n", calc)
		r := runValidate(t, harness.WriteConfig(t, yaml), nil, nil)
		if r.Code == 0 {
			t.Fatalf("validate exited 0")
		}
		// Decoding errors stop before range checks, so not everything can
		// be reported together; but what is reported names its key.
		if !strings.Contains(r.Stderr, "bogus") && !strings.Contains(r.Stderr, "plugins[0].limits.timeout") {
			t.Errorf("stderr names none of the errors:\n%s", r.Stderr)
		}
	})

	t.Run("unreadable wasm", func(t *testing.T) {
		// The tests may run as root, who reads any file: then run validate
		// as nobody (uid 65534) on files only root may read.
		dir, err := os.MkdirTemp("", "wasmgate-e2e-perm-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		locked := filepath.Join(dir, "locked.wasm")
		if err := os.WriteFile(locked, data, 0o000); err != nil {
			t.Fatal(err)
		}
		cfg := filepath.Join(dir, "gateway.yaml")
		if err := os.WriteFile(cfg, []byte("plugins:\n  - name: locked\n    path: locked.wasm\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var mod func(*exec.Cmd)
		if os.Geteuid() == 0 {
			mod = func(c *exec.Cmd) {
				c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
				c.Dir = dir
			}
		}
		r := runValidate(t, cfg, nil, mod)
		if r.Code == 0 {
			t.Fatalf("validate of an unreadable .wasm exited 0: %s", r.Stdout)
		}
		for _, w := range []string{"plugins[0].path", "locked.wasm", "permission denied"} {
			if !strings.Contains(r.Stderr, w) {
				t.Errorf("stderr does not contain %q:\n%s", w, r.Stderr)
			}
		}
	})
}

func TestValidateOK(t *testing.T) {
	t.Parallel()
	cfg := harness.WriteConfig(t, bins.ExamplesYAML(t, ""))
	r := runValidate(t, cfg, nil, nil)
	if r.Code != 0 {
		t.Fatalf("validate exited %d:\n%s", r.Code, r.Stderr)
	}
	// A summary line, then one line per plugin naming its ABI.
	if strings.Count(r.Stdout, "\n") != 4 || !strings.HasSuffix(r.Stdout, "\n") {
		t.Errorf("stdout is not a summary and three plugin lines: %q", r.Stdout)
	}
	for _, p := range []string{"calculator", "storage", "greeter"} {
		if !strings.Contains(r.Stdout, "\n  plugin "+p+" (plugins[") || !strings.Contains(r.Stdout, "sea-flea ABI") {
			t.Errorf("no line for plugin %s with its ABI: %q", p, r.Stdout)
		}
	}
	for _, w := range []string{"calculate", "set-storage", "say_hello", "calculator", "storage", "greeter"} {
		if !strings.Contains(r.Stdout, w) {
			t.Errorf("summary %q does not mention %q", r.Stdout, w)
		}
	}
	if strings.Contains(r.Stderr, "level=ERROR") || strings.Contains(r.Stderr, "invalid") {
		t.Errorf("validate of a good config wrote errors:\n%s", r.Stderr)
	}

	// The config path defaults to $WASMGATE_CONFIG.
	t.Run("WASMGATE_CONFIG", func(t *testing.T) {
		only := harness.WriteConfig(t, fmt.Sprintf("plugins:\n  - name: calculator\n    path: %s\n", harness.Wasm(t, "examples/plugins/calculator")))
		r := runValidate(t, "", []string{"WASMGATE_CONFIG=" + only}, nil)
		if r.Code != 0 || !strings.Contains(r.Stdout, only) || !strings.Contains(r.Stdout, "calculate") {
			t.Errorf("validate with WASMGATE_CONFIG: exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
		}
	})
	// A config that changes nothing but is fine with the env override.
	t.Run("env override accepted", func(t *testing.T) {
		r := runValidate(t, cfg, []string{"WASMGATE_TRANSPORTS__HTTP__ALLOWED_ORIGINS=[https://a.example, https://b.example]", "WASMGATE_SERVER__LOG__LEVEL=debug"}, nil)
		if r.Code != 0 {
			t.Errorf("validate with good env overrides exited %d:\n%s", r.Code, r.Stderr)
		}
	})
}

// TestEnvOverrideServe: an environment override changes what serve does.
func TestEnvOverrideServe(t *testing.T) {
	t.Parallel()
	cfg := harness.WriteConfig(t, bins.ExamplesYAML(t, ""))
	g := bins.Start(t, harness.Options{Config: cfg, Env: []string{
		"WASMGATE_TRANSPORTS__HTTP__PATH=/other",
		"WASMGATE_TRANSPORTS__HTTP__ALLOWED_ORIGINS=[https://app.example.com]",
	}})
	if !strings.HasSuffix(g.MCPURL, "/other") {
		t.Fatalf("MCP endpoint %s, want the path /other from WASMGATE_TRANSPORTS__HTTP__PATH", g.MCPURL)
	}
	c := g.SessionClient(t)
	ctx := harness.Ctx(t, 30*time.Second)
	if text, isErr := harness.CallTool(ctx, t, c, "calculate", map[string]any{"operation": "add", "a": 1, "b": 2}); isErr || text != "3" {
		t.Errorf("calculate on /other = %q (isError %v)", text, isErr)
	}
	base := strings.TrimSuffix(g.MCPURL, "/other")
	if code := harness.PostInitialize(t, base+"/mcp", nil); code != http.StatusNotFound {
		t.Errorf("POST /mcp (the file's default path) = %d, want 404", code)
	}
	// The list override replaced the default loopback rule.
	if code := harness.PostInitialize(t, g.MCPURL, map[string]string{"Origin": "https://app.example.com"}); code != http.StatusOK {
		t.Errorf("Origin https://app.example.com (allowed by the env override) = %d, want 200", code)
	}
	if code := harness.PostInitialize(t, g.MCPURL, map[string]string{"Origin": "http://localhost:5173"}); code != http.StatusForbidden {
		t.Errorf("Origin http://localhost:5173 (not in the overridden list) = %d, want 403", code)
	}
}

// TestCLI: the commands and flags around serve and validate.
func TestCLI(t *testing.T) {
	t.Parallel()
	if r := bins.Run(t, harness.RunOptions{Plain: true}, "version"); r.Code != 0 || !strings.Contains(r.Stdout, testVersion) {
		t.Errorf("wasmgate version: exit %d, stdout %q; want the stamped version %s", r.Code, r.Stdout, testVersion)
	}
	for _, args := range [][]string{{"--help"}, {"serve", "--help"}, {"validate", "--help"}} {
		r := bins.Run(t, harness.RunOptions{Plain: true}, args...)
		if r.Code != 0 || !strings.Contains(r.Stdout+r.Stderr, "--config") && !strings.Contains(r.Stdout+r.Stderr, "-config") {
			t.Errorf("wasmgate %s: exit %d, output %q", strings.Join(args, " "), r.Code, r.Stdout+r.Stderr)
		}
	}
	if r := bins.Run(t, harness.RunOptions{Plain: true}, "frobnicate"); r.Code != 2 || !strings.Contains(r.Stderr, "frobnicate") {
		t.Errorf("wasmgate frobnicate: exit %d, stderr %q; want 2 naming the command", r.Code, r.Stderr)
	}
	if r := bins.Run(t, harness.RunOptions{Plain: true}, "serve", "--no-such-flag"); r.Code != 2 {
		t.Errorf("wasmgate serve --no-such-flag: exit %d, want 2", r.Code)
	}

	// serve refuses a bad config the way validate does, without serving.
	bad := harness.WriteConfig(t, fmt.Sprintf("plugins:\n  - name: calc\n    path: %s\n    limits: {concurrency: 5000}\n", harness.Wasm(t, "examples/plugins/calculator")))
	r := bins.Run(t, harness.RunOptions{}, "serve", "--config", bad)
	if r.Code == 0 || !strings.Contains(r.Stderr, "plugins[0].limits.concurrency") {
		t.Errorf("serve with a bad config: exit %d, stderr %q; want non-zero naming the key", r.Code, r.Stderr)
	}
	if r := bins.Run(t, harness.RunOptions{}, "serve", "--config", filepath.Join(t.TempDir(), "absent.yaml")); r.Code == 0 || !strings.Contains(r.Stderr, "absent.yaml") {
		t.Errorf("serve with a missing config file: exit %d, stderr %q", r.Code, r.Stderr)
	}

	// A listen address already in use is an error naming the key.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	busy := harness.WriteConfig(t, fmt.Sprintf("server: {cache_dir: %q}\ntransports: {http: {listen: %q}}\nadmin: {listen: \"127.0.0.1:0\"}\nplugins:\n  - name: calc\n    path: %s\n",
		bins.CacheDir, ln.Addr().String(), harness.Wasm(t, "examples/plugins/calculator")))
	r = bins.Run(t, harness.RunOptions{}, "serve", "--config", busy)
	if r.Code == 0 || !strings.Contains(r.Stderr, "transports.http.listen") || !strings.Contains(r.Stderr, ln.Addr().String()) {
		t.Errorf("serve on a busy port: exit %d, stderr %q; want non-zero naming transports.http.listen and the address", r.Code, r.Stderr)
	}
}
