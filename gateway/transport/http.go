// Package transport is the MCP Streamable HTTP transport: the checks the
// MCP specification asks of a server in front of mcp-go, as small
// http.Handler middlewares (origin, CORS, authentication, session
// ownership, body and session caps, stream caps), the session ids it
// issues, and the listener's connection limits.
package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/auth"
	"github.com/wasmgate/wasmgate/gateway/envelope"
	"github.com/wasmgate/wasmgate/gateway/tracing"
	"github.com/wasmgate/wasmgate/internal/lograte"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/metrics"
)

// retryAfter is what a client refused by a full cap is told to wait, in
// seconds.
const retryAfter = "30"

// State is what the checks follow, from the serving snapshot: a reload
// changes it.
type State struct {
	HTTP     loader.HTTP
	Identity *Identity
}

// Options are what Handler serves.
type Options struct {
	Path    string
	IdleTTL time.Duration // transports.http.session_idle_timeout
	// Heartbeat is transports.http.stream_heartbeat: how often a GET
	// stream is sent a ping (0: never).
	Heartbeat time.Duration
	MCP       *server.MCPServer
	// Current is the serving state, nil before the first snapshot.
	Current func() *State
	// Owns reports whether caller c may use session id (the
	// endpoint's Owns, package endpoint).
	Owns    func(id string, c envelope.Caller) bool
	Metrics *metrics.Metrics
	Logger  *slog.Logger
	// Mount are more handlers on the same listener, by pattern (the
	// browser relay).
	Mount map[string]http.Handler
	// IDs issues and tracks session ids; nil: a new SessionIDs. One
	// SessionIDs serves every endpoint of a listener (its caps count
	// them all); Scope says whose ids this endpoint's are.
	IDs   *SessionIDs
	Scope string
	// Allow, when set, says whether an authenticated caller may use the
	// endpoint (endpoints[].access); a refused one gets 403.
	Allow func(c envelope.Caller) bool
	// Shared is the registry of session ids the replicas share, nil
	// (or a nil func) while there is none (shared.go).
	Shared func() SharedSessions
	// Card, when set, is the endpoint's server card for a request of it
	// (GET <path>/server-card, package servercard); anonymous says
	// whether the listener lets callers in without authentication now.
	Card func(r *http.Request, anonymous bool, st *State) any
	// SlowPath serves every request through mcp-go's ServeHTTP, without
	// the fast path for plain tools/call requests (fast.go); for tests
	// that compare the two.
	SlowPath bool
}

// Handler serves MCP Streamable HTTP at o.Path behind the checks the MCP
// specification asks of a server: a present Origin must be allowed
// (default: loopback origins only) or the request gets 403; with
// authentication configured, requests without it get 401. It also bounds
// what one client can hold: the body (max_body, read_timeout), sessions
// (max_sessions) and GET streams (max_streams_per_session, max_streams),
// and only session ids the gateway issued are accepted. All of it follows
// the serving state, so a reload changes it. It is one endpoint's
// Endpoint with its metadata and o.Mount on a mux of their own (the
// gateway routes several endpoints with a Router).
func Handler(o Options) (http.Handler, *server.StreamableHTTPServer) {
	ep := Endpoint(o)
	mux := http.NewServeMux()
	mux.Handle(o.Path, ep.MCP)
	mux.Handle(auth.MetadataPath, ep.Metadata)
	mux.Handle(auth.MetadataPath+o.Path, ep.Metadata)
	for pattern, h := range o.Mount {
		mux.Handle(pattern, h)
	}
	return mux, ep.Server
}

// Served is one endpoint's HTTP side: its MCP path's handler, its RFC
// 9728 protected-resource metadata, and mcp-go's server under them.
type Served struct {
	MCP      http.Handler
	Metadata http.Handler
	Card     http.Handler // nil without Options.Card
	Server   *server.StreamableHTTPServer
}

