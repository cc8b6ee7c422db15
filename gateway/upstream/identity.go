// Each caller's own identity toward a remote upstream (auth.token_exchange,
// user_oauth, identity_assertion): a call first gets the caller's token
// for the upstream (package upstreamauth), then runs on a session of its
// own principal's, whose every request carries that token.

package upstream

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/wasmgate/wasmgate/auth/upstreamauth"
	"github.com/wasmgate/wasmgate/auth/vault"
	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/loader"
)

// userIdleTimeout is how long a principal's session of an upstream stays
// open without a call; it is closed at the next call of anyone after that.
const userIdleTimeout = 10 * time.Minute

// PerUser reports whether the upstream is reached as each caller.
func (u *Source) PerUser() bool { return u.srv.ident != nil }

var _ source.PerUser = (*Source)(nil)

// userToken is the bearer a call sends to an upstream with a per-user
// mode (set by identify, read by the transport's header function).
type userTokenKey struct{}

func withUserToken(ctx context.Context, v config.Secret) context.Context {
	return context.WithValue(ctx, userTokenKey{}, v)
}

// identify gets the token of the call of ctx for s: the context carries
// it, and the principal's session to run on. A caller without one fails
// the call: with a ConnectFailure when the caller must connect their
// account first, a FailError naming the upstream and the authorization
// server's reason otherwise.
func (s *shared) identify(ctx context.Context) (context.Context, string, error) {
	id := source.CallIdentityFrom(ctx)
	if id == nil {
		// Only the envelope calls a source; a call without an identity
		// is a bug, not a caller to guess.
		return ctx, "", &source.Failure{Kind: source.FailError, Msg: fmt.Sprintf("upstream %q reaches its server as each caller, and this call has no caller", s.name())}
	}
	tok, err := s.ident.Token(ctx, upstreamauth.Caller{Principal: id.Principal, Token: id.Token})
	if err != nil {
		s.h.Metrics.UpstreamIdentityFailures.WithLabelValues(s.name(), s.mode(), identityReason(err)).Inc()
		s.idFailures.Add(1)
		var nc *upstreamauth.NotConnectedError
		if errors.As(err, &nc) {
			// The status page gets who, not the link: the link
			// connects an account to that principal.
			msg := fmt.Sprintf("upstream %q: principal %q has not connected it", s.name(), id.Principal)
			s.idLastErr.Store(&msg)
			id.Mode = loader.ModeUserOAuth
			return ctx, "", &source.ConnectFailure{Failure: source.Failure{Kind: source.FailError, Msg: nc.Error()},
				Upstream: s.name(), URL: nc.ConnectURL, ElicitationID: elicitationID(nc.ConnectURL)}
		}
		msg := s.redact(err.Error())
		s.idLastErr.Store(&msg)
		if ctx.Err() != nil {
			return ctx, "", &source.Failure{Kind: source.FailTimeout, Msg: fmt.Sprintf("timed out getting the caller's token for upstream %q: %v", s.name(), s.redact(err.Error()))}
		}
		return ctx, "", &source.Failure{Kind: source.FailError, Msg: s.redact(err.Error())}
	}
	if s.tokens == nil {
		s.h.Metrics.UpstreamIdentityTokens.WithLabelValues(s.name(), tok.Mode).Inc()
	} else {
		s.tokens.Inc()
	}
	id.Mode, id.Subject = tok.Mode, tok.Subject
	return withUserToken(ctx, tok.Value), id.Principal, nil
}

// identityReason is the reason label of
// wasmgate_upstream_identity_failures_total.
func identityReason(err error) string {
	var nc *upstreamauth.NotConnectedError
	var ee *upstreamauth.ExchangeError
	switch {
	case errors.As(err, &nc):
		return "not_connected"
	case errors.As(err, &ee) && ee.Step != "":
		return ee.Step
	}
	return "error"
}

