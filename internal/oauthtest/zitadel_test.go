package oauthtest

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestProviderUsers: a provider started with Users exchanges the tokens
// of those users and refuses the default ones.
func TestProviderUsers(t *testing.T) {
	p := StartProvider(t, ProviderOptions{Users: []string{"u00", "u01"}})
	exchange := func(user string) int {
		form := url.Values{
			"grant_type":           {"urn:ietf:params:oauth:grant-type:token-exchange"},
			"subject_token":        {p.AccessToken(t, user, "https://gateway.test")},
			"subject_token_type":   {"urn:ietf:params:oauth:token-type:access_token"},
			"requested_token_type": {"urn:ietf:params:oauth:token-type:access_token"},
			"audience":             {"https://upstream.test"},
		}
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, p.TokenURL, strings.NewReader(form.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(ClientID, ClientSecret)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for user, want := range map[string]int{"u00": 200, "u01": 200, "alice": 400} {
		if got := exchange(user); got != want {
			t.Errorf("exchange for %s: HTTP %d, want %d", user, got, want)
		}
	}
	if n := p.Requests("urn:ietf:params:oauth:grant-type:token-exchange"); n != 3 {
		t.Errorf("%d exchanges counted, want 3", n)
	}
}
