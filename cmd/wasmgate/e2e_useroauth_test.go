package main

// Each user's own account at an upstream (auth.user_oauth), end to end:
// the built gateway, a real authorization server (ORY Hydra, started by
// internal/oauthtest, authorization code with PKCE and rotating refresh
// tokens), an upstream that checks Hydra's JWT access tokens and answers
// whoami, headless Chromium and the TypeScript SDK as the users' browser
// and client, and the credentials vault in memory or on a real Redis.

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/auth/vault"
	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/internal/oauthtest"
	"github.com/wasmgate/wasmgate/state"
	"github.com/wasmgate/wasmgate/state/stateconfig"
)

// notesAudience is the audience Hydra puts in the access tokens it issues
// for the upstream "notes", and the one the upstream requires.
const notesAudience = "https://notes.example.test/mcp"

// oauthWorld is what the per-user OAuth tests share: Hydra, the whoami
// upstream trusting it, the principals' bearer tokens, the vault key and
// the gateway's client secret, and every value that must never appear in
// what a gateway says.
type oauthWorld struct {
	hydra   *oauthtest.Hydra
	up      *oauthtest.Whoami
	tokens  map[string]string // principal → its static bearer token
	key     string            // the vault key (32 bytes, base64)
	secret  string            // the gateway's client secret at Hydra
	secrets harness.Secrets
}

func randomB64(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

// newOAuthWorld starts Hydra (with opts, and the notes audience) and the
// upstream.
func newOAuthWorld(t *testing.T, opts oauthtest.HydraOptions) *oauthWorld {
	t.Helper()
	opts.Audience = notesAudience
	h := oauthtest.StartHydra(t, opts)
	w := &oauthWorld{
		hydra:  h,
		up:     oauthtest.StartWhoami(t, h.JWKSURL, notesAudience),
		tokens: map[string]string{"alice": newToken(t), "bob": newToken(t)},
		key:    randomB64(t, 32),
		secret: "notes-client-secret-" + randomB64(t, 12),
	}
	w.secrets = harness.Secrets{w.tokens["alice"], w.tokens["bob"], w.key, w.secret}
	return w
}

// replica is a gateway's config, before it starts: the MCP listener's
// address is chosen first, as public_url names it and Hydra's client
// must list its callback.
type replica struct {
	addr   string // host:port of the MCP listener
	public string // server.public_url
	config string // gateway.yaml
}

// newReplica picks the port of a gateway.
func newReplica(t *testing.T) *replica {
	addr := harness.FreePort(t)
	return &replica{addr: addr, public: "http://" + addr}
}

// callback is the gateway's OAuth redirect URI.
func (r *replica) callback() string { return r.public + "/oauth/callback" }

// writeConfig writes r's gateway.yaml: alice and bob as static
// principals, the upstream notes with user_oauth at Hydra as client cl,
// and extra sections (state:, say).
func (w *oauthWorld) writeConfig(t *testing.T, r *replica, cl oauthtest.Client, extra string) string {
	t.Helper()
	yaml := bins.YAML(harness.Parts{
		Server: harness.NoWatch + "  public_url: " + r.public + "\n",
		Sections: fmt.Sprintf(`credentials: {key_env: VAULT_KEY}
auth:
  principals:
    - {name: alice, token_sha256: %s}
    - {name: bob, token_sha256: %s}
audit: {arguments: false}
upstreams:
  - name: notes
    url: %s
    auth:
      user_oauth:
        authorization_url: %s
        token_url: %s
        client_id: %s
        client_secret_env: NOTES_SECRET
        scopes: [openid, offline_access]
%s`, sha256Hex(w.tokens["alice"]), sha256Hex(w.tokens["bob"]), w.up.URL, w.hydra.AuthURL, w.hydra.TokenURL, cl.ID, extra),
	})
	const anyPort = "    listen: 127.0.0.1:0\n" // transports.http's (admin's is indented less)
	if !strings.Contains(yaml, anyPort) {
		t.Fatalf("the harness's YAML changed: no %q", anyPort)
	}
	r.config = harness.WriteConfig(t, strings.Replace(yaml, anyPort, "    listen: "+r.addr+"\n", 1))
	return r.config
}

// env is the gateway's environment: the vault key (key) and the client
// secret.
func (w *oauthWorld) env(key string, more ...string) []string {
	return append([]string{"VAULT_KEY=" + key, "NOTES_SECRET=" + w.secret}, more...)
}

// start runs a gateway of r.
func (w *oauthWorld) start(t *testing.T, r *replica, env []string) *harness.Gateway {
	t.Helper()
	g := bins.Start(t, harness.Options{Config: r.config, Env: env})
	if !strings.HasPrefix(g.MCPURL, r.public+"/") {
		t.Fatalf("the gateway serves MCP at %s, not under its public_url %s", g.MCPURL, r.public)
	}
	return g
}

// learn adds the access tokens the upstream has seen to the secrets.
func (w *oauthWorld) learn() {
	for _, seen := range w.up.Seen() {
		if tok, ok := strings.CutPrefix(seen, "Bearer "); ok && len(tok) >= 8 {
			w.secrets = append(w.secrets, tok)
		}
	}
}

// whoami calls whoami as principal with an mcp-go client (2025-11-25,
// no elicitation): the answer, or the error text when isError.
func (w *oauthWorld) whoami(t *testing.T, g *harness.Gateway, principal string) (oauthtest.WhoamiAnswer, string, bool) {
	t.Helper()
	a, text, isErr := whoamiOf(t, g, w.tokens[principal], "whoami")
	w.learn()
	w.secrets.Check(t, "the answer to "+principal, text)
	return a, text, isErr
}

// wantWhoami fails t unless principal's call reaches the upstream as
// principal, with a token Hydra issued for the notes audience.
func (w *oauthWorld) wantWhoami(t *testing.T, g *harness.Gateway, principal, via string) {
	t.Helper()
	a, text, isErr := w.whoami(t, g, principal)
	if isErr {
		t.Fatalf("%s's call%s failed: %s", principal, via, text)
	}
	if a.Sub != principal || a.Iss != w.hydra.Issuer || len(a.Aud) != 1 || a.Aud[0] != notesAudience {
		t.Fatalf("%s's call%s reached the upstream as %+v; want sub %s from %s for %s", principal, via, a, principal, w.hydra.Issuer, notesAudience)
	}
}

// linkRE finds a connect link in a text.
var linkRE = regexp.MustCompile(`http://[^\s"]+/oauth/connect/[A-Za-z0-9]+`)

// wantLink fails t unless principal's call (no elicitation) is an isError
// that names the upstream and carries a connect link under r's
// public_url; it returns the link.
func (w *oauthWorld) wantLink(t *testing.T, g *harness.Gateway, r *replica, principal, why string) string {
	t.Helper()
	_, text, isErr := w.whoami(t, g, principal)
	link := linkRE.FindString(text)
	want := fmt.Sprintf(`upstream "notes": not connected: connect your account at %s`, link)
	if !isErr || link == "" || !strings.HasPrefix(link, r.public+"/oauth/connect/") || !strings.Contains(text, want) {
		t.Fatalf("%s: %s's call answered isError=%v %q; want an error naming upstream notes with a connect link under %s", why, principal, isErr, text, r.public)
	}
	return link
}

// elicitClient is an mcp-go client (2025-11-25) of principal that
// declares URL-mode elicitation.
func (w *oauthWorld) elicitClient(t *testing.T, g *harness.Gateway, principal string) *client.Client {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(g.MCPURL, withToken(w.tokens[principal]))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, client.WithClientCapabilities(mcp.ClientCapabilities{
		Elicitation: &mcp.ElicitationCapability{URL: &struct{}{}},
	}))
	harness.Init(t, c, harness.ProtoSessions)
	return c
}

