package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// visible is how long a save may take to show in tools/list: generous,
// because a -race gateway on a busy machine is slow; the latency itself is
// measured by TestSaveToVisibleLatency.
const visible = 20 * time.Second

// TestReloadSaveStyles saves gateway.yaml every way editors and tools do,
// and checks each save shows up in tools/list on a live session.
func TestReloadSaveStyles(t *testing.T) {
	t.Parallel()
	t.Run("editor saves", func(t *testing.T) {
		e := bins.NewDir(t)
		calc := e.Module("calculator", "examples/plugins/calculator")
		cfg := func(prefix string) []byte {
			item := harness.Item("name: calculator", "path: "+harness.Q(calc))
			if prefix != "" {
				item = harness.Item("name: calculator", "path: "+harness.Q(calc), "prefix: "+prefix)
			}
			return []byte(e.YAML("", item))
		}
		harness.WriteFile(t, e.Config, cfg(""))
		g := bins.Start(t, harness.Options{Config: e.Config})
		c := g.SessionClient(t)
		ctx := harness.Ctx(t, 2*time.Minute)
		sid := c.GetSessionId()
		harness.WaitTools(ctx, t, c, visible, "calculate")

		styles := []struct {
			name string
			save func(data []byte)
		}{
			{"write in place", func(data []byte) { harness.WriteFile(t, e.Config, data) }},
			{"temp file renamed over", func(data []byte) { harness.RenameOver(t, e.Config, data) }},
			{"delete then create", func(data []byte) {
				if err := os.Remove(e.Config); err != nil {
					t.Fatal(err)
				}
				harness.WriteFile(t, e.Config, data)
			}},
			{"backup rename then create (vim backupcopy=no)", func(data []byte) {
				if err := os.Rename(e.Config, e.Config+"~"); err != nil {
					t.Fatal(err)
				}
				harness.WriteFile(t, e.Config, data)
				_ = os.Remove(e.Config + "~")
			}},
		}
		for i, st := range styles {
			prefix := fmt.Sprintf("s%d", i)
			st.save(cfg(prefix))
			harness.WaitTools(ctx, t, c, visible, prefix+"_calculate")
			harness.CalcTool(ctx, t, c, prefix+"_calculate", 2, 3)
			t.Logf("%s: applied", st.name)
		}
		if g.LastReloadOK(t) != 1 {
			t.Errorf("wasmgate_config_last_reload_successful is not 1 after good saves")
		}
		if _, f := g.Reloads(t); f != 0 {
			t.Errorf("%v failed reloads during the editor saves; a save must be seen whole:\n%s", f, g.Stderr())
		}
		if got := c.GetSessionId(); got != sid {
			t.Errorf("session id changed from %q to %q", sid, got)
		}
	})

	t.Run("kubernetes configmap symlink swap", func(t *testing.T) {
		// A ConfigMap volume: gateway.yaml -> ..data/gateway.yaml,
		// ..data -> ..2026_x; an update writes ..2026_y, points a new
		// symlink ..data_tmp at it, renames it over ..data and removes
		// the old folder.
		e := bins.NewDir(t)
		calc := e.Module("calculator", "examples/plugins/calculator")
		cfg := func(prefix string) []byte {
			return []byte(e.YAML("", harness.Item("name: calculator", "path: "+harness.Q(calc), "prefix: "+prefix)))
		}
		vol := filepath.Join(e.Path, "configmap")
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		publish := func(ts string, data []byte) {
			must(os.Mkdir(filepath.Join(vol, ts), 0o755))
			harness.WriteFile(t, filepath.Join(vol, ts, "gateway.yaml"), data)
		}
		must(os.Mkdir(vol, 0o755))
		publish("..2026_11_29_00_00_00.1", cfg("a"))
		must(os.Symlink("..2026_11_29_00_00_00.1", filepath.Join(vol, "..data")))
		must(os.Symlink("..data/gateway.yaml", filepath.Join(vol, "gateway.yaml")))

		g := bins.Start(t, harness.Options{Config: filepath.Join(vol, "gateway.yaml")})
		c := g.SessionClient(t)
		ctx := harness.Ctx(t, 2*time.Minute)
		harness.WaitTools(ctx, t, c, visible, "a_calculate")

		swap := func(from, to, prefix string) {
			t.Helper()
			publish(to, cfg(prefix))
			must(os.Symlink(to, filepath.Join(vol, "..data_tmp")))
			must(os.Rename(filepath.Join(vol, "..data_tmp"), filepath.Join(vol, "..data")))
			must(os.RemoveAll(filepath.Join(vol, from)))
			harness.WaitTools(ctx, t, c, visible, prefix+"_calculate")
		}
		swap("..2026_11_29_00_00_00.1", "..2026_11_29_00_01_00.2", "b")
		// Again: the watcher must follow the new target folder.
		swap("..2026_11_29_00_01_00.2", "..2026_11_29_00_02_00.3", "c")
		harness.CalcTool(ctx, t, c, "c_calculate", 2, 3)
		if g.LastReloadOK(t) != 1 {
			// A reload may run between two steps of the swap; the last
			// one must succeed.
			t.Errorf("wasmgate_config_last_reload_successful is not 1 after the swaps")
		}
	})

	t.Run("SIGHUP and POST /-/reload", func(t *testing.T) {
		e := bins.NewDir(t)
		calc := e.Module("calculator", "examples/plugins/calculator")
		cfg := func(prefix string) []byte {
			return []byte(e.YAML(harness.NoWatch, harness.Item("name: calculator", "path: "+harness.Q(calc), "prefix: "+prefix)))
		}
		harness.WriteFile(t, e.Config, cfg("a"))
		g := bins.Start(t, harness.Options{Config: e.Config})
		c := g.SessionClient(t)
		ctx := harness.Ctx(t, 2*time.Minute)
		harness.WaitTools(ctx, t, c, visible, "a_calculate")

		// With server.watch: false a save alone changes nothing.
		before := g.ReloadCount(t)
		harness.RenameOver(t, e.Config, cfg("b"))
		time.Sleep(500 * time.Millisecond)
		if n := g.ReloadCount(t); n != before {
			t.Fatalf("server.watch: false, yet saving reloaded (%v -> %v reloads)", before, n)
		}
		if got := harness.Tools(ctx, t, c); len(got) != 1 || got[0] != "a_calculate" {
			t.Fatalf("server.watch: false, yet tools/list changed to %v", got)
		}

		logAt := len(g.Stderr())
		if err := g.Cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		harness.WaitTools(ctx, t, c, visible, "b_calculate")
		if _, ok := g.WaitLog(logAt, "SIGHUP", 10*time.Second); !ok {
			t.Errorf("no log line after the signal mentions SIGHUP")
		}

		harness.RenameOver(t, e.Config, cfg("c"))
		code, body := g.PostReload(t)
		if code != http.StatusOK || !strings.Contains(body, "calculator") || !strings.Contains(body, "1 tool,") {
			t.Errorf("POST /-/reload: %d %q, want 200 with a summary naming the plugins and tools", code, body)
		}
		// The answer comes after the swap: the change is already visible.
		if got := harness.Tools(ctx, t, c); len(got) != 1 || got[0] != "c_calculate" {
			t.Errorf("after POST /-/reload answered 200, tools/list is %v, want [c_calculate]", got)
		}

		// A broken config: 500 with the reason, and nothing changes.
		harness.RenameOver(t, e.Config, []byte(strings.Replace(string(cfg("d")), "plugins:", "plugins:\n  - {name: calculator, bogus_key: 1}", 1)))
		code, body = g.PostReload(t)
		if code != http.StatusInternalServerError || !strings.Contains(body, "bogus_key") || !strings.Contains(body, "reload failed") {
			t.Errorf("POST /-/reload with a broken config: %d %q, want 500 naming bogus_key", code, body)
		}
		harness.CalcTool(ctx, t, c, "c_calculate", 2, 3)
		if g.LastReloadOK(t) != 0 {
			t.Errorf("wasmgate_config_last_reload_successful is not 0 after a failed POST /-/reload")
		}
		harness.RenameOver(t, e.Config, cfg("e"))
		if code, body := g.PostReload(t); code != http.StatusOK {
			t.Errorf("POST /-/reload after fixing the config: %d %q", code, body)
		}
		harness.WaitTools(ctx, t, c, visible, "e_calculate")
		if g.LastReloadOK(t) != 1 {
			t.Errorf("wasmgate_config_last_reload_successful is not 1 after a good POST /-/reload")
		}
	})
}

