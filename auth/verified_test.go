package auth

import (
	"crypto/sha256"
	"encoding/binary"
	"testing"
	"time"
)

// The cache holds at most maxVerified tokens, drops the ones that no
// longer count first, and remembers none past maxVerifiedFor or its exp.
func TestVerifiedCacheBounds(t *testing.T) {
	var c verifiedCache
	keys, now := &keySet{}, time.Unix(1_800_000_000, 0)
	digest := func(i int) (d [sha256.Size]byte) {
		binary.BigEndian.PutUint64(d[:], uint64(i))
		return d
	}
	p := Principal{Name: "user-1", Groups: []string{"dev"}}
	c.put(digest(-1), p, keys, now, now) // expires as it is verified: not kept
	if len(c.entries) != 0 {
		t.Fatalf("an expired token was kept: %d entries", len(c.entries))
	}
	// Half of them short-lived: once they end, they are the ones dropped.
	for i := range maxVerified {
		exp := now.Add(time.Hour)
		if i%2 == 0 {
			exp = now.Add(time.Second)
		}
		c.put(digest(i), p, keys, now, exp)
	}
	if len(c.entries) != maxVerified {
		t.Fatalf("%d entries, want %d", len(c.entries), maxVerified)
	}
	later := now.Add(time.Minute)
	c.put(digest(maxVerified), p, keys, later, later.Add(time.Hour))
	if len(c.entries) != maxVerified/2+1 {
		t.Fatalf("after the short-lived ones ended: %d entries, want %d", len(c.entries), maxVerified/2+1)
	}
	for i := 1; i < maxVerified; i += 2 {
		if _, ok := c.get(digest(i), keys, later); !ok {
			t.Fatalf("token %d (still valid) was dropped", i)
		}
	}
	// Full of valid ones: one goes for each new one.
	for i := range maxVerified {
		c.put(digest(maxVerified+1+i), p, keys, later, later.Add(time.Hour))
		if len(c.entries) > maxVerified {
			t.Fatalf("%d entries, more than %d", len(c.entries), maxVerified)
		}
	}
	c.put(digest(-2), p, keys, later, later.Add(time.Hour))
	if _, ok := c.get(digest(-2), keys, later.Add(maxVerifiedFor-time.Second)); !ok {
		t.Error("a token was forgotten before maxVerifiedFor")
	}
	if _, ok := c.get(digest(-2), keys, later.Add(maxVerifiedFor)); ok {
		t.Error("a token was remembered for longer than maxVerifiedFor")
	}
	if _, ok := c.get(digest(2*maxVerified), &keySet{}, later); ok {
		t.Error("a token verified against another key set counted")
	}
}
