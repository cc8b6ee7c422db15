package redact

import (
	"reflect"
	"slices"
	"testing"
)

func TestWords(t *testing.T) {
	for in, want := range map[string][]string{
		"apiKey": {"api", "key"}, "APIKey": {"api", "key"}, "api_key": {"api", "key"}, "X-Auth-Token": {"x", "auth", "token"},
		"monkey": {"monkey"}, "github_token": {"github", "token"}, "oauth2Token": {"oauth2", "token"}, "": nil, "__": nil,
		"clé_secrète": {"clé", "secrète"}, "userID": {"user", "id"},
	} {
		if got := words(in); !slices.Equal(got, want) {
			t.Errorf("words(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSecret(t *testing.T) {
	m := New(nil)
	for _, k := range []string{"key", "KEY", "apiKey", "api_key", "API-Key", "x-api-key", "token", "accessToken", "github_token",
		"password", "Authorization", "client_secret", "clientSecret", "privateKey", "private_key", "sessionId", "pin"} {
		if !m.Secret(k) {
			t.Errorf("%q is not secret", k)
		}
	}
	for _, k := range []string{"monkey", "keyboard", "donkey_count", "tokenizer", "passage", "author", "secretary", "spin", "path", "q", ""} {
		if m.Secret(k) {
			t.Errorf("%q is secret", k)
		}
	}
	custom := New([]string{"ssn", "card_number"})
	if !custom.Secret("cardNumber") || !custom.Secret("SSN") || custom.Secret("password") || custom.Secret("card") {
		t.Error("a configured list replaces the defaults and matches whole names and words")
	}
	if (Matcher{}).Secret("password") {
		t.Error("the zero Matcher matched")
	}
	if Check("__") == nil || Check("api_key") != nil {
		t.Error("Check")
	}
}

func TestRedact(t *testing.T) {
	in := map[string]any{"monkey": "banana", "apiKey": "s3cret", "nested": []any{map[string]any{"password": 1, "keep": "x"}},
		"auth": map[string]any{"user": "u"}}
	got := New(nil).Redact(in)
	want := map[string]any{"monkey": "banana", "apiKey": Placeholder, "nested": []any{map[string]any{"password": Placeholder, "keep": "x"}},
		"auth": Placeholder}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Redact = %v, want %v", got, want)
	}
	if in["apiKey"] != "s3cret" {
		t.Error("Redact changed its input")
	}
}
