package upstreamauth_test

import (
	"strings"
	"testing"

	"github.com/wasmgate/wasmgate/auth/upstreamauth"
	"github.com/wasmgate/wasmgate/internal/oauthtest"
)

const crmURL = "https://crm.test/mcp"

func identityAssertion(t *testing.T, idp, as *oauthtest.Provider, mod func(*upstreamauth.IdentityAssertionOptions)) *upstreamauth.IdentityAssertion {
	t.Helper()
	o := upstreamauth.IdentityAssertionOptions{
		Upstream:         ticketsName,
		IdPTokenURL:      idp.TokenURL,
		ResourceTokenURL: as.TokenURL,
		ClientAuth:       upstreamauth.ClientAuth{ClientID: oauthtest.ClientID, ClientSecret: secret(oauthtest.ClientSecret)},
		Audience:         as.Issuer,
		Resource:         crmURL,
	}
	if mod != nil {
		mod(&o)
	}
	a, err := upstreamauth.NewIdentityAssertion(o)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestIdentityAssertionChain: the caller's ID token becomes an ID-JAG at
// the IdP and that an access token at the resource AS, for the same user,
// which the upstream verifies against the resource AS's keys; cached;
// each step's failure names its step and leaks nothing.
func TestIdentityAssertionChain(t *testing.T) {
	idp := oauthtest.StartProvider(t, oauthtest.ProviderOptions{})
	as := oauthtest.StartProvider(t, oauthtest.ProviderOptions{Trust: idp})
	w := oauthtest.StartWhoami(t, as.JWKSURL, crmURL)
	a := identityAssertion(t, idp, as, nil)
	for _, user := range oauthtest.Users {
		c := upstreamauth.Caller{Principal: user, Token: secret(idp.IDToken(t, user, oauthtest.ClientID))}
		tok, err := a.Token(t.Context(), c)
		if err != nil {
			t.Fatalf("%s: %v", user, err)
		}
		if tok.Subject != user || tok.Mode != upstreamauth.ModeIdentityAssertion {
			t.Fatalf("%s: subject %q mode %q", user, tok.Subject, tok.Mode)
		}
		if got := whoami(t, w, tok.Value.Value()); got.Sub != user || got.Iss != as.Issuer {
			t.Fatalf("%s: the upstream saw %+v", user, got)
		}
		if _, err := a.Token(t.Context(), c); err != nil { // cached
			t.Fatal(err)
		}
	}
	if idp.Requests("id-jag") != 2 || as.Requests(upstreamauth.GrantTypeJWTBearer) != 2 {
		t.Fatalf("requests: %d ID-JAG, %d jwt-bearer; want 2 and 2", idp.Requests("id-jag"), as.Requests(upstreamauth.GrantTypeJWTBearer))
	}

	// An access token as subject token, when configured so.
	at := identityAssertion(t, idp, as, func(o *upstreamauth.IdentityAssertionOptions) {
		o.SubjectTokenType = upstreamauth.TokenTypeAccessToken
	})
	tok, err := at.Token(t.Context(), upstreamauth.Caller{Principal: "bob", Token: secret(idp.AccessToken(t, "bob", gatewayAud))})
	if err != nil || tok.Subject != "bob" {
		t.Fatalf("access token as subject: %v, %q", err, tok.Subject)
	}

	// Step 1 refused: revoked at the IdP.
	idp.Revoke("alice")
	caller := idp.IDToken(t, "alice", oauthtest.ClientID)
	_, err = identityAssertion(t, idp, as, nil).Token(t.Context(), upstreamauth.Caller{Principal: "alice", Token: secret(caller)})
	xe := exchangeError(t, err, upstreamauth.StepIDJAG)
	if !strings.Contains(xe.Reason, "revoked") {
		t.Fatalf("reason %q", xe.Reason)
	}
	noSecrets(t, err, caller, oauthtest.ClientSecret)

	// Step 2 refused: a resource AS that does not trust this IdP.
	stranger := oauthtest.StartProvider(t, oauthtest.ProviderOptions{})
	caller = idp.IDToken(t, "bob", oauthtest.ClientID)
	_, err = identityAssertion(t, idp, stranger, nil).Token(t.Context(), upstreamauth.Caller{Principal: "bob", Token: secret(caller)})
	xe = exchangeError(t, err, upstreamauth.StepJWTBearer)
	if !strings.Contains(xe.Reason, "refused") {
		t.Fatalf("reason %q", xe.Reason)
	}
	noSecrets(t, err, caller, oauthtest.ClientSecret)

	// No caller token.
	_, err = a.Token(t.Context(), upstreamauth.Caller{Principal: "ops"})
	exchangeError(t, err, upstreamauth.StepIDJAG)
}