func (s *shared) mode() string { return s.spec.Auth.UserMode() }

// elicitationID is the id of the URL elicitation for a connect link: its
// last path element (the one-time id of the link).
func elicitationID(url string) string {
	for i := len(url) - 1; i >= 0; i-- {
		if url[i] == '/' {
			return url[i+1:]
		}
	}
	return url
}

// userConn is the session the calls of principal (and, with session:
// per_client, of its downstream session) run on, opened now if this is
// its first call. Sessions idle for userIdleTimeout are closed on the way.
func (s *shared) userConn(ctx context.Context, principal string, tok config.Secret) (*conn, error) {
	key := "user\x00" + principal
	if s.spec.Session == loader.SessionPerClient {
		if ds := downstream(ctx); ds != nil && ds.SessionID() != "" {
			key += "\x00" + ds.SessionID()
		}
	}
	now := time.Now()
	s.mu.Lock()
	if s.ctx.Err() != nil {
		s.mu.Unlock()
		return nil, fmt.Errorf("upstream %q is stopping", s.name())
	}
	c, ok := s.clients[key]
	if !ok {
		c = s.newConn(key, downstream(ctx))
		c.user = &userSession{principal: principal}
		s.clients[key] = c
	}
	c.user.token.Store(&tok)
	c.user.used.Store(now.UnixNano())
	var idle []*conn
	for k, o := range s.clients {
		if o.user != nil && o != c && o.calls.Load() == 0 && now.Sub(time.Unix(0, o.user.used.Load())) > userIdleTimeout {
			idle = append(idle, o)
			delete(s.clients, k)
		}
	}
	if !ok {
		s.wg.Add(1)
		go c.supervise()
	}
	s.mu.Unlock()
	for _, o := range idle {
		o.close()
	}
	return c, nil
}

// userSession is what a principal's session of an upstream knows of its
// principal: the newest token a call brought (the requests the session
// makes itself, initialize and its GET stream, carry it), and when it
// was last used.
type userSession struct {
	principal string
	token     atomic.Pointer[config.Secret]
	used      atomic.Int64 // unix ns
}

// authHeaders are the headers of one request of c: the trace context,
// and for a principal's session the call's token, or the session's
// newest for a request outside a call.
func (c *conn) authHeaders(ctx context.Context) map[string]string {
	h := traceHeaders(ctx)
	if c.user == nil {
		return h
	}
	tok, ok := ctx.Value(userTokenKey{}).(config.Secret)
	if !ok {
		if p := c.user.token.Load(); p != nil {
			tok = *p
		}
	}
	if tok.IsSet() {
		if h == nil {
			h = make(map[string]string, 1)
		}
		h["Authorization"] = "Bearer " + tok.Value()
	}
	return h
}

// redactToken is err without tok's value (an upstream that repeats the
// Authorization it got in an error).
func redactToken(err error, tok config.Secret) error {
	if err == nil || !tok.IsSet() || !strings.Contains(err.Error(), tok.Value()) {
		return err
	}
	var f *source.Failure
	if errors.As(err, &f) {
		g := *f
		g.Msg = strings.ReplaceAll(f.Msg, tok.Value(), "[secret]")
		return &g
	}
	return errors.New(strings.ReplaceAll(err.Error(), tok.Value(), "[secret]"))
}

