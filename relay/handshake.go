package relay

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"sync"
	"time"
)

// The handshake of the wasmgate protocol (docs/relay-protocol.md): the
// gateway sends a fresh nonce, the page answers with its own nonce and a
// proof, the gateway answers with its proof. Each proof is an HMAC-SHA256
// keyed by the site's token over a label saying who proves, the site name
// and both nonces, so neither proof can be replayed in another handshake,
// reflected to the other side, or used for another site; the token itself
// never crosses the wire.

const (
	nonceBytes    = 32 // what the gateway sends
	minNonceBytes = 16 // what it accepts from a page (128 bits)

	pageLabel    = ProtocolVersion + " page"
	gatewayLabel = ProtocolVersion + " gateway"
)

var b64 = base64.RawURLEncoding

// newNonce returns nonceBytes random bytes, base64url without padding.
func newNonce() string {
	b := make([]byte, nonceBytes)
	rand.Read(b)
	return b64.EncodeToString(b)
}

// validNonce reports whether a page's nonce is base64url of at least
// minNonceBytes bytes (and not absurdly long).
func validNonce(n string) bool {
	if len(n) > 128 {
		return false
	}
	b, err := b64.DecodeString(n)
	return err == nil && len(b) >= minNonceBytes
}

// proof is the base64url HMAC-SHA256 over label, site and both nonces:
//
//	HMAC(token, label "\n" site "\n" gatewayNonce "\n" pageNonce)
func proof(token []byte, label, site, gatewayNonce, pageNonce string) string {
	m := hmac.New(sha256.New, token)
	m.Write([]byte(label + "\n" + site + "\n" + gatewayNonce + "\n" + pageNonce))
	return b64.EncodeToString(m.Sum(nil))
}

// proofEqual compares a proof a page sent with the expected one in
// constant time.
func proofEqual(got, want string) bool {
	g, err := b64.DecodeString(got)
	if err != nil {
		return false
	}
	w, _ := b64.DecodeString(want)
	return hmac.Equal(g, w)
}

// tokenEqual compares a token sent in clear (wu-legacy) with the site's,
// in constant time, through their SHA-256 digests, as WU's relay does.
func tokenEqual(got string, want []byte) bool {
	g := sha256.Sum256([]byte(got))
	w := sha256.Sum256(want)
	return subtle.ConstantTimeCompare(g[:], w[:]) == 1
}

// nonceCache remembers the nonces pages sent recently, so that a replayed
// auth frame is reported as a replay. (It would fail anyway: the proof
// covers the gateway's fresh nonce.)
type nonceCache struct {
	mu   sync.Mutex
	seen map[string]time.Time
}

const (
	nonceTTL      = 10 * time.Minute
	maxNonceCache = 4096
)

// add records n and reports whether it was already there.
func (c *nonceCache) add(n string, now time.Time) (replay bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen == nil {
		c.seen = map[string]time.Time{}
	}
	if at, ok := c.seen[n]; ok && now.Sub(at) < nonceTTL {
		return true
	}
	if len(c.seen) >= maxNonceCache {
		for k, at := range c.seen {
			if now.Sub(at) >= nonceTTL || len(c.seen) >= maxNonceCache {
				delete(c.seen, k)
			}
		}
	}
	c.seen[n] = now
	return false
}
