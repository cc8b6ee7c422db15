package policy

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// DefaultMaxLimiters is how many limiters a Limiters keeps at most when
// NewLimiters is given 0.
const DefaultMaxLimiters = 100_000

// sweepEvery is how often idle limiters are dropped.
const sweepEvery = time.Minute

// Limiters holds the token buckets of a policy's rate limits: one per
// rule, principal and tool (prompt, resource URI) for a rule's
// rate_limit, and one per principal for the gateway-wide
// policy.rate_limit. The gateway owns one Limiters for its whole life and
// passes each call's Policy and Decision; the Policy may change on every
// reload.
//
// A rule's buckets are keyed by a fingerprint of the rule's content, so a
// reload that leaves a rule as it was keeps its state, and an edited rule
// starts with full buckets. Retain drops the buckets of rules that are
// gone. A bucket that has refilled is the same as a new one, so it is
// dropped when idle (checked every minute); if more than the maximum
// are in use at once, the least recently used are dropped, which can
// only hand their owners a fresh burst.
//
// The zero value is ready to use, with DefaultMaxLimiters. Limiters is
// safe for concurrent use.
type Limiters struct {
	mu        sync.Mutex
	entries   map[limiterKey]*limiterEntry
	max       int
	lastSweep time.Time

	shared atomic.Pointer[sharedRef] // state.backend redis; nil: in memory
}

// Shared keeps rate-limit buckets where every replica takes from them
// (state.backend: redis). Take takes one token from the bucket at key,
// refilled at limit up to burst; an error refuses the call with its
// message (a Shared that lets calls through while unavailable returns ok).
type Shared interface {
	Take(ctx context.Context, key string, limit rate.Limit, burst int) (ok bool, retry time.Duration, err error)
}

type sharedRef struct{ s Shared }

// Share makes every bucket live in s from now on; nil: in memory again.
func (l *Limiters) Share(s Shared) {
	if s == nil {
		l.shared.Store(nil)
		return
	}
	l.shared.Store(&sharedRef{s})
}

// AllowContext is Allow, with the buckets in the Shared store when there
// is one: its buckets are taken one after the other (a later one
// refusing does not give back the earlier ones' tokens), and err is the
// Shared store's refusal to answer.
func (l *Limiters) AllowContext(ctx context.Context, pol *Policy, d Decision, principal, name string) (ok bool, retryAfter time.Duration, err error) {
	ref := l.shared.Load()
	if ref == nil {
		ok, retryAfter = l.Allow(pol, d, principal, name)
		return ok, retryAfter, nil
	}
	if pol == nil || !d.Allowed || (len(d.Limits) == 0 && pol.global == nil) {
		return true, 0, nil
	}
	take := func(key limiterKey, rl *RuleLimit) (bool, time.Duration, error) {
		k := strings.Join([]string{key.id, key.principal, key.kind.String(), key.name}, "|")
		return ref.s.Take(ctx, k, rl.Limit, rl.Burst)
	}
	for _, rl := range d.Limits {
		if ok, retry, err := take(limiterKey{id: rl.id, principal: principal, kind: d.kind, name: name}, rl); !ok || err != nil {
			return false, retry, err
		}
	}
	if g := pol.global; g != nil {
		if ok, retry, err := take(limiterKey{id: g.id, principal: principal}, g); !ok || err != nil {
			return false, retry, err
		}
	}
	return true, 0, nil
}

type limiterKey struct {
	id        string // RuleLimit.id
	principal string
	kind      Kind
	name      string // empty for the gateway-wide limit
}

type limiterEntry struct {
	lim      *rate.Limiter
	lastUsed time.Time
}

// NewLimiters returns a Limiters keeping at most max buckets
// (DefaultMaxLimiters when max <= 0).
func NewLimiters(max int) *Limiters { return &Limiters{max: max} }

// Allow takes one token from each bucket the call falls under: those of
// d.Limits for this principal and name (the tool, prompt or resource URI),
// and pol's gateway-wide bucket for this principal. Either every bucket
// has a token and all are taken, or none is taken and retryAfter says
// when the emptiest will have one. No policy, a denied Decision or no
// limits: ok, and nothing is counted.
func (l *Limiters) Allow(pol *Policy, d Decision, principal, name string) (ok bool, retryAfter time.Duration) {
	return l.AllowAt(time.Now(), pol, d, principal, name)
}

