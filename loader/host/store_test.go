package host

import "testing"

// The quota counts the bytes of keys plus values.
func TestStoreQuota(t *testing.T) {
	s := NewStore(10)
	if !s.Set("ab", []byte("cdef")) { // 6
		t.Fatal("first set refused")
	}
	if s.Set("gh", []byte("ijklm")) { // 6 + 7 > 10
		t.Error("set over the quota accepted")
	}
	if !s.Set("ab", []byte("cdefghij")) { // replaces: 2 + 8
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
