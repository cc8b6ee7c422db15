package main

// A reload that failed because a folder (or a module in a folder) the
// config names is missing waits for it from the nearest existing parent:
// creating it later reloads, without touching gateway.yaml.

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

func TestReloadMissingFolderAppears(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		// item is the plugins: entry naming what does not exist yet, under
		// root; create makes it.
		item   func(root string) string
		create func(t *testing.T, root string)
		tool   string
	}{
		{"dir: folder", func(root string) string {
			return harness.Item("dir: " + harness.Q(filepath.Join(root, "later")))
		}, func(t *testing.T, root string) {
			if err := os.Mkdir(filepath.Join(root, "later"), 0o755); err != nil {
				t.Fatal(err)
			}
			harness.RenameOver(t, filepath.Join(root, "later", "greeter.wasm"), harness.ReadFixture(t, "examples/plugins/greeter"))
		}, "say_hello"},
		{"dir: two folders down", func(root string) string {
			return harness.Item("dir: " + harness.Q(filepath.Join(root, "a", "b")))
		}, func(t *testing.T, root string) {
			if err := os.MkdirAll(filepath.Join(root, "a", "b"), 0o755); err != nil {
				t.Fatal(err)
			}
			harness.WriteFile(t, filepath.Join(root, "a", "b", "greeter.wasm"), harness.ReadFixture(t, "examples/plugins/greeter"))
		}, "say_hello"},
		{"module in a missing folder", func(root string) string {
			return harness.Item("name: greeter", "path: "+harness.Q(filepath.Join(root, "mods", "greeter.wasm")))
		}, func(t *testing.T, root string) {
			if err := os.Mkdir(filepath.Join(root, "mods"), 0o755); err != nil {
				t.Fatal(err)
			}
			// Give the gateway time to reload on the folder (and fail: the
			// module is not there yet), then write the module.
			time.Sleep(300 * time.Millisecond)
			harness.WriteFile(t, filepath.Join(root, "mods", "greeter.wasm"), harness.ReadFixture(t, "examples/plugins/greeter"))
		}, "say_hello"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := bins.NewDir(t)
			calc := e.Module("calculator", "examples/plugins/calculator")
			harness.WriteFile(t, e.Config, []byte(e.YAML("", harness.Item("name: calculator", "path: "+harness.Q(calc)))))
			g := bins.Start(t, harness.Options{Config: e.Config})
			c := g.SessionClient(t)
			ctx := harness.Ctx(t, 2*time.Minute)

			before := g.ReloadCount(t)
			root := filepath.Join(e.Path, "new")
			if err := os.Mkdir(root, 0o755); err != nil {
				t.Fatal(err)
			}
			harness.RenameOver(t, e.Config, []byte(e.YAML("", harness.Item("name: calculator", "path: "+harness.Q(calc)), tc.item(root))))
			if _, f := g.WaitReload(t, before, "save naming a missing folder"); f != 1 {
				t.Fatalf("the save naming a missing folder: %v failed reloads, want 1", f)
			}
			if _, ok := g.WaitLog(0, "waiting for a folder the config names", 10*time.Second); !ok {
				t.Errorf("no log line saying the gateway waits for the folder")
			}
			tc.create(t, root)
			var got []string
			if !harness.WaitFor(visible, func() bool {
				got, _ = harness.ToolsErr(ctx, c)
				return slices.Contains(got, tc.tool)
			}) {
				t.Fatalf("the missing folder and module were created, but the gateway did not reload: tools/list is %v", got)
			}
			harness.CallTool(ctx, t, c, tc.tool, map[string]any{"name": "Ada"})
		})
	}
}
