package upstreamauth

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwt"
	"golang.org/x/oauth2"

	"github.com/wasmgate/wasmgate/config"
)

// GrantStore is where per-user grants and the connect flow's one-time
// records live: the gateway's encrypted vault (auth/vault), shared by
// every replica through the state backend.
type GrantStore interface {
	// Get reads the grant on every call (no cache): a revocation takes
	// effect on the next call. An entry that does not decrypt is
	// (Grant{}, false, nil).
	Get(ctx context.Context, upstream, principal string) (Grant, bool, error)
	Put(ctx context.Context, g Grant) error
	Delete(ctx context.Context, upstream, principal string) (bool, error)
	// PutOnce stores value under id for ttl; TakeOnce returns it at most
	// once, on any replica.
	PutOnce(ctx context.Context, id string, value []byte, ttl time.Duration) error
	TakeOnce(ctx context.Context, id string) ([]byte, bool, error)
	// Lock serialises one grant's refresh across replicas. It waits until
	// the lock is free (or ctx is done); the lock lapses after ttl if its
	// holder dies.
	Lock(ctx context.Context, upstream, principal string, ttl time.Duration) (unlock func(), err error)
}

// UserOAuthOptions configure a UserOAuth source: one upstream whose users
// each connect their own account (authorization code with PKCE).
type UserOAuthOptions struct {
	// Upstream is the upstream's name in gateway.yaml.
	Upstream string
	// AuthorizationURL and TokenURL are the upstream authorization
	// server's endpoints.
	AuthorizationURL, TokenURL string
	// UserinfoURL, when set, is asked for the user's subject ("sub") when
	// neither the ID token nor the access token is a JWT that names it.
	UserinfoURL string
	// ClientID is the gateway's client at the authorization server. With
	// ClientMetadata it must be empty: the client ID is the URL of the
	// client ID metadata document the gateway serves.
	ClientID string
	// ClientSecret, when set, authenticates the gateway at TokenURL
	// (client_secret_basic); unset, the client is public
	// (token_endpoint_auth_method none).
	ClientSecret config.Secret
	// ClientMetadata makes the client ID the gateway's client ID metadata
	// document (PublicURL + /oauth/client-metadata/<upstream>.json).
	ClientMetadata bool
	// Scopes are requested at authorization.
	Scopes []string
	// PublicURL is where browsers reach the gateway (server.public_url),
	// without a trailing slash: connect pages, the callback and the
	// metadata document live under PublicURL + "/oauth/".
	PublicURL string
	// HTTPClient reaches the authorization server; http.DefaultClient
	// when nil.
	HTTPClient *http.Client
	// Timeout bounds each request to the authorization server (a refresh,
	// a code exchange, a userinfo request); 10 s when zero.
	Timeout time.Duration
	// Store holds the grants and the connect flow's records.
	Store GrantStore
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Logger gets what happens to grants (never a token); slog.Default()
	// when nil.
	Logger *slog.Logger
}

// UserOAuth is the Source of the user_oauth mode: each caller's own grant,
// read from the store on every call, refreshed (and rotated) shortly
// before it expires.
type UserOAuth struct {
	opts UserOAuthOptions
	conf oauth2.Config
	log  *slog.Logger
}

const (
	// refreshBefore is how long before its expiry an access token is
	// refreshed.
	refreshBefore = 30 * time.Second
	// connectTTL is how long a connect link and a started sign-in last.
	connectTTL = 10 * time.Minute
	// lockTTL bounds how long a dead replica can hold a grant's refresh
	// lock.
	lockTTL = 30 * time.Second
	// Prefixes of the one-time records' ids: a connect link's id is never
	// accepted as a callback's state and the other way round.
	connectPrefix = "oauth-connect:"
	statePrefix   = "oauth-state:"
)