// Endpoint is the MCP handler of one endpoint (o.Path, o.MCP, o.Scope)
// behind Handler's checks, with o.Allow's access check after
// authentication; o.Mount is not used.
func Endpoint(o Options) Served {
	if o.IDs == nil {
		o.IDs = NewSessionIDs()
	}
	ids := idResolver{ids: o.IDs.Scope(o.Scope), shared: o.Shared, ttl: o.IdleTTL}
	sh := server.NewStreamableHTTPServer(o.MCP,
		server.WithEndpointPath(o.Path),
		// Track sessions: unknown or ended ids get 404, DELETE ends one,
		// and session_idle_timeout ends idle ones.
		server.WithSessionIdManagerResolver(ids),
		server.WithHeartbeatInterval(o.Heartbeat),
		server.WithSessionIdleTTL(o.IdleTTL),
		server.WithStreamableHTTPLogger(o.Logger.With("component", "mcp-http")),
	)
	suppressed := func() { o.Metrics.LogSuppressed.WithLabelValues("http").Inc() }
	c := &checks{o: o, ids: ids, capWarn: lograte.New(1, time.Minute, suppressed),
		refusals: lograte.New(lograte.DefaultBurst, lograte.DefaultEvery, suppressed)}
	// RFC 9728 protected-resource metadata, at the root and under the
	// endpoint's path, as OAuth clients look for it.
	return Served{
		MCP: shallowStreams{
			checked: chain(holdStreams(fastCall(sh, o.SlowPath)), c.serving, c.origin, c.authenticate, c.access, c.ownSession, c.body, c.sessions, c.streams),
			serve:   sh,
		},
		Metadata: c.metadataHandler(),
		Card:     c.cardHandler(),
		Server:   sh,
	}
}

// NewServer is the MCP listener's server: transports.http's timeouts
// (header, whole request, keep-alive idle) and header size cap. Serve it
// on LimitConns(ln, ...) so that the connections are bounded too.
func NewServer(h loader.HTTP, handler http.Handler, logger *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: time.Duration(h.ReadHeaderTimeout),
		// The whole request, body included. net/http lifts the read
		// deadline once the body is in, so a call may run longer and a
		// GET stream lasts as long as the client keeps it.
		ReadTimeout:    time.Duration(h.ReadTimeout),
		IdleTimeout:    time.Duration(h.IdleTimeout),
		MaxHeaderBytes: int(h.MaxHeaderBytes),
		ErrorLog:       ErrorLog(logger, "http"),
	}
}

// ErrorLog is a standard logger writing to logger at warn level, for
// libraries that log through one (net/http, mcp-go's stdio server).
func ErrorLog(logger *slog.Logger, from string) *log.Logger {
	return log.New(slogWriter{logger, from}, "", 0)
}

// slogWriter adapts a *log.Logger sink to slog.
type slogWriter struct {
	l    *slog.Logger
	from string
}

func (w slogWriter) Write(p []byte) (int, error) {
	w.l.Warn(strings.TrimRight(string(p), "\r\n"), "component", w.from)
	return len(p), nil
}

// middleware is one check in front of mcp-go.
type middleware func(next http.Handler) http.Handler

// checked is what the checks learn of a request: serving puts it in the
// request's context, and the checks after it fill it in rather than
// copying the request and its context again (a copy of the request and
// a context value each, per call).
type checked struct {
	st   *State // the serving state when the request arrived
	body []byte // the POST body, once the body check has read it
	read bool   // whether it has
}

// checkedKey carries a request's *checked.
type checkedKey struct{}

// chain runs the checks in order, then next; built once. Each check reads
// the state serving when the request arrived (stateOf), which serving put
// in the request's context.
func chain(next http.Handler, serving func(http.Handler) http.Handler, mws ...middleware) http.Handler {
	h := next
	for i := len(mws) - 1; i >= 0; i-- {
		h = mws[i](h)
	}
	return serving(h)
}

// stateOf is the serving state of a request that passed serving.
func stateOf(r *http.Request) *State { return checkedOf(r).st }

// checkedOf is what the checks so far learnt of r, which passed serving.
func checkedOf(r *http.Request) *checked { return r.Context().Value(checkedKey{}).(*checked) }

// checks are the middlewares of one Handler.
type checks struct {
	o        Options
	ids      idResolver // the session ids, with the shared registry if any
	capWarn  *lograte.Limiter
	refusals *lograte.Limiter // unauthenticated refusals are logged at a bounded rate
}

