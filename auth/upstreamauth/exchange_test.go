package upstreamauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/wasmgate/wasmgate/auth/upstreamauth"
	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/internal/oauthtest"
)

const (
	gatewayAud  = "https://gateway.test"
	ticketsAud  = "https://tickets.test"
	ticketsName = "tickets"
)

// secret wraps a value as a config.Secret, as the gateway gets one.
func secret(v string) config.Secret {
	s, err := config.SecretRef{Key: "k", EnvKey: "e", Env: "X"}.Read("", func(string) (string, bool) { return v, true })
	if err != nil {
		panic(err)
	}
	return s
}

func exchange(t *testing.T, p *oauthtest.Provider, mod func(*upstreamauth.TokenExchangeOptions)) *upstreamauth.TokenExchange {
	t.Helper()
	o := upstreamauth.TokenExchangeOptions{
		Upstream:   ticketsName,
		TokenURL:   p.TokenURL,
		ClientAuth: upstreamauth.ClientAuth{ClientID: oauthtest.ClientID, ClientSecret: secret(oauthtest.ClientSecret)},
		Audience:   ticketsAud,
	}
	if mod != nil {
		mod(&o)
	}
	x, err := upstreamauth.NewTokenExchange(o)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// whoami calls the upstream's whoami tool with tok as bearer.
func whoami(t *testing.T, w *oauthtest.Whoami, tok string) oauthtest.WhoamiAnswer {
	t.Helper()
	c, _ := harness.HTTPClient(t, w.URL, harness.ProtoSessions, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + tok}))
	text, isErr := harness.CallTool(t.Context(), t, c, "whoami", nil)
	if isErr {
		t.Fatalf("whoami: %s", text)
	}
	var a oauthtest.WhoamiAnswer
	if err := json.Unmarshal([]byte(text), &a); err != nil {
		t.Fatalf("whoami answer %q: %v", text, err)
	}
	return a
}

// noSecrets fails when err's text holds any of values.
func noSecrets(t *testing.T, err error, values ...string) {
	t.Helper()
	for _, v := range values {
		if v != "" && strings.Contains(err.Error(), v) {
			t.Fatalf("error text holds a secret: %q", err.Error())
		}
		for part := range strings.SplitSeq(v, ".") {
			if len(part) >= 16 && strings.Contains(err.Error(), part) {
				t.Fatalf("error text holds part of a token: %q", err.Error())
			}
		}
	}
}

func exchangeError(t *testing.T, err error, step string) *upstreamauth.ExchangeError {
	t.Helper()
	var xe *upstreamauth.ExchangeError
	if !errors.As(err, &xe) {
		t.Fatalf("error %v (%T) is not an *ExchangeError", err, err)
	}
	if xe.Upstream != ticketsName || xe.Step != step {
		t.Fatalf("ExchangeError %+v: want upstream %q, step %q", xe, ticketsName, step)
	}
	return xe
}

// TestTokenExchangeUsers: alice and bob each get their own exchanged
// token (sub alice / bob, audience the upstream), the upstream verifies
// it against the provider's keys, and neither caller token reaches it.
func TestTokenExchangeUsers(t *testing.T) {
	p := oauthtest.StartProvider(t, oauthtest.ProviderOptions{})
	w := oauthtest.StartWhoami(t, p.JWKSURL, ticketsAud)
	x := exchange(t, p, nil)
	var callerTokens []string
	for _, user := range oauthtest.Users {
		caller := p.AccessToken(t, user, gatewayAud)
		callerTokens = append(callerTokens, caller)
		tok, err := x.Token(t.Context(), upstreamauth.Caller{Principal: "user:" + user, Token: secret(caller)})
		if err != nil {
			t.Fatalf("%s: %v", user, err)
		}
		if tok.Subject != user || tok.Mode != upstreamauth.ModeTokenExchange || tok.Expiry.IsZero() {
			t.Fatalf("%s: token subject %q mode %q expiry %v", user, tok.Subject, tok.Mode, tok.Expiry)
		}
		if tok.Value.Value() == caller {
			t.Fatalf("%s: the exchanged token is the caller's token", user)
		}
		a := whoami(t, w, tok.Value.Value())
		if a.Sub != user || len(a.Aud) != 1 || a.Aud[0] != ticketsAud || a.Iss != p.Issuer {
			t.Fatalf("%s: the upstream saw %+v", user, a)
		}
	}
	for _, seen := range w.Seen() {
		for _, c := range callerTokens {
			if strings.Contains(seen, c) {
				t.Fatal("a caller's own token reached the upstream")
			}
		}
	}
	// The caller's token is refused by the upstream (wrong audience).
	c, _ := harness.HTTPClient(t, w.URL, harness.ProtoSessions)
	if _, err := harness.CallToolErr(t.Context(), c, "whoami", nil); err == nil {
		t.Fatal("tools/call without a token succeeded")
	}
}

