package relay

import (
	_ "embed"
	"net"
	"net/http"
	"net/url"
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
	conf, _ := st.settings()
	origin := req.Header.Get("Origin")
	if origin == "" || !originAllowed(conf.AllowedOrigins, origin) {
		r.handshake(conf.Name, "origin")
		r.log.Warn("relay: refused a connection from a missing or foreign origin", "site", conf.Name, "origin", origin,
			"remote", req.RemoteAddr, "hint", "add the page's origin to "+conf.Key+".allowed_origins")
		http.Error(w, "Forbidden: origin not allowed for this relay site", http.StatusForbidden)
		return
	}
	if conf.Protocol == ProtocolWULegacy && req.TLS == nil && !localLoopback(req) {
		r.handshake(conf.Name, "insecure")
		r.log.Warn("relay: refused a wu-legacy connection that is neither TLS nor loopback", "site", conf.Name, "remote", req.RemoteAddr)
		http.Error(w, "Forbidden: wu-legacy sends the token in clear; connect over loopback or TLS", http.StatusForbidden)
		return
	}
	c, err := websocket.Accept(w, req, &websocket.AcceptOptions{
		InsecureSkipVerify: true, // the Origin was checked above, against the site's list
		CompressionMode:    websocket.CompressionDisabled,
	})
	if err != nil {
		r.handshake(conf.Name, "malformed")
		return // Accept has answered
	}
	c.SetReadLimit(int64(conf.MaxFrame))
	b := newBridge(r, st, c, origin, req.RemoteAddr, conf.Protocol == ProtocolWULegacy)
	if !r.track(b) {
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
