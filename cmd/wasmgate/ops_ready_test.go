package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// TestReadyFile: `serve --ready-file` (which harness.Start passes) writes,
// once ready, the process id and the listeners /api/status shows, as
// JSON; it replaces a stale file at start and removes the file on exit.
func TestReadyFile(t *testing.T) {
	t.Parallel()
	e := bins.NewDir(t)
	calc := e.Module("calculator", "examples/plugins/calculator")
	harness.WriteFile(t, e.Config, []byte(e.YAML("", harness.Item("name: calculator", "path: "+harness.Q(calc)))))
	g := bins.Start(t, harness.Options{Config: e.Config})

	data, err := os.ReadFile(g.ReadyPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("the ready file holds %q: %v", data, err)
	}
	st := apiStatus(t, g)
	want := map[string]any{"pid": float64(g.Cmd.Process.Pid), "mcp": st.Listeners["http"], "admin": st.Listeners["admin"]}
	if len(doc) != len(want) {
		t.Errorf("ready file %s, want the keys of %v", data, want)
	}
	for k, v := range want {
		if doc[k] != v {
			t.Errorf("ready file %s: %s = %v, want %v", data, k, doc[k], v)
		}
	}
	if !strings.HasPrefix(g.MCPURL, "http://127.0.0.1:") || !strings.HasSuffix(g.MCPURL, "/mcp") || g.AdminURL+"/" != st.Listeners["admin"] {
		t.Errorf("harness URLs %s and %s from %s", g.MCPURL, g.AdminURL, data)
	}
	if entries, _ := os.ReadDir(filepath.Dir(g.ReadyPath)); len(entries) != 1 {
		t.Errorf("beside the ready file: %v (a temporary file left?)", entries)
	}
	if err := g.Stop(t); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if _, err := os.Stat(g.ReadyPath); !os.IsNotExist(err) {
		t.Errorf("the ready file is still there after exit: %v", err)
	}

	// A path that cannot be written fails the start.
	r := bins.Run(t, harness.RunOptions{Timeout: 90 * time.Second}, "serve", "--config", e.Config,
		"--ready-file", filepath.Join(t.TempDir(), "missing", "ready.json"))
	if r.Code != 1 || !strings.Contains(r.Stderr, "cannot write the ready file") {
		t.Errorf("serve with an unwritable --ready-file: exit %d\n%s", r.Code, r.Stderr)
	}

	// A file left by an earlier run is removed at start: a start that
	// fails (here a module that does not compile) leaves none.
	stale := filepath.Join(t.TempDir(), "ready.json")
	harness.WriteFile(t, stale, []byte(`{"pid":1,"mcp":"http://127.0.0.1:1/mcp"}`))
	junk := filepath.Join(e.Plugins, "junk.wasm")
	harness.WriteFile(t, junk, []byte("not a WebAssembly module"))
	harness.WriteFile(t, e.Config, []byte(e.YAML("", harness.Item("name: junk", "path: "+harness.Q(junk)))))
	r = bins.Run(t, harness.RunOptions{Timeout: 90 * time.Second}, "serve", "--config", e.Config, "--ready-file", stale)
	if r.Code != 1 {
		t.Errorf("serve with a module that does not compile: exit %d\n%s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("a stale ready file survived a failed start: %v", err)
	}
}