// TestTokenExchangeCache: a second call is a cache hit (no request at
// the provider); past the refresh point a new exchange is made; another
// caller with the same principal name but another subject never gets the
// first caller's token.
func TestTokenExchangeCache(t *testing.T) {
	p := oauthtest.StartProvider(t, oauthtest.ProviderOptions{TokenLifetime: 10 * time.Minute})
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	x := exchange(t, p, func(o *upstreamauth.TokenExchangeOptions) { o.Now = clock })
	alice := upstreamauth.Caller{Principal: "shared", Token: secret(p.AccessToken(t, "alice", gatewayAud))}
	first, err := x.Token(t.Context(), alice)
	if err != nil {
		t.Fatal(err)
	}
	again, err := x.Token(t.Context(), alice)
	if err != nil {
		t.Fatal(err)
	}
	if n := p.Requests(upstreamauth.GrantTypeTokenExchange); n != 1 {
		t.Fatalf("%d exchanges for two calls, want 1", n)
	}
	if again.Value.Value() != first.Value.Value() {
		t.Fatal("the cache hit answered another token")
	}

	// Same principal name, another subject: its own exchange, its own token.
	bob := upstreamauth.Caller{Principal: "shared", Token: secret(p.AccessToken(t, "bob", gatewayAud))}
	b, err := x.Token(t.Context(), bob)
	if err != nil {
		t.Fatal(err)
	}
	if b.Subject != "bob" || b.Value.Value() == first.Value.Value() {
		t.Fatalf("bob got subject %q (alice's token: %v)", b.Subject, b.Value.Value() == first.Value.Value())
	}
	if n := p.Requests(upstreamauth.GrantTypeTokenExchange); n != 2 {
		t.Fatalf("%d exchanges, want 2", n)
	}

	// 10 min lifetime: kept until 1 min (10%) before expiry.
	mu.Lock()
	now = now.Add(8*time.Minute + 50*time.Second)
	mu.Unlock()
	if _, err := x.Token(t.Context(), alice); err != nil {
		t.Fatal(err)
	}
	if n := p.Requests(upstreamauth.GrantTypeTokenExchange); n != 2 {
		t.Fatalf("%d exchanges before the refresh point, want 2", n)
	}
	mu.Lock()
	now = now.Add(15 * time.Second)
	mu.Unlock()
	renewed, err := x.Token(t.Context(), alice)
	if err != nil {
		t.Fatal(err)
	}
	if n := p.Requests(upstreamauth.GrantTypeTokenExchange); n != 3 {
		t.Fatalf("%d exchanges past the refresh point, want 3", n)
	}
	if renewed.Value.Value() == first.Value.Value() {
		t.Fatal("the re-exchange answered the old token")
	}
}

// TestTokenExchangeSingleflight: concurrent misses for one caller make
// one exchange.
func TestTokenExchangeSingleflight(t *testing.T) {
	p := oauthtest.StartProvider(t, oauthtest.ProviderOptions{})
	p.SetDelay(200 * time.Millisecond)
	x := exchange(t, p, nil)
	alice := upstreamauth.Caller{Principal: "alice", Token: secret(p.AccessToken(t, "alice", gatewayAud))}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() {
			_, err := x.Token(t.Context(), alice)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := p.Requests(upstreamauth.GrantTypeTokenExchange); n != 1 {
		t.Fatalf("%d exchanges for 16 concurrent calls, want 1", n)
	}
}

// TestTokenExchangeRefused: an unknown client, a wrong secret and a
// revoked user are each an ExchangeError naming the upstream and the
// authorization server's reason, holding no token or secret.
func TestTokenExchangeRefused(t *testing.T) {
	p := oauthtest.StartProvider(t, oauthtest.ProviderOptions{})
	caller := p.AccessToken(t, "alice", gatewayAud)
	c := upstreamauth.Caller{Principal: "alice", Token: secret(caller)}
	cases := []struct {
		name   string
		mod    func(*upstreamauth.TokenExchangeOptions)
		revoke bool
		want   string
	}{
		{"unknown client", func(o *upstreamauth.TokenExchangeOptions) { o.ClientID = "nobody" }, false, "invalid_client"},
		{"wrong secret", func(o *upstreamauth.TokenExchangeOptions) { o.ClientSecret = secret("not-the-secret-at-all") }, false, "invalid_client"},
		{"revoked user", nil, true, "invalid_grant: the user's access has been revoked"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.revoke {
				p.Revoke("alice")
			}
			_, err := exchange(t, p, tc.mod).Token(t.Context(), c)
			if err == nil {
				t.Fatal("no error")
			}
			xe := exchangeError(t, err, "token_exchange")
			if !strings.Contains(xe.Reason, tc.want) || !strings.Contains(err.Error(), `"tickets"`) {
				t.Fatalf("error %q: want the reason %q and the upstream", err, tc.want)
			}
			noSecrets(t, err, caller, oauthtest.ClientSecret, "not-the-secret-at-all")
		})
	}
}

