package gateway

import (
	"bytes"
	"crypto/subtle"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// HTTPHandler serves MCP Streamable HTTP at the configured path, behind the
// checks the MCP specification asks of a server: a present Origin must be
// allowed (default: loopback origins only) or the request gets 403; with a
// bearer token configured, requests without it get 401. Both follow the
// serving snapshot, so a reload changes them.
func (g *Gateway) HTTPHandler(path string, idleTTL time.Duration) (http.Handler, *server.StreamableHTTPServer) {
	sh := server.NewStreamableHTTPServer(g.mcp,
		server.WithEndpointPath(path),
		// Track sessions: unknown or ended ids get 404, DELETE ends one,
		// and session_idle_timeout ends idle ones.
		server.WithSessionIdManager(newSessionIDs()),
		server.WithHeartbeatInterval(30*time.Second),
		server.WithSessionIdleTTL(idleTTL),
		server.WithStreamableHTTPLogger(g.log.With("component", "mcp-http")),
	)
	mux := http.NewServeMux()
	mux.Handle(path, g.guard(sh))
	if s := g.cur.Load(); s != nil {
		mux.Handle(s.Config.Relay.Path+"/", g.relay) // the browser relay checks its own origins and tokens
	}
	return mux, sh
}

func (g *Gateway) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := g.cur.Load()
		if s == nil {
			http.Error(w, "wasmgate is starting", http.StatusServiceUnavailable)
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && !s.originAllowed(origin) {
			g.opts.Metrics.HTTPRejected.WithLabelValues("origin").Inc()
			g.log.Warn("refused request from a foreign origin", "origin", origin, "remote", r.RemoteAddr,
				"hint", "add it to transports.http.allowed_origins")
			http.Error(w, "Forbidden: origin not allowed", http.StatusForbidden)
			return
		}
		if s.token != "" {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(s.token)) != 1 {
				g.opts.Metrics.HTTPRejected.WithLabelValues("auth").Inc()
				w.Header().Set("WWW-Authenticate", `Bearer realm="wasmgate"`)
				http.Error(w, "Unauthorized: missing or wrong bearer token", http.StatusUnauthorized)
				return
			}
		}
		max := int64(s.Config.Transports.HTTP.MaxBody)
		if r.ContentLength > max {
			g.opts.Metrics.HTTPRejected.WithLabelValues("too_large").Inc()
			http.Error(w, "Request body too large (transports.http.max_body)", http.StatusRequestEntityTooLarge)
			return
		}
		if r.Body != nil && r.Method == http.MethodPost {
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
			if err != nil {
				var tooLarge *http.MaxBytesError
				if errors.As(err, &tooLarge) {
					g.opts.Metrics.HTTPRejected.WithLabelValues("too_large").Inc()
					http.Error(w, "Request body too large (transports.http.max_body)", http.StatusRequestEntityTooLarge)
					return
				}
				http.Error(w, "Bad request: reading body: "+err.Error(), http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		next.ServeHTTP(w, r)
	})
}

// originAllowed reports whether origin may talk to the MCP endpoint.
func (s *Snapshot) originAllowed(origin string) bool {
	if len(s.origins) > 0 {
		return s.origins[normalizeOrigin(origin)]
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func normalizeOrigin(o string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(o)), "/")
}
