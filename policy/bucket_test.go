package policy

import (
	"math/rand/v2"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// TestBucketAsTokenBucket takes from a bucket and from x/time/rate's
// Limiter with the same limit at the same random times: they pass and
// refuse the same calls, and a refusal's wait is the Limiter's delay.
func TestBucketAsTokenBucket(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		limit rate.Limit
		burst int
	}{{10, 3}, {1, 1}, {1000, 50}, {0.5, 2}, {250, 1}} {
		b := newBucket(t0, c.limit, c.burst)
		lim := rate.NewLimiter(c.limit, c.burst)
		now := t0
		interval := time.Duration(float64(time.Second) / float64(c.limit))
		for i := range 2000 {
			now = now.Add(time.Duration(r.Int64N(int64(interval) * 2)))
			ok, wait := b.take(now)
			res := lim.ReserveN(now, 1)
			delay := res.DelayFrom(now)
			if delay > 0 {
				res.CancelAt(now)
			}
			if ok != (delay == 0) || (!ok && (wait-delay > time.Microsecond || delay-wait > time.Microsecond)) {
				t.Fatalf("%v/s burst %d, call %d at +%v: bucket ok=%v wait=%v, x/time/rate delay %v", float64(c.limit), c.burst, i, now.Sub(t0), ok, wait, delay)
			}
		}
	}
}

// TestBucketGive: a token given back is there for the next call.
func TestBucketGive(t *testing.T) {
	b := newBucket(t0, 1, 2)
	for range 2 {
		if ok, _ := b.take(t0); !ok {
			t.Fatal("a full bucket of 2 refused")
		}
	}
	if ok, wait := b.take(t0); ok || wait != time.Second {
		t.Fatalf("empty bucket: ok=%v wait=%v, want refused for 1s", ok, wait)
	}
	b.give()
	if ok, _ := b.take(t0); !ok {
		t.Fatal("the token given back is not there")
	}
	if b.full(t0.Add(time.Second)) || !b.full(t0.Add(2*time.Second)) {
		t.Fatal("full() is wrong: two tokens taken at t0 refill at t0+2s")
	}
	if ok, _ := newBucket(t0, rate.Inf, 0).take(t0); !ok {
		t.Fatal("rate.Inf refused")
	}
	// The lowest rate ParseRate accepts: its burst, then nothing.
	slow := newBucket(t0, rate.Limit(5e-324), 3)
	for range 3 {
		if ok, _ := slow.take(t0); !ok {
			t.Fatal("a full bucket of a tiny rate refused")
		}
	}
	for range 3 {
		if ok, wait := slow.take(t0.Add(time.Hour)); ok || wait <= 0 {
			t.Fatalf("a tiny rate: ok=%v wait=%v after one token, want refused", ok, wait)
		}
	}
}
