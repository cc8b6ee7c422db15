package main

// OAuth access tokens end to end: a JWKS served on loopback, tokens
// minted here, the gateway as a resource server (401 challenges with
// resource_metadata, the RFC 9728 metadata document), claims mapped to
// principals and groups, a CEL condition on a claim, a rotated key.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"

	"github.com/wasmgate/wasmgate/auth"
	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/internal/jwttest"
)

const (
	jwtIssuer   = "https://idp.example.test/realms/mcp"
	jwtAudience = "https://mcp.example.test/mcp"
	// jwtMetadata is where RFC 9728 puts the metadata of jwtAudience, and
	// what a 401 names as resource_metadata.
	jwtMetadata = "https://mcp.example.test/.well-known/oauth-protected-resource/mcp"
)

// minter signs access tokens (internal/jwttest) and registers each as a
// secret (the whole token and its signature).
type minter struct {
	t       *testing.T
	secrets *harness.Secrets
}

func (m minter) add(tok string) string {
	*m.secrets = append(*m.secrets, jwttest.Secrets(tok)...)
	return tok
}

// sign signs claims with key under its alg; kid comes from the key.
func (m minter) sign(key jwk.Key, claims map[string]any) string {
	m.t.Helper()
	return m.add(jwttest.Sign(m.t, key, claims))
}

// unsigned is an `alg: none` token naming kid.
func (m minter) unsigned(kid string, claims map[string]any) string {
	return m.add(jwttest.Unsigned("none", kid, claims))
}

// accessClaims are valid claims for sub, changed by kv (a nil value
// deletes a claim).
func accessClaims(sub string, kv ...any) map[string]any {
	now := time.Now()
	return jwttest.With(map[string]any{
		"iss": jwtIssuer, "aud": []string{jwtAudience, "account"}, "sub": sub,
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(10 * time.Minute).Unix(),
	}, kv...)
}