// NewUserOAuth checks the options and makes the source.
func NewUserOAuth(opts UserOAuthOptions) (*UserOAuth, error) {
	bad := func(format string, args ...any) (*UserOAuth, error) {
		return nil, fmt.Errorf("upstream %q: user_oauth: %s", opts.Upstream, fmt.Sprintf(format, args...))
	}
	if opts.Upstream == "" {
		return bad("no upstream name")
	}
	if strings.ContainsAny(opts.Upstream, "/?#% ") {
		return bad("the upstream name cannot appear in a URL path as it is")
	}
	for key, u := range map[string]string{"authorization_url": opts.AuthorizationURL, "token_url": opts.TokenURL, "public_url": opts.PublicURL} {
		if err := checkURL(u); err != nil {
			return bad("%s: %v", key, err)
		}
	}
	if opts.UserinfoURL != "" {
		if err := checkURL(opts.UserinfoURL); err != nil {
			return bad("userinfo_url: %v", err)
		}
	}
	if opts.Store == nil {
		return bad("no grant store")
	}
	opts.PublicURL = strings.TrimSuffix(opts.PublicURL, "/")
	switch {
	case opts.ClientMetadata && opts.ClientID != "":
		return bad("client_id and client_metadata exclude each other")
	case opts.ClientMetadata && opts.ClientSecret.IsSet():
		return bad("a client ID metadata document's client has no secret")
	case opts.ClientMetadata:
		opts.ClientID = clientMetadataURL(opts.PublicURL, opts.Upstream)
	case opts.ClientID == "":
		return bad("no client_id")
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = http.DefaultClient
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	style := oauth2.AuthStyleInParams // public client: client_id in the body, no secret
	if opts.ClientSecret.IsSet() {
		style = oauth2.AuthStyleInHeader // client_secret_basic
	}
	return &UserOAuth{
		opts: opts,
		log:  log.With("upstream", opts.Upstream),
		conf: oauth2.Config{
			ClientID:     opts.ClientID,
			ClientSecret: opts.ClientSecret.Value(),
			Endpoint:     oauth2.Endpoint{AuthURL: opts.AuthorizationURL, TokenURL: opts.TokenURL, AuthStyle: style},
			RedirectURL:  opts.PublicURL + "/oauth/callback",
			Scopes:       opts.Scopes,
		},
	}, nil
}

func checkURL(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return err
	case u.Scheme != "https" && u.Scheme != "http":
		return fmt.Errorf("%q is not an http(s) URL", s)
	case u.Host == "":
		return fmt.Errorf("%q has no host", s)
	}
	return nil
}

// Upstream is the upstream's name.
func (u *UserOAuth) Upstream() string { return u.opts.Upstream }

// ClientID is the client ID the gateway uses at the authorization server
// (with client metadata, the metadata document's URL).
func (u *UserOAuth) ClientID() string { return u.opts.ClientID }

// RedirectURL is the gateway's callback, PublicURL + "/oauth/callback".
func (u *UserOAuth) RedirectURL() string { return u.conf.RedirectURL }

// Token gives the caller's own access token for the upstream, refreshing it
// when it expires within 30 s. A caller without a grant (never connected,
// revoked, not decrypting, or whose refresh the authorization server
// refused) gets a *NotConnectedError with a fresh connect link; an
// authorization server that fails or does not answer a refresh, an
// *ExchangeError of Step "refresh".
func (u *UserOAuth) Token(ctx context.Context, c Caller) (Token, error) {
	if c.Principal == "" {
		return Token{}, fmt.Errorf("upstream %q: user_oauth: the call has no principal", u.opts.Upstream)
	}
	g, ok, err := u.opts.Store.Get(ctx, u.opts.Upstream, c.Principal)
	if err != nil {
		return Token{}, fmt.Errorf("upstream %q: read grant: %w", u.opts.Upstream, err)
	}
	if !ok || !g.AccessToken.IsSet() {
		return Token{}, u.notConnected(ctx, c.Principal)
	}
	if u.stale(g) {
		if !g.RefreshToken.IsSet() {
			if u.opts.Now().Before(g.Expiry) {
				return u.token(g), nil // still valid a little while; nothing to refresh with
			}
			u.log.Info("user_oauth grant expired without a refresh token: deleting it", "principal", c.Principal)
			if _, err := u.opts.Store.Delete(ctx, u.opts.Upstream, c.Principal); err != nil {
				return Token{}, fmt.Errorf("upstream %q: delete expired grant: %w", u.opts.Upstream, err)
			}
			return Token{}, u.notConnected(ctx, c.Principal)
		}
		if g, err = u.refresh(ctx, c.Principal, g.AccessToken.Value()); err != nil {
			return Token{}, err
		}
	}
	return u.token(g), nil
}

func (u *UserOAuth) token(g Grant) Token {
	return Token{Value: g.AccessToken, Subject: g.Subject, Mode: ModeUserOAuth, Expiry: g.Expiry}
}

