package policy

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var t0 = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// limited is a policy with one rate-limited rule: 10/s, burst 3, on calc_*.
func limited(t testing.TB, extra ...Rule) *Policy {
	rules := append(extra, Rule{Principals: all("*"), Allow: Match{Tools: all("calc_*")}, RateLimit: &RateLimit{Rate: "10/s", Burst: 3}})
	return mustNew(t, Config{Default: "allow", Rules: rules})
}

// take calls AllowAt n times at now and returns how many passed and the
// last retry hint.
func take(l *Limiters, now time.Time, pol *Policy, principal, name string, n int) (passed int, retry time.Duration) {
	d := pol.Decide(tool(who(principal), name))
	for range n {
		ok, r := l.AllowAt(now, pol, d, principal, name)
		if ok {
			passed++
		}
		retry = r
	}
	return passed, retry
}

func TestLimitersBurstAndRefill(t *testing.T) {
	pol := limited(t)
	var l Limiters
	if n, retry := take(&l, t0, pol, "a", "calc_add", 5); n != 3 || retry != 100*time.Millisecond {
		t.Fatalf("at t0: %d passed (retry %v), want the burst of 3 and retry 100ms", n, retry)
	}
	// Other principals and other tools have their own buckets.
	if n, _ := take(&l, t0, pol, "b", "calc_add", 5); n != 3 {
		t.Errorf("another principal: %d passed, want 3", n)
	}
	if n, _ := take(&l, t0, pol, "a", "calc_sub", 5); n != 3 {
		t.Errorf("another tool: %d passed, want 3", n)
	}
	// A call allowed by the default has no rule limit.
	if n, _ := take(&l, t0, pol, "a", "other", 50); n != 50 {
		t.Errorf("unlimited tool: %d passed, want 50", n)
	}
	// Refill: one token per 100ms.
	if n, retry := take(&l, t0.Add(50*time.Millisecond), pol, "a", "calc_add", 1); n != 0 || retry != 50*time.Millisecond {
		t.Errorf("at +50ms: %d passed (retry %v), want 0 and retry 50ms", n, retry)
	}
	if n, _ := take(&l, t0.Add(100*time.Millisecond), pol, "a", "calc_add", 2); n != 1 {
		t.Errorf("at +100ms: %d passed, want 1", n)
	}
	if n, _ := take(&l, t0.Add(time.Hour), pol, "a", "calc_add", 5); n != 3 {
		t.Errorf("after an hour: %d passed, want the burst of 3", n)
	}
}

func TestLimitersGatewayWide(t *testing.T) {
	pol := mustNew(t, Config{
		Default:   "allow",
		RateLimit: &RateLimit{Rate: "1/s", Burst: 4},
		Rules:     []Rule{{Principals: all("*"), Allow: Match{Tools: all("one")}, RateLimit: &RateLimit{Rate: "1/h", Burst: 1}}},
	})
	var l Limiters
	// The rule's bucket is empty after one call; the refused second call
	// does not take a token from the gateway-wide bucket.
	if n, retry := take(&l, t0, pol, "a", "one", 2); n != 1 || retry != time.Hour {
		t.Fatalf("one: %d passed (retry %v), want 1 and retry 1h", n, retry)
	}
	// The gateway-wide bucket spans tools: 3 left of 4.
	if n, retry := take(&l, t0, pol, "a", "x", 2); n != 2 {
		t.Errorf("x: %d passed (retry %v), want 2", n, retry)
	}
	if n, retry := take(&l, t0, pol, "a", "y", 2); n != 1 || retry != time.Second {
		t.Errorf("y: %d passed (retry %v), want 1 and retry 1s", n, retry)
	}
	// Per principal.
	if n, _ := take(&l, t0, pol, "b", "y", 9); n != 4 {
		t.Errorf("b: %d passed, want 4", n)
	}
	// Both limits short: the hint is the longer wait.
	if _, retry := take(&l, t0, pol, "a", "one", 1); retry != time.Hour {
		t.Errorf("both short: retry %v, want 1h", retry)
	}
}

