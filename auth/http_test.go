package auth_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/wasmgate/wasmgate/auth"
)

func TestChallenge(t *testing.T) {
	s := newSecrets(t)
	k1 := rsaKey(t, "k1")
	p := newIDP(t, k1)
	withJWT := newAuth(t, s, jwtConfig(t, p.URL(), nil), auth.Options{})
	static := newAuth(t, s, auth.Config{Principals: []auth.PrincipalConfig{{Name: "a", TokenSHA256: digestA}}}, auth.Options{})

	_, noToken := static.Authenticate(request())
	_, badToken := static.Authenticate(request("Bearer " + s.add("wrong-token-0123456789")))
	_, otherScheme := static.Authenticate(request("Basic YTpi"))
	const meta = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
	tests := []struct {
		a    *auth.Authenticator
		url  string
		err  error
		want string
	}{
		{static, meta, noToken, `Bearer realm="wasmgate"`},
		{static, meta, otherScheme, `Bearer realm="wasmgate"`},
		{static, meta, badToken, `Bearer realm="wasmgate", error="invalid_token"`},
		{withJWT, meta, noToken, `Bearer realm="wasmgate", resource_metadata="` + meta + `"`},
		{withJWT, meta, badToken, `Bearer realm="wasmgate", error="invalid_token", resource_metadata="` + meta + `"`},
		{withJWT, "", badToken, `Bearer realm="wasmgate", error="invalid_token"`},
		{withJWT, `https://x/"a\b` + "\n", noToken, `Bearer realm="wasmgate", resource_metadata="https://x/\"a\\b"`},
	}
	for i, tt := range tests {
		if got := tt.a.Challenge(tt.url, s.err(tt.err)); got != tt.want {
			t.Errorf("case %d: Challenge(%q, %v)\n got %s\nwant %s", i, tt.url, tt.err, got, tt.want)
		}
	}
}

func TestMetadataHandler(t *testing.T) {
	s := newSecrets(t)
	k1 := rsaKey(t, "k1")
	p := newIDP(t, k1)
	a := newAuth(t, s, jwtConfig(t, p.URL(), func(j *auth.JWTConfig) {
		j.Algorithms = []string{"RS256", "ES256"}
	}), auth.Options{})

	get := func(h http.Handler, method string) (*http.Response, []byte) {
		srv := httptest.NewServer(h)
		defer srv.Close()
		req, _ := http.NewRequest(method, srv.URL+auth.MetadataPath, nil)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, body
	}

	for _, tt := range []struct{ resource, want string }{
		{"", audience},
		{"https://gw.example.com/mcp", "https://gw.example.com/mcp"},
	} {
		resp, body := get(a.MetadataHandler(tt.resource), http.MethodGet)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("GET: %s %s", resp.Status, resp.Header.Get("Content-Type"))
		}
		var doc map[string]any
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Fatalf("%v in %s", err, body)
		}
		want := map[string]any{
			"resource":                              tt.want,
			"authorization_servers":                 []any{issuer},
			"bearer_methods_supported":              []any{"header"},
			"resource_signing_alg_values_supported": []any{"ES256", "RS256"},
		}
		if len(doc) != len(want) {
			t.Errorf("document %s, want %v", body, want)
		}
		for k, v := range want {
			if got, _ := json.Marshal(doc[k]); string(got) != mustJSON(v) {
				t.Errorf("%s = %s, want %s", k, got, mustJSON(v))
			}
		}
	}

	if resp, body := get(a.MetadataHandler(""), http.MethodHead); resp.StatusCode != http.StatusOK || len(body) != 0 {
		t.Errorf("HEAD: %s, %d bytes", resp.Status, len(body))
	}
	if resp, _ := get(a.MetadataHandler(""), http.MethodPost); resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: %s, Allow %q", resp.Status, resp.Header.Get("Allow"))
	}

	// Static tokens only: no authorization server, no metadata.
	static := newAuth(t, s, auth.Config{Principals: []auth.PrincipalConfig{{Name: "a", TokenSHA256: digestA}}}, auth.Options{})
	if resp, _ := get(static.MetadataHandler("https://gw.example.com/mcp"), http.MethodGet); resp.StatusCode != http.StatusNotFound {
		t.Errorf("without jwt: %s, want 404", resp.Status)
	}
	if _, ok := static.Metadata(""); ok {
		t.Error("Metadata without jwt: ok")
	}

	// authorization_servers as configured.
	b := newAuth(t, s, jwtConfig(t, p.URL(), func(j *auth.JWTConfig) {
		j.AuthorizationServers = []string{"https://as1.example.com", "https://as2.example.com/tenant"}
	}), auth.Options{})
	if m, _ := b.Metadata(""); !slices.Equal(m.AuthorizationServers, []string{"https://as1.example.com", "https://as2.example.com/tenant"}) {
		t.Errorf("authorization_servers = %v", m.AuthorizationServers)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestMetadataURL(t *testing.T) {
	for resource, want := range map[string]string{
		"https://mcp.example.com/mcp":       "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
		"https://mcp.example.com/mcp/":      "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
		"https://mcp.example.com":           "https://mcp.example.com/.well-known/oauth-protected-resource",
		"https://mcp.example.com/":          "https://mcp.example.com/.well-known/oauth-protected-resource",
		"http://127.0.0.1:8080/a/b":         "http://127.0.0.1:8080/.well-known/oauth-protected-resource/a/b",
		"https://mcp.example.com/mcp?x=1#f": "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
	} {
		got, err := auth.MetadataURL(resource)
		if err != nil || got != want {
			t.Errorf("MetadataURL(%q) = %q, %v; want %q", resource, got, err, want)
		}
	}
	for _, bad := range []string{"", "/mcp", "mcp.example.com/mcp", "ftp://x/y"} {
		if got, err := auth.MetadataURL(bad); err == nil {
			t.Errorf("MetadataURL(%q) = %q, want an error", bad, got)
		}
	}
}