// TestReloadModuleFiles drops modules into a dir: folder, removes one, and
// replaces the bytes of a module named by path (as `cp new.wasm p.wasm`).
func TestReloadModuleFiles(t *testing.T) {
	t.Parallel()
	e := bins.NewDir(t)
	calc := e.Module("calculator", "examples/plugins/calculator")
	p := e.Module("p", "examples/plugins/calculator") // replaced below
	dropins := filepath.Join(e.Path, "plugins.d")
	if err := os.Mkdir(dropins, 0o755); err != nil {
		t.Fatal(err)
	}
	harness.WriteFile(t, e.Config, []byte(e.YAML("",
		harness.Item("name: calculator", "path: "+harness.Q(calc)),
		harness.Item("name: p", "path: "+harness.Q(p), "prefix: p"),
		harness.Item("dir: "+harness.Q(dropins), "prefix: d"),
	)))
	g := bins.Start(t, harness.Options{Config: e.Config})
	c := g.SessionClient(t)
	ctx := harness.Ctx(t, 2*time.Minute)
	harness.WaitTools(ctx, t, c, visible, "calculate", "p_calculate")

	// Dropped in like `cp`: written in place.
	harness.WriteFile(t, filepath.Join(dropins, "seaflea.wasm"), harness.ReadFixture(t, "testdata/plugins/seaflea"))
	harness.WaitTools(ctx, t, c, visible, "calculate", "p_calculate", "d_add")
	if text, isErr := harness.CallTool(ctx, t, c, "d_add", map[string]any{"a": 2, "b": 40}); isErr || text != "42" {
		t.Errorf("d_add 2+40 = %q (isError %v)", text, isErr)
	}
	// Another, renamed into place.
	harness.RenameOver(t, filepath.Join(dropins, "greeter.wasm"), harness.ReadFixture(t, "examples/plugins/greeter"))
	harness.WaitTools(ctx, t, c, visible, "calculate", "p_calculate", "d_add", "d_say_hello")

	// Files that are not modules, or hidden, are not plugins.
	harness.WriteFile(t, filepath.Join(dropins, "README.txt"), []byte("not a module"))
	harness.WriteFile(t, filepath.Join(dropins, ".hidden.wasm.part"), []byte("partial"))

	// Removed.
	if err := os.Remove(filepath.Join(dropins, "seaflea.wasm")); err != nil {
		t.Fatal(err)
	}
	harness.WaitTools(ctx, t, c, visible, "calculate", "p_calculate", "d_say_hello")

	// The bytes behind plugins/p.wasm become hostile's: p's tools change.
	harness.WriteFile(t, p, harness.ReadFixture(t, "testdata/plugins/hostile"))
	harness.WaitTools(ctx, t, c, visible, "calculate", "d_say_hello",
		"p_bomb", "p_crash", "p_echo", "p_flood", "p_sleep", "p_spin", "p_trap")
	if text, isErr := harness.CallTool(ctx, t, c, "p_sleep", map[string]any{"ms": 1}); isErr || text != "slept 1ms" {
		t.Errorf("p_sleep = %q (isError %v)", text, isErr)
	}
	// The reload's log line names the saved file (relative to the config's
	// folder), its plugin, and what changed.
	rel, err := filepath.Rel(filepath.Dir(e.Config), p)
	if err != nil {
		t.Fatal(err)
	}
	var line string
	if !harness.WaitFor(10*time.Second, func() bool {
		for _, l := range strings.Split(g.Stderr(), "\n") {
			if strings.Contains(l, `msg="configuration reloaded"`) && strings.Contains(l, "files="+rel) && strings.Contains(l, "plugins=p ") {
				line = l
				return true
			}
		}
		return false
	}) {
		t.Fatalf("no reload line names files=%s plugins=p:\n%s", rel, g.Stderr())
	}
	if !strings.Contains(line, `trigger="file save"`) || !strings.Contains(line, "tool p_sleep added") || strings.Contains(line, " file=") {
		t.Errorf("the reload line after rewriting p.wasm: %s", line)
	}
	t.Logf("%s", line)
	harness.Calc(ctx, t, c, 20, 22)
	if g.LastReloadOK(t) != 1 {
		t.Errorf("wasmgate_config_last_reload_successful is not 1 at the end:\n%s", g.Stderr())
	}
}
