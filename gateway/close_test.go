package gateway

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/loader"
)

// TestCloseWaitsForReload closes the gateway while a reload compiles a
// plugin with the compiler Close releases: Close stops and waits for the
// reload (before, the compile wrote into the closed engine and the
// process panicked), and a reload after Close is refused.
func TestCloseWaitsForReload(t *testing.T) {
	calc := builtWasm(t, "examples/plugins/calculator.wasm")
	conf := builtWasm(t, "testdata/plugins/conformance.wasm")
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "gateway.yaml")
	write := func(yaml string) {
		t.Helper()
		if err := os.WriteFile(cfgPath, []byte("server:\n  cache_dir: "+filepath.Join(os.TempDir(), "wasmgate-bench-cache")+"\n"+yaml), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("plugins:\n  - path: " + calc + "\n")
	cfg, err := loader.Load(cfgPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	g, err := Open(context.Background(), cfg, Options{Logger: logger, ConfigPath: cfgPath}) // its own compiler, closed by Close
	if err != nil {
		t.Fatal(err)
	}
	write("plugins:\n  - path: " + calc + "\n  - path: " + conf + "\n") // a module not compiled yet
	reloaded := make(chan error, 1)
	go func() { reloaded <- g.Reload(context.Background()) }()
	for deadline := time.Now().Add(10 * time.Second); g.reloadMu.TryLock(); { // until the reload holds it
		g.reloadMu.Unlock()
		if time.Now().After(deadline) {
			t.Fatal("the reload never started")
		}
		time.Sleep(100 * time.Microsecond)
	}
	if err := g.Close(context.Background()); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case err := <-reloaded: // finished or stopped, either is right
		t.Logf("the reload Close waited for returned %v", err)
	case <-time.After(time.Minute):
		t.Fatal("the reload never returned")
	}
	if err := g.Reload(context.Background()); !errors.Is(err, errClosed) {
		t.Fatalf("a reload after Close returned %v, want %v", err, errClosed)
	}
}