// newIdentity makes the Source of s's per-user mode of auth, if it has
// one: its requests to the authorization servers go through s's checked
// transport (its CA, no redirect unless allowed, never to the gateway's
// own listeners, credentials out of error bodies).
func (s *shared) newIdentity() (upstreamauth.Source, error) {
	a := s.spec.Auth
	bad := func(key string, err error) error {
		return &config.Error{File: s.file, Key: key, Msg: err.Error()}
	}
	clientAuth := func(ca loader.ClientAuth, key string) (upstreamauth.ClientAuth, error) {
		out := upstreamauth.ClientAuth{ClientID: ca.ClientID, ClientSecret: s.secrets.idSecret}
		if p := ca.PrivateKeyJWT; p != nil {
			k, err := upstreamauth.ParsePrivateKeyPEM([]byte(s.secrets.idKey.Value()))
			if err != nil {
				return out, bad(key+".private_key_jwt.key_file", fmt.Errorf("%q: %w", p.KeyFile, err))
			}
			out.PrivateKeyJWT = &upstreamauth.PrivateKeyJWT{Key: k, KID: p.KID, Alg: p.Alg}
		}
		return out, nil
	}
	switch {
	case a.TokenExchange != nil:
		t := a.TokenExchange
		ca, err := clientAuth(t.ClientAuth, t.Key)
		if err != nil {
			return nil, err
		}
		var resource []string
		if t.Resource != "" {
			resource = []string{t.Resource}
		}
		x, err := upstreamauth.NewTokenExchange(upstreamauth.TokenExchangeOptions{Upstream: s.name(), TokenURL: t.TokenURL, ClientAuth: ca,
			Audience: t.Audience, Resource: resource, Scopes: t.Scopes, SubjectTokenType: t.SubjectTokenType,
			HTTPClient: s.asClient(t.TokenURL, t.Key+".token_url")})
		if err != nil {
			return nil, bad(t.Key, err)
		}
		return x, nil
	case a.IdentityAssertion != nil:
		ia := a.IdentityAssertion
		ca, err := clientAuth(ia.ClientAuth, ia.Key)
		if err != nil {
			return nil, err
		}
		res := ia.Resource
		if res == "" {
			res = s.spec.URL
		}
		x, err := upstreamauth.NewIdentityAssertion(upstreamauth.IdentityAssertionOptions{Upstream: s.name(), IdPTokenURL: ia.IdPTokenURL,
			ResourceTokenURL: ia.ResourceTokenURL, ClientAuth: ca, Audience: ia.Audience, Resource: res, Scopes: ia.Scopes,
			SubjectTokenType: ia.SubjectTokenType, HTTPClient: s.asClient(ia.IdPTokenURL, ia.Key+".idp_token_url")})
		if err != nil {
			return nil, bad(ia.Key, err)
		}
		return x, nil
	case a.UserOAuth != nil:
		o := a.UserOAuth
		x, err := upstreamauth.NewUserOAuth(upstreamauth.UserOAuthOptions{Upstream: s.name(), AuthorizationURL: o.AuthorizationURL,
			TokenURL: o.TokenURL, ClientID: o.ClientID, ClientSecret: s.secrets.idSecret, ClientMetadata: o.ClientMetadata,
			Scopes: o.Scopes, PublicURL: o.PublicURL, HTTPClient: s.asClient(o.TokenURL, o.Key+".token_url"),
			Store: grantStore{s.h}, Logger: s.h.Logger.With("upstream", s.name())})
		if err != nil {
			return nil, bad(o.Key, err)
		}
		return x, nil
	}
	return nil, nil
}

// grantStore is the vault serving now, as the user_oauth sources use it:
// an upstream outlives the snapshot whose vault it started with.
type grantStore struct{ h *Host }

var _ upstreamauth.GrantStore = grantStore{}

func (g grantStore) vault() (*vault.Vault, error) {
	if g.h.Grants != nil {
		if v := g.h.Grants(); v != nil {
			return v, nil
		}
	}
	return nil, errors.New("the credentials vault is not open (gateway.yaml's credentials section)")
}

func (g grantStore) Get(ctx context.Context, upstream, principal string) (upstreamauth.Grant, bool, error) {
	v, err := g.vault()
	if err != nil {
		return upstreamauth.Grant{}, false, err
	}
	return v.Get(ctx, upstream, principal)
}

func (g grantStore) Put(ctx context.Context, gr upstreamauth.Grant) error {
	v, err := g.vault()
	if err != nil {
		return err
	}
	return v.Put(ctx, gr)
}

