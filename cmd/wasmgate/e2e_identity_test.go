package main

// Each caller's own identity toward an upstream, end to end: the built
// gateway as the resource server of a real OpenID provider (zitadel's
// op, internal/oauthtest), an upstream that validates every token it gets
// against that provider and answers whoami, and two users calling the
// same tool through the gateway.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/internal/oauthtest"
)

// identityAudience is the gateway's own resource: the audience of the
// callers' access tokens.
const identityAudience = "https://mcp.example.test/mcp"

// whoamiOf calls the upstream's whoami tool as token and decodes its
// answer; isErr and the text when the call failed.
func whoamiOf(t *testing.T, g *harness.Gateway, token, tool string) (oauthtest.WhoamiAnswer, string, bool) {
	t.Helper()
	ctx := harness.Ctx(t, time.Minute)
	c := g.SessionClient(t, withToken(token))
	text, isErr := harness.CallTool(ctx, t, c, tool, nil)
	var a oauthtest.WhoamiAnswer
	if !isErr {
		if err := json.Unmarshal([]byte(text), &a); err != nil {
			t.Fatalf("whoami answered %q: %v", text, err)
		}
	}
	return a, text, isErr
}

// TestUpstreamTokenExchange: each caller's access token is exchanged
// (RFC 8693) for one scoped to the upstream; alice and bob each reach it
// as themselves, their own tokens never reach it, the exchanged token is
// cached, the audit line names the identity, a refused exchange fails the
// call with the provider's reason and no token, and a static principal
// (no access token) is refused.
func TestUpstreamTokenExchange(t *testing.T) {
	t.Parallel()
	idp := oauthtest.StartProvider(t, oauthtest.ProviderOptions{})
	const upstreamAud = "https://tickets.example.test"
	up := oauthtest.StartWhoami(t, idp.JWKSURL, upstreamAud)
	static := "static-principal-token-0123456789"
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
		Sections: fmt.Sprintf(`auth:
  principals:
    - {name: robot, token_sha256: %s}
  jwt:
    issuer: %s
    audience: %s
    jwks_url: %s
audit: {arguments: false}
upstreams:
  - name: tickets
    url: %s
    auth:
      token_exchange:
        token_url: %s
        client_id: %s
        client_secret_env: IDP_SECRET
        audience: %s
`, sha256Hex(static), idp.Issuer, identityAudience, idp.JWKSURL, up.URL, idp.TokenURL, oauthtest.ClientID, upstreamAud),
	}))
	g := bins.Start(t, harness.Options{Config: cfg, Env: []string{"IDP_SECRET=" + oauthtest.ClientSecret}})
	secrets := harness.Secrets{oauthtest.ClientSecret, static}
	defer func() { secrets.Watch(t, g) }()

	alice := idp.AccessToken(t, "alice", identityAudience)
	bob := idp.AccessToken(t, "bob", identityAudience)
	secrets = append(secrets, alice, bob)

	for _, tc := range []struct{ user, token string }{{"alice", alice}, {"bob", bob}, {"alice", alice}} {
		a, text, isErr := whoamiOf(t, g, tc.token, "whoami")
		if isErr {
			t.Fatalf("%s: whoami failed: %s", tc.user, text)
		}
		if a.Sub != tc.user || len(a.Aud) != 1 || a.Aud[0] != upstreamAud {
			t.Errorf("%s reached the upstream as %+v, want sub %s and audience %s", tc.user, a, tc.user, upstreamAud)
		}
	}
	if n := idp.Requests("urn:ietf:params:oauth:grant-type:token-exchange"); n != 2 {
		t.Errorf("%d token exchanges for 3 calls of 2 users, want 2 (the second call of alice is served from the cache)", n)
	}
	for _, seen := range up.Seen() {
		for _, own := range []string{alice, bob} {
			if strings.Contains(seen, own) {
				t.Fatalf("the upstream got a caller's own access token")
			}
		}
		tok, _ := strings.CutPrefix(seen, "Bearer ")
		secrets = append(secrets, tok) // the exchanged tokens: never in logs either
	}
	if _, ok := g.WaitLog(0, `upstream_identity=token_exchange upstream_subject=alice`, 5*time.Second); !ok {
		t.Errorf("no audit line names alice's identity at the upstream:\n%s", g.Stderr())
	}

	t.Run("refused", func(t *testing.T) {
		// A user the provider does not know: the gateway accepts the
		// token (signed by the provider), the exchange is refused.
		mallory := idp.AccessToken(t, "mallory", identityAudience)
		secrets = append(secrets, mallory)
		_, text, isErr := whoamiOf(t, g, mallory, "whoami")
		if !isErr || !strings.Contains(text, `upstream "tickets"`) || !strings.Contains(text, "token_exchange") {
			t.Errorf("a refused exchange answered isError=%v %q; want an error naming the upstream and the step", isErr, text)
		}
	})
	t.Run("validate", func(t *testing.T) {
		// The provider serves token exchange and publishes it: validate
		// passes; a token URL it does not serve fails it, naming the key.
		env := []string{"IDP_SECRET=" + oauthtest.ClientSecret}
		r := bins.Run(t, harness.RunOptions{Env: env}, "validate", "--config", cfg)
		if r.Code != 0 || strings.Contains(r.Stdout, "error: ") {
			t.Errorf("validate: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
		}
		bad := harness.WriteConfig(t, strings.Replace(readFile(t, cfg), "token_url: "+idp.TokenURL, "token_url: "+idp.Issuer+"/no/token", 1))
		r = bins.Run(t, harness.RunOptions{Env: env}, "validate", "--config", bad)
		if r.Code == 0 || !strings.Contains(r.Stdout, `error: upstream "tickets": upstreams[0].auth.token_exchange.token_url: `) ||
			!strings.Contains(r.Stdout, "answered 404") {
			t.Errorf("validate with a token URL the server does not serve: exit %d, want 1 and an error naming the upstream and key\n%s%s", r.Code, r.Stdout, r.Stderr)
		}
	})
	t.Run("static principal", func(t *testing.T) {
		_, text, isErr := whoamiOf(t, g, static, "whoami")
		if !isErr || !strings.Contains(text, "no access token") {
			t.Errorf("a static principal's call answered isError=%v %q; want a refusal saying it has no access token", isErr, text)
		}
	})
}

