package relay

import (
	"bufio"
	_ "embed"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"
)

// ServeHTTP serves <relay.path>/bridge.js and the WebSocket endpoint of
// each site, <relay.path>/<site>. The Origin is checked before the
// upgrade: a missing or foreign one gets 403 and no WebSocket.
func (r *Relay) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	path, closing := r.path, r.closing
	r.mu.Unlock()
	name, ok := strings.CutPrefix(req.URL.Path, path+"/")
	if !ok || name == "" || strings.Contains(name, "/") {
		http.NotFound(w, req)
		return
	}
	if name == bridgeJS {
		serveBridgeJS(w, req)
		return
	}
	if closing {
		http.Error(w, "Service Unavailable: the gateway is shutting down", http.StatusServiceUnavailable)
		return
	}
	st := r.site(name)
	if st == nil {
		r.handshake("", "unknown_site")
		http.Error(w, "Not Found: no relay site "+name, http.StatusNotFound)
		return
	}
	conf, token := st.settings()
	origin := req.Header.Get("Origin")
	if origin == "" || !originAllowed(conf.AllowedOrigins, origin) {
		r.handshake(conf.Name, "origin")
		st.refused("origin", origin, req.RemoteAddr, errors.New("origin not in "+conf.Key+".allowed_origins"))
		r.refusals.Warn(r.log, "relay: refused a connection from a missing or foreign origin", "site", conf.Name, "origin", origin,
			"remote", req.RemoteAddr, "hint", "add the page's origin to "+conf.Key+".allowed_origins")
		http.Error(w, "Forbidden: origin not allowed for this relay site", http.StatusForbidden)
		return
	}
	if conf.Protocol == ProtocolWULegacy && req.TLS == nil && !localLoopback(req) {
		r.handshake(conf.Name, "insecure")
		st.refused("insecure", origin, req.RemoteAddr, errors.New("wu-legacy over a connection neither TLS nor loopback"))
		r.refusals.Warn(r.log, "relay: refused a wu-legacy connection that is neither TLS nor loopback", "site", conf.Name, "remote", req.RemoteAddr)
		http.Error(w, "Forbidden: wu-legacy sends the token in clear; connect over loopback or TLS", http.StatusForbidden)
		return
	}
	if wait, ok := r.throttled(conf.Name, req.RemoteAddr, time.Now()); ok {
		r.m.RelayRefused.WithLabelValues(conf.Name, refusedThrottled).Inc()
		st.refused(refusedThrottled, origin, req.RemoteAddr, errors.New("too many failed handshakes from this address"))
		r.refusals.Warn(r.log, "relay: refused a connection from a client that failed too many handshakes", "site", conf.Name,
			"remote", req.RemoteAddr, "retry_after", wait.Round(time.Millisecond))
		w.Header().Set("Retry-After", strconv.Itoa(retryAfter(wait)))
		http.Error(w, "Too Many Requests: too many failed relay handshakes from this address", http.StatusTooManyRequests)
		return
	}
	release, refused := r.admit(conf)
	if release == nil {
		r.m.RelayRefused.WithLabelValues(conf.Name, refused).Inc()
		st.refused(refused, origin, req.RemoteAddr, errors.New("too many connections not authenticated yet"))
		key := conf.Key + ".max_unauthenticated"
		if refused == refusedTotalCap {
			key = "relay.max_unauthenticated"
		}
		r.refusals.Warn(r.log, "relay: refused a connection: too many connections not authenticated yet", "site", conf.Name,
			"remote", req.RemoteAddr, "limit", key)
		w.Header().Set("Retry-After", "1")
		http.Error(w, "Service Unavailable: too many relay connections waiting to authenticate", http.StatusServiceUnavailable)
		return
	}
	hj := &hijackRecorder{ResponseWriter: w}
	c, err := websocket.Accept(hj, req, &websocket.AcceptOptions{
		InsecureSkipVerify: true, // the Origin was checked above, against the site's list
		CompressionMode:    websocket.CompressionDisabled,
	})
	if err != nil {
		release()
		r.handshake(conf.Name, "malformed")
		return // Accept has answered
	}
	c.SetReadLimit(preAuthLimit(conf, token)) // raised to max_frame once authenticated
	b := newBridge(r, st, c, origin, req.RemoteAddr, conf.Protocol == ProtocolWULegacy)
	b.slot, b.raw = release, hj.conn
	if !r.track(b) {
		b.releaseSlot()
		c.Close(websocket.StatusGoingAway, "gateway shutting down")
		return
	}
	defer r.untrack(b)
	b.run()
}

func serveBridgeJS(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/javascript; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	// Public code, no credentials: any page may import it.
	h.Set("Access-Control-Allow-Origin", "*")
	http.ServeContent(w, req, bridgeJS, time.Time{}, strings.NewReader(string(bridgeSource)))
}

// originAllowed reports whether origin may connect to a site allowing
// allowed (empty: loopback origins).
func originAllowed(allowed []string, origin string) bool {
	o := normalizeOrigin(origin)
	if len(allowed) > 0 {
		for _, a := range allowed {
			if normalizeOrigin(a) == o {
				return true
			}
		}
		return false
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Path != "" {
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

// localLoopback reports whether req arrived on a loopback address.
func localLoopback(req *http.Request) bool {
	addr, ok := req.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	return Listener{Addr: addr.String()}.Loopback()
}

// hijackRecorder keeps the network connection websocket.Accept takes over,
// so that a connection refused before its handshake can be cut at once.
type hijackRecorder struct {
	http.ResponseWriter
	conn net.Conn
}

func (h *hijackRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := h.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("the connection cannot be taken over (http.Hijacker)")
	}
	c, rw, err := hj.Hijack()
	h.conn = c
	return c, rw, err
}

// Unwrap lets http.ResponseController reach the wrapped writer.
func (h *hijackRecorder) Unwrap() http.ResponseWriter { return h.ResponseWriter }