// wantElicitation fails t unless c's call of whoami is the JSON-RPC
// error -32042 asking to open one connect link under r's public_url; it
// returns the link.
func (w *oauthWorld) wantElicitation(t *testing.T, c *client.Client, r *replica) string {
	t.Helper()
	res, err := harness.CallToolErr(harness.Ctx(t, time.Minute), c, "whoami", nil)
	var el mcp.URLElicitationRequiredError
	if !errors.As(err, &el) {
		t.Fatalf("a call from a client declaring URL elicitation answered %+v, %v; want the JSON-RPC error -32042", res, err)
	}
	if len(el.Elicitations) != 1 {
		t.Fatalf("the -32042 error carries %d elicitations, want 1: %+v", len(el.Elicitations), el)
	}
	e := el.Elicitations[0]
	if e.Mode != mcp.ElicitationModeURL || !strings.HasPrefix(e.URL, r.public+"/oauth/connect/") ||
		e.ElicitationID == "" || !strings.HasSuffix(e.URL, "/"+e.ElicitationID) || !strings.Contains(e.Message, "notes") {
		t.Fatalf("the elicitation is %+v; want mode url, a link under %s/oauth/connect/ ending in its id, and a message naming notes", e, r.public)
	}
	b, _ := json.Marshal(el.Elicitations)
	w.secrets.Check(t, "the -32042 error", string(b))
	return e.URL
}

// flow is a connect link followed by a Go HTTP client (a browser with
// cookies and without JavaScript), signing in at Hydra's login page as a
// user.
type flow struct {
	c        *http.Client
	callback string // the callback URL Hydra sent the browser to
	status   int    // of the last page
	page     string // its text
}

