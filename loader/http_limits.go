package loader

import (
	"time"

	"github.com/wasmgate/wasmgate/config"
)

// Defaults of what one client can hold on the HTTP transport.
const (
	DefaultReadHeaderTimeout    = 10 * time.Second
	DefaultReadTimeout          = time.Minute
	DefaultIdleTimeout          = time.Minute
	DefaultMaxHeaderBytes       = 64 << 10
	DefaultMaxConnections       = 1024
	DefaultMaxSessions          = 1024
	DefaultMaxStreams           = 512
	DefaultMaxStreamsPerSession = 2
)

// bounds fills the defaults of the HTTP transport's timeouts and caps and
// checks their ranges.
func (h *HTTP) bounds(key string, bad config.Bad) {
	dur := func(k string, v *config.Duration, def, lo, hi time.Duration) {
		if *v == 0 {
			*v = config.Duration(def)
		} else if *v < config.Duration(lo) || *v > config.Duration(hi) {
			bad(key+"."+k, "%s is out of range (%s..%s)", *v, config.Duration(lo), config.Duration(hi))
		}
	}
	count := func(k string, v *int, def, lo, hi int) {
		if *v == 0 {
			*v = def
		} else if *v < lo || *v > hi {
			bad(key+"."+k, "%d is out of range (%d..%d)", *v, lo, hi)
		}
	}
	dur("read_header_timeout", &h.ReadHeaderTimeout, DefaultReadHeaderTimeout, 100*time.Millisecond, 10*time.Minute)
	dur("read_timeout", &h.ReadTimeout, DefaultReadTimeout, 100*time.Millisecond, time.Hour)
	dur("idle_timeout", &h.IdleTimeout, DefaultIdleTimeout, 100*time.Millisecond, time.Hour)
	if h.MaxHeaderBytes == 0 {
		h.MaxHeaderBytes = DefaultMaxHeaderBytes
	} else if h.MaxHeaderBytes < 1<<10 || h.MaxHeaderBytes > 16<<20 {
		bad(key+".max_header_bytes", "%s is out of range (1KiB..16MiB)", h.MaxHeaderBytes)
	}
	count("max_connections", &h.MaxConnections, DefaultMaxConnections, 2, 1<<20)
	count("max_sessions", &h.MaxSessions, DefaultMaxSessions, 1, 1<<20)
	count("max_streams", &h.MaxStreams, DefaultMaxStreams, 1, 1<<20)
	count("max_streams_per_session", &h.MaxStreamsPerSession, DefaultMaxStreamsPerSession, 1, 1<<10)
	// A principal's share: a quarter of the whole by default, so one
	// caller cannot take every session or stream.
	share := func(k string, v *int, whole int, wholeKey string) {
		if *v == 0 {
			*v = max(1, whole/4)
		} else if *v < 1 {
			bad(key+"."+k, "%d is out of range (1..%s)", *v, wholeKey)
		} else if *v > whole {
			bad(key+"."+k, "%d must not exceed %s (%d)", *v, wholeKey, whole)
		}
	}
	share("max_sessions_per_principal", &h.MaxSessionsPerPrincipal, h.MaxSessions, "max_sessions")
	share("max_streams_per_principal", &h.MaxStreamsPerPrincipal, h.MaxStreams, "max_streams")
	if h.ReadTimeout < h.ReadHeaderTimeout {
		bad(key+".read_timeout", "%s is shorter than read_header_timeout (%s); it bounds the whole request, headers included", h.ReadTimeout, h.ReadHeaderTimeout)
	}
	if h.MaxStreams >= h.MaxConnections {
		bad(key+".max_streams", "%d must be less than max_connections (%d), so that GET streams leave connections for requests", h.MaxStreams, h.MaxConnections)
	}
}
