package plugin

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/host"
)

// testPool compiles the calculator example with the given instances scope
// (and extra YAML for its entry) and returns a pool of it.
func testPool(t *testing.T, scope, extra string) *pool {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	wasm := filepath.Join(filepath.Dir(file), "..", "..", "examples", "plugins", "calculator.wasm")
	if _, err := os.Stat(wasm); err != nil {
		t.Skipf("%s not built (make plugins): %v", wasm, err)
	}
	cfgPath := filepath.Join(t.TempDir(), "gateway.yaml")
	if err := os.WriteFile(cfgPath, []byte("plugins:\n  - path: "+wasm+"\n    instances: "+scope+"\n"+extra), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := loader.Load(cfgPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	compiler, err := loader.NewCompiler(filepath.Join(os.TempDir(), "wasmgate-bench-cache"), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { compiler.Close(ctx) })
	mod, err := loader.Fetch(ctx, cfg.Plugins[0])
	if err != nil {
		t.Fatal(err)
	}
	p, first, err := compiler.Compile(ctx, cfg.Plugins[0], mod, host.Env{Store: host.NewStore(1 << 20)})
	if err != nil {
		t.Fatal(err)
	}
	pl := newPool(p, first, prometheus.NewGauge(prometheus.GaugeOpts{Name: "instances"}), make(chan struct{}, 8))
	t.Cleanup(func() { pl.close(ctx); _ = p.Close(ctx) })
	return pl
}

// instances: session gives each session its own instance, runs a
// session's calls one at a time, and closes the instance when the session
// ends, after its running call if one runs.
func TestPoolSessionScope(t *testing.T) {
	ctx := context.Background()
	p := testPool(t, loader.InstancesSession, "    limits: {concurrency: 4}\n")
	if n := p.live.Load(); n != 0 {
		t.Fatalf("%d instances before any session, want 0", n)
	}
	a1, releaseA, _, err := p.acquire(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	b1, releaseB, _, err := p.acquire(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	if a1 == b1 {
		t.Fatal("two sessions got the same instance")
	}
	releaseB()

	// A second call of session a waits for the first.
	got := make(chan struct{})
	var a2 any
	go func() {
		inst, release, _, err := p.acquire(ctx, "a")
		if err != nil {
			t.Error(err)
			close(got)
			return
		}
		a2 = inst
		close(got)
		release()
	}()
	select {
	case <-got:
		t.Fatal("a second call of a session ran while the first was running")
	case <-time.After(50 * time.Millisecond):
	}
	// The session ends while its first call runs: its instance is closed
	// when that call ends (a call that was waiting runs on a fresh one,
	// closed after it).
	p.endSession(ctx, "a")
	releaseA()
	<-got
	if a2 == a1 {
		t.Error("a call of an ended session ran on the instance closed with it")
	}
	if !harness.WaitFor(5*time.Second, func() bool { return p.live.Load() == 1 }) {
		t.Errorf("%d instances after session a ended, want 1 (b's)", p.live.Load())
	}
	p.endSession(ctx, "b")
	if n := p.live.Load(); n != 0 {
		t.Errorf("%d instances after every session ended, want 0", n)
	}

	// A call outside any session gets a fresh instance, closed after it.
	inst, release, _, err := p.acquire(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if inst == a1 || inst == b1 || p.live.Load() != 1 {
		t.Error("a call outside a session did not get a fresh instance")
	}
	release()
	if n := p.live.Load(); n != 0 {
		t.Errorf("%d instances after a call outside a session, want 0", n)
	}
}

// instances: single reuses one instance for every call, whatever the
// session.
func TestPoolSingleScope(t *testing.T) {
	ctx := context.Background()
	p := testPool(t, loader.InstancesSingle, "")
	if cap(p.sem) != 1 {
		t.Fatalf("single scope runs %d calls at once, want 1", cap(p.sem))
	}
	first, release, _, err := p.acquire(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	release()
	for _, s := range []string{"a", "b", ""} {
		inst, release, _, err := p.acquire(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		if inst != first {
			t.Errorf("session %q got another instance", s)
		}
		release()
	}
	if n := p.live.Load(); n != 1 {
		t.Errorf("%d instances, want 1", n)
	}
}

// instances: pool hands a call the instance that was given back last, so
// under a load that needs fewer instances than it once did the busy ones
// stay warm and the rest idle; it never keeps more than concurrency.
func TestPoolReusesLastReturned(t *testing.T) {
	ctx := context.Background()
	p := testPool(t, loader.InstancesPool, "    limits: {concurrency: 3}\n")
	var insts []*loader.Instance
	var releases []func()
	for range 3 {
		inst, release, _, err := p.acquire(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		insts, releases = append(insts, inst), append(releases, release)
	}
	if n := p.live.Load(); n != 3 {
		t.Fatalf("%d instances for 3 calls at once, want 3", n)
	}
	// Given back in the order 0, 2, 1: the next calls get 1, then 2, then 0.
	for _, i := range []int{0, 2, 1} {
		releases[i]()
	}
	for _, want := range []int{1, 2, 0} {
		inst, release, _, err := p.acquire(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if inst != insts[want] {
			t.Errorf("got an instance other than #%d, the last given back", want)
		}
		release() // back on top: the next call takes it again
		again, release, _, err := p.acquire(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if again != inst {
			t.Error("a call after a call did not reuse its instance")
		}
		// Keep it out so the next iteration sees the one below.
		defer release()
	}
	if n := p.live.Load(); n != 3 {
		t.Errorf("%d instances, want 3", n)
	}
}

// acquire reports a wait only when the call waited: for a slot, for its
// session's turn or for a new instance to start, not when it found an
// idle instance.
func TestPoolReportsWaits(t *testing.T) {
	ctx := context.Background()
	p := testPool(t, loader.InstancesSingle, "")
	_, release, waited, err := p.acquire(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if waited {
		t.Error("the idle instance was reported as a wait")
	}
	got := make(chan bool)
	go func() {
		_, release, waited, err := p.acquire(ctx, "")
		if err != nil {
			t.Error(err)
		}
		release()
		got <- waited
	}()
	time.Sleep(50 * time.Millisecond) // the second call is blocked on the one slot
	release()
	if !<-got {
		t.Error("a call that waited for the only instance was not reported as waiting")
	}

	p = testPool(t, loader.InstancesPool, "    limits: {concurrency: 2}\n")
	_, r1, w1, err := p.acquire(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	_, r2, w2, err := p.acquire(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	r1()
	r2()
	if w1 || !w2 {
		t.Errorf("idle instance waited=%v (want false), new instance waited=%v (want true)", w1, w2)
	}
}