func TestLimitersNoLimits(t *testing.T) {
	var l Limiters
	pol := limited(t, Rule{Principals: all("x"), Deny: Match{Tools: all("calc_bad")}})
	for _, c := range []struct {
		pol *Policy
		d   Decision
	}{
		{nil, Decision{Allowed: true, Rule: -1}},
		{pol, pol.Decide(tool(who("x"), "calc_bad"))},
		{pol, pol.Decide(tool(who("x"), "free"))},
	} {
		for range 10 {
			if ok, retry := l.AllowAt(t0, c.pol, c.d, "x", "calc_bad"); !ok || retry != 0 {
				t.Fatalf("AllowAt(%v) = %v, %v; want ok", c.d, ok, retry)
			}
		}
	}
	if l.Len() != 0 {
		t.Errorf("%d buckets, want none", l.Len())
	}
}

func TestLimitersAcrossReloads(t *testing.T) {
	var l Limiters
	pol := limited(t)
	if n, _ := take(&l, t0, pol, "a", "calc_add", 3); n != 3 {
		t.Fatalf("%d passed, want 3", n)
	}
	// The same rule, now second in the file: same bucket, still empty.
	same := limited(t, Rule{Principals: all("x"), Allow: Match{Tools: all("other")}, RateLimit: &RateLimit{Rate: "1/s"}})
	l.Retain(same)
	if n, _ := take(&l, t0, same, "a", "calc_add", 1); n != 0 {
		t.Errorf("unchanged rule after reload: %d passed, want 0 (state kept)", n)
	}
	// An edited rule starts fresh.
	edited := mustNew(t, Config{Default: "allow", Rules: []Rule{{Principals: all("*"), Allow: Match{Tools: all("calc_*")}, RateLimit: &RateLimit{Rate: "10/s", Burst: 4}}}})
	if n, _ := take(&l, t0, edited, "a", "calc_add", 9); n != 4 {
		t.Errorf("edited rule: %d passed, want its new burst of 4", n)
	}
	// Retain drops the old rule's buckets.
	if l.Len() != 2 {
		t.Fatalf("%d buckets before Retain, want 2", l.Len())
	}
	l.Retain(edited)
	if l.Len() != 1 {
		t.Errorf("%d buckets after Retain, want 1", l.Len())
	}
	if n, _ := take(&l, t0, pol, "a", "calc_add", 9); n != 3 {
		t.Errorf("the first rule again: %d passed, want a fresh burst of 3", n)
	}
	l.Retain(nil)
	if l.Len() != 0 {
		t.Errorf("%d buckets after Retain(nil), want 0", l.Len())
	}
	// The gateway-wide bucket follows its own content.
	gw := func(r Rate) *Policy {
		return mustNew(t, Config{Default: "allow", RateLimit: &RateLimit{Rate: r, Burst: 2}})
	}
	if n, _ := take(&l, t0, gw("1/h"), "a", "x", 5); n != 2 {
		t.Fatalf("gateway: %d passed, want 2", n)
	}
	l.Retain(gw("1/h"))
	if n, _ := take(&l, t0, gw("1/h"), "a", "x", 5); n != 0 {
		t.Errorf("gateway limit unchanged: %d passed, want 0", n)
	}
	l.Retain(gw("2/h"))
	if n, _ := take(&l, t0, gw("2/h"), "a", "x", 5); n != 2 {
		t.Errorf("gateway limit changed: %d passed, want 2", n)
	}
}