func (g grantStore) Delete(ctx context.Context, upstream, principal string) (bool, error) {
	v, err := g.vault()
	if err != nil {
		return false, err
	}
	return v.Delete(ctx, upstream, principal)
}

func (g grantStore) PutOnce(ctx context.Context, id string, value []byte, ttl time.Duration) error {
	v, err := g.vault()
	if err != nil {
		return err
	}
	return v.PutOnce(ctx, id, value, ttl)
}

func (g grantStore) TakeOnce(ctx context.Context, id string) ([]byte, bool, error) {
	v, err := g.vault()
	if err != nil {
		return nil, false, err
	}
	return v.TakeOnce(ctx, id)
}

func (g grantStore) Lock(ctx context.Context, upstream, principal string, ttl time.Duration) (func(), error) {
	v, err := g.vault()
	if err != nil {
		return nil, err
	}
	return v.Lock(ctx, upstream, principal, ttl)
}

// Connect serves the connect pages, callback and client ID metadata
// documents of c's upstreams with auth.user_oauth (under /oauth/); nil
// when none has it.
func (c *Component) Connect() (http.Handler, error) {
	srcs := map[string]*upstreamauth.UserOAuth{}
	for _, s := range c.sources {
		if u, ok := s.srv.ident.(*upstreamauth.UserOAuth); ok {
			srcs[s.spec.Name] = u
		}
	}
	if len(srcs) == 0 {
		return nil, nil
	}
	return upstreamauth.NewConnectHandler(srcs, c.h.Logger.With("component", "oauth"))
}

// asClient is the HTTP client of s's requests to an authorization server
// at origin (named by key in messages).
func (s *shared) asClient(origin, key string) *http.Client {
	o := &outbound{s: s, creds: s.credentials(), log: s.refusals}
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.DialContext = o.dialer()
	base.TLSClientConfig, _ = s.tlsConfig() // its error fails the upstream's own client first
	return &http.Client{Transport: scrubbed{rt: base, creds: o.creds}, CheckRedirect: o.checkRedirect(origin, key, "its authorization server"),
		Timeout: 30 * time.Second}
}

// CheckIdentities reaches the authorization servers of c's upstreams
// with a per-user mode and checks the metadata they publish against what
// the mode needs (`wasmgate validate`).
func (c *Component) CheckIdentities(ctx context.Context) []upstreamauth.Finding {
	var out []upstreamauth.Finding
	for _, src := range c.sources {
		s := src.srv
		a := s.spec.Auth
		var servers []upstreamauth.Server
		switch {
		case a.TokenExchange != nil:
			servers = []upstreamauth.Server{{Role: a.TokenExchange.Key + ".token_url", TokenURL: a.TokenExchange.TokenURL,
				Grants: []string{upstreamauth.GrantTypeTokenExchange}}}
		case a.IdentityAssertion != nil:
			ia := a.IdentityAssertion
			servers = []upstreamauth.Server{
				{Role: ia.Key + ".idp_token_url", TokenURL: ia.IdPTokenURL, Grants: []string{upstreamauth.GrantTypeTokenExchange}},
				{Role: ia.Key + ".resource_token_url", TokenURL: ia.ResourceTokenURL, Grants: []string{upstreamauth.GrantTypeJWTBearer}},
			}
		case a.UserOAuth != nil:
			o := a.UserOAuth
			servers = []upstreamauth.Server{{Role: o.Key, TokenURL: o.TokenURL, AuthorizationURL: o.AuthorizationURL,
				Grants: []string{"authorization_code"}, PKCE: true, ClientMetadata: o.ClientMetadata}}
		}
		for _, srv := range servers {
			hc := s.asClient(srv.TokenURL, srv.Role)
			cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			out = append(out, upstreamauth.Check(cctx, hc, s.name(), srv)...)
			cancel()
		}
	}
	return out
}