func (c *checks) reject(reason string) { c.o.Metrics.HTTPRejected.WithLabelValues(reason).Inc() }

// refuse answers a request refused by a full cap (and logs the cap at
// most once a minute).
func (c *checks) refuse(w http.ResponseWriter, reason string, code int, msg string) {
	c.reject(reason)
	if code == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", retryAfter)
	}
	if reason != "timeout" {
		c.capWarn.Warn(c.o.Logger, "transports.http cap reached; refusing requests", "status", code, "error", msg,
			"hint", "raise the cap in gateway.yaml if the load is legitimate (logged at most once a minute)")
	}
	http.Error(w, msg, code)
}

// serving puts the serving state in the request's context (503 before
// the first snapshot).
func (c *checks) serving(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := c.o.Current()
		if st == nil {
			http.Error(w, "wasmgate is starting", http.StatusServiceUnavailable)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), checkedKey{}, &checked{st: st})))
	})
}

// origin refuses a foreign Origin (403) and answers CORS for an allowed one.
func (c *checks) origin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := stateOf(r)
		if origin := r.Header.Get("Origin"); origin != "" {
			if !st.Identity.Origins.Allowed(origin) {
				c.reject("origin")
				c.refusals.Warn(c.o.Logger, "refused request from a foreign origin", "origin", origin, "remote", r.RemoteAddr,
					"hint", "add it to transports.http.allowed_origins")
				http.Error(w, "Forbidden: origin not allowed", http.StatusForbidden)
				return
			}
			if cors(w, r, origin) {
				return // a preflight, answered
			}
		}
		next.ServeHTTP(w, r)
	})
}

// authenticate puts the request's caller in its context, or answers 401.
func (c *checks) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := stateOf(r)
		caller, err := st.Identity.authenticate(r)
		if err != nil {
			c.challenge(w, r, st.Identity, err)
			return
		}
		ctx := tracing.FromHeaders(envelope.WithCaller(r.Context(), caller), r.Header)
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// access answers 403 to a caller the endpoint's access leaves out,
// naming nothing it may not see.
func (c *checks) access(next http.Handler) http.Handler {
	if c.o.Allow == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		caller, _ := envelope.CallerFrom(r.Context())
		if !c.o.Allow(caller) {
			c.reject("endpoint_access")
			c.refusals.Warn(c.o.Logger, "refused a principal the endpoint's access leaves out", "path", c.o.Path,
				"principal", caller.Principal.Name, "remote", r.RemoteAddr)
			http.Error(w, "Forbidden: this endpoint is not open to you", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// ownSession answers someone else's session as if it did not exist.
func (c *checks) ownSession(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		caller, _ := envelope.CallerFrom(r.Context())
		if id := r.Header.Get(server.HeaderKeySessionID); id != "" && !c.o.Owns(id, caller) {
			http.Error(w, "Not Found: no such session", http.StatusNotFound)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// body reads a POST body whole, within max_body and read_timeout.
func (c *checks) body(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := stateOf(r)
		h := &st.HTTP
		max := int64(h.MaxBody)
		if r.ContentLength > max {
			c.reject("too_large")
			http.Error(w, "Request body too large (transports.http.max_body)", http.StatusRequestEntityTooLarge)
			return
		}
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
		if err != nil {
			var tooLarge *http.MaxBytesError
			var netErr net.Error
			switch {
			case errors.As(err, &tooLarge):
				c.reject("too_large")
				http.Error(w, "Request body too large (transports.http.max_body)", http.StatusRequestEntityTooLarge)
			case errors.As(err, &netErr) && netErr.Timeout():
				w.Header().Set("Connection", "close")
				c.refuse(w, "timeout", http.StatusRequestTimeout,
					fmt.Sprintf("Request Timeout: the request did not arrive within %s (transports.http.read_timeout)", h.ReadTimeout))
			default:
				http.Error(w, "Bad request: reading body: "+err.Error(), http.StatusBadRequest)
			}
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		c := checkedOf(r)
		c.body, c.read = body, true
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
