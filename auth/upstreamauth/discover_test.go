package upstreamauth_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/auth/upstreamauth"
	"github.com/wasmgate/wasmgate/internal/oauthtest"
)

// TestCheck: `wasmgate validate`'s check of an authorization server,
// against a real one (zitadel's op, which publishes OpenID discovery
// metadata): the token exchange endpoint passes; a token URL the server
// does not serve, a grant it does not list and a client metadata document
// it does not support are errors that name the upstream, the key and
// what the metadata says; a server that cannot be reached is an error.
func TestCheck(t *testing.T) {
	p := oauthtest.StartProvider(t, oauthtest.ProviderOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	hc := &http.Client{Timeout: 5 * time.Second}
	role := "upstreams[0].auth.token_exchange.token_url"
	if fs := upstreamauth.Check(ctx, hc, "tickets", upstreamauth.Server{Role: role, TokenURL: p.TokenURL,
		Grants: []string{upstreamauth.GrantTypeTokenExchange}}); hasError(fs) {
		t.Errorf("a token endpoint that serves token exchange: %v", fs)
	}
	for _, tc := range []struct {
		name string
		srv  upstreamauth.Server
		want []string
	}{
		{"wrong token URL", upstreamauth.Server{Role: role, TokenURL: p.Issuer + "/no/such/token"},
			[]string{`upstream "tickets": ` + role, "answered 404", "names token endpoint " + p.TokenURL}},
		{"grant not served", upstreamauth.Server{Role: role, TokenURL: p.TokenURL, Grants: []string{"urn:example:grant"}},
			[]string{"does not list grant type urn:example:grant"}},
		{"client metadata", upstreamauth.Server{Role: role, TokenURL: p.TokenURL, ClientMetadata: true},
			[]string{"client_id_metadata_document_supported"}},
		{"unreachable", upstreamauth.Server{Role: role, TokenURL: "http://127.0.0.1:1/token"},
			[]string{"cannot be reached"}},
	} {
		fs := upstreamauth.Check(ctx, hc, "tickets", tc.srv)
		text := ""
		for _, f := range fs {
			text += f.String() + "\n"
		}
		if !hasError(fs) {
			t.Errorf("%s: no error:\n%s", tc.name, text)
		}
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: the findings do not say %q:\n%s", tc.name, w, text)
			}
		}
	}
}

func hasError(fs []upstreamauth.Finding) bool {
	for _, f := range fs {
		if f.Error {
			return true
		}
	}
	return false
}

// TestCheckHydra: an authorization-code server (ORY Hydra) passes the
// check of user_oauth (PKCE S256, the authorization code grant), and
// refuses client ID metadata documents, which it does not support.
func TestCheckHydra(t *testing.T) {
	h := oauthtest.StartHydra(t, oauthtest.HydraOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	hc := &http.Client{Timeout: 5 * time.Second}
	srv := upstreamauth.Server{Role: "upstreams[0].auth.user_oauth", TokenURL: h.TokenURL, AuthorizationURL: h.AuthURL,
		Grants: []string{"authorization_code"}, PKCE: true}
	if fs := upstreamauth.Check(ctx, hc, "notes", srv); hasError(fs) {
		t.Errorf("Hydra for user_oauth: %v", fs)
	}
	srv.ClientMetadata = true
	if fs := upstreamauth.Check(ctx, hc, "notes", srv); !hasError(fs) {
		t.Errorf("Hydra with client_metadata: true: no error, want one saying it does not support client ID metadata documents: %v", fs)
	}
}
