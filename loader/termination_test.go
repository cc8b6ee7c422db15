package loader

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/deadline"
	"github.com/wasmgate/wasmgate/loader/abi"
)

// The limits.timeout guarantee: a guest that never returns by itself, in
// each shape that a termination check must catch, is stopped at its
// deadline, and while it runs the Go runtime can still stop the world.

// callWays are the two ways a call is bounded: by its context's deadline
// (Instance.Call) and by an alarm of a deadline.Watch (Instance.CallUntil),
// each given the same ctx and deadline.
var callWays = []struct {
	name string
	call func(inst *Instance, ctx context.Context, at time.Time, export string, input []byte) ([]byte, error)
}{
	{"Call", func(inst *Instance, ctx context.Context, at time.Time, export string, input []byte) ([]byte, error) {
		ctx, cancel := context.WithDeadline(ctx, at)
		defer cancel()
		return inst.Call(ctx, export, input)
	}},
	{"CallUntil", func(inst *Instance, ctx context.Context, at time.Time, export string, input []byte) ([]byte, error) {
		var w deadline.Watch
		defer w.Stop()
		return inst.CallUntil(ctx, &w, at, export, input)
	}},
}

// runawayCases are the guests that never return by themselves.
var runawayCases = []struct {
	name, plugin, export, input string
}{
	{"go loop", "hostile", "spin", `{}`},                         // for {} in a Go guest
	{"bare loop", "runaway", "spin", ``},                         // loop, br 0
	{"loop-free recursion", "runaway", "fork", ``},               // 2^62 calls, no loop
	{"sleep in a host call", "hostile", "sleep", `{"ms":60000}`}, // poll_oneoff
}

// TestRunawayStoppedAtTimeout checks that each runaway guest is stopped at
// its deadline: the call fails as timed out no earlier than the timeout,
// and the median of five calls no later than half the timeout (at least
// 200 ms) after it. A guest whose loop has no termination check would
// run until it returns by itself (never, or after the 60 s sleep); the
// slack is for a loaded machine's scheduling, which once put the median
// at 117 ms of a 100 ms timeout (the test logs every run).
func TestRunawayStoppedAtTimeout(t *testing.T) {
	for _, c := range runawayCases {
		for _, way := range callWays {
			for _, timeout := range []time.Duration{100 * time.Millisecond, 300 * time.Millisecond} {
				if way.name != "Call" && timeout != 100*time.Millisecond {
					continue // the alarm's timing is the Watch's, tested there
				}
				t.Run(c.name+"/"+way.name+"/"+timeout.String(), func(t *testing.T) {
					p, _ := compile(t, c.plugin)
					var took []time.Duration
					for range 5 {
						inst, err := p.NewInstance(context.Background())
						if err != nil {
							t.Fatal(err)
						}
						start := time.Now()
						_, err = way.call(inst, context.Background(), start.Add(timeout), c.export, []byte(c.input))
						took = append(took, time.Since(start))
						inst.Close(context.Background())
						var ce *abi.CallError
						if !errors.As(err, &ce) || ce.Kind != abi.KindTimeout {
							t.Fatalf("%s: got %v, want a timeout", c.export, err)
						}
						if !inst.Dead() {
							t.Errorf("%s: the instance is not dead after a timeout", c.export)
						}
					}
					slices.Sort(took)
					t.Logf("%s with a %s timeout: stopped after %s", c.export, timeout, took)
					slack := max(timeout/2, 200*time.Millisecond)
					if took[0] < timeout {
						t.Errorf("%s with a %s timeout stopped after %s, before its timeout", c.export, timeout, took[0])
					}
					if median := took[len(took)/2]; median > timeout+slack {
						t.Errorf("%s with a %s timeout stopped after %s (median of %s), want %s to %s",
							c.export, timeout, median, took, timeout, timeout+slack)
					}
				})
			}
		}
	}
}

