package plugin

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/host"
	"github.com/wasmgate/wasmgate/metrics"
)

// keptHost is a Host over a Compiler of its own (over the compilation
// cache on disk the pool tests share: Compiles counts every Compile call,
// cached on disk or not) with k as its Kept.
func keptHost(t *testing.T, k *Kept) *Host {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	compiler, err := loader.NewCompiler(filepath.Join(os.TempDir(), "wasmgate-bench-cache"), log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { compiler.Close(context.Background()) })
	stores := map[string]*host.Store{}
	return &Host{Logger: log, Compiler: compiler, Metrics: metrics.New("test", ""), Slots: make(chan struct{}, 8), Kept: k,
		Store: func(name string, quota int64) *host.Store {
			if stores[name] == nil {
				stores[name] = host.NewStore(quota)
			}
			return stores[name]
		}}
}

// wasmConfig loads a gateway.yaml of plugin entries (YAML lines, with
// $ROOT for the repository).
func wasmConfig(t *testing.T, entries ...string) *loader.Config {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	body := "plugins:\n"
	for _, e := range entries {
		e = strings.ReplaceAll(e, "$ROOT", root)
		path := e[strings.Index(e, "path: ")+6:]
		path = path[:strings.IndexAny(path, ",}")]
		if _, err := os.Stat(path); err != nil {
			t.Skipf("%s not built (make plugins): %v", path, err)
		}
		body += "  - " + e + "\n"
	}
	f := filepath.Join(t.TempDir(), "gateway.yaml")
	if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := loader.Load(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// provision builds the plugins component of cfg over prev, as a reload
// does, and cleans prev up (its snapshot drained).
func provision(t *testing.T, h *Host, prev *Component, cfg *loader.Config) *Component {
	t.Helper()
	c := New(h)
	if prev != nil {
		c.Reuse(prev)
	}
	if err := c.Provision(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if prev != nil {
		prev.Cleanup(context.Background())
	}
	return c
}

// A reload that removes a plugin keeps its compiled module; the next that
// restores it takes it back without compiling, and the restored plugin
// serves calls from a new pool.
func TestKeptRestoreDoesNotRecompile(t *testing.T) {
	ctx := context.Background()
	calc := "{name: calculator, path: $ROOT/examples/plugins/calculator.wasm}"
	greet := "{name: greeter, path: $ROOT/examples/plugins/greeter.wasm}"
	k := NewKept(KeptLimits{}, nil)
	h := keptHost(t, k)
	both := wasmConfig(t, calc, greet)

	a := provision(t, h, nil, both)
	if n := h.Compiler.Compiles(); n != 2 {
		t.Fatalf("first build compiled %d plugins, want 2", n)
	}
	greeter := a.plugins[1].plugin
	b := provision(t, h, a, wasmConfig(t, calc))
	if n, _, _ := k.Stats(); n != 1 {
		t.Fatalf("after removing greeter Kept holds %d modules, want 1", n)
	}
	c := provision(t, h, b, both)
	if n := h.Compiler.Compiles(); n != 2 {
		t.Errorf("restoring greeter compiled: %d compilations in all, want 2", n)
	}
	if n, _, hits := k.Stats(); n != 0 || hits != 1 {
		t.Errorf("after the restore Kept holds %d modules with %d hits, want 0 and 1", n, hits)
	}
	if got := c.plugins[1]; got.plugin != greeter || len(got.Descriptor().Tools) == 0 {
		t.Errorf("restored greeter is not the kept module, or lost its tools (%d)", len(got.Descriptor().Tools))
	}
	inst, done, _, err := c.plugins[1].pool.acquire(ctx, "")
	if err != nil || inst == nil {
		t.Fatalf("restored greeter gives no instance: %v", err)
	}
	done()

	// A changed setting baked into the module is another module: compiled.
	d := provision(t, h, c, wasmConfig(t, calc, "{name: greeter, path: $ROOT/examples/plugins/greeter.wasm, config: {x: y}}"))
	if n := h.Compiler.Compiles(); n != 3 {
		t.Errorf("greeter with another config: %d compilations in all, want 3", n)
	}
	d.Cleanup(ctx)
	k.Close(ctx)
	if n, _, _ := k.Stats(); n != 0 {
		t.Errorf("Close left %d modules", n)
	}
}

// Kept holds at most Modules modules of at most Bytes in all, the least
// recently kept going first, each for at most TTL; after Close it keeps
// nothing.
func TestKeptLimits(t *testing.T) {
	ctx := context.Background()
	lean := func(name string) string {
		return "{name: " + name + ", path: $ROOT/testdata/plugins/lean.wasm}"
	}
	k := NewKept(KeptLimits{Modules: 2, TTL: time.Hour}, nil)
	h := keptHost(t, k)
	all := provision(t, h, nil, wasmConfig(t, lean("a"), lean("b"), lean("c")))
	size := int64(all.plugins[0].plugin.Size)
	all.Cleanup(ctx)
	if n, bytes, _ := k.Stats(); n != 2 || bytes != 2*size {
		t.Fatalf("Kept holds %d modules of %d bytes, want 2 of %d", n, bytes, 2*size)
	}
	if _, _, ok := k.take(keepKey("a", all.plugins[0].sh.key)); ok {
		t.Error("the least recently kept module (a) was not released")
	}
	if _, _, ok := k.take(keepKey("c", all.plugins[2].sh.key)); !ok {
		t.Error("the most recently kept module (c) is gone")
	} else {
		all.plugins[2].plugin.Close(ctx)
	}

	// Bytes: room for one module only.
	kb := NewKept(KeptLimits{Bytes: size + size/2, TTL: time.Hour}, nil)
	hb := keptHost(t, kb)
	two := provision(t, hb, nil, wasmConfig(t, lean("a"), lean("b")))
	two.Cleanup(ctx)
	if n, bytes, _ := kb.Stats(); n != 1 || bytes != size {
		t.Errorf("with room for one module Kept holds %d modules of %d bytes", n, bytes)
	}
	kb.Close(ctx)

	// TTL.
	kt := NewKept(KeptLimits{TTL: 50 * time.Millisecond}, nil)
	ht := keptHost(t, kt)
	provision(t, ht, nil, wasmConfig(t, lean("a"))).Cleanup(ctx)
	deadline := time.Now().Add(5 * time.Second)
	for n, _, _ := kt.Stats(); n != 0; n, _, _ = kt.Stats() {
		if time.Now().After(deadline) {
			t.Fatal("a kept module did not expire")
		}
		time.Sleep(10 * time.Millisecond)
	}

	// Closed: released at once.
	kt.Close(ctx)
	provision(t, ht, nil, wasmConfig(t, lean("a"))).Cleanup(ctx)
	if n, _, _ := kt.Stats(); n != 0 {
		t.Errorf("a closed Kept holds %d modules", n)
	}
	k.Close(ctx)
}
