package state

import (
	"context"
	"sync"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"golang.org/x/time/rate"
)

// The global rate limits: each bucket of policy's limiters (a rule's
// rate_limit for one principal and name, policy.rate_limit for one
// principal) is a GCRA cell of redis_rate under rate:<key_prefix>rl:<key>,
// so the configured rate holds across every replica. A bucket's key is
// its rule's fingerprint with the principal and the name, so a reload that
// keeps a rule keeps its state, as in memory.
//
// A bucket whose rate is high enough for several calls to fall in one
// lease window (leaseWindow: at least 2 tokens per window) is leased: a
// replica takes several tokens in one round trip (AllowAtMost, so never
// more than the bucket has) and spends them locally for up to
// leaseWindow. Tokens are taken from Redis before they are spent, so all
// replicas together never exceed the configured rate and burst; a token
// is spent at most leaseWindow after Redis let it go, and a lease's
// unspent tokens are lost when it expires (that bucket then allows a
// little less than its rate). The next lease asks for twice what the
// last one had when all of it was spent, and only what was spent when it
// expired: a bucket called rarely on a replica costs one round trip per
// call, as a low-rate bucket always does, and a busy one about one per
// maxLease calls. When Redis refuses a bucket (leased or not), it says
// when the next token comes; until then the replica refuses that
// bucket's calls itself, so a flood of calls over the limit costs Redis
// one round trip per refill, not one per call.
const (
	leaseWindow = 50 * time.Millisecond
	maxLease    = 64
	maxLeases   = 10000 // buckets with a lease kept per replica; beyond, the expired go first, then a bucket pays a round trip per call
)

// leases are the buckets this replica holds tokens of.
type leases struct {
	mu sync.Mutex
	m  map[string]*lease
}

// lease is one bucket's tokens on this replica. turn is held (a
// one-slot channel, so a waiter can give up with its context) by the
// call refilling it: one round trip at a time per bucket.
type lease struct {
	turn    chan struct{}
	left    int       // tokens taken and not spent
	size    int       // what the last refill got
	expires time.Time // when left is given up
	empty   time.Time // the bucket has no token before then (Redis said so)
}

// get is key's lease, a new one when there is room; nil when there is
// none.
func (ls *leases) get(key string, now time.Time) *lease {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if le, ok := ls.m[key]; ok {
		return le
	}
	if ls.m == nil {
		ls.m = map[string]*lease{}
	}
	if len(ls.m) >= maxLeases {
		for k, le := range ls.m {
			if len(le.turn) == 0 && now.After(le.expires) {
				delete(ls.m, k)
			}
		}
		if len(ls.m) >= maxLeases {
			return nil
		}
	}
	le := &lease{turn: make(chan struct{}, 1)}
	ls.m[key] = le
	return le
}

// leaseSize is the most tokens a lease of a bucket of limit and burst
// takes: 0 when fewer than 2 tokens come in a window (every call is a
// round trip), and never more than a quarter of the burst.
func leaseSize(limit rate.Limit, burst int) int {
	n := min(float64(limit)*leaseWindow.Seconds(), float64(burst)/4, maxLease)
	if n < 2 {
		return 0
	}
	return int(n)
}

// Take takes one token from the bucket at key, refilled at limit per
// second up to burst. ok false: retry is when one will be there. Redis
// unavailable: with on_unavailable fail_open the call is let through
// (ok, no error); with fail_closed err says why.
func (s *Store) Take(ctx context.Context, key string, limit rate.Limit, burst int) (ok bool, retry time.Duration, err error) {
	if limit <= 0 || burst < 1 {
		return false, time.Second, nil
	}
	l := redis_rate.Limit{Rate: 1, Burst: burst, Period: time.Duration(float64(time.Second) / float64(limit))}
	if limit == rate.Limit(int(limit)) {
		l = redis_rate.Limit{Rate: int(limit), Burst: burst, Period: time.Second}
	}
	n := max(leaseSize(limit, burst), 1) // 1: no lease, every token a round trip
	le := s.leases.get(key, time.Now())
	if le == nil {
		return s.take(ctx, key, l, 1, nil)
	}
	select {
	case le.turn <- struct{}{}:
	case <-ctx.Done(): // behind a refill that Redis is slow to answer
		if s.FailOpen() {
			return true, 0, nil
		}
		return false, 0, s.unavailable("the rate limit's shared state is (state.on_unavailable is fail_closed)", context.Cause(ctx))
	}
	defer func() { <-le.turn }()
	now := time.Now()
	if le.left > 0 && now.Before(le.expires) {
		le.left--
		return true, 0, nil
	}
	if now.Before(le.empty) {
		return false, le.empty.Sub(now), nil // refused here, without asking again
	}
	want := 1
	switch {
	case le.size > 0 && le.left == 0:
		want = min(n, 2*le.size) // all spent: the bucket is busy here
	case le.size > 0:
		want = max(1, le.size-le.left) // expired: what was spent
	}
	le.left, le.size = 0, 0
	return s.take(ctx, key, l, want, le)
}

// take takes up to want tokens (at least one) from the bucket at key in
// one round trip; with le, the ones beyond this call's are kept there.
func (s *Store) take(ctx context.Context, key string, l redis_rate.Limit, want int, le *lease) (bool, time.Duration, error) {
	var res *redis_rate.Result
	var err error
	if want == 1 {
		res, err = s.rate.Allow(ctx, s.key("rl", key), l)
	} else {
		res, err = s.rate.AllowAtMost(ctx, s.key("rl", key), l, want)
	}
	if err != nil {
		if s.FailOpen() {
			return true, 0, nil
		}
		return false, 0, s.unavailable("the rate limit's shared state is (state.on_unavailable is fail_closed)", err)
	}
	if res.Allowed <= 0 {
		retry := max(res.RetryAfter, time.Millisecond)
		if le != nil {
			le.empty = time.Now().Add(retry)
		}
		return false, retry, nil
	}
	if le != nil {
		le.size, le.left, le.expires = res.Allowed, res.Allowed-1, time.Now().Add(leaseWindow)
	}
	return true, 0, nil
}
