package transport

import (
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/wasmgate/wasmgate/auth"
	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/gateway/envelope"
	"github.com/wasmgate/wasmgate/internal/netutil"
	"github.com/wasmgate/wasmgate/policy"
)

// Identity is who may use the MCP endpoint, as one snapshot says.
type Identity struct {
	Authn   *auth.Authenticator // nil: HTTP callers are anonymous
	JWT     *auth.JWTConfig     // auth.jwt, for the challenge and RFC 9728 metadata
	Origins Origins
}

// authenticate returns the caller of r, or an error for a 401.
func (id *Identity) authenticate(r *http.Request) (envelope.Caller, error) {
	if id.Authn == nil {
		return envelope.Caller{Principal: envelope.Anonymous, Transport: envelope.TransportHTTP}, nil
	}
	p, err := id.Authn.Authenticate(r)
	if err != nil {
		return envelope.Caller{}, err
	}
	c := envelope.Caller{Principal: policy.Principal(p), Transport: envelope.TransportHTTP, JWT: p.Claims != nil}
	if c.JWT {
		token, _ := auth.BearerToken(r.Header.Get("Authorization"))
		c.Token = config.NewSecret(token)
	}
	return c, nil
}

// challenge answers a request that failed authentication: 401 with the
// WWW-Authenticate header the MCP authorization specification asks for.
func (c *checks) challenge(w http.ResponseWriter, r *http.Request, id *Identity, err error) {
	c.reject("auth")
	metadataURL := ""
	if j := id.JWT; j != nil {
		// The audience is the resource's public URL (behind a proxy that
		// terminates TLS, the request's own URL is not); when it is not
		// an http(s) URL, the URL the request reached is.
		var err error
		if metadataURL, err = auth.MetadataURL(j.Audience); err != nil {
			metadataURL, _ = auth.MetadataURL(resourceURL(r))
		}
	}
	w.Header().Set("WWW-Authenticate", id.Authn.Challenge(metadataURL, err))
	msg := "Unauthorized: missing bearer token"
	if errors.Is(err, auth.ErrInvalidToken) {
		msg = "Unauthorized: invalid bearer token"
		c.refusals.Log(r.Context(), c.o.Logger, slog.LevelInfo, "refused a bearer token", "remote", r.RemoteAddr, "reason", err)
	}
	http.Error(w, msg, http.StatusUnauthorized)
}

// resourceURL is the URL a client reached r at: this gateway's MCP
// endpoint as the protected resource.
func resourceURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + r.URL.Path
}

// metadataHandler serves RFC 9728 protected-resource metadata for the
// serving access-token settings (404 without auth.jwt).
func (c *checks) metadataHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := c.o.Current()
		if st == nil || st.Identity.Authn == nil || st.Identity.JWT == nil {
			http.NotFound(w, r)
			return
		}
		id := st.Identity
		// A browser client on an allowed origin discovers the
		// authorization server from here too. The document is public:
		// other origins get it without CORS headers, so their pages
		// cannot read it.
		if origin := r.Header.Get("Origin"); origin != "" && id.Origins.Allowed(origin) && cors(w, r, origin) {
			return
		}
		resource := id.JWT.Audience
		if resource == "" {
			scheme := "http"
			if r.TLS != nil {
				scheme = "https"
			}
			resource = scheme + "://" + r.Host + c.o.Path
		}
		id.Authn.MetadataHandler(resource).ServeHTTP(w, r)
	})
}

// Origins are the browser origins allowed to talk to the MCP endpoint:
// transports.http.allowed_origins, or loopback origins when it is empty.
type Origins map[string]bool

// NewOrigins is the set of allowed origins.
func NewOrigins(allowed []string) Origins {
	o := Origins{}
	for _, a := range allowed {
		o[normalizeOrigin(a)] = true
	}
	return o
}

// Allowed reports whether origin may talk to the MCP endpoint.
func (o Origins) Allowed(origin string) bool {
	if len(o) > 0 {
		return o[normalizeOrigin(origin)]
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return netutil.Loopback(u.Host)
}

func normalizeOrigin(o string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(o)), "/")
}

// bodyOf is the POST body the body check read.
func bodyOf(r *http.Request) ([]byte, bool) {
	c := checkedOf(r)
	return c.body, c.read
}
