package policy

import (
	"cmp"
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
// dropped when idle (checked every minute; a call that takes a token just
// as the sweep drops its bucket gives that bucket's owner one token more
// at most, since the sweep runs beside calls); if more than the maximum
// are in use at once, the least recently used are dropped, which can
// only hand their owners a fresh burst.
//
// The zero value is ready to use, with DefaultMaxLimiters. Limiters is
// safe for concurrent use.
type Limiters struct {
	shared atomic.Pointer[sharedRef] // state.backend redis; nil: in memory

	// entries is read without a lock: a call finds its buckets with
	// lookups that write nothing the other cores read (lastUsed changes
	// once a second), so calls on every core do not queue on one mutex
	// or bounce its cache line. mu serializes what adds or drops buckets.
	entries   sync.Map     // limiterKey -> *limiterEntry
	n         atomic.Int64 // len(entries)
	lastSweep atomic.Int64 // unix nanoseconds
	mu        sync.Mutex
	max       int
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
		// A rule's key names the kind twice ("tool calculate" after the
		// kind): the keys of earlier versions, so that replicas of both
		// share buckets during an upgrade.
		name := key.name
		if name != "" {
			name = key.kind.String() + " " + name
		}
		k := strings.Join([]string{key.id, key.principal, key.kind.String(), name}, "|")
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
	lim      *bucket
	lastUsed atomic.Int64 // unix seconds, for dropping the least recently used
}

// touch records a use at now: a write only when the second changed.
func (e *limiterEntry) touch(now time.Time) {
	if s := now.Unix(); e.lastUsed.Load() != s {
		e.lastUsed.Store(s)
	}
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
	var lbuf [4]*bucket
	buckets := lbuf[:0]
	if now.UnixNano()-l.lastSweep.Load() >= int64(sweepEvery) && l.mu.TryLock() {
		// One call sweeps; the others go on (TryLock) rather than wait.
		if now.UnixNano()-l.lastSweep.Load() >= int64(sweepEvery) {
			l.sweep(now, false)
		}
		l.mu.Unlock()
	}
	for _, rl := range d.Limits {
		buckets = append(buckets, l.get(now, limiterKey{id: rl.id, principal: principal, kind: d.kind, name: name}, rl))
	}
	if g := pol.global; g != nil {
		buckets = append(buckets, l.get(now, limiterKey{id: g.id, principal: principal}, g))
	}

	// Take from each; if one refuses, give back what the others gave and
	// tell the longest wait.
	var wait time.Duration
	taken := 0
	for _, b := range buckets {
		ok, w := b.take(now)
		if !ok {
			wait = max(wait, w)
			continue
		}
		buckets[taken] = b
		taken++
	}
	if wait > 0 {
		for _, b := range buckets[:taken] {
			b.give()
		}
		return false, wait
	}
	return true, 0
}

// get returns the bucket for key, creating it with rl's rate.
func (l *Limiters) get(now time.Time, key limiterKey, rl *RuleLimit) *bucket {
	if lim := l.lookup(now, key); lim != nil {
		return lim
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if lim := l.lookup(now, key); lim != nil { // another call made it meanwhile
		return lim
	}
	if int(l.n.Load()) >= l.limit() {
		l.sweep(now, true)
	}
	e := &limiterEntry{lim: newBucket(now, rl.Limit, rl.Burst)}
	e.touch(now)
	l.entries.Store(key, e)
	l.n.Add(1)
	return e.lim
}

// lookup returns key's bucket, recording the use, or nil.
func (l *Limiters) lookup(now time.Time, key limiterKey) *bucket {
	v, ok := l.entries.Load(key)
	if !ok {
		return nil
	}
	e := v.(*limiterEntry)
	e.touch(now)
	return e.lim
}

// drop removes key's bucket; l.mu held.
func (l *Limiters) drop(key limiterKey) {
	if _, ok := l.entries.LoadAndDelete(key); ok {
		l.n.Add(-1)
	}
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
	l.lastSweep.Store(now.UnixNano())
	type aged struct {
		k limiterKey
		t int64
	}
	var all []aged
	l.entries.Range(func(k, v any) bool {
		key, e := k.(limiterKey), v.(*limiterEntry)
		if e.lim.full(now) {
			l.drop(key)
		} else if full {
			all = append(all, aged{key, e.lastUsed.Load()})
		}
		return true
	})
	most := l.limit()
	if !full || int(l.n.Load()) < most {
		return
	}
	slices.SortFunc(all, func(a, b aged) int { return cmp.Compare(a.t, b.t) })
	keep := most - most/8 - 1 // and the one about to be added
	for _, a := range all[:max(len(all)-keep, 0)] {
		l.drop(a.k)
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
	l.entries.Range(func(k, _ any) bool {
		if key := k.(limiterKey); !keep[key.id] {
			l.drop(key)
		}
		return true
	})
}

// Len is how many buckets are held.
func (l *Limiters) Len() int { return int(l.n.Load()) }