// connectGo opens link, presses its button and signs in as user. With
// stop, the browser does not follow Hydra's redirect to the callback
// (f.callback is where it would go).
func (w *oauthWorld) connectGo(t *testing.T, link, user string, stop bool) *flow {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	f := &flow{}
	login := w.hydra.AutoLogin(user)
	f.c = &http.Client{Jar: jar, Timeout: 30 * time.Second, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if req.URL.Path == "/oauth/callback" {
			f.callback = req.URL.String()
			if stop {
				return http.ErrUseLastResponse
			}
		}
		return login(req, via)
	}}
	status, page := f.get(t, link)
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page)
	if status != http.StatusOK || m == nil {
		t.Fatalf("the connect page %s answered %d:\n%s", link, status, page)
	}
	resp, err := f.c.PostForm(link, url.Values{"csrf": {m[1]}})
	if err != nil {
		t.Fatalf("press connect: %v", err)
	}
	f.read(t, resp)
	if f.callback == "" {
		t.Fatalf("the sign-in as %s did not come back to the gateway: ended at %s with %d:\n%s", user, resp.Request.URL, f.status, f.page)
	}
	w.learnCode(f.callback)
	return f
}

// learnCode adds the authorization code of a callback URL to the
// secrets.
func (w *oauthWorld) learnCode(callback string) {
	if u, err := url.Parse(callback); err == nil && len(u.Query().Get("code")) >= 8 {
		w.secrets = append(w.secrets, u.Query().Get("code"))
	}
}

func (f *flow) get(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := f.c.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	f.read(t, resp)
	return f.status, f.page
}

func (f *flow) read(t *testing.T, resp *http.Response) {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	f.status, f.page = resp.StatusCode, string(b)
}

