package loader

import (
	"context"
	"sync"

	extism "github.com/extism/go-sdk"
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
}

// NewStore returns an empty store that refuses writes past quota bytes
// (keys plus values).
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
		delta += int64(len(key))
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
		s.size -= int64(len(old)) + int64(len(key))
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

// Host function results of wasmgate_kv_set.
const (
	kvStored        = 0
	kvQuotaExceeded = 1
)

// hostFunctions are the wasmgate host API bound to one plugin's store. See
// docs/plugins.md for the contract.
func hostFunctions(store *Store) []extism.HostFunction {
	i64 := []extism.ValueType{extism.ValueTypeI64}
	get := extism.NewHostFunctionWithStack("wasmgate_kv_get",
		func(ctx context.Context, p *extism.CurrentPlugin, stack []uint64) {
			key, err := p.ReadString(stack[0])
			if err != nil {
				stack[0] = 0
				return
			}
			v, ok := store.Get(key)
			if !ok {
				stack[0] = 0
				return
			}
			buf := make([]byte, 1+len(v))
			buf[0] = 1
			copy(buf[1:], v)
			off, err := p.WriteBytes(buf)
			if err != nil {
				stack[0] = 0
				return
			}
			stack[0] = off
		}, i64, i64)
	set := extism.NewHostFunctionWithStack("wasmgate_kv_set",
		func(ctx context.Context, p *extism.CurrentPlugin, stack []uint64) {
			key, err := p.ReadString(stack[0])
			if err != nil {
				stack[0] = kvQuotaExceeded
				return
			}
			v, err := p.ReadBytes(stack[1])
			if err != nil {
				stack[0] = kvQuotaExceeded
				return
			}
			if store.Set(key, v) {
				stack[0] = kvStored
			} else {
				stack[0] = kvQuotaExceeded
			}
		}, []extism.ValueType{extism.ValueTypeI64, extism.ValueTypeI64}, i64)
	del := extism.NewHostFunctionWithStack("wasmgate_kv_delete",
		func(ctx context.Context, p *extism.CurrentPlugin, stack []uint64) {
			if key, err := p.ReadString(stack[0]); err == nil {
				store.Delete(key)
			}
			stack[0] = 0
		}, i64, i64)
	return []extism.HostFunction{get, set, del}
}
