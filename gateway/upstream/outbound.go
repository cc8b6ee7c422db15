package upstream

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/oauth2"

	"github.com/wasmgate/wasmgate/auth"
	"github.com/wasmgate/wasmgate/internal/lograte"
	"github.com/wasmgate/wasmgate/internal/netutil"
	"github.com/wasmgate/wasmgate/loader/egress"
)

// Reasons of wasmgate_upstream_requests_refused_total.
const (
	refusedRedirect            = "redirect"              // follow_redirects is off
	refusedRedirectCrossOrigin = "redirect_cross_origin" // to another scheme, host or port
	refusedRedirectLoop        = "redirect_loop"         // more than maxRedirects
	refusedOwnListener         = "own_listener"          // a connection to the gateway's own listener
)

// maxRedirects is how many redirects one request of an upstream with
// follow_redirects may follow (as plugin HTTP, loader/egress).
const maxRedirects = 10

// outbound is what an upstream's HTTP clients check on every redirect and
// connection, and the credentials its errors never show.
type outbound struct {
	s     *shared
	creds *credentials
	log   *lograte.Limiter
}

// redirectRefused is a redirect an upstream (or its OAuth token endpoint)
// answered with, which the gateway did not follow.
type redirectRefused struct {
	upstream string
	of       string // "" for the upstream, or "its OAuth token endpoint"
	status   int
	from, to string // shown without query, fragment or user info
	why      string
}

func (e *redirectRefused) Error() string {
	who := fmt.Sprintf("upstream %q", e.upstream)
	if e.of != "" {
		who += " (" + e.of + ")"
	}
	return fmt.Sprintf("%s redirected %s (%d) to %s: refused, %s", who, e.from, e.status, e.to, e.why)
}

// checkRedirect is an http.Client's CheckRedirect for requests to origin
// (the upstream's url or its token_url, named by key): with
// follow_redirects off every redirect is refused; on, only one within
// origin (the same scheme, and the host and port plugin HTTP's grant
// host:port would match, loader/egress), at most maxRedirects in a row.
// Go's client copies the request's headers (its credentials) only to
// such a redirect, so credentials never cross an origin.
func (o *outbound) checkRedirect(origin, key, of string) func(*http.Request, []*http.Request) error {
	spec := o.s.spec
	ou, _ := url.Parse(origin)
	var same *egress.Policy
	within := origin
	if ou != nil {
		within = ou.Scheme + "://" + ou.Host
		port := ou.Port()
		if port == "" {
			port = map[string]string{"http": "80", "https": "443"}[ou.Scheme]
		}
		same, _ = egress.ParsePolicy([]string{net.JoinHostPort(ou.Hostname(), port)})
	}
	return func(req *http.Request, via []*http.Request) error {
		var reason, why string
		switch {
		case !spec.FollowRedirects:
			reason, why = refusedRedirect, spec.Key+".follow_redirects is off"
		case ou == nil || same == nil || req.URL.Scheme != ou.Scheme || same.CheckURL(req.URL) != nil:
			reason, why = refusedRedirectCrossOrigin, fmt.Sprintf("%s.follow_redirects follows redirects within %s (%s) only", spec.Key, within, key)
		case len(via) >= maxRedirects:
			reason, why = refusedRedirectLoop, fmt.Sprintf("stopped after %d redirects", maxRedirects)
		default:
			return nil
		}
		e := &redirectRefused{upstream: spec.Name, of: of, to: o.creds.redact(safeURL(req.URL)), why: why}
		if len(via) > 0 {
			prev := via[len(via)-1]
			e.from = prev.Method + " " + o.creds.redact(safeURL(prev.URL))
		}
		if req.Response != nil {
			e.status = req.Response.StatusCode
		}
		o.s.h.Metrics.UpstreamRequestsRefused.WithLabelValues(spec.Name, reason).Inc()
		o.log.Warn(o.s.h.Logger, "refused a redirect of an upstream", "upstream", spec.Name, "of", of, "status", e.status,
			"from", e.from, "to", e.to, "reason", reason, "hint", "a redirect is followed only with "+spec.Key+".follow_redirects: true, and only within the upstream's origin")
		return e
	}
}

// safeURL is u without its user info, query and fragment, which may
// hold credentials.
func safeURL(u *url.URL) string {
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
}

// dialer connects an upstream's requests, never to one of the gateway's
// own listeners (checked on the socket, as plugin HTTP does).
func (o *outbound) dialer() func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second,
		ControlContext: func(_ context.Context, _, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return &egress.RefusedError{Reason: fmt.Sprintf("cannot check address %q: %v", address, err)}
			}
			if o.s.h.Own.Has(ap.Addr(), ap.Port()) {
				o.s.h.Metrics.UpstreamRequestsRefused.WithLabelValues(o.s.spec.Name, refusedOwnListener).Inc()
				o.log.Warn(o.s.h.Logger, "refused a connection of an upstream to the gateway's own listener", "upstream", o.s.spec.Name, "address", address)
				return &egress.RefusedError{Reason: fmt.Sprintf("%s is the gateway's own listener", address)}
			}
			return nil
		}}
	return d.DialContext
}

