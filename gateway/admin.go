package gateway

import (
	"crypto/subtle"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/metrics"
)

// newAdminServer is the admin listener's server: short timeouts and a
// small header cap (its clients are Prometheus, health checks and an
// operator). Serve it on newLimitListener(ln, adminMaxConns).
func newAdminServer(cfg *loader.Config, handler http.Handler, logger *slog.Logger) *http.Server {
	a := cfg.Admin
	if !loopbackListen(a.Listen) && a.Auth.BearerTokenEnv == "" && a.Auth.BearerTokenFile == "" {
		logger.Warn("the admin listener is not on loopback and has no bearer token: whoever reaches it can read /metrics and reload",
			"listen", a.Listen, "hint", "set admin.auth.bearer_token_env or admin.auth.bearer_token_file")
	}
	return &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		IdleTimeout:       time.Minute,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          log.New(slogWriter{logger, "admin"}, "", 0),
	}
}

// adminHandler serves the status page (/ and /api/status), /metrics,
// /healthz, /readyz and POST /-/reload.
// With admin.auth, /metrics and /-/reload need the bearer token; /healthz
// and /readyz stay open for health checks. /-/reload refuses what a browser
// could be made to send (see sameOrigin).
func (g *Gateway) adminHandler(m *metrics.Metrics) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", g.adminAuth(m.Handler()))
	mux.Handle("POST /-/reload", g.sameOrigin(g.adminAuth(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := g.ReloadFrom(r.Context(), TriggerAdmin); err != nil {
			http.Error(w, "reload failed: "+err.Error(), http.StatusInternalServerError)
			return
		}
		_, _ = io.WriteString(w, "reloaded: "+g.cur.Load().Summary()+"\n")
	}))))
	mux.Handle("GET /{$}", g.notRebound(g.adminAuth(http.HandlerFunc(g.statusPage))))
	mux.Handle("GET /api/status", g.notRebound(g.adminAuth(http.HandlerFunc(g.statusJSON))))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if !g.ready.Load() || g.cur.Load() == nil {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		_, _ = io.WriteString(w, "ready\n")
	})
	return mux
}

// adminAuth requires admin.auth's bearer token when one is configured.
func (g *Gateway) adminAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := g.cur.Load()
		if s == nil {
			http.Error(w, "wasmgate is starting", http.StatusServiceUnavailable)
			return
		}
		if s.adminToken != "" {
			got, ok := bearerToken(r.Header)
			if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(s.adminToken)) != 1 {
				g.opts.Metrics.HTTPRejected.WithLabelValues("admin_auth").Inc()
				w.Header().Set("WWW-Authenticate", `Bearer realm="wasmgate-admin"`)
				http.Error(w, "Unauthorized: missing or wrong admin bearer token", http.StatusUnauthorized)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// sameOrigin guards a state-changing admin endpoint against browsers: a web
// page can make a visitor's browser send a "simple" request (an HTML form,
// or fetch without preflight) to a loopback address, and DNS rebinding can
// make it look same-origin. Refused (403):
//   - a Host that is not a loopback name while the listener is bound to
//     loopback (DNS rebinding);
//   - an Origin other than the listener's own (http:// + Host);
//   - Sec-Fetch-Site other than same-origin or none;
//   - the content types a form or a simple request can send
//     (application/x-www-form-urlencoded, multipart/form-data, text/plain).
//
// `curl -X POST http://127.0.0.1:9090/-/reload` sends none of these.
func (g *Gateway) sameOrigin(next http.Handler) http.Handler {
	warn := &warnEvery{every: time.Minute}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := g.cur.Load()
		if s == nil {
			http.Error(w, "wasmgate is starting", http.StatusServiceUnavailable)
			return
		}
		if msg := crossSite(r, loopbackListen(s.Config.Admin.Listen)); msg != "" {
			g.opts.Metrics.HTTPRejected.WithLabelValues("admin_cross_site").Inc()
			if warn.ok() {
				g.log.Warn("refused an admin request a browser could have been made to send (logged at most once a minute)",
					"path", r.URL.Path, "remote", r.RemoteAddr, "reason", msg)
			}
			http.Error(w, "Forbidden: "+msg, http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// notRebound refuses (403) a request whose Host is not a loopback name
// while the listener is bound to loopback: a page on another site that
// rebinds its DNS name to 127.0.0.1 must not read the status page.
func (g *Gateway) notRebound(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := g.cur.Load()
		if s != nil && loopbackListen(s.Config.Admin.Listen) && !isLoopbackHost(r.Host) {
			g.opts.Metrics.HTTPRejected.WithLabelValues("admin_cross_site").Inc()
			http.Error(w, "Forbidden: Host "+quote(r.Host)+" is not a loopback name, and the admin listener is bound to loopback", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// crossSite says why r may come from a browser on another site, or "".
func crossSite(r *http.Request, loopback bool) string {
	if loopback && !isLoopbackHost(r.Host) {
		return "Host " + quote(r.Host) + " is not a loopback name, and the admin listener is bound to loopback"
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || u.Scheme != "http" || !strings.EqualFold(u.Host, r.Host) {
			return "cross-origin request (Origin " + quote(o) + ")"
		}
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return "cross-site request (Sec-Fetch-Site " + quote(site) + ")"
	}
	ct, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";")
	switch strings.ToLower(strings.TrimSpace(ct)) {
	case "application/x-www-form-urlencoded", "multipart/form-data", "text/plain":
		return "Content-Type " + quote(ct) + " is what an HTML form sends; send no body (curl -X POST)"
	}
	return ""
}

func quote(s string) string {
	if len(s) > 100 {
		s = s[:100] + "..."
	}
	return strconv.Quote(s)
}

// loopbackListen reports whether a listen address (host:port) is bound to
// loopback only.
func loopbackListen(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	return err == nil && host != "" && isLoopbackHost(host)
}
