package abi

import (
	"math"
	"testing"
	"time"
)

// TestCacheHintMerge: pages merge to the smallest ttl and to private if
// any page is; a negative ttlMs reads as 0, a huge one does not wrap.
func TestCacheHintMerge(t *testing.T) {
	ms := func(n int64) *int64 { return &n }
	var h CacheHint
	if h = h.Merge(nil, ""); h.HasTTL || h.Private {
		t.Fatalf("a page without hints: %+v, want nothing said", h)
	}
	h = h.Merge(ms(5000), "public")
	h = h.Merge(ms(9000), "private")
	h = h.Merge(nil, "")
	if !h.HasTTL || h.TTL != 5*time.Second || !h.Private {
		t.Errorf("merged = %+v, want 5s and private", h)
	}
	if h = h.Merge(ms(-3), "public"); h.TTL != 0 || !h.Private {
		t.Errorf("with a negative ttlMs = %+v, want 0 and still private", h)
	}
	if big := (CacheHint{}).Merge(ms(math.MaxInt64), ""); big.TTL <= 0 {
		t.Errorf("ttlMs MaxInt64 = %v, want a large positive duration", big.TTL)
	}
}