// TestUpstreamIdentityAssertion: enterprise-managed authorization. The
// caller's identity token (issued to the gateway by the enterprise IdP)
// is exchanged at the IdP for an identity assertion (ID-JAG), and that
// at the upstream's own authorization server (which trusts the IdP) for
// an access token: the upstream sees each user, and a resource server
// that does not trust the assertion fails the call naming the step.
func TestUpstreamIdentityAssertion(t *testing.T) {
	t.Parallel()
	idp := oauthtest.StartProvider(t, oauthtest.ProviderOptions{})
	as := oauthtest.StartProvider(t, oauthtest.ProviderOptions{Trust: idp})
	stranger := oauthtest.StartProvider(t, oauthtest.ProviderOptions{}) // trusts no IdP
	const upstreamAud = "https://crm.example.test/mcp"
	up := oauthtest.StartWhoami(t, as.JWKSURL, upstreamAud)
	ia := func(name, tokenURL, issuer string) string {
		return fmt.Sprintf(`  - name: %[1]s
    prefix: %[1]s
    url: %s
    auth:
      identity_assertion:
        idp_token_url: %s
        resource_token_url: %s
        client_id: %s
        client_secret_env: IDP_SECRET
        audience: %s
        resource: %s
`, name, up.URL, idp.TokenURL, tokenURL, oauthtest.ClientID, issuer, upstreamAud)
	}
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
		Sections: fmt.Sprintf(`auth:
  jwt:
    issuer: %s
    audience: %s
    jwks_url: %s
upstreams:
%s%s`, idp.Issuer, oauthtest.ClientID, idp.JWKSURL,
			ia("crm", as.TokenURL, as.Issuer), ia("other", stranger.TokenURL, stranger.Issuer)),
	}))
	g := bins.Start(t, harness.Options{Config: cfg, Env: []string{"IDP_SECRET=" + oauthtest.ClientSecret}})
	secrets := harness.Secrets{oauthtest.ClientSecret}
	defer func() { secrets.Watch(t, g) }()

	for _, user := range []string{"alice", "bob"} {
		tok := idp.IDToken(t, user, oauthtest.ClientID)
		secrets = append(secrets, tok)
		a, text, isErr := whoamiOf(t, g, tok, "crm_whoami")
		if isErr {
			t.Fatalf("%s: whoami failed: %s", user, text)
		}
		if a.Sub != user || a.Iss != as.Issuer {
			t.Errorf("%s reached the upstream as %+v, want sub %s issued by the upstream's authorization server %s", user, a, user, as.Issuer)
		}
	}
	if n := idp.Requests("id-jag"); n != 2 {
		t.Errorf("the IdP issued %d identity assertions for 2 users, want 2", n)
	}
	for _, seen := range up.Seen() {
		tok, _ := strings.CutPrefix(seen, "Bearer ")
		secrets = append(secrets, tok)
	}
	// An authorization server that does not trust the IdP's assertions.
	tok := idp.IDToken(t, "alice", oauthtest.ClientID)
	secrets = append(secrets, tok)
	if _, text, isErr := whoamiOf(t, g, tok, "other_whoami"); !isErr || !strings.Contains(text, "jwt_bearer") || !strings.Contains(text, `upstream "other"`) {
		t.Errorf("an untrusted assertion answered isError=%v %q; want an error naming the upstream and the jwt_bearer step", isErr, text)
	}
}

