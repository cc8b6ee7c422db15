package loader

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/loader/abi"
)

func input(s string) func([]byte) []byte {
	return func(b []byte) []byte { return append(b, s...) }
}

// TestPool checks loader.Pool: the instance used last is used next, a
// call waits for a free instance until its deadline and no longer
// (ErrNoInstance), and an instance a call leaves dead is replaced.
func TestPool(t *testing.T) {
	p, first := compile(t, "hostile")
	pool := NewPool(p, first, 2, nil)
	ctx := context.Background()
	later := func() time.Time { return time.Now().Add(time.Minute) }

	// Two calls at once take both instances (the second one new).
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := pool.Call(ctx, later(), "sleep", input(`{"ms":100}`)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if len(pool.idle) != 2 {
		t.Fatalf("%d idle instances after two calls at once, want 2", len(pool.idle))
	}
	// One call at a time: always the one on top.
	top := pool.idle[1]
	for range 5 {
		if out, err := pool.Call(ctx, later(), "echo", input(`{"x":1}`)); err != nil || string(out) != `{"x":1}` {
			t.Fatalf("echo = %q, %v", out, err)
		}
		if pool.idle[1] != top {
			t.Fatal("a call took another instance than the one used last")
		}
	}

	// Both busy: a call waits until its deadline, then fails.
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pool.Call(ctx, later(), "sleep", input(`{"ms":300}`))
		}()
	}
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	_, err := pool.Call(ctx, start.Add(50*time.Millisecond), "echo", input(`{}`))
	if !errors.Is(err, ErrNoInstance) || time.Since(start) < 50*time.Millisecond {
		t.Fatalf("with both instances busy: %v after %v, want ErrNoInstance after 50ms", err, time.Since(start))
	}
	wg.Wait()

	// A call that times out leaves its instance dead: it is closed, and
	// the next call starts one.
	_, err = pool.Call(ctx, time.Now().Add(20*time.Millisecond), "sleep", input(`{"ms":1000}`))
	var ce *abi.CallError
	if !errors.As(err, &ce) || ce.Kind != abi.KindTimeout {
		t.Fatalf("sleep past the deadline: %v", err)
	}
	if len(pool.idle) != 1 {
		t.Fatalf("%d idle instances after a timeout, want 1 (the dead one closed)", len(pool.idle))
	}
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := pool.Call(ctx, later(), "echo", input(`{}`)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if err := pool.Close(ctx); err != nil {
		t.Fatal(err)
	}
}
