package vault

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
)

// fuzzKeys are fixed, so that the corpus in testdata/fuzz/FuzzOpen holds
// entries that open (and bytes near them).
var fuzzCur, fuzzPrev = bytes.Repeat([]byte{0x11}, KeySize), bytes.Repeat([]byte{0x22}, KeySize)

// FuzzOpen feeds the decoder arbitrary bytes as the entry of (upstream,
// principal): it never panics, an entry that opens opens only where it
// was written, and Get answers not-found or a grant, never an error.
func FuzzOpen(f *testing.F) {
	s, err := newSealer(Keys{Current: fuzzCur, Previous: fuzzPrev})
	if err != nil {
		f.Fatal(err)
	}
	good, _ := s.seal([]byte(`{"access_token":"a","refresh_token":"r","scopes":["x"]}`), grantAAD("github", "alice"))
	f.Add(good, "github", "alice")
	f.Add(good, "github", "bob")
	f.Add([]byte{}, "u", "p")
	f.Add([]byte{version}, "u", "p")
	f.Add(bytes.Repeat([]byte{version}, headSize+16), "u", "p")
	f.Fuzz(func(t *testing.T, data []byte, upstream, principal string) {
		plain, _, err := s.open(data, grantAAD(upstream, principal))
		if err == nil {
			if len(data) < headSize+16 || data[0] != version {
				t.Fatalf("opened a malformed entry %x", data)
			}
			if _, _, err := s.open(data, grantAAD(upstream, principal+"x")); err == nil {
				t.Fatal("an entry opened in another principal's slot")
			}
			again, err := s.seal(plain, grantAAD(upstream, principal))
			if err != nil {
				t.Fatal(err)
			}
			if p2, _, err := s.open(again, grantAAD(upstream, principal)); err != nil || !bytes.Equal(p2, plain) {
				t.Fatalf("a resealed entry: %v", err)
			}
		}
		m := NewMemory()
		v := &Vault{s: s, b: m, log: discard(), warned: map[[32]byte]struct{}{}}
		_ = m.VaultSet(context.Background(), upstream, principal, data)
		g, ok, err := v.Get(context.Background(), upstream, principal)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		if ok && (g.Upstream != upstream || g.Principal != principal) {
			t.Fatalf("Get returned the grant of %q/%q", g.Upstream, g.Principal)
		}
		if _, err := v.List(context.Background(), ""); err != nil {
			t.Fatalf("List: %v", err)
		}
	})
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }
