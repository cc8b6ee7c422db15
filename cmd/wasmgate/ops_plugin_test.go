package main

// Plugins outside the tree: `wasmgate plugin new` makes a project that
// builds, in a folder outside this repository, with the standard Go
// toolchain and nothing but the Go module proxy, loads with `validate`
// and answers `call`, `read` and `prompt`.

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/gateway/intercept"
	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/loader"
)

func TestPluginNewBuildValidateCall(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go toolchain on PATH")
	}
	work := t.TempDir()
	if strings.HasPrefix(work, harness.RepoRoot()) {
		t.Fatalf("temporary folder %s is inside the repository", work)
	}
	in := func(cmd *exec.Cmd) { cmd.Dir = work }
	r := bins.Run(t, harness.RunOptions{Setup: in}, "plugin", "new", "shouter")
	if r.Code != 0 {
		t.Fatalf("plugin new: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	dir := filepath.Join(work, "shouter")
	for _, f := range []string{"main.go", "go.mod", "go.sum", "Makefile", "gateway.yaml", "README.md",
		"internal/wasmgate/go.mod", "internal/wasmgate/pdk/abi.go", "internal/wasmgate/wire/wire.go"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("scaffold lacks %s: %v", f, err)
		}
	}
	// Nothing in it names this checkout; its ports are its own.
	for _, f := range []string{"Makefile", "gateway.yaml", "README.md", "main.go"} {
		if b, _ := os.ReadFile(filepath.Join(dir, f)); strings.Contains(string(b), harness.RepoRoot()) || strings.Contains(string(b), filepath.Dir(bins.Path)) {
			t.Errorf("%s names the checkout or the binary's folder:\n%s", f, b)
		}
	}
	yaml, _ := os.ReadFile(filepath.Join(dir, "gateway.yaml"))
	if strings.Contains(string(yaml), ":8080") || strings.Contains(string(yaml), ":9090") {
		t.Errorf("the scaffold's gateway.yaml takes make run's ports:\n%s", yaml)
	}
	if r := bins.Run(t, harness.RunOptions{Setup: in}, "plugin", "new", "--port", "18500", "other"); r.Code != 0 {
		t.Errorf("plugin new --port: exit %d %s", r.Code, r.Stderr)
	} else if b, _ := os.ReadFile(filepath.Join(work, "other", "gateway.yaml")); !strings.Contains(string(b), "listen: 127.0.0.1:18500") || !strings.Contains(string(b), "listen: 127.0.0.1:18501") {
		t.Errorf("plugin new --port 18500: gateway.yaml\n%s", b)
	}
	if r := bins.Run(t, harness.RunOptions{Setup: in}, "plugin", "new", "about"); r.Code != 2 {
		t.Errorf("plugin new about (a name the scaffold exports already): exit %d, want 2", r.Code)
	}
	// A second run into the same folder refuses to overwrite it.
	if r := bins.Run(t, harness.RunOptions{Setup: in}, "plugin", "new", "shouter"); r.Code == 0 || !strings.Contains(r.Stderr, "not empty") {
		t.Errorf("plugin new over an existing project: exit %d %s", r.Code, r.Stderr)
	}

	// Build it as its README says, with a module cache of its own: only
	// github.com/extism/go-pdk comes from the module proxy, and go.mod and
	// go.sum must already be complete (-mod=readonly).
	env := buildScaffolded(t, dir, filepath.Join(work, "modcache"), "shouter.wasm", "plugin")
	list := exec.Command("go", "list", "-m", "-f", "{{.Path}} {{.Replace}}", "all")
	list.Dir = dir
	list.Env = env
	if out, err := list.CombinedOutput(); err != nil || !strings.Contains(string(out), "github.com/wasmgate/wasmgate ./internal/wasmgate") {
		t.Errorf("go list -m all: %v\n%s", err, out)
	}

	cfg := filepath.Join(dir, "gateway.yaml")
	run := func(args ...string) harness.Result {
		return bins.Run(t, harness.RunOptions{Plain: true, Timeout: 2 * time.Minute, Setup: func(c *exec.Cmd) { c.Dir = dir }}, args...)
	}
	if r := run("validate", "--config", cfg); r.Code != 0 || !strings.Contains(r.Stdout, "1 plugin (shouter), 1 tool, 1 resource, 0 resource templates, 1 prompt") {
		t.Fatalf("validate: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	// The tool is named after the plugin; make call calls it (the .wasm
	// is built already), with the wasmgate WASMGATE names.
	mk := exec.Command("make", "call", "WASMGATE="+bins.Plain)
	mk.Dir = dir
	if out, err := mk.CombinedOutput(); err != nil || !strings.Contains(string(out), "HELLO!") {
		t.Errorf("make call: %v\n%s", err, out)
	}
	if r := run("call", "--config", cfg, "shouter", `{"text":"hello"}`); r.Code != 0 || strings.TrimSpace(r.Stdout) != "HELLO!" {
		t.Errorf("call shouter: exit %d, stdout %q\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := run("call", "--config", cfg, "shouter", `{"text":" "}`); r.Code != 1 || !strings.Contains(r.Stdout, "nothing to shout") {
		t.Errorf("call shouter with empty text: exit %d (want 1), stdout %q", r.Code, r.Stdout)
	}
	if r := run("call", "--config", cfg, "shouter", `{"text":1}`); r.Code != 1 {
		t.Errorf("call shouter with a number: exit %d (want 1), stdout %q", r.Code, r.Stdout)
	}
	if r := run("call", "--config", cfg, "--json", "shouter", `{"text":"x"}`); r.Code != 0 || !strings.Contains(r.Stdout, `"text": "X!"`) {
		t.Errorf("call --json: exit %d, stdout %q", r.Code, r.Stdout)
	}
	if r := run("read", "--config", cfg, "shouter://about"); r.Code != 0 || !strings.Contains(r.Stdout, "shouter shouts") {
		t.Errorf("read: exit %d, stdout %q\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := run("prompt", "--config", cfg, "announce", `{"news":"v2"}`); r.Code != 0 || strings.TrimSpace(r.Stdout) != "user: Write a one-line announcement of: v2" {
		t.Errorf("prompt: exit %d, stdout %q\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := run("call", "--config", cfg, "nope", "{}"); r.Code == 0 {
		t.Errorf("call of an unknown tool: exit 0")
	}
}

// TestCallAgainstURL: call, read and prompt against a running gateway.
func TestCallAgainstURL(t *testing.T) {
	t.Parallel()
	g := bins.Start(t, harness.Options{Config: harness.WriteConfig(t, bins.ExamplesYAML(t, ""))})
	run := func(args ...string) harness.Result { return bins.Run(t, harness.RunOptions{}, args...) }
	if r := run("call", "--url", g.MCPURL, "calculate", `{"operation":"add","a":2,"b":40}`); r.Code != 0 || strings.TrimSpace(r.Stdout) != "42" {
		t.Errorf("call --url: exit %d, stdout %q\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := run("call", "--url", g.MCPURL, "calculate", `{"operation":"divide","a":1,"b":0}`); r.Code != 1 || !strings.Contains(r.Stdout, "Division by zero") {
		t.Errorf("call --url isError: exit %d (want 1), stdout %q", r.Code, r.Stdout)
	}
	if r := run("read", "--url", g.MCPURL, "greeter://about"); r.Code != 0 || !strings.Contains(r.Stdout, "greeter is a wasmgate example plugin") {
		t.Errorf("read --url: exit %d, stdout %q\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := run("prompt", "--url", g.MCPURL, "greeting_prompt", `{"name":"Ada"}`); r.Code != 0 || !strings.Contains(r.Stdout, "user: Write a short friendly greeting for Ada") {
		t.Errorf("prompt --url: exit %d, stdout %q\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := run("call", "--url", g.MCPURL, "calculate", `not json`); r.Code != 1 || !strings.Contains(r.Stderr, "not a JSON object") {
		t.Errorf("call with bad JSON: exit %d\n%s", r.Code, r.Stderr)
	}
}

// TestPluginNewInterceptor: `wasmgate plugin new --interceptor` makes a Go
// interceptor project that builds outside the tree with the standard Go
// toolchain, whose module the gateway compiles as an interceptor (both
// exports, no wasmgate host functions), answers continue, and reads its
// config: section.
func TestPluginNewInterceptor(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(filepath.Join(harness.RepoRoot(), "pdk", "intercept", "intercept.go")); err != nil {
		t.Skip("pdk/intercept (the interceptor PDK, branch h/icpdk) is not in this checkout: plugin new --interceptor copies it into the project")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go toolchain on PATH")
	}
	work := t.TempDir()
	if strings.HasPrefix(work, harness.RepoRoot()) {
		t.Fatalf("temporary folder %s is inside the repository", work)
	}
	in := func(cmd *exec.Cmd) { cmd.Dir = work }
	r := bins.Run(t, harness.RunOptions{Setup: in}, "plugin", "new", "--interceptor", "guard")
	if r.Code != 0 {
		t.Fatalf("plugin new --interceptor: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	dir := filepath.Join(work, "guard")
	for _, f := range []string{"main.go", "go.mod", "go.sum", "Makefile", "gateway.yaml", "README.md",
		"internal/wasmgate/go.mod", "internal/wasmgate/pdk/abi.go", "internal/wasmgate/pdk/intercept/intercept.go",
		"internal/wasmgate/pdk/intercept/guest.go", "internal/wasmgate/wire/wire.go"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("scaffold lacks %s: %v", f, err)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "internal/wasmgate/pdk/intercept/*_test.go")); len(m) > 0 {
		t.Errorf("the kit has test files: %v", m)
	}
	for _, f := range []string{"Makefile", "gateway.yaml", "README.md", "main.go"} {
		if b, _ := os.ReadFile(filepath.Join(dir, f)); strings.Contains(string(b), harness.RepoRoot()) {
			t.Errorf("%s names the checkout:\n%s", f, b)
		}
	}
	// A plugin's project has no interceptor PDK; an interceptor may be
	// named like a plugin export.
	if r := bins.Run(t, harness.RunOptions{Setup: in}, "plugin", "new", "shouter"); r.Code != 0 {
		t.Fatalf("plugin new: exit %d %s", r.Code, r.Stderr)
	} else if _, err := os.Stat(filepath.Join(work, "shouter", "internal/wasmgate/pdk/intercept")); err == nil {
		t.Error("a plugin's project has a copy of pdk/intercept")
	}
	if r := bins.Run(t, harness.RunOptions{Setup: in}, "plugin", "new", "--interceptor", "about"); r.Code != 0 {
		t.Errorf("plugin new --interceptor about: exit %d %s", r.Code, r.Stderr)
	}

	buildScaffolded(t, dir, filepath.Join(work, "modcache"), "guard.wasm", "interceptor")

	cfg := filepath.Join(dir, "gateway.yaml")
	if r := bins.Run(t, harness.RunOptions{Plain: true, Timeout: 2 * time.Minute, Setup: func(c *exec.Cmd) { c.Dir = dir }}, "validate", "--config", cfg); r.Code != 0 {
		t.Fatalf("validate: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}

	// Its config: reaches the module: deny one tool.
	yaml, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(yaml), "deny: []") {
		t.Fatalf("gateway.yaml has no deny: [] to change:\n%s", yaml)
	}
	if err := os.WriteFile(cfg, []byte(strings.Replace(string(yaml), "deny: []", "deny: [drop_table]", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	lc, err := loader.Load(cfg, nil)
	if err != nil {
		t.Fatalf("load the scaffold's gateway.yaml: %v", err)
	}
	if len(lc.Interceptors) != 1 || lc.Interceptors[0].Name != "guard" || lc.Interceptors[0].Phase != loader.PhaseBoth {
		t.Fatalf("interceptors: %+v; want guard in both phases", lc.Interceptors)
	}
	spec := lc.Interceptors[0]
	ctx := harness.Ctx(t, 2*time.Minute)
	c, err := loader.NewCompiler(filepath.Join(os.TempDir(), "wasmgate-bench-cache"), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	mod, err := c.Fetch(ctx, spec.Plugin())
	if err != nil {
		t.Fatal(err)
	}
	p, inst, err := c.CompileInterceptor(ctx, spec.Plugin(), mod, intercept.ExportRequest, intercept.ExportResponse)
	if err != nil {
		t.Fatalf("compile the scaffolded interceptor: %v", err)
	}
	t.Cleanup(func() { inst.Close(context.Background()); _ = p.Close(context.Background()) })
	call := func(in intercept.Input) *intercept.Output {
		t.Helper()
		data, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		export := intercept.ExportRequest
		if in.Phase == intercept.PhaseResponse {
			export = intercept.ExportResponse
		}
		raw, err := inst.Call(ctx, export, data)
		if err != nil {
			t.Fatalf("%s: %v", export, err)
		}
		out, err := intercept.ParseOutput(raw)
		if err != nil {
			t.Fatalf("%s answered %s: %v", export, raw, err)
		}
		return out
	}
	who := intercept.Principal{Name: "alice", Groups: []string{}}
	req := intercept.Input{Phase: intercept.PhaseRequest, Method: "tools/call", Endpoint: "default", Source: "db",
		Name: "select", Arguments: json.RawMessage(`{"q":"x"}`), Principal: who, Transport: "http"}
	if out := call(req); out.Decision != intercept.Continue {
		t.Errorf("request of select: %+v, want continue", out)
	}
	req.Name = "drop_table"
	if out := call(req); out.Decision != intercept.Deny || !strings.Contains(out.Message, "drop_table is not allowed") {
		t.Errorf("request of drop_table (config deny: [drop_table]): %+v, want deny", out)
	}
	resp := req
	resp.Phase, resp.Result = intercept.PhaseResponse, json.RawMessage(`{"content":[{"type":"text","text":"ok"}]}`)
	if out := call(resp); out.Decision != intercept.Continue {
		t.Errorf("response: %+v, want continue", out)
	}
}

// buildScaffolded builds the project `wasmgate plugin new` wrote in dir
// to out as its README says (a c-shared wasip1 module), with the module
// cache modcache of its own: go.mod and go.sum must already be complete
// (-mod=readonly). It returns the build's environment; what (plugin,
// interceptor) names the project in the failure.
func buildScaffolded(t *testing.T, dir, modcache, out, what string) []string {
	t.Helper()
	t.Cleanup(func() { // the module cache is read-only
		_ = exec.Command("chmod", "-R", "u+w", modcache).Run()
	})
	build := exec.Command("go", "build", "-buildmode=c-shared", "-trimpath", "-o", out, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "GOWORK=off", "GOFLAGS=-mod=readonly",
		"GOMODCACHE="+modcache, "GOTOOLCHAIN=local")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the scaffolded %s: %v\n%s", what, err, b)
	}
	return build.Env
}
