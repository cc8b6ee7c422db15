package upstreamauth

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jwt"
	"golang.org/x/oauth2"

	"github.com/wasmgate/wasmgate/internal/oauthtest"
)

// TestUserOAuthConnect drives the connect flow through a real Hydra for two
// users: each gets their own grant, a token Hydra vouches for, and never
// the other's.
func TestUserOAuthConnect(t *testing.T) {
	hydra := oauthtest.StartHydra(t, oauthtest.HydraOptions{})
	e := newEnv(t, hydra)
	tickets := e.source("tickets", "tickets-client-secret-1", nil) // confidential: client_secret_basic
	wiki := e.source("wiki", "", nil)                              // public: none, PKCE only
	e.serve(tickets, wiki)

	link := e.connectURL(tickets, "alice")
	for range 2 { // looking does not spend the link
		resp, page := e.browser("alice").get(link)
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, "Connect tickets for alice.") {
			t.Fatalf("connect page: %s\n%s", resp.Status, page)
		}
		for h, want := range map[string]string{
			"Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
			"Referrer-Policy":         "no-referrer",
			"Cache-Control":           "no-store",
		} {
			if got := resp.Header.Get(h); got != want {
				t.Errorf("%s: %q, want %q", h, got, want)
			}
		}
	}
	page := e.browser("alice").connect(link)
	if !strings.Contains(page, "Connected tickets for alice. Go back to your client and retry.") {
		t.Fatalf("final page:\n%s", page)
	}
	if resp, page := e.browser("alice").get(link); resp.StatusCode != http.StatusNotFound || !strings.Contains(page, "expired or was already used") {
		t.Errorf("a spent link: %s\n%s", resp.Status, page)
	}

	g, ok := e.store.grant("tickets", "alice")
	if !ok || !g.RefreshToken.IsSet() || g.Subject != "alice" || g.ConnectedAt.IsZero() || g.Expiry.IsZero() {
		t.Fatalf("grant %+v (stored %v)", g, ok)
	}
	if !strings.Contains(strings.Join(g.Scopes, " "), "tickets.read") {
		t.Errorf("grant scopes %q", g.Scopes)
	}
	tok := e.token(tickets, "alice")
	if tok.Mode != ModeUserOAuth || tok.Subject != "alice" || tok.Value.Value() != g.AccessToken.Value() || !tok.Expiry.Equal(g.Expiry) {
		t.Fatalf("token %+v", tok)
	}
	// Hydra vouches for it: introspection, and its signature under Hydra's JWKS.
	if in := hydra.Introspect(tok.Value.Value()); !in.Active || in.Subject != "alice" || !strings.Contains(in.Scope, "tickets.read") {
		t.Errorf("introspection of alice's token: %+v", in)
	}
	keys, err := jwk.Fetch(context.Background(), hydra.JWKSURL)
	if err != nil {
		t.Fatal(err)
	}
	jt, err := jwt.Parse([]byte(tok.Value.Value()), jwt.WithKeySet(keys), jwt.WithIssuer(hydra.Issuer))
	if err != nil {
		t.Fatalf("alice's token does not verify under Hydra's JWKS: %v", err)
	}
	if sub, _ := jt.Subject(); sub != "alice" {
		t.Errorf("token subject %q", sub)
	}

	// bob connects the same upstream in his own browser; the public client too.
	e.browser("bob").connect(e.connectURL(tickets, "bob"))
	e.browser("alice").connect(e.connectURL(wiki, "alice"))
	if tw := e.token(wiki, "alice"); tw.Subject != "alice" || hydra.Introspect(tw.Value.Value()).ClientID != wiki.ClientID() {
		t.Errorf("wiki token for alice: subject %q", tw.Subject)
	}

	// Concurrent calls: each principal only ever gets their own token.
	var wg sync.WaitGroup
	for _, p := range []string{"alice", "bob", "alice", "bob", "carol"} {
		wg.Go(func() {
			for range 20 {
				tk, err := tickets.Token(context.Background(), Caller{Principal: p})
				if p == "carol" {
					if !errors.As(err, new(*NotConnectedError)) {
						t.Errorf("carol: %v", err)
					}
					continue
				}
				if err != nil {
					t.Errorf("%s: %v", p, err)
					return
				}
				if tk.Subject != p {
					t.Errorf("%s got %s's token", p, tk.Subject)
				}
			}
		})
	}
	wg.Wait()
	ta, tb := e.token(tickets, "alice"), e.token(tickets, "bob")
	if ta.Value.Value() == tb.Value.Value() {
		t.Fatal("alice and bob share a token")
	}
	if in := hydra.Introspect(tb.Value.Value()); !in.Active || in.Subject != "bob" {
		t.Errorf("introspection of bob's token: %+v", in)
	}

	// The store is read on every call: a grant deleted (revoked on any
	// replica) is gone on the next call.
	before := e.store.gets.Load()
	e.token(tickets, "bob")
	if e.store.gets.Load() == before {
		t.Error("Token did not read the store")
	}
	if _, err := e.store.Delete(context.Background(), "tickets", "bob"); err != nil {
		t.Fatal(err)
	}
	e.connectURL(tickets, "bob")
	e.token(tickets, "alice")
}

