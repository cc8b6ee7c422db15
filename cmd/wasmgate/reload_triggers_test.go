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
)

// visible is how long a save may take to show in tools/list: generous,
// because a -race gateway on a busy machine is slow; the latency itself is
// measured by TestSaveToVisibleLatency.
const visible = 20 * time.Second

// TestReloadSaveStyles saves gateway.yaml every way editors and tools do,
// and checks each save shows up in tools/list on a live session.
func TestReloadSaveStyles(t *testing.T) {
	t.Run("editor saves", func(t *testing.T) {
		e := newRLEnv(t)
		calc := e.module("calculator", "examples/plugins/calculator")
		cfg := func(prefix string) []byte {
			item := rlItem("name: calculator", "path: "+rlQ(calc))
			if prefix != "" {
				item = rlItem("name: calculator", "path: "+rlQ(calc), "prefix: "+prefix)
			}
			return []byte(e.yaml("", item))
		}
		rlWriteFile(t, e.cfg, cfg(""))
		g := startGateway(t, e.cfg, nil)
		c := sessionClient(t, g)
		ctx := ctxTimeout(t, 2*time.Minute)
		sid := c.GetSessionId()
		rlWaitTools(ctx, t, c, visible, "calculate")

		styles := []struct {
			name string
			save func(data []byte)
		}{
			{"write in place", func(data []byte) { rlWriteFile(t, e.cfg, data) }},
			{"temp file renamed over", func(data []byte) { rlSaveAtomic(t, e.cfg, data) }},
			{"delete then create", func(data []byte) {
				if err := os.Remove(e.cfg); err != nil {
					t.Fatal(err)
				}
				rlWriteFile(t, e.cfg, data)
			}},
			{"backup rename then create (vim backupcopy=no)", func(data []byte) {
				if err := os.Rename(e.cfg, e.cfg+"~"); err != nil {
					t.Fatal(err)
				}
				rlWriteFile(t, e.cfg, data)
				_ = os.Remove(e.cfg + "~")
			}},
		}
		for i, st := range styles {
			prefix := fmt.Sprintf("s%d", i)
			st.save(cfg(prefix))
			rlWaitTools(ctx, t, c, visible, prefix+"_calculate")
			rlCalcTool(ctx, t, c, prefix+"_calculate", 2, 3)
			t.Logf("%s: applied", st.name)
		}
		if rlLastOK(t, g) != 1 {
			t.Errorf("wasmgate_config_last_reload_successful is not 1 after good saves")
		}
		if _, f := rlReloads(t, g); f != 0 {
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
		e := newRLEnv(t)
		calc := e.module("calculator", "examples/plugins/calculator")
		cfg := func(prefix string) []byte {
			return []byte(e.yaml("", rlItem("name: calculator", "path: "+rlQ(calc), "prefix: "+prefix)))
		}
		vol := filepath.Join(e.dir, "configmap")
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		publish := func(ts string, data []byte) {
			must(os.Mkdir(filepath.Join(vol, ts), 0o755))
			rlWriteFile(t, filepath.Join(vol, ts, "gateway.yaml"), data)
		}
		must(os.Mkdir(vol, 0o755))
		publish("..2026_11_29_00_00_00.1", cfg("a"))
		must(os.Symlink("..2026_11_29_00_00_00.1", filepath.Join(vol, "..data")))
		must(os.Symlink("..data/gateway.yaml", filepath.Join(vol, "gateway.yaml")))

		g := startGateway(t, filepath.Join(vol, "gateway.yaml"), nil)
		c := sessionClient(t, g)
		ctx := ctxTimeout(t, 2*time.Minute)
		rlWaitTools(ctx, t, c, visible, "a_calculate")

		swap := func(from, to, prefix string) {
			t.Helper()
			publish(to, cfg(prefix))
			must(os.Symlink(to, filepath.Join(vol, "..data_tmp")))
			must(os.Rename(filepath.Join(vol, "..data_tmp"), filepath.Join(vol, "..data")))
			must(os.RemoveAll(filepath.Join(vol, from)))
			rlWaitTools(ctx, t, c, visible, prefix+"_calculate")
		}
		swap("..2026_11_29_00_00_00.1", "..2026_11_29_00_01_00.2", "b")
		// Again: the watcher must follow the new target folder.
		swap("..2026_11_29_00_01_00.2", "..2026_11_29_00_02_00.3", "c")
		rlCalcTool(ctx, t, c, "c_calculate", 2, 3)
		if rlLastOK(t, g) != 1 {
			// A reload may run between two steps of the swap; the last
			// one must succeed.
			t.Errorf("wasmgate_config_last_reload_successful is not 1 after the swaps")
		}
	})

	t.Run("SIGHUP and POST /-/reload", func(t *testing.T) {
		e := newRLEnv(t)
		calc := e.module("calculator", "examples/plugins/calculator")
		cfg := func(prefix string) []byte {
			return []byte(e.yaml(rlNoWatch, rlItem("name: calculator", "path: "+rlQ(calc), "prefix: "+prefix)))
		}
		rlWriteFile(t, e.cfg, cfg("a"))
		g := startGateway(t, e.cfg, nil)
		c := sessionClient(t, g)
		ctx := ctxTimeout(t, 2*time.Minute)
		rlWaitTools(ctx, t, c, visible, "a_calculate")

		// With server.watch: false a save alone changes nothing.
		before := rlReloadCount(t, g)
		rlSaveAtomic(t, e.cfg, cfg("b"))
		time.Sleep(500 * time.Millisecond)
		if n := rlReloadCount(t, g); n != before {
			t.Fatalf("server.watch: false, yet saving reloaded (%v -> %v reloads)", before, n)
		}
		if got := rlTools(ctx, t, c); len(got) != 1 || got[0] != "a_calculate" {
			t.Fatalf("server.watch: false, yet tools/list changed to %v", got)
		}

		if err := g.Cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		rlWaitTools(ctx, t, c, visible, "b_calculate")
		if !strings.Contains(g.Stderr(), "SIGHUP") {
			t.Errorf("no log line mentions SIGHUP")
		}

		rlSaveAtomic(t, e.cfg, cfg("c"))
		code, body := rlPostReload(t, g)
		if code != http.StatusOK || !strings.Contains(body, "calculator") || !strings.Contains(body, "1 tools") {
			t.Errorf("POST /-/reload: %d %q, want 200 with a summary naming the plugins and tools", code, body)
		}
		// The answer comes after the swap: the change is already visible.
		if got := rlTools(ctx, t, c); len(got) != 1 || got[0] != "c_calculate" {
			t.Errorf("after POST /-/reload answered 200, tools/list is %v, want [c_calculate]", got)
		}

		// A broken config: 500 with the reason, and nothing changes.
		rlSaveAtomic(t, e.cfg, []byte(strings.Replace(string(cfg("d")), "plugins:", "plugins:\n  - {name: calculator, bogus_key: 1}", 1)))
		code, body = rlPostReload(t, g)
		if code != http.StatusInternalServerError || !strings.Contains(body, "bogus_key") || !strings.Contains(body, "reload failed") {
			t.Errorf("POST /-/reload with a broken config: %d %q, want 500 naming bogus_key", code, body)
		}
		rlCalcTool(ctx, t, c, "c_calculate", 2, 3)
		if rlLastOK(t, g) != 0 {
			t.Errorf("wasmgate_config_last_reload_successful is not 0 after a failed POST /-/reload")
		}
		rlSaveAtomic(t, e.cfg, cfg("e"))
		if code, body := rlPostReload(t, g); code != http.StatusOK {
			t.Errorf("POST /-/reload after fixing the config: %d %q", code, body)
		}
		rlWaitTools(ctx, t, c, visible, "e_calculate")
		if rlLastOK(t, g) != 1 {
			t.Errorf("wasmgate_config_last_reload_successful is not 1 after a good POST /-/reload")
		}
	})
}

// TestReloadModuleFiles drops modules into a dir: folder, removes one, and
// replaces the bytes of a module named by path (as `cp new.wasm p.wasm`).
func TestReloadModuleFiles(t *testing.T) {
	e := newRLEnv(t)
	calc := e.module("calculator", "examples/plugins/calculator")
	p := e.module("p", "examples/plugins/calculator") // replaced below
	dropins := filepath.Join(e.dir, "plugins.d")
	if err := os.Mkdir(dropins, 0o755); err != nil {
		t.Fatal(err)
	}
	rlWriteFile(t, e.cfg, []byte(e.yaml("",
		rlItem("name: calculator", "path: "+rlQ(calc)),
		rlItem("name: p", "path: "+rlQ(p), "prefix: p"),
		rlItem("dir: "+rlQ(dropins), "prefix: d"),
	)))
	g := startGateway(t, e.cfg, nil)
	c := sessionClient(t, g)
	ctx := ctxTimeout(t, 2*time.Minute)
	rlWaitTools(ctx, t, c, visible, "calculate", "p_calculate")

	// Dropped in like `cp`: written in place.
	rlWriteFile(t, filepath.Join(dropins, "seaflea.wasm"), rlReadFixture(t, "testdata/plugins/seaflea"))
	rlWaitTools(ctx, t, c, visible, "calculate", "p_calculate", "d_add")
	if text, isErr := callTool(ctx, t, c, "d_add", map[string]any{"a": 2, "b": 40}); isErr || text != "42" {
		t.Errorf("d_add 2+40 = %q (isError %v)", text, isErr)
	}
	// Another, renamed into place.
	rlSaveAtomic(t, filepath.Join(dropins, "greeter.wasm"), rlReadFixture(t, "examples/plugins/greeter"))
	rlWaitTools(ctx, t, c, visible, "calculate", "p_calculate", "d_add", "d_say_hello")

	// Files that are not modules, or hidden, are not plugins.
	rlWriteFile(t, filepath.Join(dropins, "README.txt"), []byte("not a module"))
	rlWriteFile(t, filepath.Join(dropins, ".hidden.wasm.part"), []byte("partial"))

	// Removed.
	if err := os.Remove(filepath.Join(dropins, "seaflea.wasm")); err != nil {
		t.Fatal(err)
	}
	rlWaitTools(ctx, t, c, visible, "calculate", "p_calculate", "d_say_hello")

	// The bytes behind plugins/p.wasm become hostile's: p's tools change.
	rlWriteFile(t, p, rlReadFixture(t, "testdata/plugins/hostile"))
	rlWaitTools(ctx, t, c, visible, "calculate", "d_say_hello",
		"p_bomb", "p_crash", "p_echo", "p_flood", "p_sleep", "p_spin", "p_trap")
	if text, isErr := callTool(ctx, t, c, "p_sleep", map[string]any{"ms": 1}); isErr || text != "slept 1ms" {
		t.Errorf("p_sleep = %q (isError %v)", text, isErr)
	}
	rlCalc(ctx, t, c, 20, 22)
	if rlLastOK(t, g) != 1 {
		t.Errorf("wasmgate_config_last_reload_successful is not 1 at the end:\n%s", g.Stderr())
	}
}
