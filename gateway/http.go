package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/auth"
	"github.com/wasmgate/wasmgate/loader"
)

// retryAfter is what a client refused by a full cap is told to wait, in
// seconds.
const retryAfter = "30"

// HTTPHandler serves MCP Streamable HTTP at the configured path, behind the
// checks the MCP specification asks of a server: a present Origin must be
// allowed (default: loopback origins only) or the request gets 403; with a
// bearer token configured, requests without it get 401. It also bounds
// what one client can hold: the body (max_body, read_timeout), sessions
// (max_sessions) and GET streams (max_streams_per_session, max_streams),
// and only session ids the gateway issued are accepted. All of it follows
// the serving snapshot, so a reload changes it.
func (g *Gateway) HTTPHandler(path string, idleTTL time.Duration) (http.Handler, *server.StreamableHTTPServer) {
	return g.httpHandler(path, idleTTL, newSessionIDs())
}

func (g *Gateway) httpHandler(path string, idleTTL time.Duration, ids *sessionIDs) (http.Handler, *server.StreamableHTTPServer) {
	sh := server.NewStreamableHTTPServer(g.mcp,
		server.WithEndpointPath(path),
		// Track sessions: unknown or ended ids get 404, DELETE ends one,
		// and session_idle_timeout ends idle ones.
		server.WithSessionIdManager(ids),
		server.WithHeartbeatInterval(30*time.Second),
		server.WithSessionIdleTTL(idleTTL),
		server.WithStreamableHTTPLogger(g.log.With("component", "mcp-http")),
	)
	mux := http.NewServeMux()
	mux.Handle(path, g.guard(sh, ids))
	// RFC 9728 protected-resource metadata, at the root and under the
	// endpoint's path, as OAuth clients look for it.
	meta := g.metadataHandler(path)
	mux.Handle(auth.MetadataPath, meta)
	mux.Handle(auth.MetadataPath+path, meta)
	if s := g.cur.Load(); s != nil {
		mux.Handle(s.Config.Relay.Path+"/", g.relay) // the browser relay checks its own origins and tokens
	}
	return mux, sh
}

// newHTTPServer is the MCP listener's server: transports.http's timeouts
// (header, whole request, keep-alive idle) and header size cap. Serve it
// on limitConns(ln, ...) so that the connections are bounded too.
func newHTTPServer(cfg *loader.Config, handler http.Handler, logger *slog.Logger) *http.Server {
	h := cfg.Transports.HTTP
	return &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: time.Duration(h.ReadHeaderTimeout),
		// The whole request, body included. net/http lifts the read
		// deadline once the body is in, so a call may run longer and a
		// GET stream lasts as long as the client keeps it.
		ReadTimeout:    time.Duration(h.ReadTimeout),
		IdleTimeout:    time.Duration(h.IdleTimeout),
		MaxHeaderBytes: int(h.MaxHeaderBytes),
		ErrorLog:       log.New(slogWriter{logger, "http"}, "", 0),
	}
}