// AllowAt is Allow at the time now (for tests with a fake clock).
func (l *Limiters) AllowAt(now time.Time, pol *Policy, d Decision, principal, name string) (ok bool, retryAfter time.Duration) {
	if pol == nil || !d.Allowed || (len(d.Limits) == 0 && pol.global == nil) {
		return true, 0
	}
	var lbuf [4]*rate.Limiter
	lims := lbuf[:0]
	l.mu.Lock()
	if now.Sub(l.lastSweep) >= sweepEvery {
		l.sweep(now, false)
	}
	for _, rl := range d.Limits {
		lims = append(lims, l.get(now, limiterKey{id: rl.id, principal: principal, kind: d.kind, name: name}, rl))
	}
	if g := pol.global; g != nil {
		lims = append(lims, l.get(now, limiterKey{id: g.id, principal: principal}, g))
	}
	l.mu.Unlock()

	var rbuf [4]*rate.Reservation
	taken := rbuf[:0]
	var wait time.Duration
	for _, lim := range lims {
		r := lim.ReserveN(now, 1)
		if !r.OK() { // burst < 1: never, compile ensures burst >= 1
			wait = max(wait, time.Second)
			continue
		}
		if delay := r.DelayFrom(now); delay > 0 {
			r.CancelAt(now)
			wait = max(wait, delay)
			continue
		}
		taken = append(taken, r)
	}
	if wait > 0 {
		for _, r := range taken {
			r.CancelAt(now)
		}
		return false, wait
	}
	return true, 0
}

// get returns the bucket for key, creating it with rl's rate; l.mu held.
func (l *Limiters) get(now time.Time, key limiterKey, rl *RuleLimit) *rate.Limiter {
	e := l.entries[key]
	if e == nil {
		if l.entries == nil {
			l.entries = map[limiterKey]*limiterEntry{}
		}
		if len(l.entries) >= l.limit() {
			l.sweep(now, true)
		}
		e = &limiterEntry{lim: rate.NewLimiter(rl.Limit, rl.Burst)}
		l.entries[key] = e
	}
	e.lastUsed = now
	return e.lim
}

func (l *Limiters) limit() int {
	if l.max <= 0 {
		return DefaultMaxLimiters
	}
	return l.max
}

// sweep drops every full bucket (it behaves as a new one would); when
// full is set and that did not make room for one more, it also drops the
// least recently used buckets, keeping 7/8 of the maximum. l.mu held.
func (l *Limiters) sweep(now time.Time, full bool) {
	l.lastSweep = now
	for k, e := range l.entries {
		if e.lim.TokensAt(now) >= float64(e.lim.Burst()) {
			delete(l.entries, k)
		}
	}
	max := l.limit()
	if !full || len(l.entries) < max {
		return
	}
	type aged struct {
		k limiterKey
		t time.Time
	}
	all := make([]aged, 0, len(l.entries))
	for k, e := range l.entries {
		all = append(all, aged{k, e.lastUsed})
	}
	slices.SortFunc(all, func(a, b aged) int { return a.t.Compare(b.t) })
	keep := max - max/8 - 1 // and the one about to be added
	for _, a := range all[:len(all)-keep] {
		delete(l.entries, a.k)
	}
}

// Retain drops the buckets of every limit pol no longer has (all of them
// for a nil pol). Call it after a reload has applied pol.
func (l *Limiters) Retain(pol *Policy) {
	keep := map[string]bool{}
	if pol != nil {
		for i := range pol.rules {
			if rl := pol.rules[i].limit; rl != nil {
				keep[rl.id] = true
			}
		}
		if pol.global != nil {
			keep[pol.global.id] = true
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for k := range l.entries {
		if !keep[k.id] {
			delete(l.entries, k)
		}
	}
}

// Len is how many buckets are held.
func (l *Limiters) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries)
}
