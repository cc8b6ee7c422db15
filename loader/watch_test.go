package loader

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// watchTest runs a Watcher over the config at cfgPath (and what it
// names: gateway.lock beside it) until the test ends; each reload's
// paths arrive on the channel.
func watchTest(t *testing.T, cfgPath string) (*Watcher, <-chan []string) {
	t.Helper()
	cfg, err := LoadUnlocked(cfgPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWatcher(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	w.Track(cfgPath, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	reloads := make(chan []string, 16)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		w.Run(ctx, 50*time.Millisecond, func(_ context.Context, changed []string) { reloads <- changed })
	}()
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		_ = w.Close()
	})
	return w, reloads
}

// renameOver writes data to path as `wasmgate lock` does: a temporary
// file in the same folder, renamed over it.
func renameOver(t *testing.T, path string, data []byte) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// nextReload is the paths of the next reload, or fails the test when
// none comes within 5 s.
func nextReload(t *testing.T, reloads <-chan []string, what string) []string {
	t.Helper()
	select {
	case p := <-reloads:
		return p
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: no reload within 5s", what)
		return nil
	}
}

// noReload fails the test if a reload comes within d.
func noReload(t *testing.T, reloads <-chan []string, d time.Duration, what string) {
	t.Helper()
	select {
	case p := <-reloads:
		t.Fatalf("%s: reloaded %v, want no reload", what, p)
	case <-time.After(d):
	}
}

// TestWatcherExpect: a write announced by Expect (path and content) does
// not reload; a different write, a burst with another file, and the
// same write once the expectation is used up do. Issue 48: `wasmgate
// lock` writes gateway.lock and reloads itself; the watcher's reload
// was a second one.
func TestWatcherExpect(t *testing.T) {
	cfgPath := writeFiles(t, "plugins:\n  - path: calc.wasm\n", "calc.wasm")
	lock := filepath.Join(filepath.Dir(cfgPath), DefaultLockFile)
	w, reloads := watchTest(t, cfgPath)
	cfgData, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	const quiet = 400 * time.Millisecond // 8 debounces

	// Unannounced, a write of gateway.lock reloads: the watcher watches it.
	renameOver(t, lock, []byte(`{"v":0}`))
	if got := nextReload(t, reloads, "gateway.lock written unannounced"); !slices.Equal(got, []string{lock}) {
		t.Fatalf("reload of %v, want [%s]", got, lock)
	}

	// Announced, renamed over: no reload. A save of gateway.yaml after
	// it reloads naming gateway.yaml alone.
	w.Expect(lock, []byte(`{"v":1}`))
	renameOver(t, lock, []byte(`{"v":1}`))
	noReload(t, reloads, quiet, "the announced write")
	renameOver(t, cfgPath, cfgData)
	if got := nextReload(t, reloads, "gateway.yaml saved"); !slices.Equal(got, []string{cfgPath}) {
		t.Errorf("reload of %v, want [%s] alone: the announced write reloaded after all", got, cfgPath)
	}

	// Announced, written in place in pieces (one debounced burst): the
	// settled content is what counts.
	w.Expect(lock, []byte(`{"v":2,"more":true}`))
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{`{"v":2,`, `"more":true}`} {
		if _, err := f.WriteString(part); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	noReload(t, reloads, quiet, "the announced write in pieces")

	// The expectation is used up: the same content again reloads.
	renameOver(t, lock, []byte(`{"v":2,"more":true}`))
	if got := nextReload(t, reloads, "the same write again"); !slices.Equal(got, []string{lock}) {
		t.Errorf("reload of %v, want [%s]", got, lock)
	}

	// Announced, but other content lands: it reloads.
	w.Expect(lock, []byte(`{"v":3}`))
	renameOver(t, lock, []byte(`{"v":"edited"}`))
	if got := nextReload(t, reloads, "a write other than the announced one"); !slices.Equal(got, []string{lock}) {
		t.Errorf("reload of %v, want [%s]", got, lock)
	}

	// Announced, but gateway.yaml changes in the same burst: it reloads,
	// naming both.
	w.Expect(lock, []byte(`{"v":4}`))
	renameOver(t, lock, []byte(`{"v":4}`))
	renameOver(t, cfgPath, cfgData)
	want := []string{cfgPath, lock}
	slices.Sort(want)
	if got := nextReload(t, reloads, "gateway.lock and gateway.yaml in one burst"); !slices.Equal(got, want) {
		t.Errorf("reload of %v, want %v", got, want)
	}
	noReload(t, reloads, quiet, "after the burst")
}
