package main

// `wasmgate validate` on every class of bad config: non-zero exit, and
// stderr naming the key and the bad value. Environment overrides in
// validate and serve.
//
// validate compiles modules without a cache, so these tests run the plain
// (non -race) build of the same source: compiling is ~10x slower under the
// race detector and validate runs no concurrent code worth checking.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
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
)

type validateResult struct {
	code           int
	stdout, stderr string
}

// runValidate runs `wasmgate validate --config cfg` with env added to a clean
// environment.
func runValidate(t *testing.T, cfg string, env []string, mod func(*exec.Cmd)) validateResult {
	t.Helper()
	args := []string{"validate"}
	if cfg != "" {
		args = append(args, "--config", cfg)
	}
	cmd := exec.Command(plainBinPath, args...)
	cmd.Env = append(cleanEnviron(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if mod != nil {
		mod(cmd)
	}
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("wasmgate validate did not finish within 60s")
	}
	r := validateResult{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("run validate: %v", err)
	}
	return r
}

func TestValidateConfigErrors(t *testing.T) {
	calc := wasm(t, "examples/plugins/calculator")
	greeter := wasm(t, "examples/plugins/greeter")
	badinfo := wasm(t, "testdata/plugins/badinfo")
	data, err := os.ReadFile(calc)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	realHash := hex.EncodeToString(sum[:])
	wrongHash := strings.Repeat("ab", 32)
	one := fmt.Sprintf("plugins:\n  - name: calc\n    path: %s\n", calc)

	cases := []struct {
		name string
		yaml string
		env  []string
		want []string // each must appear in stderr
		not  []string // none may appear in stderr
	}{
		{name: "unknown top-level key", yaml: "bogus: 1\n" + one,
			want: []string{"bogus", "unknown key"},
			// The key is "bogus"; the Go type that decodes the file is no
			// business of the user's.
			not: []string{"loader.Config"}},
		{name: "unknown nested key", yaml: "transports:\n  http:\n    lisen: 127.0.0.1:1\n" + one,
			want: []string{"transports.http.lisen", "unknown key"}},
		{name: "unknown plugin key", yaml: fmt.Sprintf("plugins:\n  - name: calc\n    path: %s\n    limts: {timeout: 1s}\n", calc),
			want: []string{"plugins[0].limts", "unknown key"}},
		{name: "wrong type", yaml: fmt.Sprintf("plugins:\n  - name: calc\n    path: %s\n    limits: {concurrency: many}\n", calc),
			want: []string{"plugins[0].limits.concurrency", "many"}},
		{name: "wrong type of a section", yaml: "transports: 5\n" + one,
			want: []string{"transports"}},
		{name: "timeout below range", yaml: fmt.Sprintf("plugins:\n  - name: calc\n    path: %s\n    limits: {timeout: 0.5ms}\n", calc),
			want: []string{"plugins[0].limits.timeout", "500µs"}},
		{name: "timeout above range", yaml: fmt.Sprintf("plugins:\n  - name: calc\n    path: %s\n    limits: {timeout: 1h}\n", calc),
			want: []string{"plugins[0].limits.timeout", "1h0m0s"}},
		{name: "concurrency above range", yaml: fmt.Sprintf("plugins:\n  - name: calc\n    path: %s\n    limits: {concurrency: 5000}\n", calc),
			want: []string{"plugins[0].limits.concurrency", "5000"}},
		{name: "negative concurrency", yaml: fmt.Sprintf("plugins:\n  - name: calc\n    path: %s\n    limits: {concurrency: -1}\n", calc),
			want: []string{"plugins[0].limits.concurrency", "-1"}},
		{name: "memory below range", yaml: fmt.Sprintf("plugins:\n  - name: calc\n    path: %s\n    limits: {memory: 1MiB}\n", calc),
			want: []string{"plugins[0].limits.memory", "1MiB"}},
		{name: "invalid size", yaml: fmt.Sprintf("plugins:\n  - name: calc\n    path: %s\n    limits: {max_output: lots}\n", calc),
			want: []string{"plugins[0].limits.max_output", "lots"}},
		{name: "max_body out of range", yaml: "transports:\n  http:\n    max_body: 10\n" + one,
			want: []string{"transports.http.max_body", "10B"}},
		{name: "invalid duration", yaml: fmt.Sprintf("plugins:\n  - name: calc\n    path: %s\n    limits: {timeout: 5x}\n", calc),
			want: []string{"plugins[0].limits.timeout", "5x"}},
		{name: "duration without unit", yaml: "server:\n  shutdown_timeout: 10\n" + one,
			want: []string{"server.shutdown_timeout", "10"}},
		{name: "invalid log level", yaml: "server:\n  log: {level: loud}\n" + one,
			want: []string{"server.log.level", "loud"}},
		{name: "invalid listen address", yaml: "admin:\n  listen: localhost\n" + one,
			want: []string{"admin.listen", "localhost"}},
		{name: "wildcard origin", yaml: "transports:\n  http:\n    allowed_origins: ['*']\n" + one,
			want: []string{"transports.http.allowed_origins[0]", "*"}},
		{name: "duplicate plugin names", yaml: fmt.Sprintf("plugins:\n  - name: calc\n    path: %s\n  - name: calc\n    path: %s\n", calc, greeter),
			want: []string{"plugins[1].name", `"calc"`, "plugins[0]"}},
		{name: "two plugins with the same tool", yaml: fmt.Sprintf("plugins:\n  - name: calc-one\n    path: %s\n  - name: calc-two\n    path: %s\n", calc, calc),
			want: []string{"calculate", "calc-one", "calc-two", "plugins[0]", "plugins[1]"}},
		{name: "missing wasm", yaml: "plugins:\n  - name: calc\n    path: ./nowhere/missing.wasm\n",
			want: []string{"plugins[0].path", "missing.wasm", "no such file"}},
		{name: "directory as wasm", yaml: fmt.Sprintf("plugins:\n  - name: calc\n    path: %s\n", filepath.Dir(calc)),
			want: []string{"plugins[0].path", filepath.Dir(calc), "directory"}},
		{name: "not a wasm module", yaml: fmt.Sprintf("plugins:\n  - name: notwasm\n    path: %s\n", filepath.Join(repoRoot, "go.mod")),
			want: []string{"notwasm", "plugins[0]", "go.mod"}},
		{name: "sha256 mismatch", yaml: fmt.Sprintf("plugins:\n  - name: calc\n    path: %s\n    sha256: %s\n", calc, wrongHash),
			want: []string{"plugins[0].sha256", wrongHash, realHash}},
		{name: "sha256 not hex", yaml: fmt.Sprintf("plugins:\n  - name: calc\n    path: %s\n    sha256: nothex\n", calc),
			want: []string{"plugins[0].sha256", "nothex"}},
		{name: "invalid YAML", yaml: "server:\n  name: x\nplugins: [\n  {name: calc, path: " + calc + "\n",
			want: []string{"YAML", "line"}},
		{name: "information export panics", yaml: fmt.Sprintf("plugins:\n  - name: badinfo\n    path: %s\n", badinfo),
			want: []string{"badinfo", "plugins[0]", "tools_information"}},
		{name: "bearer token variable unset", yaml: "transports:\n  http:\n    auth: {bearer_token_env: WASMGATE_E2E_NO_SUCH_VAR}\n" + one,
			want: []string{"transports.http.auth.bearer_token_env", "WASMGATE_E2E_NO_SUCH_VAR"}},
		{name: "env override with a bad value", yaml: one,
			env:  []string{"WASMGATE_TRANSPORTS__HTTP__LISTEN=nonsense"},
			want: []string{"transports.http.listen", "nonsense"}},
		{name: "env override of an unknown key", yaml: one,
			env:  []string{"WASMGATE_TRANSPORTS__HTTP__LISEN=127.0.0.1:1"},
			want: []string{"transports.http.lisen", "unknown key"}},
		{name: "env override with a wrong type", yaml: one,
			env:  []string{"WASMGATE_ADMIN__ENABLED=perhaps"},
			want: []string{"admin.enabled", "perhaps"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := runValidate(t, writeConfig(t, tc.yaml), tc.env, nil)
			if r.code == 0 {
				t.Fatalf("validate exited 0; stdout %q", r.stdout)
			}
			if r.code != 1 { // a Go panic exits 2
				t.Errorf("validate exited %d, want 1 (an invalid config, not a crash):\n%s", r.code, r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("validate wrote to stdout on failure: %q", r.stdout)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr does not contain %q:\n%s", w, r.stderr)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(r.stderr, n) {
					t.Errorf("stderr contains %q:\n%s", n, r.stderr)
				}
			}
		})
	}

	// An error in a value that came from the environment must say so: the
	// user looking for "nonsense" in gateway.yaml will not find it.
	t.Run("env override error names the variable", func(t *testing.T) {
		r := runValidate(t, writeConfig(t, one), []string{"WASMGATE_TRANSPORTS__HTTP__LISTEN=nonsense"}, nil)
		if r.code == 0 || !strings.Contains(r.stderr, "WASMGATE_TRANSPORTS__HTTP__LISTEN") {
			t.Errorf("exit %d; stderr does not name the environment variable the bad value came from:\n%s", r.code, r.stderr)
		}
	})

	t.Run("every error at once", func(t *testing.T) {
		yaml := fmt.Sprintf("bogus: 1\nplugins:\n  - name: calc\n    path: %s\n    limits: {timeout: 5x, concurrency: 5000}\n  - name: calc\n    path: ./missing.wasm\n", calc)
		r := runValidate(t, writeConfig(t, yaml), nil, nil)
		if r.code == 0 {
			t.Fatalf("validate exited 0")
		}
		// Decoding errors stop before range checks, so not everything can
		// be reported together; but what is reported names its key.
		if !strings.Contains(r.stderr, "bogus") && !strings.Contains(r.stderr, "plugins[0].limits.timeout") {
			t.Errorf("stderr names none of the errors:\n%s", r.stderr)
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
		if r.code == 0 {
			t.Fatalf("validate of an unreadable .wasm exited 0: %s", r.stdout)
		}
		for _, w := range []string{"plugins[0].path", "locked.wasm", "permission denied"} {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("stderr does not contain %q:\n%s", w, r.stderr)
			}
		}
	})
}

func TestValidateOK(t *testing.T) {
	cfg := writeConfig(t, examplesConfig(t, ""))
	r := runValidate(t, cfg, nil, nil)
	if r.code != 0 {
		t.Fatalf("validate exited %d:\n%s", r.code, r.stderr)
	}
	if strings.Count(r.stdout, "\n") != 1 || !strings.HasSuffix(r.stdout, "\n") {
		t.Errorf("stdout is not one line: %q", r.stdout)
	}
	for _, w := range []string{"calculate", "set-storage", "say_hello", "calculator", "storage", "greeter"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("summary %q does not mention %q", r.stdout, w)
		}
	}
	if strings.Contains(r.stderr, "level=ERROR") || strings.Contains(r.stderr, "invalid") {
		t.Errorf("validate of a good config wrote errors:\n%s", r.stderr)
	}

	// The config path defaults to $WASMGATE_CONFIG.
	t.Run("WASMGATE_CONFIG", func(t *testing.T) {
		only := writeConfig(t, fmt.Sprintf("plugins:\n  - name: calculator\n    path: %s\n", wasm(t, "examples/plugins/calculator")))
		r := runValidate(t, "", []string{"WASMGATE_CONFIG=" + only}, nil)
		if r.code != 0 || !strings.Contains(r.stdout, only) || !strings.Contains(r.stdout, "calculate") {
			t.Errorf("validate with WASMGATE_CONFIG: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
	})
	// A config that changes nothing but is fine with the env override.
	t.Run("env override accepted", func(t *testing.T) {
		r := runValidate(t, cfg, []string{"WASMGATE_TRANSPORTS__HTTP__ALLOWED_ORIGINS=[https://a.example, https://b.example]", "WASMGATE_SERVER__LOG__LEVEL=debug"}, nil)
		if r.code != 0 {
			t.Errorf("validate with good env overrides exited %d:\n%s", r.code, r.stderr)
		}
	})
}

// TestEnvOverrideServe: an environment override changes what serve does.
func TestEnvOverrideServe(t *testing.T) {
	cfg := writeConfig(t, examplesConfig(t, ""))
	g := startGateway(t, cfg, []string{
		"WASMGATE_TRANSPORTS__HTTP__PATH=/other",
		"WASMGATE_TRANSPORTS__HTTP__ALLOWED_ORIGINS=[https://app.example.com]",
	})
	if !strings.HasSuffix(g.MCPURL, "/other") {
		t.Fatalf("MCP endpoint %s, want the path /other from WASMGATE_TRANSPORTS__HTTP__PATH", g.MCPURL)
	}
	c := sessionClient(t, g)
	ctx := ctxTimeout(t, 30*time.Second)
	if text, isErr := callTool(ctx, t, c, "calculate", map[string]any{"operation": "add", "a": 1, "b": 2}); isErr || text != "3" {
		t.Errorf("calculate on /other = %q (isError %v)", text, isErr)
	}
	base := strings.TrimSuffix(g.MCPURL, "/other")
	if code := postInitialize(t, base+"/mcp", nil); code != http.StatusNotFound {
		t.Errorf("POST /mcp (the file's default path) = %d, want 404", code)
	}
	// The list override replaced the default loopback rule.
	if code := postInitialize(t, g.MCPURL, map[string]string{"Origin": "https://app.example.com"}); code != http.StatusOK {
		t.Errorf("Origin https://app.example.com (allowed by the env override) = %d, want 200", code)
	}
	if code := postInitialize(t, g.MCPURL, map[string]string{"Origin": "http://localhost:5173"}); code != http.StatusForbidden {
		t.Errorf("Origin http://localhost:5173 (not in the overridden list) = %d, want 403", code)
	}
}

// postInitialize POSTs an initialize request with headers and returns the
// status code.
func postInitialize(t *testing.T, url string, headers map[string]string) int {
	t.Helper()
	resp := postJSON(t, url, initializeBody, headers)
	resp.Body.Close()
	return resp.StatusCode
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

func postJSON(t *testing.T, url, body string, headers map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	return resp
}

// TestCLI: the commands and flags around serve and validate.
func TestCLI(t *testing.T) {
	run := func(bin string, env []string, args ...string) validateResult {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = append(cleanEnviron(), env...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		r := validateResult{stdout: stdout.String(), stderr: stderr.String()}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			r.code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := run(plainBinPath, nil, "version"); r.code != 0 || !strings.Contains(r.stdout, testVersion) {
		t.Errorf("wasmgate version: exit %d, stdout %q; want the stamped version %s", r.code, r.stdout, testVersion)
	}
	for _, args := range [][]string{{"--help"}, {"serve", "--help"}, {"validate", "--help"}} {
		r := run(plainBinPath, nil, args...)
		if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "--config") && !strings.Contains(r.stdout+r.stderr, "-config") {
			t.Errorf("wasmgate %s: exit %d, output %q", strings.Join(args, " "), r.code, r.stdout+r.stderr)
		}
	}
	if r := run(plainBinPath, nil, "frobnicate"); r.code != 2 || !strings.Contains(r.stderr, "frobnicate") {
		t.Errorf("wasmgate frobnicate: exit %d, stderr %q; want 2 naming the command", r.code, r.stderr)
	}
	if r := run(plainBinPath, nil, "serve", "--no-such-flag"); r.code != 2 {
		t.Errorf("wasmgate serve --no-such-flag: exit %d, want 2", r.code)
	}

	// serve refuses a bad config the way validate does, without serving.
	bad := writeConfig(t, fmt.Sprintf("plugins:\n  - name: calc\n    path: %s\n    limits: {concurrency: 5000}\n", wasm(t, "examples/plugins/calculator")))
	r := run(binPath, nil, "serve", "--config", bad)
	if r.code == 0 || !strings.Contains(r.stderr, "plugins[0].limits.concurrency") {
		t.Errorf("serve with a bad config: exit %d, stderr %q; want non-zero naming the key", r.code, r.stderr)
	}
	if r := run(binPath, nil, "serve", "--config", filepath.Join(t.TempDir(), "absent.yaml")); r.code == 0 || !strings.Contains(r.stderr, "absent.yaml") {
		t.Errorf("serve with a missing config file: exit %d, stderr %q", r.code, r.stderr)
	}

	// A listen address already in use is an error naming the key.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	busy := writeConfig(t, fmt.Sprintf("server: {cache_dir: %q}\ntransports: {http: {listen: %q}}\nadmin: {listen: \"127.0.0.1:0\"}\nplugins:\n  - name: calc\n    path: %s\n",
		sharedCacheDir(t), ln.Addr().String(), wasm(t, "examples/plugins/calculator")))
	r = run(binPath, nil, "serve", "--config", busy)
	if r.code == 0 || !strings.Contains(r.stderr, "transports.http.listen") || !strings.Contains(r.stderr, ln.Addr().String()) {
		t.Errorf("serve on a busy port: exit %d, stderr %q; want non-zero naming transports.http.listen and the address", r.code, r.stderr)
	}
}
