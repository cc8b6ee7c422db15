package auth

import (
	"crypto/sha256"
	"slices"
	"sync"
	"time"
)

const (
	// maxVerified bounds the JWTs remembered as verified (a few KiB
	// each, most of it the claims).
	maxVerified = 1024
	// maxVerifiedFor bounds how long one is remembered, whatever its exp.
	maxVerifiedFor = 5 * time.Minute
)

// verifiedCache remembers the JWTs verify accepted, by the SHA-256 of the
// token (never the token), so that a client's next requests with the same
// token skip the signature check and the claims' decoding: tens of
// microseconds of CPU per request (BenchmarkAuthenticateJWT), more than
// the rest of a tool call. A remembered token counts only while
//
//   - the key set is the one it was verified against (a JWKS refresh or a
//     refetch for an unknown kid installs a new set, and every token is
//     verified again under it, so a key withdrawn from the JWKS stops its
//     tokens at the next fetch);
//   - the clock is not behind the moment it was verified (nbf and iat held
//     then, so they hold later);
//   - the clock is before its exp, without the leeway (within the leeway
//     the token is verified again, and the leeway applies as verify
//     applies it), and within maxVerifiedFor of the verification.
//
// Refused tokens are not remembered.
type verifiedCache struct {
	mu      sync.RWMutex
	entries map[[sha256.Size]byte]verifiedToken
}

type verifiedToken struct {
	p     Principal
	keys  *keySet
	at    time.Time
	until time.Time
}

func (e *verifiedToken) valid(keys *keySet, now time.Time) bool {
	return e.keys == keys && !now.Before(e.at) && now.Before(e.until)
}

// get returns the principal of the token whose digest is sum, when it was
// verified against keys and still counts at now. The principal's groups
// are the caller's own; its claims are shared, read-only.
func (c *verifiedCache) get(sum [sha256.Size]byte, keys *keySet, now time.Time) (Principal, bool) {
	c.mu.RLock()
	e, ok := c.entries[sum]
	c.mu.RUnlock()
	if !ok || !e.valid(keys, now) {
		return Principal{}, false
	}
	return Principal{Name: e.p.Name, Groups: slices.Clone(e.p.Groups), Claims: e.p.Claims}, true
}

// put remembers that the token whose digest is sum was verified at now
// against keys as p, and expires at exp. When the cache is full, the
// entries that no longer count go first, then an arbitrary one.
func (c *verifiedCache) put(sum [sha256.Size]byte, p Principal, keys *keySet, now, exp time.Time) {
	until := now.Add(maxVerifiedFor)
	if exp.Before(until) {
		until = exp
	}
	if !now.Before(until) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = make(map[[sha256.Size]byte]verifiedToken)
	}
	if _, ok := c.entries[sum]; !ok && len(c.entries) >= maxVerified {
		for k, e := range c.entries {
			if !e.valid(keys, now) {
				delete(c.entries, k)
			}
		}
		for k := range c.entries {
			if len(c.entries) < maxVerified {
				break
			}
			delete(c.entries, k)
		}
	}
	p.Groups = slices.Clone(p.Groups) // the caller's stay its own
	c.entries[sum] = verifiedToken{p: p, keys: keys, at: now, until: until}
}
