package upstreamauth

import (
	"bytes"
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// DefaultCacheSize is how many tokens a Cache keeps by default.
const DefaultCacheSize = 10000

// Cache keeps exchanged tokens per (principal, upstream, audience) and
// per caller identity: the key holds a SHA-256 of the caller token's
// subject (of the whole token when it is not a JWT), so two callers with
// the same principal name but different subjects never share a token.
// A token is kept until shortly before it expires (its lifetime minus
// the larger of 30 seconds and a tenth of it), tokens without a known
// expiry are not kept, concurrent misses for one key make one request,
// and past its size the oldest entries are dropped. Failures are not
// kept. The zero Cache is not usable; use NewCache.
type Cache struct {
	max   int
	group singleflight.Group

	mu      sync.Mutex
	entries map[cacheKey]*list.Element // of *cacheEntry
	order   list.List                  // oldest first
}

// NewCache returns a cache of at most size tokens (DefaultCacheSize when
// size <= 0).
func NewCache(size int) *Cache {
	if size <= 0 {
		size = DefaultCacheSize
	}
	return &Cache{max: size, entries: map[cacheKey]*list.Element{}}
}

// sourceKey is one source's part of a key.
type sourceKey struct {
	upstream string
	audience string // audience and resources
}

type cacheKey struct {
	src       sourceKey
	principal string
	identity  [sha256.Size]byte
}

type cacheEntry struct {
	key       cacheKey
	tok       Token
	refreshAt time.Time
}

// Len is how many tokens the cache holds.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// hit answers the caller's token for src when the cache holds a fresh
// one; else the key to pass to miss. A hit allocates nothing.
func (c *Cache) hit(src sourceKey, caller Caller, now time.Time) (Token, cacheKey, bool) {
	key := cacheKey{src: src, principal: caller.Principal, identity: identity(caller.Token.Value())}
	tok, ok := c.lookup(key, now)
	return tok, key, ok
}

// miss fetches the caller's token (once for all concurrent callers of
// one key; each waits as long as its own ctx allows) and keeps it.
func (c *Cache) miss(ctx context.Context, key cacheKey, step string, caller Caller, now func() time.Time,
	fetch func(ctx context.Context, callerSub string) (Token, error)) (Token, error) {
	ch := c.group.DoChan(flightKey(key), func() (any, error) {
		// Another flight may have filled the entry since the lookup.
		if tok, ok := c.lookup(key, now()); ok {
			return tok, nil
		}
		tok, err := fetch(ctx, callerSubject(caller.Token.Value()))
		if err != nil {
			return Token{}, err
		}
		c.store(key, tok, now())
		return tok, nil
	})
	select {
	case r := <-ch:
		if r.Err != nil {
			return Token{}, r.Err
		}
		return r.Val.(Token), nil
	case <-ctx.Done():
		return Token{}, &ExchangeError{Upstream: key.src.upstream, Step: step, Reason: "gave up waiting for the authorization server (" + ctx.Err().Error() + ")"}
	}
}

func (c *Cache) lookup(key cacheKey, now time.Time) (Token, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return Token{}, false
	}
	e := el.Value.(*cacheEntry)
	if !now.Before(e.refreshAt) {
		c.order.Remove(el)
		delete(c.entries, key)
		return Token{}, false
	}
	return e.tok, true
}

func (c *Cache) store(key cacheKey, tok Token, now time.Time) {
	if tok.Expiry.IsZero() {
		return
	}
	life := tok.Expiry.Sub(now)
	margin := max(30*time.Second, life/10)
	refreshAt := tok.Expiry.Add(-margin)
	if !now.Before(refreshAt) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		c.order.Remove(el)
	}
	c.entries[key] = c.order.PushBack(&cacheEntry{key: key, tok: tok, refreshAt: refreshAt})
	for len(c.entries) > c.max {
		oldest := c.order.Front()
		c.order.Remove(oldest)
		delete(c.entries, oldest.Value.(*cacheEntry).key)
	}
}

