package host

import (
	"context"
	"sync"
)

// Store is a plugin's in-memory key-value store. Every instance of a plugin
// shares one Store, so a value set through one pooled instance is read
// through any other. A Store outlives reloads: the gateway keeps one per
// plugin name.
type Store struct {
	mu    sync.RWMutex
	m     map[string][]byte
	size  int64
	quota int64

	// With state.backend redis: the plugin's name and the shared store
	// (nil while the backend is memory), asked on every access.
	plugin string
	remote func() Remote
}

// Remote is a key-value store the replicas share (state.backend: redis):
// plugin's entries, with kv_quota counted as in memory (key + value +
// overhead per entry) and enforced atomically.
type Remote interface {
	KVGet(ctx context.Context, plugin, key string) ([]byte, bool, error)
	KVSet(ctx context.Context, plugin, key string, value []byte, quota, overhead int64) (bool, error)
	KVDelete(ctx context.Context, plugin, key string, overhead int64) error
}

// Share makes s keep plugin's entries in remote() whenever it returns a
// Remote (state.backend: redis), and in memory when it returns nil. Call
// it before the store is used.
func (s *Store) Share(plugin string, remote func() Remote) {
	s.plugin, s.remote = plugin, remote
}

func (s *Store) shared() Remote {
	if s.remote == nil {
		return nil
	}
	return s.remote()
}

// Lookup is Get from wherever the entries are kept; an error is the
// shared store being unavailable.
func (s *Store) Lookup(ctx context.Context, key string) ([]byte, bool, error) {
	if r := s.shared(); r != nil {
		return r.KVGet(ctx, s.plugin, key)
	}
	v, ok := s.Get(key)
	return v, ok, nil
}

// Put is Set wherever the entries are kept.
func (s *Store) Put(ctx context.Context, key string, value []byte) (bool, error) {
	if r := s.shared(); r != nil {
		s.mu.RLock()
		quota := s.quota
		s.mu.RUnlock()
		return r.KVSet(ctx, s.plugin, key, value, quota, EntryOverhead)
	}
	return s.Set(key, value), nil
}

// Remove is Delete wherever the entries are kept.
func (s *Store) Remove(ctx context.Context, key string) error {
	if r := s.shared(); r != nil {
		return r.KVDelete(ctx, s.plugin, key, EntryOverhead)
	}
	s.Delete(key)
	return nil
}

// EntryOverhead is what each entry counts against the quota besides its
// key and value: the memory a Go map spends per entry (headers, buckets,
// allocation rounding; about 110 bytes measured on amd64), so kv_quota
// bounds the memory the store really uses even with tiny entries.
const EntryOverhead = 128

// NewStore returns an empty store that refuses writes past quota bytes
// (keys plus values plus EntryOverhead per entry).
func NewStore(quota int64) *Store {
	return &Store{m: map[string][]byte{}, quota: quota}
}

// SetQuota changes the quota; existing values are kept.
func (s *Store) SetQuota(quota int64) {
	s.mu.Lock()
	s.quota = quota
	s.mu.Unlock()
}

// Get returns a copy-free view of the value; callers must not modify it.
func (s *Store) Get(key string) ([]byte, bool) {
	s.mu.RLock()
	v, ok := s.m[key]
	s.mu.RUnlock()
	return v, ok
}

// Set stores value at key, or reports false when the quota would be
// exceeded.
func (s *Store) Set(key string, value []byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, had := s.m[key]
	delta := int64(len(value))
	if had {
		delta -= int64(len(old))
	} else {
		delta += int64(len(key)) + EntryOverhead
	}
	if s.size+delta > s.quota {
		return false
	}
	s.m[key] = value
	s.size += delta
	return true
}

// Delete removes key.
func (s *Store) Delete(key string) {
	s.mu.Lock()
	if old, ok := s.m[key]; ok {
		s.size -= int64(len(old)) + int64(len(key)) + EntryOverhead
		delete(s.m, key)
	}
	s.mu.Unlock()
}

// Len is the number of keys.
func (s *Store) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.m)
}