// stale reports whether g's access token expires within refreshBefore, or
// within half its lifetime when that is shorter (an authorization server
// that issues tokens for 20 s would otherwise be asked on every call).
func (u *UserOAuth) stale(g Grant) bool {
	if g.Expiry.IsZero() {
		return false
	}
	before := refreshBefore
	if !g.RefreshedAt.IsZero() {
		if half := g.Expiry.Sub(g.RefreshedAt) / 2; half > 0 && half < before {
			before = half
		}
	}
	return !u.opts.Now().Add(before).Before(g.Expiry)
}

// refresh refreshes principal's grant, whose access token was seen, under
// the store's lock: another replica (or goroutine) may have refreshed it
// while this one waited, and a rotated refresh token may be used only
// once.
func (u *UserOAuth) refresh(ctx context.Context, principal, seen string) (Grant, error) {
	unlock, err := u.opts.Store.Lock(ctx, u.opts.Upstream, principal, lockTTL)
	if err != nil {
		return Grant{}, fmt.Errorf("upstream %q: lock grant for refresh: %w", u.opts.Upstream, err)
	}
	defer unlock()
	g, ok, err := u.opts.Store.Get(ctx, u.opts.Upstream, principal)
	if err != nil {
		return Grant{}, fmt.Errorf("upstream %q: read grant: %w", u.opts.Upstream, err)
	}
	if !ok || !g.AccessToken.IsSet() {
		return Grant{}, u.notConnected(ctx, principal)
	}
	if g.AccessToken.Value() != seen || !u.stale(g) || !g.RefreshToken.IsSet() {
		return g, nil // refreshed (or connected again) meanwhile
	}
	rctx, cancel := context.WithTimeout(u.clientContext(ctx), u.opts.Timeout)
	defer cancel()
	// Only the refresh token: an empty access token is never valid, so
	// the source refreshes at once.
	tok, err := u.conf.TokenSource(rctx, &oauth2.Token{RefreshToken: g.RefreshToken.Value()}).Token()
	if err != nil {
		if re := (*oauth2.RetrieveError)(nil); errors.As(err, &re) && re.ErrorCode == "invalid_grant" {
			// Expired, revoked or reused: the user has to connect again.
			u.log.Info("user_oauth refresh refused: deleting the grant", "principal", principal,
				"error", re.ErrorCode, "error_description", u.scrub(re.ErrorDescription, g))
			if _, err := u.opts.Store.Delete(ctx, u.opts.Upstream, principal); err != nil {
				return Grant{}, fmt.Errorf("upstream %q: delete refused grant: %w", u.opts.Upstream, err)
			}
			return Grant{}, u.notConnected(ctx, principal)
		}
		reason := u.scrub(asReason(err), g)
		u.log.Warn("user_oauth refresh failed", "principal", principal, "reason", reason)
		return Grant{}, &ExchangeError{Upstream: u.opts.Upstream, Step: "refresh", Reason: reason}
	}
	now := u.opts.Now()
	g.AccessToken = config.NewSecret(tok.AccessToken)
	if tok.RefreshToken != "" {
		g.RefreshToken = config.NewSecret(tok.RefreshToken)
	}
	g.TokenType = tok.Type()
	g.Expiry = tok.Expiry
	if s := grantedScopes(tok); s != nil {
		g.Scopes = s
	}
	g.RefreshedAt = now
	if sub := u.subjectOf(ctx, tok); sub != "" {
		g.Subject = sub
	}
	if err := u.opts.Store.Put(ctx, g); err != nil {
		// The authorization server may have rotated the refresh token:
		// the stored one is spent, and the next call will find out.
		return Grant{}, fmt.Errorf("upstream %q: store refreshed grant: %w", u.opts.Upstream, err)
	}
	u.log.Debug("user_oauth grant refreshed", "principal", principal)
	return g, nil
}

// clientContext carries the HTTP client x/oauth2 uses.
func (u *UserOAuth) clientContext(ctx context.Context) context.Context {
	return context.WithValue(ctx, oauth2.HTTPClient, u.opts.HTTPClient)
}

