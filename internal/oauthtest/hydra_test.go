package oauthtest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// TestHydra: the fixture's Hydra runs the authorization-code flow with
// PKCE through its login form, issues a refresh token, revokes a subject's
// grants, and pauses.
func TestHydra(t *testing.T) {
	h := StartHydra(t, HydraOptions{AccessTokenTTL: time.Minute})
	const redirect = "http://127.0.0.1:9/cb" // never fetched: the client stops there
	cl := h.CreateClient([]string{redirect}, "", "things.read")
	conf := oauth2.Config{ClientID: cl.ID, RedirectURL: redirect, Scopes: []string{"openid", "offline_access", "things.read"},
		Endpoint: oauth2.Endpoint{AuthURL: h.AuthURL, TokenURL: h.TokenURL, AuthStyle: oauth2.AuthStyleInParams}}
	verifier := oauth2.GenerateVerifier()
	jar, _ := cookiejar.New(nil)
	var code string
	c := &http.Client{Jar: jar, Timeout: HTTPTimeout, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if strings.HasPrefix(req.URL.String(), redirect) {
			code = req.URL.Query().Get("code")
			if req.URL.Query().Get("state") != "st-123456789" {
				t.Errorf("state %q", req.URL.Query().Get("state"))
			}
			return http.ErrUseLastResponse
		}
		return nil
	}}
	resp, err := c.Get(conf.AuthCodeURL("st-123456789", oauth2.S256ChallengeOption(verifier)))
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	// The login page, as a browser sees it: a form with a username field.
	m := regexp.MustCompile(`name="login_challenge" value="([^"]+)"`).FindSubmatch(page)
	if resp.Request.URL.Path != "/login" || m == nil || !strings.Contains(string(page), `id="username"`) {
		t.Fatalf("login page %s:\n%s", resp.Request.URL, page)
	}
	resp, err = c.PostForm(h.LoginURL, url.Values{"login_challenge": {string(m[1])}, "username": {"alice"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if code == "" {
		t.Fatalf("no code: ended at %s %s", resp.Request.URL, resp.Status)
	}
	ctx := context.Background()
	if _, err := conf.Exchange(ctx, code); err == nil {
		t.Fatal("Hydra exchanged a code without its PKCE verifier")
	}
	// Hydra invalidates a code after a failed attempt; start again with ?auto=.
	code = ""
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if strings.HasPrefix(req.URL.String(), redirect) {
			code = req.URL.Query().Get("code")
			return http.ErrUseLastResponse
		}
		return h.AutoLogin("alice")(req, via)
	}
	if resp, err = c.Get(conf.AuthCodeURL("st-223456789", oauth2.S256ChallengeOption(verifier))); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	tok, err := conf.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatalf("exchange: %v", err)
	}
	if tok.RefreshToken == "" || strings.Count(tok.AccessToken, ".") != 2 || tok.Extra("id_token") == nil {
		t.Fatalf("token: refresh %v, JWT %v, ID token %v", tok.RefreshToken != "", strings.Count(tok.AccessToken, ".") == 2, tok.Extra("id_token") != nil)
	}
	if in := h.Introspect(tok.AccessToken); !in.Active || in.Subject != "alice" || in.ClientID != cl.ID {
		t.Fatalf("introspection %+v", in)
	}
	h.RevokeGrants("alice")
	if in := h.Introspect(tok.AccessToken); in.Active {
		t.Error("a revoked token is active")
	}
	_, err = conf.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.ErrorCode != "invalid_grant" {
		t.Errorf("refresh of a revoked grant: %v", err)
	}

	h.Pause()
	sc := &http.Client{Timeout: 500 * time.Millisecond}
	if _, err := sc.Get(h.PublicURL + "/health/alive"); err == nil {
		t.Error("a paused Hydra answered")
	}
	h.Resume()
	resp, err = sc.Get(h.PublicURL + "/health/alive")
	if err != nil {
		t.Fatalf("resumed: %v", err)
	}
	resp.Body.Close()
	h.Stop()
	if _, err := sc.Get(h.PublicURL + "/health/alive"); err == nil {
		t.Error("a stopped Hydra answered")
	}
}
