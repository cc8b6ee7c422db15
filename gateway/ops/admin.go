package ops

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/pprof"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/wasmgate/wasmgate/auth"
	"github.com/wasmgate/wasmgate/gateway/transport"
	"github.com/wasmgate/wasmgate/internal/lograte"
	"github.com/wasmgate/wasmgate/internal/netutil"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/metrics"
)

// AdminOptions are what the admin listener serves.
type AdminOptions struct {
	Metrics *metrics.Metrics
	Logger  *slog.Logger
	// Current is the serving admin section and its bearer token ("" for
	// none); ok is false before the first snapshot.
	Current func() (cfg loader.Admin, token string, ok bool)
	// Reload reloads the config and returns the new summary.
	Reload func(ctx context.Context) (summary string, err error)
	Ready  func() bool
	Status func() Status
	// Lock compares what the sources of the config as saved publish with
	// the lock file and, with write, writes it and reloads (`wasmgate
	// lock`); the result marshals to JSON. With digest (the one a GET
	// answered), it writes only that state, else fails with
	// ErrLockChanged.
	Lock func(ctx context.Context, write bool, digest string) (any, error)
	// Credentials serves GET /api/credentials and POST
	// /api/credentials/revoke (the vault's admin API; nil: 404).
	Credentials http.Handler
	// Flows serves POST /api/flows/reset (flow.ResetHandler: forget a
	// session's or a principal's taint; nil: 404).
	Flows http.Handler
}

// ErrLockChanged: POST /-/lock?digest= named a state other than the one
// the sources publish now; nothing was written (409 Conflict).
var ErrLockChanged = errors.New("lock refused")

type admin struct {
	o          AdminOptions
	warn       *lograte.Limiter // cross-site refusals, logged at most once a minute
	warnHeader *lograte.Limiter // refusals without the admin header, likewise
}

// NewAdminServer is the admin listener's server: short timeouts and a
// small header cap (its clients are Prometheus, health checks and an
// operator). Serve it on transport.NewLimitListener(ln, transport.AdminMaxConns).
func NewAdminServer(a loader.Admin, handler http.Handler, logger *slog.Logger) *http.Server {
	if !netutil.LoopbackListen(a.Listen) && a.Auth.BearerTokenEnv == "" && a.Auth.BearerTokenFile == "" {
		logger.Warn("the admin listener is not on loopback and has no bearer token: whoever reaches it can read /metrics and reload",
			"listen", a.Listen, "hint", "set admin.auth.bearer_token_env or admin.auth.bearer_token_file")
	}
	return &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		IdleTimeout:       time.Minute,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          transport.ErrorLog(logger, "admin"),
	}
}

// AdminHandler serves the status page (/ and /api/status), /metrics,
// /healthz, /readyz, GET and POST /-/lock and POST /-/reload, and with
// their handlers the credentials API and POST /api/flows/reset.
// With admin.auth, /metrics, /-/lock and /-/reload need the bearer token;
// /healthz and /readyz stay open for health checks. The POST endpoints
// refuse what a browser could be made to send (see sameOrigin) and, with
// no admin token, what the gateway's own outbound clients could be made
// to send (see deliberate).
func AdminHandler(o AdminOptions) http.Handler {
	a := &admin{o: o, warn: lograte.New(1, time.Minute, nil), warnHeader: lograte.New(1, time.Minute, nil)}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", a.adminAuth(o.Metrics.Handler()))
	mux.Handle("POST /-/reload", a.sameOrigin(a.adminAuth(a.deliberate(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		summary, err := o.Reload(r.Context())
		if err != nil {
			http.Error(w, "reload failed: "+err.Error(), http.StatusInternalServerError)
			return
		}
		_, _ = io.WriteString(w, "reloaded: "+summary+"\n")
	})))))
	// wasmgate lock: GET compares (--check), POST approves (a reload).
	lock := func(write bool) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			res, err := o.Lock(r.Context(), write, r.URL.Query().Get("digest"))
			if errors.Is(err, ErrLockChanged) {
				http.Error(w, err.Error(), http.StatusConflict)
				return
			}
			if err != nil {
				http.Error(w, "lock failed: "+err.Error(), http.StatusInternalServerError)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(res)
		})
	}
	mux.Handle("GET /-/lock", a.notRebound(a.adminAuth(lock(false))))
	mux.Handle("POST /-/lock", a.sameOrigin(a.adminAuth(a.deliberate(lock(true)))))
	if o.Credentials != nil {
		// Who connected what (never a token), and revoking it: as the
		// status page and the lock are guarded.
		mux.Handle("GET /api/credentials", a.notRebound(a.adminAuth(o.Credentials)))
		mux.Handle("POST /api/credentials/revoke", a.sameOrigin(a.adminAuth(a.deliberate(o.Credentials))))
	}
	if o.Flows != nil {
		// An operator forgetting a taint: as the revocation is guarded.
		mux.Handle("POST /api/flows/reset", a.sameOrigin(a.adminAuth(a.deliberate(o.Flows))))
	}
	mux.Handle("GET /{$}", a.notRebound(a.adminAuth(http.HandlerFunc(a.statusPage))))
	mux.Handle("GET /api/status", a.notRebound(a.adminAuth(http.HandlerFunc(a.statusJSON))))
	// admin.pprof: the profiles an operator asks for when a call is slow,
	// read through the same checks as the status page, and only while
	// the serving config turns them on.
	mux.Handle("GET /debug/pprof/", a.notRebound(a.adminAuth(a.pprofOn(http.HandlerFunc(pprof.Index)))))
	mux.Handle("GET /debug/pprof/cmdline", a.notRebound(a.adminAuth(a.pprofOn(http.HandlerFunc(pprof.Cmdline)))))
	mux.Handle("GET /debug/pprof/profile", a.notRebound(a.adminAuth(a.pprofOn(http.HandlerFunc(pprof.Profile)))))
	mux.Handle("GET /debug/pprof/symbol", a.notRebound(a.adminAuth(a.pprofOn(http.HandlerFunc(pprof.Symbol)))))
	mux.Handle("GET /debug/pprof/trace", a.notRebound(a.adminAuth(a.pprofOn(http.HandlerFunc(pprof.Trace)))))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if _, _, ok := o.Current(); !o.Ready() || !ok {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		_, _ = io.WriteString(w, "ready\n")
	})
	return mux
}