// scrubbed is the transport under an upstream's clients: it never sends
// the admin listener's header, and replaces the upstream's credentials
// in the body of an error answer (a 500 that repeats the Authorization
// header it got, a token endpoint's error_description that repeats the
// client secret) before anyone reads it.
type scrubbed struct {
	rt    http.RoundTripper
	creds *credentials
}

// maxErrorBody bounds the body of an error answer the gateway reads.
const maxErrorBody = 64 << 10

func (t scrubbed) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get(netutil.AdminHeader) != "" {
		req = req.Clone(req.Context())
		req.Header.Del(netutil.AdminHeader)
	}
	resp, err := t.rt.RoundTrip(req)
	if err != nil || resp.StatusCode < 400 {
		return resp, err
	}
	b, rerr := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
	if rerr != nil {
		b = append(b, fmt.Sprintf(" (reading the rest: %v)", rerr)...)
	}
	b = []byte(t.creds.redact(string(b)))
	if tok, bearer := auth.BearerToken(req.Header.Get("Authorization")); bearer && tok != "" {
		// A per-user token (identity.go): not among the upstream's own
		// credentials, and never shown either.
		b = bytes.ReplaceAll(b, []byte(tok), []byte("[secret]"))
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	resp.ContentLength = int64(len(b))
	resp.Header.Del("Content-Length")
	return resp, nil
}

// credentials are the values an upstream's errors must never show: its
// bearer token, its client secret (also as a form value and inside a
// Basic Authorization header) and the access tokens it was issued.
type credentials struct {
	mu     sync.Mutex
	values []string
	issued []string // the latest access tokens, newest last
}

// maxIssued is how many access tokens credentials keep.
const maxIssued = 4

// minSecret is the shortest value redacted: a shorter one would garble
// every message and hides nothing.
const minSecret = 4

func newCredentials(sec secrets, clientID string) *credentials {
	c := &credentials{}
	c.values = appendSecret(c.values, sec.bearer.Value())
	for _, s := range []string{sec.clientSecret.Value(), sec.idSecret.Value()} {
		if s != "" {
			c.values = appendSecret(c.values, s, url.QueryEscape(s),
				base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(clientID)+":"+url.QueryEscape(s))),
				base64.StdEncoding.EncodeToString([]byte(clientID+":"+s)))
		}
	}
	return c
}

func appendSecret(list []string, vs ...string) []string {
	for _, v := range vs {
		if len(v) >= minSecret {
			list = append(list, v)
		}
	}
	return list
}

// issue records an access token the token endpoint issued.
func (c *credentials) issue(tok string) {
	if len(tok) < minSecret {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.issued {
		if t == tok {
			return
		}
	}
	c.issued = append(c.issued, tok)
	if len(c.issued) > maxIssued {
		c.issued = c.issued[len(c.issued)-maxIssued:]
	}
}

// redact replaces every credential in s by [secret].
func (c *credentials) redact(s string) string {
	if c == nil {
		return s
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, list := range [][]string{c.issued, c.values} {
		for _, v := range list {
			s = strings.ReplaceAll(s, v, "[secret]")
		}
	}
	return s
}

// issuedTokens is a token source that tells credentials each access
// token it gets.
type issuedTokens struct {
	src   oauth2.TokenSource
	creds *credentials
}

func (t issuedTokens) Token() (*oauth2.Token, error) {
	tok, err := t.src.Token()
	if err == nil && tok != nil {
		t.creds.issue(tok.AccessToken)
		if tok.RefreshToken != "" {
			t.creds.issue(tok.RefreshToken)
		}
	}
	return tok, err
}

// credentials are what the upstream's errors never show (outbound.go).
func (s *shared) credentials() *credentials {
	s.credsOnce.Do(func() {
		id := ""
		switch a := s.spec.Auth; {
		case a.OAuth != nil:
			id = a.OAuth.ClientID
		case a.TokenExchange != nil:
			id = a.TokenExchange.ClientID
		case a.IdentityAssertion != nil:
			id = a.IdentityAssertion.ClientID
		case a.UserOAuth != nil:
			id = a.UserOAuth.ClientID
		}
		s.creds = newCredentials(s.secrets, id)
	})
	return s.creds
}

// redact replaces the upstream's credentials in msg by [secret].
func (s *shared) redact(msg string) string { return s.credentials().redact(msg) }

// redactErr is err's message without the upstream's credentials ("" for
// nil).
func (s *shared) redactErr(err error) string {
	if err == nil {
		return ""
	}
	return s.redact(err.Error())
}
