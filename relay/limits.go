package relay

import (
	"math"
	"net"
	"net/netip"
	"time"

	"golang.org/x/time/rate"
)

// Limits of a connection before its handshake completes (issue 16): no
// unauthenticated client holds more than preAuthFrame bytes of frame, the
// number of such connections is capped per site and in total, and a
// client address that fails handshakes is slowed down.

// preAuthFrame is the read limit until the handshake completes: an auth
// frame of the wasmgate protocol is about 250 bytes. A wu-legacy site's
// limit also holds its token, escaped at worst (see preAuthLimit).
const preAuthFrame = 4 << 10

// maxClients bounds the client addresses whose failed handshakes are
// remembered; past it the least recently seen is forgotten.
const maxClients = 4096

// preAuthLimit is the read limit of a connection to a site whose token is
// token until it authenticates; never above the site's max_frame.
func preAuthLimit(conf SiteConfig, token []byte) int64 {
	limit := int64(preAuthFrame)
	if conf.Protocol == ProtocolWULegacy {
		limit += 6 * int64(len(token)) // \u00XX per byte at worst
	}
	if conf.MaxFrame > 0 {
		limit = min(limit, int64(conf.MaxFrame))
	}
	return limit
}

// Reasons of wasmgate_relay_connections_refused_total.
const (
	refusedSiteCap   = "site_cap"
	refusedTotalCap  = "total_cap"
	refusedThrottled = "throttled"
)

// admit takes an unauthenticated slot for site, or says which cap is
// full. The slot is given back by the returned release (idempotent is the
// caller's business: bridge.releaseSlot).
func (r *Relay) admit(conf SiteConfig) (release func(), refused string) {
	siteCap := conf.SiteUnauthenticated.MaxUnauthenticated
	if siteCap <= 0 { // a SiteConfig that was not normalized
		siteCap = DefaultSiteMaxUnauthenticated
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.unauthTotal >= r.unauth.MaxUnauthenticated:
		return nil, refusedTotalCap
	case r.unauthSite[conf.Name] >= siteCap:
		return nil, refusedSiteCap
	}
	r.unauthTotal++
	r.unauthSite[conf.Name]++
	r.m.RelayUnauthenticated.WithLabelValues(conf.Name).Set(float64(r.unauthSite[conf.Name]))
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.unauthTotal--
		r.unauthSite[conf.Name]--
		r.m.RelayUnauthenticated.WithLabelValues(conf.Name).Set(float64(r.unauthSite[conf.Name]))
		if r.unauthSite[conf.Name] == 0 {
			delete(r.unauthSite, conf.Name)
		}
	}, ""
}

// client is what the relay remembers of an address that failed a
// handshake.
type client struct {
	lim      *rate.Limiter
	failures uint64
	seen     time.Time
}

// clientID is who failed handshakes: a client address on a site, so that
// guesses at one site's token do not slow another site's page down.
type clientID struct {
	site string
	addr netip.Prefix
}

// clientKey is the address a connection is counted under: the IP, or the
// /64 of an IPv6 address (one host usually has a whole /64).
func clientKey(remote string) netip.Prefix {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Prefix{}
	}
	ip = ip.Unmap().WithZone("")
	bits := ip.BitLen()
	if ip.Is6() {
		bits = 64
	}
	p, _ := ip.Prefix(bits)
	return p
}

// throttled reports whether the client at remote has used up its failed
// handshakes on site, and when it may try again.
func (r *Relay) throttled(site, remote string, now time.Time) (time.Duration, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.clients[clientID{site, clientKey(remote)}]
	if c == nil {
		return 0, false
	}
	tokens := c.lim.TokensAt(now)
	if tokens >= 1 {
		return 0, false
	}
	return time.Duration((1 - tokens) * float64(r.unauth.FailedAuthEvery)), true
}

// failed records a failed handshake of the client at remote on site and
// returns how many it has failed there.
func (r *Relay) failed(site, remote string, now time.Time) uint64 {
	key := clientID{site, clientKey(remote)}
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.clients[key]
	if c == nil {
		if len(r.clients) >= maxClients {
			r.forgetClient(now)
		}
		c = &client{lim: rate.NewLimiter(rate.Every(time.Duration(r.unauth.FailedAuthEvery)), r.unauth.FailedAuthBurst)}
		r.clients[key] = c
	}
	c.lim.AllowN(now, 1)
	c.failures++
	c.seen = now
	return c.failures
}

// forgetClient drops the clients whose limiter is full again (they are
// not slowed down), or else the least recently seen one.
func (r *Relay) forgetClient(now time.Time) {
	var oldest clientID
	at := time.Time{}
	burst := float64(r.unauth.FailedAuthBurst)
	for k, c := range r.clients {
		if c.lim.TokensAt(now) >= burst {
			delete(r.clients, k)
			continue
		}
		if at.IsZero() || c.seen.Before(at) {
			oldest, at = k, c.seen
		}
	}
	if len(r.clients) >= maxClients {
		delete(r.clients, oldest)
	}
}

// retryAfter is d in whole seconds, at least 1, for a Retry-After header.
func retryAfter(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}