// pprofOn answers 404 unless the serving config has admin.pprof: true.
func (a *admin) pprofOn(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if cfg, _, ok := a.o.Current(); !ok || !cfg.PProf {
			http.Error(w, "profiling is off (admin.pprof: true turns it on)", http.StatusNotFound)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// adminAuth requires admin.auth's bearer token when one is configured.
func (a *admin) adminAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, token, ok := a.o.Current()
		if !ok {
			http.Error(w, "wasmgate is starting", http.StatusServiceUnavailable)
			return
		}
		if token != "" {
			got, bearer := auth.BearerToken(r.Header.Get("Authorization"))
			if !bearer || subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
				a.o.Metrics.HTTPRejected.WithLabelValues("admin_auth").Inc()
				w.Header().Set("WWW-Authenticate", `Bearer realm="wasmgate-admin"`)
				http.Error(w, "Unauthorized: missing or wrong admin bearer token", http.StatusUnauthorized)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// deliberate guards a state-changing admin endpoint against requests
// the gateway itself could be made to send: an upstream (or its token
// endpoint) answering with a redirect to the admin listener makes the
// gateway's HTTP client POST there, from loopback, with no Origin and a
// JSON body, which sameOrigin lets through. Such a request carries
// neither the admin token (admin.auth) nor the Wasmgate-Admin header
// (netutil.AdminHeader), which no outbound client of the gateway sends
// and which a browser sends to another origin only after a CORS
// preflight the admin listener never grants. With admin.auth, adminAuth
// has already checked the token, which is enough; without, the header
// is required (403 otherwise).
func (a *admin) deliberate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, token, _ := a.o.Current(); token == "" && r.Header.Get(netutil.AdminHeader) == "" {
			a.o.Metrics.HTTPRejected.WithLabelValues("admin_header").Inc()
			a.warnHeader.Warn(a.o.Logger, "refused an admin request without the "+netutil.AdminHeader+" header (logged at most once a minute)",
				"path", r.URL.Path, "remote", r.RemoteAddr, "user_agent", quote(r.UserAgent()))
			http.Error(w, "Forbidden: "+r.Method+" "+r.URL.Path+" needs the header "+netutil.AdminHeader+": 1 (curl -X POST -H '"+netutil.AdminHeader+": 1' ...), or the admin bearer token when admin.auth sets one", http.StatusForbidden)
			return
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
// `curl -X POST -H 'Wasmgate-Admin: 1' http://127.0.0.1:9090/-/reload`
// sends none of these.
func (a *admin) sameOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cfg, _, ok := a.o.Current()
		if !ok {
			http.Error(w, "wasmgate is starting", http.StatusServiceUnavailable)
			return
		}
		if msg := crossSite(r, netutil.LoopbackListen(cfg.Listen)); msg != "" {
			a.o.Metrics.HTTPRejected.WithLabelValues("admin_cross_site").Inc()
			a.warn.Warn(a.o.Logger, "refused an admin request a browser could have been made to send (logged at most once a minute)",
				"path", r.URL.Path, "remote", r.RemoteAddr, "reason", msg)
			http.Error(w, "Forbidden: "+msg, http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// notRebound refuses (403) a request whose Host is not a loopback name
// while the listener is bound to loopback: a page on another site that
// rebinds its DNS name to 127.0.0.1 must not read the status page.
func (a *admin) notRebound(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cfg, _, ok := a.o.Current()
		if ok && netutil.LoopbackListen(cfg.Listen) && !netutil.Loopback(r.Host) {
			a.o.Metrics.HTTPRejected.WithLabelValues("admin_cross_site").Inc()
			http.Error(w, "Forbidden: Host "+quote(r.Host)+" is not a loopback name, and the admin listener is bound to loopback", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// crossSite says why r may come from a browser on another site, or "".
func crossSite(r *http.Request, loopback bool) string {
	if loopback && !netutil.Loopback(r.Host) {
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
		return "Content-Type " + quote(ct) + " is what an HTML form sends; send no body (curl -X POST -H '" + netutil.AdminHeader + ": 1')"
	}
	return ""
}

func quote(s string) string {
	if len(s) > 100 {
		s = s[:100] + "..."
	}
	return strconv.Quote(s)
}