// message is the #message paragraph of a gateway page.
func message(page string) string {
	m := regexp.MustCompile(`<p id="message">([^<]*)</p>`).FindStringSubmatch(page)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

// wantPage fails t unless the flow's last page has status and message.
func (w *oauthWorld) wantPage(t *testing.T, f *flow, what string, status int, msg string) {
	t.Helper()
	w.secrets.Check(t, what, f.page)
	if f.status != status || message(f.page) != msg {
		t.Fatalf("%s: %d %q; want %d %q\n%s", what, f.status, message(f.page), status, msg, f.page)
	}
}

// connected is the page the callback shows once principal has connected
// notes.
func connected(principal string) string {
	return "Connected notes for " + principal + ". Go back to your client and retry."
}

// connectBrowser connects notes for user in Chromium: opens the link,
// presses the button, types the user's name on Hydra's login page and
// returns the message of the page the gateway shows at the end.
func (w *oauthWorld) connectBrowser(t *testing.T, b *harness.Browser, link, principal, user string) string {
	t.Helper()
	tb := b.Open(t, link)
	defer tb.Close()
	if msg := tb.Text("#message"); msg != "Connect notes for "+principal+"." {
		t.Fatalf("the connect page says %q", msg)
	}
	if err := tb.Do(chromedp.Click(chromedp.CSS("#connect"))); err != nil {
		t.Fatalf("press connect: %v", err)
	}
	tb.WaitVisible("#username", 30*time.Second, "Hydra's login page")
	if err := tb.Do(chromedp.SendKeys(chromedp.CSS("#username"), user)); err != nil {
		t.Fatalf("type the user name: %v", err)
	}
	if err := tb.Do(chromedp.Click(chromedp.CSS("#login"))); err != nil {
		t.Fatalf("sign in: %v", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(tb.Ctx(), 5*time.Second)
		title, err := chromedp.Run(ctx, chromedp.Title())
		loc, _ := chromedp.Run(ctx, chromedp.Location())
		cancel()
		if err == nil && strings.HasPrefix(title, "Connected") || err == nil && strings.HasPrefix(title, "Not connected") {
			w.learnCode(loc)
			if !strings.HasPrefix(loc, strings.SplitN(link, "/oauth/", 2)[0]+"/oauth/callback?") {
				t.Errorf("the browser ended at %s, not the gateway's callback", loc)
			}
			break
		}
		if time.Now().After(deadline) {
			tb.Screenshot("connect-" + principal + ".png")
			t.Fatalf("the browser did not come back to the gateway within 30 s: at %s, title %q", loc, title)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return tb.Text("#message")
}

// nodeConnect runs tests/node/connect.mjs: one call of whoami as
// principal with the TypeScript SDK.
type nodeConnectResult struct {
	Result *nodeCall `json:"result"`
	Error  *struct {
		Code         int                     `json:"code"`
		Message      string                  `json:"message"`
		Elicitations []mcp.ElicitationParams `json:"elicitations"`
	} `json:"error"`
}

func (w *oauthWorld) nodeWhoami(t *testing.T, g *harness.Gateway, principal string, elicitURL bool) nodeConnectResult {
	t.Helper()
	node, client := nodeClient(t)
	args := []string{filepath.Join(filepath.Dir(client), "connect.mjs"), g.MCPURL, "--token", w.tokens[principal], "--tool", "whoami"}
	if elicitURL {
		args = append(args, "--elicit-url")
	}
	var r nodeConnectResult
	runNodeJSON(t, &r, node, args...)
	w.learn()
	b, _ := json.Marshal(r)
	w.secrets.Check(t, "the TypeScript SDK's answer", string(b))
	return r
}

// apiCredentials is the credentials section of /api/status.
func apiCredentials(t *testing.T, g *harness.Gateway) (raw string, connected []vault.Meta) {
	t.Helper()
	status, body := harness.HTTPGet(t, g.AdminURL+"/api/status")
	if status != http.StatusOK {
		t.Fatalf("/api/status: %d", status)
	}
	var s struct {
		Sections []struct {
			Name string `json:"name"`
			Data *struct {
				Connected []vault.Meta `json:"connected"`
			} `json:"data"`
		} `json:"sections"`
	}
	if err := json.Unmarshal([]byte(body), &s); err != nil {
		t.Fatalf("/api/status: %v", err)
	}
	for _, sec := range s.Sections {
		if sec.Name == "credentials" && sec.Data != nil {
			return body, sec.Data.Connected
		}
	}
	t.Fatalf("/api/status has no credentials section:\n%s", body)
	return "", nil
}

// TestUserOAuthConnect: alice and bob each connect their own account at
// notes. Not connected, a client declaring URL elicitation gets -32042
// with the connect link and one that does not gets isError with it;
// alice connects in Chromium (the connect page, Hydra's login form, the
// gateway's "Connected" page) and her retried call, through the
// TypeScript SDK, reaches the upstream as alice while bob still gets the
// link; bob connects as bob and sees bob. The status page lists both
// (never a token), the gauge counts them, the audit lines name the
// subjects.
func TestUserOAuthConnect(t *testing.T) {
	t.Parallel()
	w := newOAuthWorld(t, oauthtest.HydraOptions{})
	b := harness.StartBrowser(t)
	r := newReplica(t)
	w.writeConfig(t, r, w.hydra.CreateClient([]string{r.callback()}, w.secret), "")
	g := w.start(t, r, w.env(w.key))
	defer func() { w.secrets.Watch(t, g) }()

	// Not connected: -32042 for a client that declared URL elicitation,
	// isError with the link for one that did not.
	link := w.wantElicitation(t, w.elicitClient(t, g, "alice"), r)
	w.wantLink(t, g, r, "alice", "not connected")
	if n := len(w.up.Seen()); n != 0 {
		t.Fatalf("the upstream got %d requests with a token before anyone connected", n)
	}

	// alice connects in the browser, from the elicitation's link.
	if msg := w.connectBrowser(t, b, link, "alice", "alice"); msg != connected("alice") {
		t.Fatalf("after signing in as alice the gateway says %q, want %q", msg, connected("alice"))
	}
	// The retried call, with the TypeScript SDK.
	nr := w.nodeWhoami(t, g, "alice", true)
	if nr.Error != nil || nr.Result == nil || nr.Result.IsError {
		t.Fatalf("alice's retried call with the TypeScript SDK: %+v %+v", nr.Result, nr.Error)
	}
	var a oauthtest.WhoamiAnswer
	if err := json.Unmarshal([]byte(nr.Result.text()), &a); err != nil || a.Sub != "alice" || a.Iss != w.hydra.Issuer {
		t.Fatalf("alice's retried call answered %q (%v); want whoami sub alice from Hydra", nr.Result.text(), err)
	}
	w.wantWhoami(t, g, "alice", " with mcp-go")

	// bob has not connected: alice's grant is not his.
	w.wantLink(t, g, r, "bob", "bob not connected")
	nr = w.nodeWhoami(t, g, "bob", true)
	if nr.Error == nil || nr.Error.Code != mcp.URL_ELICITATION_REQUIRED || len(nr.Error.Elicitations) != 1 ||
		!strings.HasPrefix(nr.Error.Elicitations[0].URL, r.public+"/oauth/connect/") {
		t.Fatalf("bob's call with the TypeScript SDK declaring URL elicitation: %+v %+v; want the error -32042 with a connect link", nr.Result, nr.Error)
	}
	if msg := w.connectBrowser(t, b, nr.Error.Elicitations[0].URL, "bob", "bob"); msg != connected("bob") {
		t.Fatalf("after signing in as bob the gateway says %q", msg)
	}
	w.wantWhoami(t, g, "bob", "")
	w.wantWhoami(t, g, "alice", " after bob connected")

	// A connect link is spent once used.
	f := &flow{c: &http.Client{Timeout: oauthtest.HTTPTimeout}}
	f.get(t, link)
	w.wantPage(t, f, "a used connect link", http.StatusNotFound,
		"This connect link has expired or was already used. Retry the call in your client to get a new one.")

	// The status page, the gauge, the audit lines.
	raw, list := apiCredentials(t, g)
	w.secrets.Check(t, "/api/status", raw)
	if len(list) != 2 || list[0].Upstream != "notes" || list[0].Principal != "alice" || list[0].Subject != "alice" ||
		list[1].Principal != "bob" || list[1].Subject != "bob" || list[0].ConnectedAt.IsZero() {
		t.Errorf("/api/status credentials: %+v; want alice and bob connected to notes as themselves", list)
	}
	if strings.Contains(raw, `"access_token"`) || strings.Contains(raw, `"refresh_token"`) {
		t.Errorf("/api/status names a token field:\n%s", raw)
	}
	if v, ok := g.Metric(t, "wasmgate_upstream_connected_users", map[string]string{"upstream": "notes"}); !ok || v != 2 {
		t.Errorf("wasmgate_upstream_connected_users{upstream=notes} = %v (%v), want 2", v, ok)
	}
	for _, p := range []string{"alice", "bob"} {
		if _, ok := g.WaitLog(0, "upstream_identity=user_oauth upstream_subject="+p, 5*time.Second); !ok {
			t.Errorf("no audit line names %s's identity at the upstream", p)
		}
	}
}

// redisState is the state section on r.
func redisState(r *harness.Redis) string {
	return "state:\n  backend: redis\n  redis: {url: " + harness.Q(r.URL()) + "}\n"
}

// openVault opens, in the test, the vault the gateways keep on r under
// key (and previous): what they stored, as they read it.
func openVault(t *testing.T, r *harness.Redis, key, previous string) *vault.Vault {
	v, _ := openVaultStore(t, r, key, previous)
	return v
}

// openVaultStore is openVault, and the Redis store under it.
func openVaultStore(t *testing.T, r *harness.Redis, key, previous string) (*vault.Vault, *state.Store) {
	t.Helper()
	ctx := harness.Ctx(t, 10*time.Second)
	st, err := state.Open(ctx, stateconfig.Config{Backend: stateconfig.BackendRedis,
		Redis: stateconfig.Redis{URL: r.URL(), KeyPrefix: stateconfig.DefaultKeyPrefix}}, "", state.Options{})
	if err != nil {
		t.Fatalf("open the state on Redis: %v", err)
	}
	t.Cleanup(st.Release)
	keys := vault.Keys{Key: "credentials.key_env"}
	for _, k := range []struct {
		b64 string
		to  *[]byte
	}{{key, &keys.Current}, {previous, &keys.Previous}} {
		if k.b64 == "" {
			continue
		}
		b, err := base64.StdEncoding.DecodeString(k.b64)
		if err != nil {
			t.Fatal(err)
		}
		*k.to = b
	}
	v, err := vault.Open(ctx, keys, st, nil)
	if err != nil {
		t.Fatalf("open the vault on Redis: %v", err)
	}
	return v, st
}

// grant is principal's grant to notes in v, its tokens added to the
// secrets; ok false when there is none.
func (w *oauthWorld) grant(t *testing.T, v *vault.Vault, principal string) (vault.Grant, bool) {
	t.Helper()
	g, ok, err := v.Get(harness.Ctx(t, 10*time.Second), "notes", principal)
	if err != nil {
		t.Fatalf("read %s's grant: %v", principal, err)
	}
	for _, s := range []string{g.AccessToken.Value(), g.RefreshToken.Value()} {
		if s != "" {
			w.secrets = append(w.secrets, s)
		}
	}
	return g, ok
}

// untilStale waits until an access token that expires at exp is one the
// gateway refreshes before using it.
func untilStale(exp time.Time) { time.Sleep(time.Until(exp) + 200*time.Millisecond) }

// TestUserOAuthRefreshAndFailures: access tokens that live 4 s. A call
// after expiry refreshes the grant (the vault, on Redis, holds a rotated
// refresh token: Hydra says the old one is spent and the new one active);
// a tampered state, a callback from another browser and a replayed
// callback are refused with clear pages and connect nobody; a vault entry
// that does not decrypt is "not connected", logged once; a grant whose
// tokens Hydra revoked is "not connected" again at its next refresh; and
// with Hydra slow (stopped with SIGSTOP) or down the call fails naming
// the upstream and the refresh, and the grant stays.
// Nothing leaks.
func TestUserOAuthRefreshAndFailures(t *testing.T) {
	t.Parallel()
	w := newOAuthWorld(t, oauthtest.HydraOptions{AccessTokenTTL: 4 * time.Second})
	rd := harness.StartRedis(t)
	r := newReplica(t)
	w.writeConfig(t, r, w.hydra.CreateClient([]string{r.callback()}, w.secret), redisState(rd))
	g := w.start(t, r, w.env(w.key))
	defer func() { w.secrets.Watch(t, g) }()
	v, st := openVaultStore(t, rd, w.key, "")

	f := w.connectGo(t, w.wantLink(t, g, r, "alice", "not connected"), "alice", false)
	w.wantPage(t, f, "the callback", http.StatusOK, connected("alice"))
	g1, ok := w.grant(t, v, "alice")
	if !ok || !g1.RefreshToken.IsSet() || g1.Subject != "alice" {
		t.Fatalf("after connecting, the vault holds %v %+v; want alice's grant with a refresh token", ok, g1.Meta())
	}
	w.wantWhoami(t, g, "alice", "")

	t.Run("refresh", func(t *testing.T) {
		untilStale(g1.Expiry)
		w.wantWhoami(t, g, "alice", " after her access token expired")
		g2, ok := w.grant(t, v, "alice")
		if !ok || g2.AccessToken.Value() == g1.AccessToken.Value() || g2.RefreshToken.Value() == g1.RefreshToken.Value() ||
			!g2.RefreshedAt.After(g1.RefreshedAt) || !g2.Expiry.After(g1.Expiry) || g2.ConnectedAt != g1.ConnectedAt {
			t.Fatalf("after the refresh the vault holds %+v; want new tokens, refreshed later, connected at the same time as %+v", g2.Meta(), g1.Meta())
		}
		if in := w.hydra.Introspect(g1.RefreshToken.Value()); in.Active {
			t.Errorf("Hydra still takes the refresh token from before the refresh: it was not rotated")
		}
		if in := w.hydra.Introspect(g2.RefreshToken.Value()); !in.Active || in.Subject != "alice" {
			t.Errorf("Hydra says the vault's refresh token is %+v; want active, of alice", in)
		}
	})

	t.Run("callback refused", func(t *testing.T) {
		// The same browser's callback again: the state is spent.
		if f.get(t, f.callback); f.status != http.StatusBadRequest {
			t.Errorf("a replayed callback answered %d", f.status)
		}
		w.wantPage(t, f, "a replayed callback", http.StatusBadRequest, unknownSignIn)

		// bob signs in at Hydra; the callback comes with its state
		// altered, then from a browser without the cookie of the one
		// that started it, then again from the one that did.
		link := w.wantLink(t, g, r, "bob", "bob not connected")
		fb := w.connectGo(t, link, "bob", true)
		cb, err := url.Parse(fb.callback)
		if err != nil {
			t.Fatal(err)
		}
		q := cb.Query()
		state := q.Get("state")
		if state == "" || q.Get("code") == "" {
			t.Fatalf("Hydra's redirect to the callback has no state or code: %s", fb.callback)
		}
		tampered := []byte(state)
		tampered[len(tampered)/2] ^= 1
		q.Set("state", string(tampered))
		cb.RawQuery = q.Encode()
		fb.get(t, cb.String())
		w.wantPage(t, fb, "a tampered state", http.StatusBadRequest, unknownSignIn)

		other := &flow{c: &http.Client{Timeout: oauthtest.HTTPTimeout}}
		other.get(t, fb.callback)
		w.wantPage(t, other, "a callback in another browser", http.StatusBadRequest,
			"This sign-in was started in another browser. Open the connect link again in this browser.")
		fb.get(t, fb.callback)
		w.wantPage(t, fb, "the callback after another browser used its state", http.StatusBadRequest, unknownSignIn)
		w.wantLink(t, g, r, "bob", "after refused callbacks")
		if _, ok := w.grant(t, v, "bob"); ok {
			t.Errorf("a refused callback stored a grant for bob")
		}
		w.wantWhoami(t, g, "alice", " after bob's refused callbacks")
	})

	t.Run("revoked at Hydra", func(t *testing.T) {
		cur, _ := w.grant(t, v, "alice")
		w.hydra.RevokeGrants("alice")
		untilStale(cur.Expiry)
		w.wantLink(t, g, r, "alice", "her grant revoked at Hydra")
		if _, ok := w.grant(t, v, "alice"); ok {
			t.Errorf("a grant Hydra refused to refresh is still in the vault")
		}
		if _, ok := g.WaitLog(0, "user_oauth refresh refused: deleting the grant", 5*time.Second); !ok {
			t.Errorf("no log line says the refused grant was deleted")
		}
	})

	t.Run("entry that does not decrypt", func(t *testing.T) {
		// What a vault entry written under another key looks like to
		// this one: not connected, logged once, no crash.
		if err := st.VaultSet(harness.Ctx(t, 10*time.Second), "notes", "alice", []byte("not-sealed-under-this-key-0123456789abcdef")); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			w.wantLink(t, g, r, "alice", "her vault entry does not decrypt")
		}
		const warned = "a credentials vault entry cannot be read; treated as not connected"
		if n := strings.Count(g.Stderr(), warned); n != 1 {
			t.Errorf("the gateway logged %d times that alice's entry does not decrypt, want once:\n%s", n, g.Stderr())
		}
	})

	t.Run("input_required", func(t *testing.T) {
		// A 2026-07-28 client declaring URL elicitation: the call asks
		// (input_required) to open the connect link; bob connects while
		// the client waits, and its retry of the call works.
		a := &connectAsker{t: t, w: w, principal: "bob"}
		tr, err := transport.NewStreamableHTTP(g.MCPURL, withToken(w.tokens["bob"]))
		if err != nil {
			t.Fatal(err)
		}
		c := client.NewClient(tr, client.WithElicitationHandler(a), client.WithClientCapabilities(mcp.ClientCapabilities{
			Elicitation: &mcp.ElicitationCapability{URL: &struct{}{}},
		}))
		harness.Init(t, c, harness.ProtoStateless)
		text, isErr := harness.CallTool(harness.Ctx(t, time.Minute), t, c, "whoami", nil)
		w.learn()
		w.secrets.Check(t, "the answer to bob's 2026-07-28 client", text)
		var ans oauthtest.WhoamiAnswer
		if isErr || json.Unmarshal([]byte(text), &ans) != nil || ans.Sub != "bob" {
			t.Fatalf("bob's 2026-07-28 call answered isError=%v %q; want whoami sub bob once he connected", isErr, text)
		}
		if len(a.asked) != 1 || a.asked[0].Mode != mcp.ElicitationModeURL || !strings.HasPrefix(a.asked[0].URL, r.public+"/oauth/connect/") {
			t.Fatalf("the client was asked %+v; want one URL elicitation with a connect link", a.asked)
		}
	})

	t.Run("Hydra down", func(t *testing.T) {
		if _, ok := w.grant(t, v, "bob"); !ok {
			f := w.connectGo(t, w.wantLink(t, g, r, "bob", "bob not connected"), "bob", false)
			w.wantPage(t, f, "bob's callback", http.StatusOK, connected("bob"))
		}
		w.wantWhoami(t, g, "bob", "")
		cur, _ := w.grant(t, v, "bob")
		// Slow: Hydra takes the connection and never answers.
		w.hydra.Pause()
		untilStale(cur.Expiry)
		start := time.Now()
		_, text, isErr := w.whoami(t, g, "bob")
		took := time.Since(start)
		w.hydra.Resume()
		if !isErr || text != `upstream "notes": refresh: the authorization server did not answer in time` || took > 20*time.Second {
			t.Errorf("with Hydra not answering bob's call answered isError=%v %q after %v; want an error naming upstream notes and the refresh that timed out (10 s)", isErr, text, took)
		}
		// Down: nothing listens.
		w.hydra.Stop()
		_, text, isErr = w.whoami(t, g, "bob")
		if !isErr || !strings.HasPrefix(text, `upstream "notes": refresh: `) || !strings.Contains(text, "connection refused") || strings.Contains(text, "/oauth/connect/") {
			t.Errorf("with Hydra down bob's call answered isError=%v %q; want an error naming upstream notes, the refresh and why, without a connect link", isErr, text)
		}
		if _, ok := w.grant(t, v, "bob"); !ok {
			t.Errorf("an authorization server that is down cost bob his grant")
		}
	})
}

// connectAsker is a user at a client that can open links: asked to open
// a connect link (a URL elicitation), it connects in a Go browser as its
// principal and accepts.
type connectAsker struct {
	t         *testing.T
	w         *oauthWorld
	principal string
	asked     []mcp.ElicitationParams
}

func (a *connectAsker) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	a.asked = append(a.asked, req.Params)
	if req.Params.Mode != mcp.ElicitationModeURL || req.Params.URL == "" {
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}}, nil
	}
	f := a.w.connectGo(a.t, req.Params.URL, a.principal, false)
	if f.status != http.StatusOK || message(f.page) != connected(a.principal) {
		return nil, fmt.Errorf("connecting %s: %d %q", a.principal, f.status, message(f.page))
	}
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept}}, nil
}

