package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/gateway/envelope"
)

// principalKey is whose share a request of caller c counts in: its
// principal, by name and kind of credential; "" for anonymous callers
// (no authentication configured), who are told apart by nothing and
// share only the totals.
func principalKey(st *State, c envelope.Caller) string {
	if st.Identity == nil || st.Identity.Authn == nil {
		return ""
	}
	if c.JWT {
		return "jwt\x00" + c.Principal.Name
	}
	return "principal\x00" + c.Principal.Name
}

// sessions admits an initialize within max_sessions and the caller's
// max_sessions_per_principal.
func (c *checks) sessions(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := stateOf(r)
		body, ok := bodyOf(r)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		init, request := IsInitialize(body)
		if !init {
			next.ServeHTTP(w, r)
			return
		}
		if !request {
			// mcp-go would make a session whose id it never tells.
			http.Error(w, "Bad Request: initialize must be a request (with an id), not a notification", http.StatusBadRequest)
			return
		}
		h := &st.HTTP
		caller, _ := envelope.CallerFrom(r.Context())
		release, err := c.o.IDs.admit(Quota{Total: h.MaxSessions, PerPrincipal: h.MaxSessionsPerPrincipal, Who: principalKey(st, caller)})
		switch {
		case errors.Is(err, errPrincipalSessions):
			c.refuse(w, "principal_sessions", http.StatusServiceUnavailable,
				fmt.Sprintf("Service Unavailable: principal %q already has %d sessions open, its share (transports.http.max_sessions_per_principal); end unused sessions with DELETE, or retry later", caller.Principal.Name, h.MaxSessionsPerPrincipal))
			return
		case err != nil:
			c.refuse(w, "sessions", http.StatusServiceUnavailable,
				fmt.Sprintf("Service Unavailable: %d sessions are open, the most this gateway serves (transports.http.max_sessions); retry later, and end unused sessions with DELETE", h.MaxSessions))
			return
		}
		// The id mcp-go issued is in the response's headers once it has
		// answered: the reservation becomes that session's.
		defer func() { release(w.Header().Get(server.HeaderKeySessionID)) }()
		next.ServeHTTP(w, r)
	})
}

// streams checks the session of a GET or DELETE and holds every
// long-lived stream, a session's GET stream or a 2026-07-28
// subscriptions/listen POST, within max_streams_per_session,
// max_streams_per_principal and max_streams.
func (c *checks) streams(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := stateOf(r)
		h := &st.HTTP
		caller, _ := envelope.CallerFrom(r.Context())
		// Built only for a stream: a plain POST (every tools/call) needs
		// no quota, and the principal's key is a string made per request.
		quota := func() Quota {
			return Quota{Total: h.MaxStreams, PerSession: h.MaxStreamsPerSession, PerPrincipal: h.MaxStreamsPerPrincipal, Who: principalKey(st, caller)}
		}
		if r.Method == http.MethodPost {
			// Whatever era mcp-go decides the request is, a listen request
			// counts: one it answers at once releases its place at once.
			if body, ok := bodyOf(r); ok && isRequest(body, mcp.MethodSubscriptionsListen) {
				release, err := c.o.IDs.openListen(quota())
				if err != nil {
					c.refuseStream(w, err, caller, h.MaxStreams, h.MaxStreamsPerSession, h.MaxStreamsPerPrincipal)
					return
				}
				defer release()
			}
			next.ServeHTTP(w, r)
			return
		}
		if (r.Method != http.MethodGet && r.Method != http.MethodDelete) || mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion)) {
			next.ServeHTTP(w, r) // 2026-07-28 has no sessions; mcp-go answers 405
			return
		}
		id := r.Header.Get(server.HeaderKeySessionID)
		if id == "" {
			http.Error(w, "Bad Request: Mcp-Session-Id header required (initialize first)", http.StatusBadRequest)
			return
		}
		// With a shared registry, an id another replica issued is
		// accepted (and becomes live here) as mcp-go would accept it.
		mgr := c.ids.ResolveSessionIdManager(r)
		if r.Method == http.MethodDelete {
			if ended, err := mgr.Validate(id); err != nil || ended {
				http.Error(w, "Not Found: no such session", http.StatusNotFound)
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		if _, shared := mgr.(*boundIDs); shared {
			if ended, err := mgr.Validate(id); err != nil || ended {
				http.Error(w, "Not Found: no such session", http.StatusNotFound)
				return
			}
		}
		release, err := c.o.IDs.openStream(id, quota())
		if err != nil {
			c.refuseStream(w, err, caller, h.MaxStreams, h.MaxStreamsPerSession, h.MaxStreamsPerPrincipal)
			return
		}
		if held := heldOf(r); held != nil {
			held.release = release // the stream is served after the checks return
		} else {
			defer release()
		}
		next.ServeHTTP(w, r)
	})
}

// refuseStream answers a stream openStream or openListen refused.
func (c *checks) refuseStream(w http.ResponseWriter, err error, caller envelope.Caller, total, perSession, perPrincipal int) {
	switch {
	case errors.Is(err, errSessionStreams):
		c.refuse(w, "streams", http.StatusConflict,
			fmt.Sprintf("Conflict: this session already has %d GET streams open (transports.http.max_streams_per_session)", perSession))
	case errors.Is(err, errPrincipalStreams):
		c.refuse(w, "principal_streams", http.StatusConflict,
			fmt.Sprintf("Conflict: principal %q already has %d streams open (GET streams and subscriptions/listen), its share (transports.http.max_streams_per_principal); close one first", caller.Principal.Name, perPrincipal))
	case errors.Is(err, errStreamsFull):
		c.refuse(w, "streams", http.StatusServiceUnavailable,
			fmt.Sprintf("Service Unavailable: %d streams are open (GET streams and subscriptions/listen), the most this gateway serves (transports.http.max_streams); retry later", total))
	default:
		http.Error(w, "Not Found: no such session", http.StatusNotFound)
	}
}

// IsInitialize reports whether body is an initialize message, decoded as
// mcp-go decodes it, and whether it is a request (has an id).
func IsInitialize(body []byte) (init, request bool) {
	return isMethod(body, mcp.MethodInitialize)
}

// isRequest reports whether body is a request (with an id) for method.
func isRequest(body []byte, method mcp.MCPMethod) bool {
	is, request := isMethod(body, method)
	return is && request
}

// isMethod reports whether body is a message for method, decoded as
// mcp-go decodes it, and whether it is a request (has an id).
func isMethod(body []byte, method mcp.MCPMethod) (is, request bool) {
	// Its method is written out or with escapes: a body with neither is
	// not one, and is not decoded here.
	if !bytes.Contains(body, []byte(method)) && bytes.IndexByte(body, '\\') < 0 {
		return false, false
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.Method != string(method) {
		return false, false
	}
	id := bytes.TrimSpace(msg.ID)
	return true, len(id) > 0 && !bytes.Equal(id, []byte("null"))
}