// testVaultKey is a credentials key (32 bytes, base64) for tests.
const testVaultKey = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestUserOAuthConnectLink: a call of an upstream with auth.user_oauth by
// a user who has not connected it answers with the connect link: a
// 2026-07-28 client that declares URL elicitation gets input_required
// asking it to open the link, one that does not gets the link in an
// isError result; the link opens the gateway's connect page, naming the
// upstream and the principal. (The whole flow through a real
// authorization server: e2e_useroauth_test.go.)
func TestUserOAuthConnectLink(t *testing.T) {
	t.Parallel()
	idp := oauthtest.StartProvider(t, oauthtest.ProviderOptions{})
	up := oauthtest.StartWhoami(t, idp.JWKSURL, "https://notes.example.test")
	addr := harness.FreePort(t)
	public := "http://" + addr
	yaml := bins.YAML(harness.Parts{
		Server: "  public_url: " + public + "\n",
		Sections: fmt.Sprintf(`credentials: {key_env: VAULT_KEY}
upstreams:
  - name: notes
    prefix: notes
    url: %s
    auth:
      user_oauth: {authorization_url: %[2]s/authorize, token_url: %[3]s, client_id: notes, scopes: [openid]}
  - name: wiki
    prefix: wiki
    url: %[1]s
    auth:
      user_oauth: {authorization_url: %[2]s/authorize, token_url: %[3]s, client_metadata: true, scopes: [openid]}
`, up.URL, idp.Issuer, idp.TokenURL),
	})
	yaml = strings.Replace(yaml, "    listen: 127.0.0.1:0\nadmin", "    listen: "+addr+"\nadmin", 1)
	g := bins.Start(t, harness.Options{Config: harness.WriteConfig(t, yaml), Env: []string{"VAULT_KEY=" + testVaultKey}})
	call := func(caps map[string]any) map[string]any {
		t.Helper()
		body := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{
			"name": "notes_whoami", "arguments": map[string]any{},
			"_meta": map[string]any{"io.modelcontextprotocol/clientCapabilities": caps}}}
		code, text := harness.PostStateless(t, g.MCPURL, body, "tools/call", "notes_whoami")
		var msg struct {
			Result map[string]any `json:"result"`
			Error  any            `json:"error"`
		}
		if err := json.Unmarshal([]byte(text), &msg); err != nil || code != 200 || msg.Result == nil {
			t.Fatalf("tools/call: %d %s", code, text)
		}
		return msg.Result
	}

	res := call(map[string]any{"elicitation": map[string]any{"url": map[string]any{}}})
	b, _ := json.Marshal(res)
	var ir struct {
		ResultType    string `json:"resultType"`
		InputRequests map[string]struct {
			Method string `json:"method"`
			Params struct {
				Mode, URL, Message, ElicitationID string
			} `json:"params"`
		} `json:"inputRequests"`
	}
	_ = json.Unmarshal(b, &ir)
	link := ""
	for _, r := range ir.InputRequests {
		if r.Method == "elicitation/create" && r.Params.Mode == "url" {
			link = r.Params.URL
		}
	}
	if ir.ResultType != "input_required" || !strings.HasPrefix(link, public+"/oauth/connect/") {
		t.Fatalf("a 2026-07-28 client declaring URL elicitation got %s; want input_required with a URL elicitation of %s/oauth/connect/…", b, public)
	}

	res = call(map[string]any{})
	b, _ = json.Marshal(res)
	if res["isError"] != true || !strings.Contains(string(b), `upstream \"notes\": not connected: connect your account at `+public+"/oauth/connect/") {
		t.Errorf("a client without URL elicitation got %s; want isError with the link", b)
	}

	page, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	html, _ := io.ReadAll(page.Body)
	page.Body.Close()
	if page.StatusCode != 200 || !strings.Contains(string(html), "notes") || !strings.Contains(string(html), "anonymous") ||
		!strings.Contains(page.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Errorf("the connect page: %d %s\n%s", page.StatusCode, page.Header, html)
	}
	// client_metadata: true: the client ID is the URL of the document the
	// gateway serves there.
	doc := public + "/oauth/client-metadata/wiki.json"
	resp, err := http.Get(doc)
	if err != nil {
		t.Fatal(err)
	}
	var md struct {
		ClientID     string   `json:"client_id"`
		RedirectURIs []string `json:"redirect_uris"`
		AuthMethod   string   `json:"token_endpoint_auth_method"`
	}
	err = json.NewDecoder(resp.Body).Decode(&md)
	resp.Body.Close()
	if err != nil || md.ClientID != doc || len(md.RedirectURIs) != 1 || md.RedirectURIs[0] != public+"/oauth/callback" || md.AuthMethod != "none" {
		t.Errorf("the client ID metadata document at %s: %+v (%v)", doc, md, err)
	}
	if n, _ := g.Metric(t, "wasmgate_upstream_identity_failures_total", map[string]string{"upstream": "notes", "reason": "not_connected"}); n != 2 {
		t.Errorf("wasmgate_upstream_identity_failures_total{reason=not_connected} = %v, want 2", n)
	}
	// The status page shows the failures and who, never the link.
	_, status := harness.HTTPGet(t, g.AdminURL+"/api/status")
	compact := strings.Join(strings.Fields(status), "")
	if !strings.Contains(compact, `"identity":"user_oauth"`) || !strings.Contains(compact, `"identity_failures":2`) ||
		!strings.Contains(status, `principal \"anonymous\" has not connected it`) || strings.Contains(status, "/oauth/connect/") {
		t.Errorf("/api/status of the upstream notes: want identity user_oauth, 2 identity failures and who, without the link:\n%s", status)
	}
	if _, html := harness.HTTPGet(t, g.AdminURL+"/"); !strings.Contains(html, "2 calls without the caller") || strings.Contains(html, "/oauth/connect/") {
		t.Errorf("the status page does not show the calls without the caller's token (or shows the link):\n%s", html)
	}
}