// unknownSignIn is the callback's page for a state it does not know.
const unknownSignIn = "This sign-in is unknown, expired or already finished. Retry the call in your client to get a new link."

// credentialsCLI runs `wasmgate credentials args...` with r's config (in
// the gateway's environment) against g's admin listener.
func (w *oauthWorld) credentialsCLI(t *testing.T, g *harness.Gateway, r *replica, args ...string) harness.Result {
	t.Helper()
	res := bins.Run(t, harness.RunOptions{Env: w.env(w.key)},
		append(append([]string{"credentials"}, args...), "--config", r.config, "--admin", g.AdminURL)...)
	w.secrets.Check(t, "wasmgate credentials "+args[0], res.Stdout+res.Stderr)
	return res
}

// TestUserOAuthReplicas: two replicas on one Redis with the same vault
// key. alice connects through A and her calls through B work; `wasmgate
// credentials list` shows who connected what (never a token); revoked on
// A, her next call on B answers the connect link. Then the vault key
// changes: a gateway with only the new key does not start (a config error
// naming credentials.key_env), one with the old key as previous_key_env
// serves alice's grant and rewrites it under the new key.
func TestUserOAuthReplicas(t *testing.T) {
	t.Parallel()
	w := newOAuthWorld(t, oauthtest.HydraOptions{})
	rd := harness.StartRedis(t)
	ra, rb := newReplica(t), newReplica(t)
	cl := w.hydra.CreateClient([]string{ra.callback(), rb.callback()}, w.secret)
	w.writeConfig(t, ra, cl, redisState(rd))
	w.writeConfig(t, rb, cl, redisState(rd))
	ga, gb := w.start(t, ra, w.env(w.key)), w.start(t, rb, w.env(w.key))
	defer func() { w.secrets.Watch(t, ga); w.secrets.Watch(t, gb) }()

	f := w.connectGo(t, w.wantLink(t, ga, ra, "alice", "not connected"), "alice", false)
	w.wantPage(t, f, "the callback on A", http.StatusOK, connected("alice"))
	w.wantWhoami(t, gb, "alice", " through replica B")
	w.wantLink(t, gb, rb, "bob", "bob not connected")

	res := w.credentialsCLI(t, gb, rb, "list")
	lines := strings.Split(strings.TrimSpace(res.Stdout), "\n")
	if res.Code != 0 || len(lines) != 2 || strings.Join(strings.Fields(lines[0]), " ") != "UPSTREAM PRINCIPAL SUBJECT SCOPES CONNECTED REFRESHED EXPIRES" ||
		!strings.HasPrefix(strings.Join(strings.Fields(lines[1]), " "), "notes alice alice openid offline_access ") {
		t.Fatalf("wasmgate credentials list on B: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}

	res = w.credentialsCLI(t, ga, ra, "revoke", "--upstream", "notes", "--principal", "alice")
	if res.Code != 0 || res.Stdout != "revoked the grant of alice to upstream notes\n" {
		t.Fatalf("wasmgate credentials revoke on A: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	w.wantLink(t, gb, rb, "alice", "revoked on A, called on B")
	if res = w.credentialsCLI(t, gb, rb, "list"); res.Code != 0 || res.Stdout != "no user has connected an upstream\n" {
		t.Fatalf("wasmgate credentials list after the revocation: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}

	// Key rotation. alice connects again; both replicas stop.
	f = w.connectGo(t, w.wantLink(t, gb, rb, "alice", "revoked"), "alice", false)
	w.wantPage(t, f, "the callback on B", http.StatusOK, connected("alice"))
	for _, g := range []*harness.Gateway{ga, gb} {
		if err := g.Stop(t); err != nil {
			t.Fatalf("stop: %v", err)
		}
	}
	k2 := randomB64(t, 32)
	w.secrets = append(w.secrets, k2)
	res = bins.Run(t, harness.RunOptions{Env: w.env(k2)}, "serve", "--config", ra.config)
	w.secrets.Check(t, "wasmgate serve with another key", res.Stdout+res.Stderr)
	if res.Code == 0 || !strings.Contains(res.Stderr, "credentials.key_env") || !strings.Contains(res.Stderr, "does not open") {
		t.Fatalf("wasmgate serve with a key that does not open the vault: exit %d; want a config error naming credentials.key_env:\n%s", res.Code, res.Stderr)
	}
	cfg, err := os.ReadFile(ra.config)
	if err != nil {
		t.Fatal(err)
	}
	rotated := strings.Replace(string(cfg), "credentials: {key_env: VAULT_KEY}", "credentials: {key_env: VAULT_KEY, previous_key_env: OLD_VAULT_KEY}", 1)
	harness.WriteFile(t, ra.config, []byte(rotated))
	g := w.start(t, ra, w.env(k2, "OLD_VAULT_KEY="+w.key))
	defer func() { w.secrets.Watch(t, g) }()
	w.wantWhoami(t, g, "alice", " after the key rotation")
	if _, ok := w.grant(t, openVault(t, rd, k2, ""), "alice"); !ok {
		t.Errorf("after a call alice's grant does not open under the new key alone: it was not rewritten")
	}
}
