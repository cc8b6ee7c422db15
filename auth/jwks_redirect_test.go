package auth_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wasmgate/wasmgate/auth"
	"github.com/wasmgate/wasmgate/config"
)

// A loopback JWKS server that redirects elsewhere: the redirect gets the
// rule jwks_url itself gets (https, or http only to loopback), so keys
// from a target jwks_url could not name are never fetched.
func TestJWKSRedirectsFollowURLRules(t *testing.T) {
	s := newSecrets(t)
	k1 := rsaKey(t, "k1")
	good := newIDP(t, k1)
	var target string
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target, http.StatusFound)
	}))
	t.Cleanup(redirector.Close)
	tests := []struct {
		name, target, msg string
	}{
		{"plain http off loopback", "http://jwks.example.invalid/jwks.json", "refused a redirect to http://jwks.example.invalid/jwks.json: must use https"},
		{"user info", "http://user:pw@127.0.0.1:1/jwks.json", "refused a redirect to http://user:xxxxx@127.0.0.1:1/jwks.json: must not contain a user or password"},
		{"another scheme", "ftp://127.0.0.1/jwks.json", "refused a redirect"},
		{"a loop", redirector.URL + "/again", "stopped after 5 redirects"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target = tt.target
			u := redirector.URL + "/jwks.json"
			_, err := auth.New(t.Context(), jwtConfig(t, u, nil), auth.Options{Logger: s.logger})
			var ce *config.Error
			if !errors.As(s.err(err), &ce) || ce.Key != "auth.jwt.jwks_url" || !strings.Contains(ce.Msg, tt.msg) {
				t.Fatalf("New = %v, want auth.jwt.jwks_url: ...%s...", err, tt.msg)
			}
		})
	}
	t.Run("loopback to loopback is followed", func(t *testing.T) {
		target = good.URL()
		a, err := auth.New(t.Context(), jwtConfig(t, redirector.URL+"/jwks.json", nil), auth.Options{Logger: s.logger})
		if err != nil {
			t.Fatalf("New: %v", s.err(err))
		}
		a.Close()
		if good.Hits() == 0 {
			t.Error("the redirect target was not fetched")
		}
	})
	t.Run("a caller's CheckRedirect still runs", func(t *testing.T) {
		target = good.URL()
		before := good.Hits()
		c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return errors.New("caller says no") }}
		_, err := auth.New(t.Context(), jwtConfig(t, redirector.URL+"/jwks.json", nil), auth.Options{Logger: s.logger, HTTPClient: c})
		if err == nil || !strings.Contains(err.Error(), "caller says no") || good.Hits() != before {
			t.Fatalf("New = %v, want the caller's CheckRedirect refusal", err)
		}
		if c.CheckRedirect == nil {
			t.Error("the caller's client was modified")
		}
	})
}
