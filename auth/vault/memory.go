package vault

import (
	"bytes"
	"context"
	"maps"
	"sync"
	"time"
)

// Memory is the in-process Backend: one replica's grants, gone when the
// process ends. Safe for concurrent use.
type Memory struct {
	now func() time.Time

	mu     sync.Mutex
	grants map[string]map[string][]byte // upstream -> principal -> sealed
	once   map[string]expiring
	locks  map[[2]string]expiring // (upstream, principal) -> token
}

type expiring struct {
	value []byte
	until time.Time
}

// NewMemory is an empty in-process backend.
func NewMemory() *Memory {
	return &Memory{now: time.Now, grants: map[string]map[string][]byte{}, once: map[string]expiring{}, locks: map[[2]string]expiring{}}
}

// VaultGet implements Backend.
func (m *Memory) VaultGet(_ context.Context, upstream, principal string) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.grants[upstream][principal]
	return bytes.Clone(v), ok, nil
}

// VaultSet implements Backend.
func (m *Memory) VaultSet(_ context.Context, upstream, principal string, value []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.grants[upstream] == nil {
		m.grants[upstream] = map[string][]byte{}
	}
	m.grants[upstream][principal] = bytes.Clone(value)
	return nil
}

// VaultReplace implements Backend.
func (m *Memory) VaultReplace(_ context.Context, upstream, principal string, old, value []byte) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, ok := m.grants[upstream][principal]
	if !ok || !bytes.Equal(cur, old) {
		return false, nil
	}
	m.grants[upstream][principal] = bytes.Clone(value)
	return true, nil
}

// VaultDelete implements Backend.
func (m *Memory) VaultDelete(_ context.Context, upstream, principal string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.grants[upstream][principal]
	delete(m.grants[upstream], principal)
	return ok, nil
}

// VaultDeleteAll implements Backend.
func (m *Memory) VaultDeleteAll(_ context.Context, upstream string) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := len(m.grants[upstream])
	delete(m.grants, upstream)
	return n, nil
}

// VaultList implements Backend.
func (m *Memory) VaultList(_ context.Context, upstream string) (map[string]map[string][]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]map[string][]byte{}
	for u, entries := range m.grants {
		if upstream == "" || u == upstream {
			out[u] = maps.Clone(entries)
		}
	}
	return out, nil
}

// VaultSetOnce implements Backend.
func (m *Memory) VaultSetOnce(_ context.Context, id string, value []byte, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	for k, e := range m.once { // drop the expired ones the flow never came back for
		if !now.Before(e.until) {
			delete(m.once, k)
		}
	}
	m.once[id] = expiring{value: bytes.Clone(value), until: now.Add(ttl)}
	return nil
}

// VaultTakeOnce implements Backend.
func (m *Memory) VaultTakeOnce(_ context.Context, id string) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.once[id]
	delete(m.once, id)
	if !ok || !m.now().Before(e.until) {
		return nil, false, nil
	}
	return e.value, true, nil
}

// VaultLock implements Backend.
func (m *Memory) VaultLock(_ context.Context, upstream, principal, token string, ttl time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := [2]string{upstream, principal}
	now := m.now()
	if e, ok := m.locks[k]; ok && now.Before(e.until) {
		return false, nil
	}
	m.locks[k] = expiring{value: []byte(token), until: now.Add(ttl)}
	return true, nil
}

// VaultUnlock implements Backend.
func (m *Memory) VaultUnlock(_ context.Context, upstream, principal, token string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := [2]string{upstream, principal}
	if e, ok := m.locks[k]; ok && string(e.value) == token {
		delete(m.locks, k)
	}
	return nil
}