// notConnected makes a one-time connect link for (upstream, principal) and
// returns the error that carries it.
func (u *UserOAuth) notConnected(ctx context.Context, principal string) error {
	id := randomID()
	rec, err := json.Marshal(connectRecord{Upstream: u.opts.Upstream, Principal: principal, Expires: time.Now().Add(connectTTL)})
	if err != nil {
		return fmt.Errorf("upstream %q: connect link: %w", u.opts.Upstream, err)
	}
	if err := u.opts.Store.PutOnce(ctx, connectPrefix+id, rec, connectTTL); err != nil {
		return fmt.Errorf("upstream %q: store connect link: %w", u.opts.Upstream, err)
	}
	return &NotConnectedError{Upstream: u.opts.Upstream, ConnectURL: u.opts.PublicURL + "/oauth/connect/" + id}
}

// connectRecord is what a connect link's id stands for.
type connectRecord struct {
	Upstream  string    `json:"upstream"`
	Principal string    `json:"principal"`
	Expires   time.Time `json:"expires"`
}

// randomID is 256 random bits (two crypto/rand.Text, base32).
func randomID() string { return rand.Text() + rand.Text() }

// grantedScopes are the scopes the authorization server says it granted
// (its "scope" answer), nil when it did not say.
func grantedScopes(tok *oauth2.Token) []string {
	s, _ := tok.Extra("scope").(string)
	if s == "" {
		return nil
	}
	return strings.Fields(s)
}

// asReason says why a request to the authorization server failed: its
// error code and description, or its HTTP status, or the transport's
// error (which names the URL, never the request's body).
func asReason(err error) string {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		switch {
		case re.ErrorCode != "" && re.ErrorDescription != "":
			return limit(re.ErrorCode + ": " + re.ErrorDescription)
		case re.ErrorCode != "":
			return limit(re.ErrorCode)
		case re.Response != nil:
			return "HTTP " + re.Response.Status
		}
		return "refused"
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "the authorization server did not answer in time"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return limit(ue.Op + " " + redactURL(ue.URL) + ": " + ue.Err.Error())
	}
	return limit(err.Error())
}

func limit(s string) string {
	const max = 300
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}

// scrub removes g's tokens and the client secret from s, should an
// authorization server ever echo one back in an error description.
func (u *UserOAuth) scrub(s string, g Grant) string {
	for _, v := range []string{g.AccessToken.Value(), g.RefreshToken.Value(), u.opts.ClientSecret.Value()} {
		if v != "" {
			s = strings.ReplaceAll(s, v, "[secret]")
		}
	}
	return s
}

// subjectOf is who the authorization server says the user is: the "sub"
// of the ID token, else of the access token when it is a JWT, else of
// the userinfo endpoint's answer when one is configured; "" when none
// says. The tokens come straight from the token endpoint over the
// connection the gateway opened (OpenID Connect Core 3.1.3.7), and the
// subject is only recorded for audit, so no signature is checked here:
// the upstream checks the access token it gets.
func (u *UserOAuth) subjectOf(ctx context.Context, tok *oauth2.Token) string {
	if idt, _ := tok.Extra("id_token").(string); idt != "" {
		if sub := jwtSubject(idt); sub != "" {
			return sub
		}
	}
	if sub := jwtSubject(tok.AccessToken); sub != "" {
		return sub
	}
	if u.opts.UserinfoURL == "" {
		return ""
	}
	sub, err := u.userinfoSubject(ctx, tok)
	if err != nil {
		u.log.Warn("user_oauth userinfo", "reason", u.scrub(asReason(err), Grant{AccessToken: config.NewSecret(tok.AccessToken)}))
	}
	return sub
}

// jwtSubject is the "sub" claim of s when s is a JWT, else "".
func jwtSubject(s string) string {
	if strings.Count(s, ".") != 2 {
		return ""
	}
	t, err := jwt.ParseInsecure([]byte(s))
	if err != nil {
		return ""
	}
	sub, _ := t.Subject()
	return sub
}

// userinfoSubject asks the userinfo endpoint with the access token.
func (u *UserOAuth) userinfoSubject(ctx context.Context, tok *oauth2.Token) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, u.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.opts.UserinfoURL, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	req.Header.Set("Accept", "application/json")
	resp, err := u.opts.HTTPClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("userinfo: HTTP %s", resp.Status)
	}
	var info struct {
		Sub string `json:"sub"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&info); err != nil {
		return "", fmt.Errorf("userinfo: %w", err)
	}
	return info.Sub, nil
}