func TestLimitersBounded(t *testing.T) {
	pol := limited(t)
	l := NewLimiters(100)
	now := t0
	for i := range 1000 {
		take(l, now, pol, fmt.Sprint("p", i), "calc_add", 1)
	}
	if n := l.Len(); n > 100 {
		t.Errorf("%d buckets, want at most 100", n)
	}
	tiny := NewLimiters(1)
	for i := range 10 {
		take(tiny, now, pol, fmt.Sprint("p", i), "calc_add", 1)
		if n := tiny.Len(); n != 1 {
			t.Fatalf("max 1: %d buckets", n)
		}
	}
	// The most recent principal kept its state.
	if n, _ := take(l, now, pol, "p999", "calc_add", 3); n != 2 {
		t.Errorf("recent principal: %d passed, want 2 (its bucket kept)", n)
	}
	// Idle buckets refill and go at the next sweep.
	now = now.Add(2 * sweepEvery)
	take(l, now, pol, "late", "calc_add", 1)
	if n := l.Len(); n != 1 {
		t.Errorf("%d buckets after the idle ones refilled, want 1", n)
	}
}

func TestLimitersConcurrent(t *testing.T) {
	// 1/h refills nothing while the test runs: exactly the burst passes,
	// however the goroutines interleave.
	pol := mustNew(t, Config{Default: "allow", Rules: []Rule{{Principals: all("*"), Allow: Match{Tools: all("*")}, RateLimit: &RateLimit{Rate: "1/h", Burst: 50}}}})
	other := mustNew(t, Config{Default: "allow", Rules: []Rule{{Principals: all("*"), Allow: Match{Tools: all("other")}, RateLimit: &RateLimit{Rate: "1/s"}}}})
	l := NewLimiters(0)
	var passed atomic.Int64
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			d := pol.Decide(tool(who("a"), "t"))
			for i := range 100 {
				if ok, _ := l.Allow(pol, d, "a", "t"); ok {
					passed.Add(1)
				}
				if i%10 == 0 {
					l.Retain(pol)
					l.Allow(other, other.Decide(tool(who("b"), "other")), fmt.Sprint("b", g), "other")
				}
			}
		})
	}
	wg.Wait()
	if n := passed.Load(); n != 50 {
		t.Errorf("%d calls passed, want the burst of 50", n)
	}
}

// Buckets made and dropped from many goroutines at once (new principals
// past the maximum, so that sweeps run beside lookups) stay bounded, and
// a principal that comes after them gets a bucket of its own.
func TestLimitersBoundedConcurrent(t *testing.T) {
	pol := limited(t)
	l := NewLimiters(50)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				take(l, t0, pol, fmt.Sprint("g", g, "p", i), "calc_add", 1)
			}
		})
	}
	wg.Wait()
	if n := l.Len(); n > 50 || n < 1 {
		t.Errorf("%d buckets, want 1 to 50", n)
	}
	if n, _ := take(l, t0, pol, "last", "calc_add", 4); n != 3 {
		t.Errorf("a new principal: %d of 4 passed, want its burst of 3", n)
	}
}

// benchLimiters is a policy whose rule and gateway-wide limit both have
// rate, its decision for principal a calling calc_add, and a Limiters.
func benchLimiters(b *testing.B, rate Rate) (*Policy, Decision, *Limiters) {
	pol := mustNew(b, Config{Default: "allow", RateLimit: &RateLimit{Rate: rate},
		Rules: []Rule{{Principals: all("*"), Allow: Match{Tools: all("*")}, RateLimit: &RateLimit{Rate: rate}}}})
	return pol, pol.Decide(tool(who("a"), "calc_add")), NewLimiters(0)
}

func BenchmarkLimitersAllow(b *testing.B) {
	pol, d, l := benchLimiters(b, "1000000/s")
	b.ReportAllocs()
	for b.Loop() {
		l.Allow(pol, d, "a", "calc_add")
	}
}

// BenchmarkLimitersAllowParallel is BenchmarkLimitersAllow from every
// core at once, as a busy gateway's calls take their buckets: the same
// principal and tool, so the same two buckets.
func BenchmarkLimitersAllowParallel(b *testing.B) {
	pol, d, l := benchLimiters(b, "1000000000/s")
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			l.Allow(pol, d, "a", "calc_add")
		}
	})
}