// TestGCWhileRunaway checks that a runaway guest does not hold up a
// stop-the-world: runtime.GC, called from another goroutine while the
// guest runs, returns within 50 ms (median of 20 tries). Without a
// preemption point in the guest's loops it would wait for the call's
// deadline.
func TestGCWhileRunaway(t *testing.T) {
	for _, c := range runawayCases[:3] {
		for _, way := range callWays {
			t.Run(c.name+"/"+way.name, func(t *testing.T) {
				p, _ := compile(t, c.plugin)
				inst, err := p.NewInstance(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				defer inst.Close(context.Background())
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				var wg sync.WaitGroup
				wg.Add(1)
				var callErr error
				go func() {
					defer wg.Done()
					_, callErr = way.call(inst, ctx, time.Now().Add(time.Minute), c.export, []byte(c.input))
				}()
				time.Sleep(50 * time.Millisecond) // let it start

				var took []time.Duration
				for range 20 {
					start := time.Now()
					runtime.GC()
					took = append(took, time.Since(start))
				}
				stillRunning := ctx.Err() == nil
				cancel()
				wg.Wait()
				slices.Sort(took)
				t.Logf("runtime.GC while %s ran: median %s, slowest %s", c.export, took[len(took)/2], took[len(took)-1])
				if median := took[len(took)/2]; median > 50*time.Millisecond {
					t.Errorf("runtime.GC took %s (median of 20) while %s ran, want at most 50ms; all: %s", median, c.export, took)
				}
				var ce *abi.CallError
				if !stillRunning || !errors.As(callErr, &ce) || ce.Kind != abi.KindCancelled {
					t.Errorf("the guest was not running until cancelled: %v", callErr)
				}
				if !inst.Dead() {
					t.Errorf("the instance is not dead after its call was cancelled")
				}
			})
		}
	}
}

// A call that ends after its deadline passed (the watcher fired) leaves
// the instance dead, even when the call itself succeeded; a call that
// ends before leaves it usable.
func TestInstanceAfterDeadline(t *testing.T) {
	for _, way := range callWays {
		t.Run(way.name, func(t *testing.T) {
			p, inst := compile(t, "hostile")
			for range 3 {
				out, err := way.call(inst, context.Background(), time.Now().Add(time.Minute), "echo", []byte(`{"x":1}`))
				if err != nil || string(out) != `{"x":1}` || inst.Dead() {
					t.Fatalf("echo = %q, %v (dead %v)", out, err, inst.Dead())
				}
			}
			inst, err := p.NewInstance(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer inst.Close(context.Background())
			// The guest sleeps past the deadline in a host call, which
			// wakes it: the call fails as timed out.
			_, err = way.call(inst, context.Background(), time.Now().Add(20*time.Millisecond), "sleep", []byte(`{"ms":1000}`))
			var ce *abi.CallError
			if !errors.As(err, &ce) || ce.Kind != abi.KindTimeout || !inst.Dead() {
				t.Fatalf("sleep past the deadline: %v (dead %v)", err, inst.Dead())
			}
		})
	}
}

// TestCallUntilReusesItsContext checks what CallUntil's one context per
// instance must hold between calls: a call sees its own deadline and
// values, not the last call's; an alarm cleared by a call that returned
// does not ring after it.
func TestCallUntilReusesItsContext(t *testing.T) {
	p, inst := compile(t, "hostile")
	var w deadline.Watch
	defer w.Stop()
	type key struct{}
	for i := range 20 {
		// Each alarm is due 20 ms after its call, which returns sooner:
		// the next call starts after the last alarm's time has passed.
		at := time.Now().Add(20 * time.Millisecond)
		ctx := context.WithValue(context.Background(), key{}, i)
		_, err := inst.CallUntil(ctx, &w, at, "echo", []byte(`{}`))
		if time.Now().After(at) {
			// A loaded machine: this call's own alarm may have rung, and
			// ended the instance. Go on with a new one.
			if inst, err = p.NewInstance(context.Background()); err != nil {
				t.Fatal(err)
			}
			defer inst.Close(context.Background())
			continue
		}
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		c := inst.cc
		if d, _ := c.Deadline(); !d.Equal(at) || c.Value(key{}) != i {
			t.Fatalf("call %d ran with deadline %v and value %v, want %v and %d", i, d, c.Value(key{}), at, i)
		}
		time.Sleep(25 * time.Millisecond)
		if inst.Dead() || c.Err() != nil {
			t.Fatalf("after call %d: a cleared alarm rang (%v)", i, c.Err())
		}
	}
	// A deadline of ctx that comes first is the call's.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := inst.CallUntil(ctx, &w, time.Now().Add(time.Hour), "echo", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if d, _ := inst.cc.Deadline(); time.Until(d) > time.Minute {
		t.Errorf("the call's deadline is %v, after ctx's", d)
	}
	// A ctx that has ended already: the call does not run, and the
	// instance stays usable.
	cancel()
	_, err := inst.CallUntil(ctx, &w, time.Now().Add(time.Hour), "echo", []byte(`{}`))
	var ce *abi.CallError
	if !errors.As(err, &ce) || ce.Kind != abi.KindCancelled || inst.Dead() {
		t.Fatalf("a call with an ended ctx: %v (dead %v)", err, inst.Dead())
	}
	if _, err := inst.CallUntil(context.Background(), &w, time.Now().Add(time.Hour), "echo", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
}

// TestLeanAdd checks the lean test module (testdata/plugins/lean.wat).
func TestLeanAdd(t *testing.T) {
	p, inst := compile(t, "lean")
	if len(p.Info.Tools) != 1 || p.Info.Tools[0].Name != "add" {
		t.Fatalf("tools: %+v", p.Info.Tools)
	}
	for in, want := range map[string]string{
		`{"a":5,"b":3}`:                                     "8",
		`{ "b" : -7 , "a" : 2 }`:                            "-5",
		`{"a":0,"b":0}`:                                     "0",
		`{"x":"\"a\":9","a":1,"b":2,"c":[1]}`:               "3",
		`{"a":999999999999999999,"b":1}`:                    "1000000000000000000",
		`{"a":-999999999999999999,"b":-999999999999999999}`: "-1999999999999999998",
	} {
		out, err := p.ABI.CallTool(context.Background(), inst, "add", []byte(in))
		if err != nil || string(out.Text) != want {
			t.Errorf("add %s = %q, %v; want %q", in, out.Text, err, want)
		}
	}
	for _, in := range []string{`{"a":1}`, `{"a":1.5,"b":2}`, `{"a":"1","b":2}`, `{"a":1e3,"b":2}`, `{"a":1,"b":1234567890123456789}`, `"a`} {
		_, err := p.ABI.CallTool(context.Background(), inst, "add", []byte(in))
		var ce *abi.CallError
		if !errors.As(err, &ce) || ce.Kind != abi.KindError || ce.Msg != "Invalid arguments: expected an object with integers a and b" {
			t.Errorf("add %s: got %v, want the invalid-arguments error", in, err)
		}
	}
	if inst.Dead() {
		t.Error("an argument error left the instance dead")
	}
}

// BenchmarkCall is the cost of one tool call through the loader (the ABI,
// the instance, wazero and the guest), serially: the Go calculator
// example, the sea-flea fixture's add (a Go guest on the raw go-pdk) and
// the lean module's add (WebAssembly text).
func BenchmarkCall(b *testing.B) {
	for _, c := range []struct{ name, path, tool, args string }{
		{"calculator", filepath.Join("..", "examples", "plugins", "calculator.wasm"), "calculate", `{"operation":"add","a":5,"b":3}`},
		{"seaflea", filepath.Join("..", "testdata", "plugins", "seaflea.wasm"), "add", `{"a":5,"b":3}`},
		{"lean", filepath.Join("..", "testdata", "plugins", "lean.wasm"), "add", `{"a":5,"b":3}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			if _, err := os.Stat(c.path); err != nil {
				b.Skipf("%s is not built: run make plugins", c.path)
			}
			spec := PluginSpec{Name: c.name, Path: c.path, Key: "plugins[0]"}
			spec.Limits.fill()
			mod, err := Fetch(context.Background(), spec)
			if err != nil {
				b.Fatal(err)
			}
			p, inst := compileModule(b, spec, mod)
			args := []byte(c.args)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			b.ReportAllocs()
			for b.Loop() {
				callCtx, callCancel := context.WithTimeout(ctx, time.Minute) // as the gateway's invoke
				out, err := p.ABI.CallTool(callCtx, inst, c.tool, args)
				callCancel()
				if err != nil || string(out.Text) != "8" {
					b.Fatalf("%s = %q, %v", c.tool, out.Text, err)
				}
			}
		})
	}
}

// BenchmarkInterceptorPhase: one phase of the WebAssembly-text no-op
// interceptor (examples/interceptors/noop.wasm) on one instance, bounded
// as the gateway bounded it before CallUntil (a timeout context of a
// deadline.Watch and Call), by CallUntil, and unbounded (Extism's call
// alone, the floor), then Extism's call alone with an input of 10 KiB,
// which the no-op does not read: what the kernel's reset costs
// (third_party/extism-go-sdk patch 0009).
//
//	go test -run '^$' -bench InterceptorPhase ./loader
func BenchmarkInterceptorPhase(b *testing.B) {
	spec := PluginSpec{Name: "noop", Path: filepath.Join("..", "examples", "interceptors", "noop.wasm"), Key: "interceptors[0]"}
	if _, err := os.Stat(spec.Path); err != nil {
		b.Skipf("%s is not built: run make plugins", spec.Path)
	}
	spec.Limits.fill()
	mod, err := Fetch(context.Background(), spec)
	if err != nil {
		b.Fatal(err)
	}
	c, err := NewCompiler(filepath.Join(os.TempDir(), "wasmgate-test-cache"), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close(context.Background())
	p, inst, err := c.CompileInterceptor(context.Background(), spec, mod, "intercept_request")
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close(context.Background())
	defer inst.Close(context.Background())
	in := []byte(`{"phase":"request","method":"tools/call","tool":"calculate","arguments":{"a":5,"b":3}}`)
	big := []byte(`{"phase":"response","method":"tools/call","result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 10<<10) + `"}]}}`)
	ctx, cancel := context.WithCancel(context.Background()) // a request's context can end
	defer cancel()
	var w deadline.Watch
	defer w.Stop()
	for _, way := range []struct {
		name string
		call func() error
	}{
		{"timeout-context", func() error {
			c, cancel := w.WithTimeout(ctx, time.Second)
			defer cancel()
			_, err := inst.Call(c, "intercept_request", in)
			return err
		}},
		{"CallUntil", func() error {
			_, err := inst.CallUntil(ctx, &w, time.Now().Add(time.Second), "intercept_request", in)
			return err
		}},
		{"extism-alone", func() error {
			_, _, err := inst.p.CallWithContext(context.Background(), "intercept_request", in)
			return err
		}},
		{"extism-alone-10KiB", func() error {
			_, _, err := inst.p.CallWithContext(context.Background(), "intercept_request", big)
			return err
		}},
	} {
		b.Run(way.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := way.call(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