// guard runs in front of mcp-go for every request to the MCP path.
func (g *Gateway) guard(next http.Handler, ids *sessionIDs) http.Handler {
	capWarn := &warnEvery{every: time.Minute}
	refuse := func(w http.ResponseWriter, reason string, code int, msg string) {
		g.opts.Metrics.HTTPRejected.WithLabelValues(reason).Inc()
		if code == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", retryAfter)
		}
		if reason != "timeout" && capWarn.ok() {
			g.log.Warn("transports.http cap reached; refusing requests", "status", code, "error", msg,
				"hint", "raise the cap in gateway.yaml if the load is legitimate (logged at most once a minute)")
		}
		http.Error(w, msg, code)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := g.cur.Load()
		if s == nil {
			http.Error(w, "wasmgate is starting", http.StatusServiceUnavailable)
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" {
			if !s.originAllowed(origin) {
				g.opts.Metrics.HTTPRejected.WithLabelValues("origin").Inc()
				g.log.Warn("refused request from a foreign origin", "origin", origin, "remote", r.RemoteAddr,
					"hint", "add it to transports.http.allowed_origins")
				http.Error(w, "Forbidden: origin not allowed", http.StatusForbidden)
				return
			}
			if cors(w, r, origin) {
				return // a preflight, answered
			}
		}
		c, err := s.authenticate(r)
		if err != nil {
			g.challenge(w, r, s, err)
			return
		}
		if id := r.Header.Get(server.HeaderKeySessionID); id != "" && !g.views.owns(id, c) {
			// Someone else's session: as if it did not exist.
			http.Error(w, "Not Found: no such session", http.StatusNotFound)
			return
		}
		r = r.WithContext(withCaller(r.Context(), c))
		h := &s.Config.Transports.HTTP
		max := int64(h.MaxBody)
		if r.ContentLength > max {
			g.opts.Metrics.HTTPRejected.WithLabelValues("too_large").Inc()
			http.Error(w, "Request body too large (transports.http.max_body)", http.StatusRequestEntityTooLarge)
			return
		}
		switch r.Method {
		case http.MethodPost:
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
			if err != nil {
				var tooLarge *http.MaxBytesError
				var netErr net.Error
				switch {
				case errors.As(err, &tooLarge):
					g.opts.Metrics.HTTPRejected.WithLabelValues("too_large").Inc()
					http.Error(w, "Request body too large (transports.http.max_body)", http.StatusRequestEntityTooLarge)
				case errors.As(err, &netErr) && netErr.Timeout():
					w.Header().Set("Connection", "close")
					refuse(w, "timeout", http.StatusRequestTimeout,
						fmt.Sprintf("Request Timeout: the request did not arrive within %s (transports.http.read_timeout)", h.ReadTimeout))
				default:
					http.Error(w, "Bad request: reading body: "+err.Error(), http.StatusBadRequest)
				}
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			if init, request := isInitialize(body); init {
				if !request {
					// mcp-go would make a session whose id it never tells.
					http.Error(w, "Bad Request: initialize must be a request (with an id), not a notification", http.StatusBadRequest)
					return
				}
				release, ok := ids.admit(h.MaxSessions)
				if !ok {
					refuse(w, "sessions", http.StatusServiceUnavailable,
						fmt.Sprintf("Service Unavailable: %d sessions are open, the most this gateway serves (transports.http.max_sessions); retry later, and end unused sessions with DELETE", h.MaxSessions))
					return
				}
				defer release()
			}
		case http.MethodGet, http.MethodDelete:
			if mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion)) {
				break // 2026-07-28 has no sessions; mcp-go answers 405
			}
			id := r.Header.Get(server.HeaderKeySessionID)
			if id == "" {
				http.Error(w, "Bad Request: Mcp-Session-Id header required (initialize first)", http.StatusBadRequest)
				return
			}
			if r.Method == http.MethodDelete {
				if ended, err := ids.Validate(id); err != nil || ended {
					http.Error(w, "Not Found: no such session", http.StatusNotFound)
					return
				}
				break
			}
			release, err := ids.openStream(id, h.MaxStreamsPerSession, h.MaxStreams)
			switch {
			case errors.Is(err, errSessionStreams):
				refuse(w, "streams", http.StatusConflict,
					fmt.Sprintf("Conflict: this session already has %d GET streams open (transports.http.max_streams_per_session)", h.MaxStreamsPerSession))
				return
			case errors.Is(err, errStreamsFull):
				refuse(w, "streams", http.StatusServiceUnavailable,
					fmt.Sprintf("Service Unavailable: %d GET streams are open, the most this gateway serves (transports.http.max_streams); retry later", h.MaxStreams))
				return
			case err != nil:
				http.Error(w, "Not Found: no such session", http.StatusNotFound)
				return
			}
			defer release()
		}
		next.ServeHTTP(w, r)
	})
}

// cors answers CORS for a browser page on an allowed origin: a preflight
// (OPTIONS with Access-Control-Request-Method) gets the methods and
// headers MCP needs and is answered here (true); any other request gets
// the headers that let the page read the response and Mcp-Session-Id.
func cors(w http.ResponseWriter, r *http.Request, origin string) bool {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
		h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Content-Type, Accept, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID")
		h.Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
		return true
	}
	h.Set("Access-Control-Expose-Headers", "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate")
	return false
}

// isInitialize reports whether body is an initialize message, decoded as
// mcp-go decodes it, and whether it is a request (has an id).
func isInitialize(body []byte) (init, request bool) {
	// Its method is "initialize", written out or with escapes: a body with
	// neither is not one, and is not decoded here.
	if !bytes.Contains(body, []byte(mcp.MethodInitialize)) && bytes.IndexByte(body, '\\') < 0 {
		return false, false
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.Method != string(mcp.MethodInitialize) {
		return false, false
	}
	id := bytes.TrimSpace(msg.ID)
	return true, len(id) > 0 && !bytes.Equal(id, []byte("null"))
}

// bearerToken returns the credentials of an Authorization header using the
// Bearer scheme, whose name is case-insensitive (RFC 9110, 11.1).
func bearerToken(h http.Header) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(h.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(token), true
}

// warnEvery lets one log line through per period.
type warnEvery struct {
	every time.Duration
	last  atomic.Int64 // unix nanoseconds
}

func (w *warnEvery) ok() bool {
	now, last := time.Now().UnixNano(), w.last.Load()
	return now-last >= int64(w.every) && w.last.CompareAndSwap(last, now)
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
	return isLoopbackHost(u.Host)
}

// isLoopbackHost reports whether a Host header or host:port names this
// machine's loopback: localhost or a loopback address.
func isLoopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func normalizeOrigin(o string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(o)), "/")
}
