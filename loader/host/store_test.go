package host

import (
	"fmt"
	"runtime"
	"testing"
)

// The quota counts the bytes of keys plus values plus EntryOverhead per
// entry.
func TestStoreQuota(t *testing.T) {
	s := NewStore(10 + EntryOverhead)
	if !s.Set("ab", []byte("cdef")) { // 6 + overhead
		t.Fatal("first set refused")
	}
	if s.Set("gh", []byte("i")) { // a second entry brings a second overhead
		t.Error("set over the quota accepted")
	}
	if !s.Set("ab", []byte("cdefghij")) { // replaces: 2 + 8 + overhead
		t.Error("replacing within the quota refused")
	}
	if v, ok := s.Get("ab"); !ok || string(v) != "cdefghij" {
		t.Errorf("Get = %q %v", v, ok)
	}
	s.Delete("ab")
	if _, ok := s.Get("ab"); ok || s.Len() != 0 {
		t.Error("Delete kept the key")
	}
	if !s.Set("gh", []byte("ijklm")) {
		t.Error("Delete did not give back the bytes")
	}
	s.SetQuota(3)
	if v, ok := s.Get("gh"); !ok || string(v) != "ijklm" {
		t.Error("SetQuota dropped a value")
	}
	if s.Set("n", nil) {
		t.Error("set over a lowered quota accepted")
	}
}

// Filling the quota with tiny entries uses no more memory than the quota:
// the per-entry overhead covers what the map itself spends.
func TestStoreQuotaBoundsMemoryOfTinyEntries(t *testing.T) {
	const quota = 4 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := NewStore(quota)
	n := 0
	for ; ; n++ {
		if !s.Set(fmt.Sprintf("%08d", n), nil) {
			break
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	used := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d 8-byte keys filled a %d-byte quota using %d bytes of heap", n, quota, used)
	if used > quota*5/4 {
		t.Errorf("a %d-byte quota of tiny entries took %d bytes of heap", quota, used)
	}
	runtime.KeepAlive(s)
}
