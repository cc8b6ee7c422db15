package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// TestReloadRestoreNotCompiled removes a plugin by a reload and restores it
// by the next: the restore takes the compiled module back from memory
// (issue 21, item 9), so the gateway logs no compilation, and the plugin
// serves again.
func TestReloadRestoreNotCompiled(t *testing.T) {
	t.Parallel()
	e := bins.NewDir(t)
	calc := e.Module("calculator", "examples/plugins/calculator")
	greeter := e.Module("greeter", "examples/plugins/greeter")
	server := harness.NoWatch + "  log: {level: debug}\n"
	with := []byte(e.YAML(server,
		harness.Item("name: calculator", "path: "+harness.Q(calc)),
		harness.Item("name: greeter", "path: "+harness.Q(greeter))))
	without := []byte(e.YAML(server, harness.Item("name: calculator", "path: "+harness.Q(calc))))
	harness.WriteFile(t, e.Config, with)
	g := bins.Start(t, harness.Options{Config: e.Config})
	c := g.Client(t)
	ctx := harness.Ctx(t, time.Minute)

	for i, data := range [][]byte{without, with} {
		offset := len(g.Stderr())
		harness.WriteFile(t, e.Config, data)
		if code, body := g.PostReload(t); code != http.StatusOK {
			t.Fatalf("reload %d: POST /-/reload: %d %s", i+1, code, body)
		}
		if _, ok := g.WaitLog(offset, "configuration reloaded", 10*time.Second); !ok {
			t.Fatalf("reload %d: no reload line:\n%s", i+1, g.StderrSince(offset))
		}
		if i == 1 {
			log := g.StderrSince(offset)
			if !strings.Contains(log, "plugin restored from memory, not compiled") {
				t.Errorf("restoring greeter: no restore line:\n%s", log)
			}
			if strings.Contains(log, "compiled plugin") {
				t.Errorf("restoring greeter compiled it:\n%s", log)
			}
		}
	}
	if text, isErr := harness.CallTool(ctx, t, c, "say_hello", map[string]any{"name": "Ada"}); isErr || text != "Hello, Ada!" {
		t.Fatalf("restored greeter: say_hello = %q (isError %v)", text, isErr)
	}
}
