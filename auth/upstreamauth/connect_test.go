package upstreamauth

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/internal/oauthtest"
)

// TestConnectRefusals: every way a callback can be wrong is a clear page,
// stores nothing and shows nothing secret.
func TestConnectRefusals(t *testing.T) {
	hydra := oauthtest.StartHydra(t, oauthtest.HydraOptions{})
	e := newEnv(t, hydra)
	src := e.source("tickets", "tickets-client-secret-5", nil)
	e.serve(src)
	noGrant := func(principal string) {
		t.Helper()
		if _, ok := e.store.grant("tickets", principal); ok {
			t.Errorf("%s has a grant", principal)
		}
	}
	want := func(resp *http.Response, page string, status int, text string) {
		t.Helper()
		if resp.StatusCode != status || !strings.Contains(page, text) {
			t.Errorf("%s, want %d and %q:\n%s", resp.Status, status, text, page)
		}
	}

	t.Run("tampered state", func(t *testing.T) {
		b := e.browser("alice")
		cb := b.start(e.connectURL(src, "alice"))
		q := cb.Query()
		st := q.Get("state")
		q.Set("state", st[:len(st)-1]+map[bool]string{true: "A", false: "B"}[st[len(st)-1] != 'A'])
		bad := *cb
		bad.RawQuery = q.Encode()
		resp, page := b.get(bad.String())
		want(resp, page, http.StatusBadRequest, "unknown, expired or already finished")
		noGrant("alice")
		// the real state still finishes the sign-in
		resp, page = b.get(cb.String())
		want(resp, page, http.StatusOK, "Connected tickets for alice.")

		t.Run("replayed", func(t *testing.T) {
			g0, _ := e.store.grant("tickets", "alice")
			resp, page := b.get(cb.String())
			want(resp, page, http.StatusBadRequest, "unknown, expired or already finished")
			if g1, _ := e.store.grant("tickets", "alice"); g1.AccessToken.Value() != g0.AccessToken.Value() {
				t.Error("a replayed callback changed the grant")
			}
		})
	})

	t.Run("another browser", func(t *testing.T) {
		cb := e.browser("bob").start(e.connectURL(src, "bob"))
		resp, page := e.browser("mallory").get(cb.String())
		want(resp, page, http.StatusBadRequest, "This sign-in was started in another browser.")
		noGrant("bob")
	})

	t.Run("refused at the authorization server", func(t *testing.T) {
		b := e.browser("deny")
		cb := b.start(e.connectURL(src, "dave"))
		if cb.Query().Get("error") != "access_denied" {
			t.Fatalf("callback %s", cb.Redacted())
		}
		resp, page := b.get(cb.String())
		want(resp, page, http.StatusBadRequest, "tickets&#39;s authorization server answered access_denied")
		noGrant("dave")
	})

	t.Run("wrong redirect_uri", func(t *testing.T) {
		// The client at Hydra allows another redirect_uri than the
		// gateway's callback: Hydra refuses to send the browser back.
		cl := hydra.CreateClient([]string{"http://127.0.0.1:9/elsewhere"}, "")
		other := e.source("wiki", "", func(o *UserOAuthOptions) { o.ClientID = cl.ID })
		e.serve(src, other)
		b := e.browser("erin")
		link := e.connectURL(other, "erin")
		_, page := b.get(link)
		csrf := csrfRE.FindStringSubmatch(page)
		req, _ := http.NewRequest(http.MethodPost, link, strings.NewReader(url.Values{"csrf": {csrf[1]}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, page := b.do(req)
		want(resp, page, http.StatusBadRequest, "hydra error: invalid_request")
		if !strings.Contains(page, "redirect_uri") {
			t.Errorf("Hydra's error does not name the redirect_uri:\n%s", page)
		}
		if _, ok := e.store.grant("wiki", "erin"); ok {
			t.Error("erin has a grant")
		}
		e.serve(src)
	})

	t.Run("forged button", func(t *testing.T) {
		link := e.connectURL(src, "frank")
		b := e.browser("frank")
		_, page := b.get(link)
		csrf := csrfRE.FindStringSubmatch(page)[1]
		post := func(field, origin string) (*http.Response, string) {
			req, _ := http.NewRequest(http.MethodPost, link, strings.NewReader(url.Values{"csrf": {field}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if origin != "" {
				req.Header.Set("Origin", origin)
			}
			return b.do(req)
		}
		resp, page := post("forged", "")
		want(resp, page, http.StatusForbidden, "not sent from this gateway")
		resp, page = post(csrf, "https://evil.example")
		want(resp, page, http.StatusForbidden, "sent from another site")
		// a cross-site POST carries no SameSite=Strict cookie
		resp, page = e.browser("frank").do(func() *http.Request {
			req, _ := http.NewRequest(http.MethodPost, link, strings.NewReader(url.Values{"csrf": {csrf}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			return req
		}())
		want(resp, page, http.StatusForbidden, "not sent from this gateway")
		// none of these spent the link
		b.connect(link)
	})

	t.Run("unknown link", func(t *testing.T) {
		resp, page := e.browser("x").get(e.srv.URL + "/oauth/connect/nope")
		want(resp, page, http.StatusNotFound, "expired or was already used")
		resp, page = e.browser("x").get(e.srv.URL + "/oauth/callback?code=abc&state=nope")
		want(resp, page, http.StatusBadRequest, "unknown, expired or already finished")
	})

	t.Run("escaped", func(t *testing.T) {
		resp, page := e.browser("x").get(e.connectURL(src, `<script>alert(1)</script>`))
		want(resp, page, http.StatusOK, "&lt;script&gt;alert(1)&lt;/script&gt;")
		if strings.Contains(page, "<script>") {
			t.Error("the principal's name is not escaped")
		}
	})
}

func TestNewUserOAuthRefuses(t *testing.T) {
	base := func() UserOAuthOptions {
		return UserOAuthOptions{Upstream: "gh", AuthorizationURL: "https://as.example/authorize", TokenURL: "https://as.example/token",
			ClientID: "c", PublicURL: "https://gw.example", Store: newMemStore()}
	}
	for name, edit := range map[string]func(*UserOAuthOptions){
		"no store":             func(o *UserOAuthOptions) { o.Store = nil },
		"no client":            func(o *UserOAuthOptions) { o.ClientID = "" },
		"both client_id kinds": func(o *UserOAuthOptions) { o.ClientMetadata = true },
		"metadata with secret": func(o *UserOAuthOptions) {
			o.ClientID, o.ClientMetadata, o.ClientSecret = "", true, config.NewSecret("s")
		},
		"bad token_url":  func(o *UserOAuthOptions) { o.TokenURL = "ftp://as.example/token" },
		"no public_url":  func(o *UserOAuthOptions) { o.PublicURL = "" },
		"slash in name":  func(o *UserOAuthOptions) { o.Upstream = "a/b" },
		"bad userinfo":   func(o *UserOAuthOptions) { o.UserinfoURL = "/userinfo" },
		"empty upstream": func(o *UserOAuthOptions) { o.Upstream = "" },
	} {
		o := base()
		edit(&o)
		if _, err := NewUserOAuth(o); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := NewUserOAuth(base()); err != nil {
		t.Fatal(err)
	}
}

func TestClientMetadataDocument(t *testing.T) {
	store := newMemStore()
	src, err := NewUserOAuth(UserOAuthOptions{Upstream: "gh", AuthorizationURL: "https://as.example/authorize", TokenURL: "https://as.example/token",
		ClientMetadata: true, Scopes: []string{"repo", "read:org"}, PublicURL: "https://gw.example/", Store: store})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := NewUserOAuth(UserOAuthOptions{Upstream: "jira", AuthorizationURL: "https://as.example/authorize", TokenURL: "https://as.example/token",
		ClientID: "c", PublicURL: "https://gw.example", Store: store})
	if err != nil {
		t.Fatal(err)
	}
	const id = "https://gw.example/oauth/client-metadata/gh.json"
	if src.ClientID() != id {
		t.Fatalf("client ID %q", src.ClientID())
	}
	h, err := NewConnectHandler(map[string]*UserOAuth{"gh": src, "jira": plain}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/oauth/client-metadata/gh.json", nil))
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	var doc map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	wantDoc := map[string]any{
		"client_id": id, "client_name": "wasmgate (gh)", "client_uri": "https://gw.example",
		"redirect_uris": []any{"https://gw.example/oauth/callback"}, "grant_types": []any{"authorization_code", "refresh_token"},
		"response_types": []any{"code"}, "token_endpoint_auth_method": "none", "scope": "repo read:org",
	}
	a, _ := json.Marshal(doc)
	b, _ := json.Marshal(wantDoc)
	if string(a) != string(b) {
		t.Errorf("document\n%s\nwant\n%s", a, b)
	}
	for _, p := range []string{"/oauth/client-metadata/jira.json", "/oauth/client-metadata/nope.json", "/oauth/client-metadata/gh"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, p, nil))
		if rec.Code != http.StatusNotFound {
			t.Errorf("%s: %d", p, rec.Code)
		}
	}

	// The button sends the browser to the authorization server with the
	// document's URL as client_id, PKCE S256 and the gateway's callback;
	// the cookie binding the browser is Secure (public_url is https).
	_, err = src.Token(context.Background(), Caller{Principal: "alice"})
	link := err.(*NotConnectedError).ConnectURL
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, link, nil))
	csrf := csrfRE.FindStringSubmatch(rec.Body.String())[1]
	req := httptest.NewRequest(http.MethodPost, link, strings.NewReader("csrf="+csrf))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://gw.example")
	for _, c := range rec.Result().Cookies() {
		req.AddCookie(c)
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("POST: %d %s", rec.Code, rec.Body)
	}
	loc, _ := url.Parse(rec.Header().Get("Location"))
	q := loc.Query()
	if loc.Host != "as.example" || q.Get("client_id") != id || q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" ||
		q.Get("code_challenge") == "" || q.Get("redirect_uri") != "https://gw.example/oauth/callback" || q.Get("scope") != "repo read:org" || q.Get("state") == "" {
		t.Errorf("authorization request %s", loc)
	}
	var bound bool
	for _, c := range rec.Result().Cookies() {
		if strings.HasPrefix(c.Name, browserCookie) {
			bound = c.Secure && c.HttpOnly && c.SameSite == http.SameSiteLaxMode && c.Path == "/oauth/callback"
		}
	}
	if !bound {
		t.Errorf("no Secure HttpOnly SameSite=Lax browser cookie: %v", rec.Result().Cookies())
	}
}