// TestTokenExchangeNoCallerToken: a static or stdio principal has no
// token to exchange.
func TestTokenExchangeNoCallerToken(t *testing.T) {
	p := oauthtest.StartProvider(t, oauthtest.ProviderOptions{})
	_, err := exchange(t, p, nil).Token(t.Context(), upstreamauth.Caller{Principal: "ops"})
	xe := exchangeError(t, err, "token_exchange")
	if !strings.Contains(xe.Reason, "no access token to exchange") {
		t.Fatalf("reason %q", xe.Reason)
	}
	if p.Requests(upstreamauth.GrantTypeTokenExchange) != 0 {
		t.Fatal("a request reached the provider")
	}
}

// TestTokenExchangeDownOrSlow: an authorization server that is slow past
// the caller's deadline, or down, is a clear ExchangeError.
func TestTokenExchangeDownOrSlow(t *testing.T) {
	p := oauthtest.StartProvider(t, oauthtest.ProviderOptions{})
	caller := p.AccessToken(t, "alice", gatewayAud)
	c := upstreamauth.Caller{Principal: "alice", Token: secret(caller)}
	x := exchange(t, p, nil)

	p.SetDelay(5 * time.Second)
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := x.Token(ctx, c)
	if time.Since(start) > 2*time.Second {
		t.Fatalf("the deadline was not kept: %v", time.Since(start))
	}
	xe := exchangeError(t, err, "token_exchange")
	if !strings.Contains(xe.Reason, "did not answer in time") && !strings.Contains(xe.Reason, "gave up waiting") {
		t.Fatalf("slow: reason %q", xe.Reason)
	}
	noSecrets(t, err, caller, oauthtest.ClientSecret)

	p.SetDelay(0)
	p.Close()
	_, err = x.Token(t.Context(), c)
	xe = exchangeError(t, err, "token_exchange")
	if !strings.Contains(xe.Reason, "cannot reach the authorization server") {
		t.Fatalf("down: reason %q", xe.Reason)
	}
	noSecrets(t, err, caller, oauthtest.ClientSecret)
}

// TestTokenExchangePrivateKeyJWT: client authentication with a signed
// assertion works, and an assertion signed by another key is refused.
func TestTokenExchangePrivateKeyJWT(t *testing.T) {
	p := oauthtest.StartProvider(t, oauthtest.ProviderOptions{})
	w := oauthtest.StartWhoami(t, p.JWKSURL, ticketsAud)
	caller := p.AccessToken(t, "bob", gatewayAud)
	c := upstreamauth.Caller{Principal: "bob", Token: secret(caller)}
	withKey := func(key *oauthtest.Provider) func(*upstreamauth.TokenExchangeOptions) {
		return func(o *upstreamauth.TokenExchangeOptions) {
			o.ClientAuth = upstreamauth.ClientAuth{ClientID: oauthtest.JWTClientID, PrivateKeyJWT: &upstreamauth.PrivateKeyJWT{
				Key: key.ClientKey, KID: oauthtest.JWTClientKID, Audience: []string{p.Issuer},
			}}
		}
	}
	tok, err := exchange(t, p, withKey(p)).Token(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	if a := whoami(t, w, tok.Value.Value()); a.Sub != "bob" {
		t.Fatalf("the upstream saw %+v", a)
	}
	other := oauthtest.StartProvider(t, oauthtest.ProviderOptions{}) // only for its (unregistered) client key
	_, err = exchange(t, p, withKey(other)).Token(t.Context(), c)
	xe := exchangeError(t, err, "token_exchange")
	// zitadel's op answers a client assertion it cannot verify with invalid_grant.
	if !strings.Contains(xe.Reason, "refused") || !strings.Contains(xe.Reason, "signature") {
		t.Fatalf("reason %q", xe.Reason)
	}
	noSecrets(t, err, caller)
}
