package deadline

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"
)

type key struct{}

// TestLikeWithTimeout checks a context of a Watch against what
// context.WithTimeout's would do, in each way a call's context ends.
func TestLikeWithTimeout(t *testing.T) {
	var w Watch
	parent := context.WithValue(context.Background(), key{}, "v")

	t.Run("deadline", func(t *testing.T) {
		start := time.Now()
		ctx, cancel := w.WithTimeout(parent, 50*time.Millisecond)
		defer cancel()
		if d, ok := ctx.Deadline(); !ok || d.Sub(start) < 50*time.Millisecond || d.Sub(start) > 60*time.Millisecond {
			t.Fatalf("Deadline() = %v, %v; want start+50ms", d, ok)
		}
		if ctx.Value(key{}) != "v" {
			t.Fatal("the parent's value is lost")
		}
		child, cc := context.WithCancel(ctx)
		defer cc()
		later, lc := context.WithTimeout(ctx, time.Hour)
		defer lc()
		if err := ctx.Err(); err != nil {
			t.Fatalf("Err() before the deadline = %v", err)
		}
		<-ctx.Done()
		if took := time.Since(start); took < 50*time.Millisecond {
			t.Fatalf("ended after %v, before its deadline", took)
		}
		for name, c := range map[string]context.Context{"ctx": ctx, "derived": child, "derived with a later timeout": later} {
			<-c.Done()
			if !errors.Is(c.Err(), context.DeadlineExceeded) || !errors.Is(context.Cause(c), context.DeadlineExceeded) {
				t.Errorf("%s: Err() = %v, Cause = %v; want context.DeadlineExceeded", name, c.Err(), context.Cause(c))
			}
		}
		after := make(chan struct{})
		context.AfterFunc(ctx, func() { close(after) })
		<-after
	})

	t.Run("cancel", func(t *testing.T) {
		ctx, cancel := w.WithTimeout(parent, time.Hour)
		child, cc := context.WithCancel(ctx)
		defer cc()
		cancel()
		<-child.Done()
		if ctx.Err() != context.Canceled || child.Err() != context.Canceled {
			t.Fatalf("Err() = %v, derived %v; want context.Canceled", ctx.Err(), child.Err())
		}
		cancel() // twice is fine
	})

	t.Run("parent canceled", func(t *testing.T) {
		p, pcancel := context.WithCancelCause(parent)
		ctx, cancel := w.WithTimeout(p, time.Hour)
		defer cancel()
		child, cc := context.WithCancel(ctx)
		defer cc()
		why := errors.New("client went away")
		pcancel(why)
		<-child.Done()
		if ctx.Err() != context.Canceled || child.Err() != context.Canceled {
			t.Fatalf("Err() = %v, derived %v; want context.Canceled", ctx.Err(), child.Err())
		}
		if context.Cause(child) != why {
			t.Fatalf("Cause = %v; want the parent's", context.Cause(child))
		}
	})

	t.Run("parent ends first", func(t *testing.T) {
		p, pcancel := context.WithTimeout(parent, 20*time.Millisecond)
		defer pcancel()
		pd, _ := p.Deadline()
		ctx, cancel := w.WithTimeout(p, time.Hour)
		defer cancel()
		if d, _ := ctx.Deadline(); !d.Equal(pd) {
			t.Fatalf("Deadline() = %v; want the parent's %v", d, pd)
		}
		<-ctx.Done()
		if ctx.Err() != context.DeadlineExceeded {
			t.Fatalf("Err() = %v; want context.DeadlineExceeded", ctx.Err())
		}
	})

	t.Run("parent already done", func(t *testing.T) {
		p, pcancel := context.WithCancel(parent)
		pcancel()
		ctx, cancel := w.WithTimeout(p, time.Hour)
		defer cancel()
		<-ctx.Done()
		if ctx.Err() != context.Canceled {
			t.Fatalf("Err() = %v; want context.Canceled", ctx.Err())
		}
	})

	t.Run("no time", func(t *testing.T) {
		ctx, cancel := w.WithTimeout(parent, 0)
		defer cancel()
		if ctx.Err() != context.DeadlineExceeded {
			t.Fatalf("Err() = %v; want context.DeadlineExceeded", ctx.Err())
		}
	})
}