// TestUserOAuthRefresh: an access token about to expire is refreshed once
// (however many calls want it), Hydra rotates the refresh token, and the
// old one is refused.
func TestUserOAuthRefresh(t *testing.T) {
	hydra := oauthtest.StartHydra(t, oauthtest.HydraOptions{AccessTokenTTL: 45 * time.Second})
	e := newEnv(t, hydra)
	src := e.source("tickets", "tickets-client-secret-2", nil)
	e.serve(src)
	e.browser("alice").connect(e.connectURL(src, "alice"))
	g0, _ := e.store.grant("tickets", "alice")
	e.addSecret(g0.RefreshToken.Value())

	if tok := e.token(src, "alice"); tok.Value.Value() != g0.AccessToken.Value() {
		t.Fatal("a token 45 s from expiry was refreshed")
	}
	e.clock.advance(25 * time.Second) // 20 s left, less than half its life: refresh

	var wg sync.WaitGroup
	toks := make([]Token, 8)
	errs := make([]error, 8)
	for i := range toks {
		wg.Go(func() { toks[i], errs[i] = src.Token(context.Background(), Caller{Principal: "alice"}) })
	}
	wg.Wait()
	for i := range toks {
		if errs[i] != nil {
			t.Fatalf("concurrent refresh %d: %v", i, errs[i])
		}
		if toks[i].Value.Value() != toks[0].Value.Value() {
			t.Fatal("concurrent calls refreshed more than once")
		}
	}
	g1, _ := e.store.grant("tickets", "alice")
	e.addSecret(g1.AccessToken.Value(), g1.RefreshToken.Value())
	switch {
	case g1.AccessToken.Value() == g0.AccessToken.Value():
		t.Fatal("not refreshed")
	case g1.RefreshToken.Value() == g0.RefreshToken.Value():
		t.Fatal("the refresh token did not rotate")
	case !g1.RefreshedAt.After(g0.RefreshedAt) || !g1.ConnectedAt.Equal(g0.ConnectedAt) || g1.Subject != "alice":
		t.Fatalf("refreshed grant %+v", g1)
	}
	if in := hydra.Introspect(g1.AccessToken.Value()); !in.Active || in.Subject != "alice" {
		t.Errorf("refreshed token: %+v", in)
	}

	// The old refresh token no longer works.
	conf := oauth2.Config{ClientID: src.ClientID(), ClientSecret: "tickets-client-secret-2",
		Endpoint: oauth2.Endpoint{TokenURL: hydra.TokenURL, AuthStyle: oauth2.AuthStyleInHeader}}
	_, err := conf.TokenSource(context.Background(), &oauth2.Token{RefreshToken: g0.RefreshToken.Value()}).Token()
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.ErrorCode != "invalid_grant" {
		t.Fatalf("refresh with the rotated-out refresh token: %v", err)
	}
	// Hydra takes that reuse for a stolen token and revokes the rest of
	// the chain: the next refresh is refused, the grant deleted and the
	// user asked to connect again.
	e.clock.advance(30 * time.Second)
	e.connectURL(src, "alice")
	if _, ok := e.store.grant("tickets", "alice"); ok {
		t.Error("a grant whose refresh was refused is still stored")
	}
	if !strings.Contains(e.logs.String(), "refresh refused") {
		t.Errorf("no log of the refused refresh:\n%s", e.logs)
	}
}

// TestUserOAuthRevokedAtAS: a refresh token revoked at the authorization
// server means "not connected", and the grant is deleted.
func TestUserOAuthRevokedAtAS(t *testing.T) {
	hydra := oauthtest.StartHydra(t, oauthtest.HydraOptions{})
	e := newEnv(t, hydra)
	src := e.source("tickets", "tickets-client-secret-3", nil)
	e.serve(src)
	e.browser("alice").connect(e.connectURL(src, "alice"))
	e.browser("bob").connect(e.connectURL(src, "bob"))
	hydra.RevokeGrants("alice")
	e.clock.advance(2 * time.Hour)
	e.connectURL(src, "alice")
	if _, ok := e.store.grant("tickets", "alice"); ok {
		t.Error("alice's revoked grant is still stored")
	}
	if tok := e.token(src, "bob"); tok.Subject != "bob" { // bob's refreshes
		t.Errorf("bob: %+v", tok)
	}
}

// TestUserOAuthASDown: an authorization server that does not answer or is
// gone fails the refresh with an ExchangeError; the grant stays.
func TestUserOAuthASDown(t *testing.T) {
	hydra := oauthtest.StartHydra(t, oauthtest.HydraOptions{})
	e := newEnv(t, hydra)
	src := e.source("tickets", "tickets-client-secret-4", func(o *UserOAuthOptions) { o.Timeout = time.Second })
	e.serve(src)
	e.browser("alice").connect(e.connectURL(src, "alice"))
	e.clock.advance(2 * time.Hour)

	check := func(what string) {
		t.Helper()
		start := time.Now()
		_, err := src.Token(context.Background(), Caller{Principal: "alice"})
		var xe *ExchangeError
		if !errors.As(err, &xe) || xe.Step != "refresh" || xe.Upstream != "tickets" {
			t.Fatalf("%s: %v, want an ExchangeError of step refresh", what, err)
		}
		e.shown(err.Error())
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: took %v", what, d)
		}
		if _, ok := e.store.grant("tickets", "alice"); !ok {
			t.Errorf("%s: the grant was deleted", what)
		}
		t.Logf("%s: %v", what, err)
	}
	hydra.Pause()
	check("slow")
	hydra.Resume()
	hydra.Stop()
	check("down")
}