// Forget drops every token of principal (all upstreams), e.g. when the
// gateway learns the caller's session ended.
func (c *Cache) Forget(principal string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, el := range c.entries {
		if k.principal == principal {
			c.order.Remove(el)
			delete(c.entries, k)
		}
	}
}

func flightKey(k cacheKey) string {
	return k.src.upstream + "\x00" + k.src.audience + "\x00" + k.principal + "\x00" + hex.EncodeToString(k.identity[:])
}

// identity is the SHA-256 of the caller token's top-level "sub" when it
// is a JWT with one, else of the whole token. The gateway has verified
// the token before it reaches a Source; this only reads it, without
// allocating when the payload fits in 4 KiB.
func identity(token string) [sha256.Size]byte {
	var buf [4096]byte
	if sub, ok := subOf(token, buf[:]); ok {
		return sha256.Sum256(sub)
	}
	h := sha256.New()
	h.Write([]byte{0}) // a token and a subject never hash alike
	_, _ = h.Write([]byte(token))
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out
}

// callerSubject is the caller token's subject, "" when it has none.
func callerSubject(token string) string {
	buf := make([]byte, base64.RawURLEncoding.DecodedLen(len(token)))
	if sub, ok := subOf(token, buf); ok {
		return string(sub)
	}
	return ""
}

// subOf decodes a JWT's payload into buf and finds its top-level "sub"
// string (nested objects, such as RFC 8693's act claim, are skipped). A
// subject with escapes is decoded with encoding/json.
func subOf(token string, buf []byte) ([]byte, bool) {
	first := strings.IndexByte(token, '.')
	if first < 0 {
		return nil, false
	}
	rest := token[first+1:]
	second := strings.IndexByte(rest, '.')
	if second < 0 {
		return nil, false
	}
	payload := rest[:second]
	if base64.RawURLEncoding.DecodedLen(len(payload)) > len(buf) {
		return nil, false
	}
	n, err := base64.RawURLEncoding.Decode(buf, []byte(payload))
	if err != nil {
		return nil, false
	}
	return topLevelString(buf[:n], "sub")
}

// topLevelString finds the string value of key in a JSON object's top
// level with a small scanner (no allocation unless the value has escapes).
func topLevelString(b []byte, key string) ([]byte, bool) {
	depth := 0
	expectKey := false
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{':
			depth++
			expectKey = depth == 1
		case '[':
			depth++
		case '}', ']':
			depth--
		case ',':
			expectKey = depth == 1
		case '"':
			start := i + 1
			end, escaped := scanString(b, start)
			if end < 0 {
				return nil, false
			}
			i = end
			if depth != 1 || !expectKey {
				continue
			}
			expectKey = false
			if escaped || string(b[start:end]) != key {
				continue
			}
			// The value: skip ':' and spaces, then a string.
			j := end + 1
			for j < len(b) && (b[j] == ' ' || b[j] == ':' || b[j] == '\t' || b[j] == '\n' || b[j] == '\r') {
				j++
			}
			if j >= len(b) || b[j] != '"' {
				return nil, false
			}
			vend, vesc := scanString(b, j+1)
			if vend < 0 {
				return nil, false
			}
			if !vesc {
				return b[j+1 : vend], true
			}
			// A copy, so that b (often on the caller's stack) does not
			// escape to the heap through encoding/json.
			var s string
			if json.Unmarshal(bytes.Clone(b[j:vend+1]), &s) != nil {
				return nil, false
			}
			return []byte(s), true
		}
	}
	return nil, false
}

// scanString returns the index of the quote closing the string that
// starts at b[start], and whether it holds escapes; -1 when unterminated.
func scanString(b []byte, start int) (int, bool) {
	escaped := false
	for i := start; i < len(b); i++ {
		switch b[i] {
		case '\\':
			escaped = true
			i++
		case '"':
			return i, escaped
		}
	}
	return -1, false
}
