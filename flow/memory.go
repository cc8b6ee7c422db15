package flow

import (
	"context"
	"sync"
	"time"
)

// Memory is a Store in this process: the taint of one gateway. Entries
// past their ttl are dropped as other entries are written (no timer).
type Memory struct {
	mu        sync.Mutex
	m         map[string]*entry
	lastSweep time.Time
	now       func() time.Time
}

type entry struct {
	t       Taint
	expires time.Time // zero: never
}

// NewMemory returns an empty Memory.
func NewMemory() *Memory { return &Memory{m: map[string]*entry{}, now: time.Now} }

// sweepEvery is how often a write looks for expired entries.
const sweepEvery = time.Minute

func (m *Memory) live(key string, now time.Time) *entry {
	e := m.m[key]
	if e != nil && !e.expires.IsZero() && now.After(e.expires) {
		delete(m.m, key)
		return nil
	}
	return e
}

func (m *Memory) Get(_ context.Context, key string, window time.Duration) (*Taint, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.live(key, now)
	if e == nil {
		return nil, nil
	}
	return within(&e.t, window, now), nil
}

// within is a copy of t without what is older than window (all of it
// when window is 0).
func within(t *Taint, window time.Duration, now time.Time) *Taint {
	out := &Taint{Labels: make(map[string]Call, len(t.Labels))}
	for l, c := range t.Labels {
		if window <= 0 || now.Sub(c.At) <= window {
			out.Labels[l] = c
		}
	}
	for k, at := range t.Approved {
		if window <= 0 || now.Sub(at) <= window {
			if out.Approved == nil {
				out.Approved = map[string]time.Time{}
			}
			out.Approved[k] = at
		}
	}
	return out
}

func (m *Memory) touch(key string, ttl time.Duration, now time.Time) *entry {
	if now.Sub(m.lastSweep) > sweepEvery {
		m.lastSweep = now
		for k := range m.m {
			m.live(k, now)
		}
	}
	e := m.live(key, now)
	if e == nil {
		e = &entry{t: Taint{Labels: map[string]Call{}}}
		m.m[key] = e
	}
	if ttl > 0 {
		e.expires = now.Add(ttl)
	}
	return e
}

func (m *Memory) Add(_ context.Context, key string, labels []string, call Call, ttl time.Duration) error {
	now := m.now()
	if call.At.IsZero() {
		call.At = now
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.touch(key, ttl, now)
	for _, l := range labels {
		e.t.Labels[l] = call
	}
	return nil
}

func (m *Memory) Approve(_ context.Context, key, rule, name string, ttl time.Duration) error {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.touch(key, ttl, now)
	if e.t.Approved == nil {
		e.t.Approved = map[string]time.Time{}
	}
	e.t.Approved[ApprovalKey(rule, name)] = now
	return nil
}

func (m *Memory) Reset(_ context.Context, key string) (bool, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.live(key, now)
	delete(m.m, key)
	return e != nil, nil
}

// End forgets the taint of a session that ended.
func (m *Memory) End(key string) {
	m.mu.Lock()
	delete(m.m, key)
	m.mu.Unlock()
}

func (m *Memory) Scan(_ context.Context, limit int, window time.Duration, fn func(string, *Taint)) (bool, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for k := range m.m {
		e := m.live(k, now)
		if e == nil {
			continue
		}
		if n == limit {
			return false, nil
		}
		n++
		fn(k, within(&e.t, window, now))
	}
	return true, nil
}
