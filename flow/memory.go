package flow

import (
	"context"
	"sync"
	"time"
)

// Memory is a Store in this process: the taint of one gateway. Entries
// past their ttl are dropped as other entries are written (no timer).
//
// A taint is never changed once stored: a write stores a new one, so a
// read hands out the stored one without a copy when nothing in it has
// expired (the common call reads and writes nothing else).
type Memory struct {
	mu        sync.RWMutex
	m         map[string]*entry
	lastSweep time.Time
	now       func() time.Time
}

type entry struct {
	t       *Taint    // immutable
	expires time.Time // zero: never
}

// NewMemory returns an empty Memory.
func NewMemory() *Memory { return &Memory{m: map[string]*entry{}, now: time.Now} }

// sweepEvery is how often a write looks for expired entries.
const sweepEvery = time.Minute

func (e *entry) expired(now time.Time) bool {
	return e != nil && !e.expires.IsZero() && now.After(e.expires)
}

func (m *Memory) Get(_ context.Context, key string, window time.Duration) (*Taint, error) {
	now := m.now()
	m.mu.RLock()
	e := m.m[key]
	m.mu.RUnlock()
	if e == nil || e.expired(now) {
		return nil, nil
	}
	return within(e.t, window, now), nil
}

// within is t without what is older than window: t itself when nothing
// is (always when window is 0).
func within(t *Taint, window time.Duration, now time.Time) *Taint {
	if window <= 0 {
		return t
	}
	stale := false
	for _, c := range t.Labels {
		stale = stale || now.Sub(c.At) > window
	}
	for _, at := range t.Approved {
		stale = stale || now.Sub(at) > window
	}
	if !stale {
		return t
	}
	out := &Taint{Labels: make(map[string]Call, len(t.Labels))}
	for l, c := range t.Labels {
		if now.Sub(c.At) <= window {
			out.Labels[l] = c
		}
	}
	for k, at := range t.Approved {
		if now.Sub(at) <= window {
			if out.Approved == nil {
				out.Approved = map[string]time.Time{}
			}
			out.Approved[k] = at
		}
	}
	return out
}

// update replaces key's taint with what change makes of a copy of it,
// under the write lock, keeping the entry ttl longer (ttl > 0).
func (m *Memory) update(key string, ttl time.Duration, change func(t *Taint, now time.Time)) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if now.Sub(m.lastSweep) > sweepEvery {
		m.lastSweep = now
		for k, e := range m.m {
			if e.expired(now) {
				delete(m.m, k)
			}
		}
	}
	old := m.m[key]
	t := &Taint{Labels: map[string]Call{}}
	var expires time.Time
	if old != nil && !old.expired(now) {
		for l, c := range old.t.Labels {
			t.Labels[l] = c
		}
		if old.t.Approved != nil {
			t.Approved = make(map[string]time.Time, len(old.t.Approved)+1)
			for k, at := range old.t.Approved {
				t.Approved[k] = at
			}
		}
		expires = old.expires
	}
	change(t, now)
	if ttl > 0 {
		expires = now.Add(ttl)
	}
	m.m[key] = &entry{t: t, expires: expires}
}

// addGrain is how recent a label's call may be for Add to leave it (and
// the entry's expiry) as it is: a busy session writes nothing new.
const addGrain = time.Second

func (m *Memory) Add(_ context.Context, key string, labels []string, call Call, ttl time.Duration) error {
	if !call.At.IsZero() {
		m.mu.RLock()
		e := m.m[key]
		fresh := e != nil && !e.expired(call.At)
		for _, l := range labels {
			if !fresh {
				break
			}
			c, ok := e.t.Labels[l]
			fresh = fresh && ok && call.At.Sub(c.At) < addGrain
			if !fresh {
				break
			}
		}
		m.mu.RUnlock()
		if fresh {
			return nil
		}
	}
	m.update(key, ttl, func(t *Taint, now time.Time) {
		if call.At.IsZero() {
			call.At = now
		}
		for _, l := range labels {
			t.Labels[l] = call
		}
	})
	return nil
}

func (m *Memory) Approve(_ context.Context, key, rule, name string, ttl time.Duration) error {
	m.update(key, ttl, func(t *Taint, now time.Time) {
		if t.Approved == nil {
			t.Approved = map[string]time.Time{}
		}
		t.Approved[ApprovalKey(rule, name)] = now
	})
	return nil
}

func (m *Memory) Reset(_ context.Context, key string) (bool, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.m[key]
	delete(m.m, key)
	return e != nil && !e.expired(now), nil
}

// End forgets the taint of a session that ended.
func (m *Memory) End(key string) {
	m.mu.Lock()
	delete(m.m, key)
	m.mu.Unlock()
}

func (m *Memory) Scan(_ context.Context, limit int, window time.Duration, fn func(string, *Taint)) (bool, error) {
	now := m.now()
	m.mu.RLock()
	defer m.mu.RUnlock()
	n := 0
	for k, e := range m.m {
		if e.expired(now) {
			continue
		}
		if limit >= 0 && n >= limit {
			return false, nil
		}
		n++
		fn(k, within(e.t, window, now))
	}
	return true, nil
}
