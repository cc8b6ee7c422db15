//go:build wasip1

package pdk

import (
	"errors"

	extism "github.com/extism/go-pdk"
)

// The host key-value store. All offsets are Extism memory offsets. The
// guest owns the blocks it passes (the key and value) and frees them after
// the call; the block that wasmgate_kv_get returns belongs to the guest,
// which frees it after reading.

// wasmgate_kv_get returns 0 when key is missing, otherwise the offset of a
// block holding 0x01 followed by the value.
//
//go:wasmimport extism:host/user wasmgate_kv_get
func hostKVGet(key uint64) uint64

// wasmgate_kv_set returns 0 when the value is stored, 1 when the store's
// quota refuses it.
//
//go:wasmimport extism:host/user wasmgate_kv_set
func hostKVSet(key, value uint64) uint64

// wasmgate_kv_delete returns 0.
//
//go:wasmimport extism:host/user wasmgate_kv_delete
func hostKVDelete(key uint64) uint64

// ErrQuota is returned by KVSet when the plugin's key-value store is full
// (KVSet returns ErrNoMemory when the key or value cannot even be copied
// into the plugin's memory).
var ErrQuota = errors.New("wasmgate: key-value store quota exceeded")

// KVGet returns the value stored at key, and whether the key exists.
//
// The store belongs to the plugin: every instance of the plugin sees the
// same keys, and other plugins do not. It lives in the gateway's memory.
func KVGet(key string) (value []byte, ok bool) {
	k, err := allocate([]byte(key))
	if err != nil {
		return nil, false
	}
	defer k.Free()
	off := hostKVGet(k.Offset())
	if off == 0 {
		return nil, false
	}
	m := extism.FindMemory(off)
	defer m.Free()
	b := m.ReadBytes()
	if len(b) == 0 || b[0] != 1 {
		// Not the documented shape: treat as missing rather than guess.
		return nil, false
	}
	return b[1:], true
}

// KVSet stores value at key, replacing any previous value. It returns
// ErrQuota, storing nothing, if the value would take the plugin's store
// over its quota.
func KVSet(key string, value []byte) error {
	k, err := allocate([]byte(key))
	if err != nil {
		return err
	}
	defer k.Free()
	v, err := allocate(value)
	if err != nil {
		return err
	}
	defer v.Free()
	if hostKVSet(k.Offset(), v.Offset()) == 1 {
		return ErrQuota
	}
	return nil
}

// KVDelete removes key from the store. Deleting a missing key does
// nothing.
func KVDelete(key string) {
	k, err := allocate([]byte(key))
	if err != nil {
		return
	}
	defer k.Free()
	hostKVDelete(k.Offset())
}