// TestJWT: the gateway as an OAuth resource server. Valid access tokens
// are served under the rules their claims map to (sub → principal, roles
// → groups, a CEL condition on a claim); expired, wrong-audience,
// wrong-issuer, wrong-key and unsigned tokens get 401 invalid_token; a 401
// names the metadata document, which is served at both well-known paths;
// a key the authorization server rotates in is picked up by the
// unknown-kid refetch, at most once per 30 s.
func TestJWT(t *testing.T) {
	t.Parallel()
	var secrets harness.Secrets
	mint := minter{t, &secrets}
	k1 := jwttest.NewKey(t, "k1", jwa.RS256())
	k2 := jwttest.NewKey(t, "k2", jwa.ES256())   // rotated in later
	evil := jwttest.NewKey(t, "k1", jwa.RS256()) // same kid, not the server's key
	idp := jwttest.NewJWKS(t, k1)

	begin := time.Now()
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
		Server:  "  log: {level: debug}\n",
		Plugins: harness.ExamplePlugins(t),
		Sections: fmt.Sprintf(`auth:
  jwt:
    issuer: %s
    audience: %s
    jwks_url: %s
    groups_claim: roles
policy:
  reveal_hidden: true # these tests read the refusal of a hidden name
  rules:
    - principals: [group:engineers]
      allow: {tools: [calculate]}
    - principals: ["*"]
      allow: {tools: [say_hello]}
      when: 'principal.claims.tier == "gold"'
    - principals: [carol]
      allow: {prompts: ["*"]}
`, jwtIssuer, jwtAudience, idp.URL()),
	}))
	g := bins.Start(t, harness.Options{Config: cfg})
	// The gateway fetched the JWKS between begin and ready (a start can
	// take seconds on a loaded machine).
	ready := time.Now()
	defer func() { secrets.Watch(t, g) }() // every token minted by then
	ctx := harness.Ctx(t, 3*time.Minute)
	base := strings.TrimSuffix(g.MCPURL, "/mcp")
	if n := idp.Hits(); n != 1 {
		t.Errorf("the JWKS was fetched %d times at start, want 1", n)
	}

	alice := mint.sign(k1, accessClaims("alice", "roles", []string{"engineers"}, "tier", "silver"))
	bob := mint.sign(k1, accessClaims("bob", "roles", "customers support", "tier", "gold"))
	carol := mint.sign(k1, accessClaims("carol"))

	t.Run("claims and rules", func(t *testing.T) {
		for _, tc := range []struct {
			name, token string
			view        view
			allowed     []string
		}{
			{"alice", alice, view{Tools: []string{"calculate"}}, []string{"tool calculate"}},
			{"bob", bob, view{Tools: []string{"say_hello"}}, []string{"tool say_hello"}},
			// No tier claim: the condition fails to evaluate, so it does
			// not allow (fail closed).
			{"carol", carol, view{Prompts: []string{"greeting_prompt"}}, []string{"prompt greeting_prompt"}},
		} {
			c := g.SessionClient(t, withToken(tc.token))
			if got := listView(ctx, t, c); !got.equal(tc.view) {
				t.Errorf("%s lists %v, want %v", tc.name, got, tc.view)
			}
			_, texts := runExampleCalls(ctx, t, tc.name, c, tc.allowed...)
			for _, text := range texts {
				secrets.Check(t, tc.name+": an answer", text)
			}
		}
		// Principals from tokens are labelled jwt in metrics (their names
		// are unbounded).
		m := g.Scrape(t)
		// Tools denied: alice 2, bob 2, carol 3.
		if v, _ := m.Value("wasmgate_policy_denials_total", map[string]string{"principal": "jwt", "kind": "tool"}); v != 7 {
			t.Errorf("wasmgate_policy_denials_total{principal=jwt,kind=tool} = %v, want 7", v)
		}
		for _, who := range []string{"alice", "bob", "carol"} {
			if strings.Contains(string(m), `principal="`+who+`"`) {
				t.Errorf("/metrics has a label principal=%q, taken from a token", who)
			}
		}
		if _, ok := g.WaitLog(0, "principal=bob", 10*time.Second); !ok {
			t.Errorf("the audit log does not name the token's principal (bob)")
		}
	})

	t.Run("refused tokens", func(t *testing.T) {
		past := time.Now().Add(-time.Hour)
		refused := []struct {
			name, token, reason string
		}{
			{"expired", mint.sign(k1, accessClaims("alice", "iat", past.Unix(), "nbf", past.Unix(), "exp", past.Add(10*time.Minute).Unix())), "token expired (exp)"},
			{"wrong audience", mint.sign(k1, accessClaims("alice", "aud", "https://other.example.test/mcp")), "wrong audience (aud)"},
			{"wrong issuer", mint.sign(k1, accessClaims("alice", "iss", "https://evil.example.test")), "wrong issuer (iss)"},
			{"wrong key", mint.sign(evil, accessClaims("alice")), "bad signature"},
			{"alg none", mint.unsigned("k1", accessClaims("alice")), `alg \"none\"`},
			{"no principal claim", mint.sign(k1, accessClaims("alice", "sub", nil)), "claim sub (the principal) is missing"},
			{"neither a JWT nor a principal", mint.add(newToken(t)), "neither the token of a principal nor a JWT"},
		}
		want := `Bearer realm="wasmgate", error="invalid_token", resource_metadata="` + jwtMetadata + `"`
		for _, tc := range refused {
			off := len(g.Stderr())
			code, challenge, body := challengeOf(t, g.MCPURL, "Bearer "+tc.token)
			if code != http.StatusUnauthorized || challenge != want {
				t.Errorf("%s: %d with WWW-Authenticate %q, want 401 with %q", tc.name, code, challenge, want)
			}
			secrets.Check(t, tc.name+": the 401 body", body)
			if _, ok := g.WaitLog(off, tc.reason, 10*time.Second); !ok {
				t.Errorf("%s: the log does not give the reason %q:\n%s", tc.name, tc.reason, g.StderrSince(off))
			}
		}
		// No token at all: the challenge without error.
		code, challenge, _ := challengeOf(t, g.MCPURL, "")
		if want := `Bearer realm="wasmgate", resource_metadata="` + jwtMetadata + `"`; code != http.StatusUnauthorized || challenge != want {
			t.Errorf("no token: %d with WWW-Authenticate %q, want 401 with %q", code, challenge, want)
		}
		// An open session stops at the token's expiry: every request is
		// authenticated, not only initialize.
		exp := time.Now().Add(-auth.DefaultLeeway + 5*time.Second) // valid for 5 s more
		short := mint.sign(k1, accessClaims("alice", "roles", []string{"engineers"}, "exp", exp.Unix()))
		c := g.SessionClient(t, withToken(short))
		harness.Calc(ctx, t, c, 1, 1)
		time.Sleep(time.Until(exp.Add(auth.DefaultLeeway + time.Second)))
		if _, err := harness.CallToolErr(ctx, c, "calculate", map[string]any{"operation": "add", "a": 1, "b": 1}); err == nil {
			t.Errorf("a call with an expired token on an open session was served")
		} else {
			secrets.Check(t, "the error for an expired token", err.Error())
		}
	})

	t.Run("metadata", func(t *testing.T) {
		for _, path := range []string{auth.MetadataPath, auth.MetadataPath + "/mcp"} {
			code, body := harness.HTTPGet(t, base+path)
			if code != http.StatusOK {
				t.Errorf("GET %s: %d %s", path, code, body)
				continue
			}
			var m struct {
				Resource             string   `json:"resource"`
				AuthorizationServers []string `json:"authorization_servers"`
				BearerMethods        []string `json:"bearer_methods_supported"`
				Algs                 []string `json:"resource_signing_alg_values_supported"`
			}
			if err := json.Unmarshal([]byte(body), &m); err != nil {
				t.Fatalf("GET %s: %v: %s", path, err, body)
			}
			if m.Resource != jwtAudience || !slices.Equal(m.AuthorizationServers, []string{jwtIssuer}) ||
				!slices.Equal(m.BearerMethods, []string{"header"}) || !slices.Contains(m.Algs, "RS256") || slices.Contains(m.Algs, "none") {
				t.Errorf("GET %s = %s", path, body)
			}
		}
	})

	t.Run("metadata from a browser", func(t *testing.T) {
		// Default allowed origins: loopback pages may read the document,
		// others get it without CORS headers (it is public, but their
		// scripts cannot read it).
		for origin, want := range map[string]string{"http://localhost:5173": "http://localhost:5173", "https://evil.example": ""} {
			req, _ := http.NewRequest(http.MethodGet, base+auth.MetadataPath+"/mcp", nil)
			req.Header.Set("Origin", origin)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := resp.Header.Get("Access-Control-Allow-Origin"); resp.StatusCode != http.StatusOK || got != want {
				t.Errorf("metadata from %s: %d, Access-Control-Allow-Origin %q, want 200 and %q", origin, resp.StatusCode, got, want)
			}
		}
	})

	t.Run("rotated key", func(t *testing.T) {
		idp.Serve(t, k1, k2)
		rotated := mint.sign(k2, accessClaims("dave", "roles", []string{"engineers"}))
		// Within 30 s of the last fetch an unknown kid does not refetch
		// (made-up kids must not flood the authorization server).
		if time.Since(begin) < 20*time.Second {
			if code, _, _ := challengeOf(t, g.MCPURL, "Bearer "+rotated); code != http.StatusUnauthorized {
				t.Errorf("a token with an unknown kid within 30s of the fetch: %d, want 401", code)
			}
			if n := idp.Hits(); n != 1 {
				t.Errorf("the JWKS was fetched %d times within 30s, want 1", n)
			}
		}
		time.Sleep(time.Until(ready.Add(auth.MinRefetch + time.Second))) // past MinRefetch after the fetch
		c := g.SessionClient(t, withToken(rotated))
		harness.Calc(ctx, t, c, 7, 8)
		if n := idp.Hits(); n != 2 {
			t.Errorf("the JWKS was fetched %d times, want 2 (start, the unknown kid)", n)
		}
		if _, ok := g.WaitLog(0, "JWKS keys changed", 10*time.Second); !ok {
			t.Errorf("the key change is not logged")
		}
		// Another unknown kid right after: no third fetch.
		if code, _, _ := challengeOf(t, g.MCPURL, "Bearer "+mint.sign(jwttest.NewKey(t, "k3", jwa.RS256()), accessClaims("eve"))); code != http.StatusUnauthorized {
			t.Errorf("a token with a made-up kid: %d, want 401", code)
		}
		if n := idp.Hits(); n != 2 {
			t.Errorf("the JWKS was fetched %d times after a second unknown kid, want still 2", n)
		}
	})
}