// TestManyDeadlines runs calls with mixed timeouts at once, some done
// before their time and some not: every one that runs past its deadline
// ends within a few milliseconds of it, none ends early, and the Watch
// keeps nothing of them afterwards.
func TestManyDeadlines(t *testing.T) {
	var w Watch
	defer w.Stop()
	before := runtime.NumGoroutine()
	timeouts := []time.Duration{30 * time.Millisecond, 80 * time.Millisecond, 10 * time.Millisecond, 200 * time.Millisecond}
	var wg sync.WaitGroup
	errs := make(chan error, 400)
	for i := range 400 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := timeouts[i%len(timeouts)]
			start := time.Now()
			ctx, cancel := w.WithTimeout(context.Background(), d)
			defer cancel()
			if i%3 == 0 { // done in time
				time.Sleep(d / 4)
				if ctx.Err() != nil && time.Since(start) < d {
					errs <- errors.New("a call ended before its deadline")
				}
				return
			}
			<-ctx.Done()
			took := time.Since(start)
			if took < d || took > d+250*time.Millisecond {
				errs <- errors.New("a deadline of " + d.String() + " ended the call after " + took.String())
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	w.mu.Lock()
	left := w.head
	w.mu.Unlock()
	if left != nil {
		t.Error("calls done are still in the Watch's list")
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines left (%d before)", n, before)
	}
}

// TestTimerFollowsEarliest: a call with a shorter timeout than those in
// flight still ends on time (the timer moves earlier), and a timer that
// fires for a call already done sets itself for the next.
func TestTimerFollowsEarliest(t *testing.T) {
	var w Watch
	defer w.Stop()
	_, c1 := w.WithTimeout(context.Background(), 20*time.Millisecond)
	c1() // done: the timer still fires at 20 ms, for nothing
	long, c2 := w.WithTimeout(context.Background(), 150*time.Millisecond)
	defer c2()
	short, c3 := w.WithTimeout(context.Background(), 40*time.Millisecond)
	defer c3()
	start := time.Now()
	<-short.Done()
	if took := time.Since(start); took > 35*time.Millisecond+100*time.Millisecond {
		t.Errorf("40 ms timeout ended after %v", took)
	}
	if long.Err() != nil {
		t.Fatal("the 150 ms call ended with the 40 ms one")
	}
	<-long.Done()
	if took := time.Since(start); took < 100*time.Millisecond {
		t.Errorf("150 ms timeout ended after %v", took)
	}
}

// BenchmarkWithTimeout compares a call's context from a Watch with
// context.WithTimeout's, made and released as a call does.
func BenchmarkWithTimeout(b *testing.B) {
	parent, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.Run("watch", func(b *testing.B) {
		var w Watch
		defer w.Stop()
		b.ReportAllocs()
		for b.Loop() {
			_, c := w.WithTimeout(parent, time.Minute)
			c()
		}
	})
	b.Run("context", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, c := context.WithTimeout(parent, time.Minute)
			c()
		}
	})
}

// TestAlarm checks an Alarm's contract: it rings at its time, again
// when its function asks, not after Clear, and beside WithTimeout's
// contexts on the same Watch.
func TestAlarm(t *testing.T) {
	var w Watch
	defer w.Stop()
	var mu sync.Mutex
	var rang []time.Duration
	start := time.Now()
	a := NewAlarm(func(now time.Time) time.Time {
		mu.Lock()
		defer mu.Unlock()
		rang = append(rang, now.Sub(start))
		if len(rang) < 3 {
			return now.Add(10 * time.Millisecond) // twice more
		}
		return time.Time{}
	})
	w.Set(a, start.Add(10*time.Millisecond))
	// A context due later, on the same Watch, still ends at its time.
	ctx, cancel := w.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	<-ctx.Done()
	mu.Lock()
	if len(rang) != 3 || rang[0] < 10*time.Millisecond || rang[2] < 30*time.Millisecond {
		t.Errorf("the alarm rang at %v, want 3 times, from 10ms, 10ms apart", rang)
	}
	mu.Unlock()
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) || time.Since(start) < 100*time.Millisecond {
		t.Errorf("the context ended after %v with %v", time.Since(start), ctx.Err())
	}

	// Cleared before its time, it never rings; Set again, it does.
	mu.Lock()
	rang = nil
	mu.Unlock()
	b := NewAlarm(func(now time.Time) time.Time {
		mu.Lock()
		defer mu.Unlock()
		rang = append(rang, now.Sub(start))
		return time.Time{}
	})
	w.Set(b, time.Now().Add(20*time.Millisecond))
	w.Clear(b)
	time.Sleep(40 * time.Millisecond)
	start = time.Now()
	w.Set(b, start.Add(10*time.Millisecond))
	time.Sleep(40 * time.Millisecond)
	w.Clear(b) // rang already: nothing to take out
	mu.Lock()
	defer mu.Unlock()
	if len(rang) != 1 || rang[0] < 10*time.Millisecond {
		t.Errorf("a cleared then set alarm rang at %v, want once, from 10ms", rang)
	}
}
