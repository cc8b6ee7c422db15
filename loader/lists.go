package loader

import (
	"time"

	"github.com/wasmgate/wasmgate/config"
)

// DefaultListTTL is lists.ttl when neither the endpoint nor the top-level
// lists section sets one.
const DefaultListTTL = time.Minute

// MaxListTTL bounds lists.ttl: a hint longer than a day would keep a
// client on a list the operator has long changed.
const MaxListTTL = 24 * time.Hour

// Lists are the caching hints (SEP-2549, ttlMs and cacheScope) the
// gateway's list results carry for clients of protocol 2026-07-28: the
// top-level lists section is every endpoint's default, an endpoint's own
// lists section overrides it (docs/config.md, "lists").
type Lists struct {
	// TTL is the longest time a client may consider a list fresh
	// (ttlMs); a source's smaller hint wins. 0s: lists are stale at
	// once. Unset: DefaultListTTL, or the top-level section's.
	TTL *config.Duration `koanf:"ttl"`
}

// Normalize checks lists.ttl's range.
func (l *Lists) Normalize(key string, env *config.Env) {
	if l.TTL == nil {
		return
	}
	if d := time.Duration(*l.TTL); d < 0 || d > MaxListTTL {
		env.Bad(key+".ttl", "%s is out of range (0s..%s)", d, MaxListTTL)
	}
}

// ListTTL is the ttlMs ceiling of e's lists: e's lists.ttl, else the
// top-level lists.ttl, else DefaultListTTL.
func (c *Config) ListTTL(e *Endpoint) time.Duration {
	switch {
	case e != nil && e.Lists.TTL != nil:
		return time.Duration(*e.Lists.TTL)
	case c != nil && c.Lists.TTL != nil:
		return time.Duration(*c.Lists.TTL)
	}
	return DefaultListTTL
}
