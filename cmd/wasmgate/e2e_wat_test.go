package main

// examples/wat/hello.wat, the plugin written in WebAssembly text with no
// SDK, assembled with wabt's wat2wasm and served.

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

func TestWATExample(t *testing.T) {
	t.Parallel()
	wat2wasm, err := exec.LookPath("wat2wasm")
	if err != nil {
		t.Fatalf("wat2wasm is not installed: install wabt (Debian: apt-get install wabt; .ci/run does): %v", err)
	}
	module := filepath.Join(t.TempDir(), "hello.wasm")
	out, err := exec.Command(wat2wasm, filepath.Join(harness.RepoRoot(), "examples/wat/hello.wat"), "-o", module).CombinedOutput()
	if err != nil {
		t.Fatalf("wat2wasm: %v\n%s", err, out)
	}
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{Plugins: harness.Item("name: hello", "path: "+harness.Q(module))}))
	if r := runValidate(t, cfg, nil, nil); r.Code != 0 || !strings.Contains(r.Stdout, "plugin hello (plugins[0]): sea-flea ABI; 2 tools") {
		t.Fatalf("validate: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 30*time.Second)
	c := g.SessionClient(t)
	if got, isErr := harness.CallTool(ctx, t, c, "hello", nil); isErr || got != "Hello from WebAssembly text!" {
		t.Errorf("hello = %q (isError %v)", got, isErr)
	}
	if got, isErr := harness.CallTool(ctx, t, c, "echo", map[string]any{"a": 1}); isErr || got != `{"a":1}` {
		t.Errorf("echo = %q (isError %v)", got, isErr)
	}
}
