package auth

import (
	"net/http"
	"testing"
)

func TestBearerTokenScheme(t *testing.T) {
	for in, want := range map[string]string{
		"Bearer tok":      "tok",
		"bearer tok":      "tok",
		"BEARER tok":      "tok",
		"bEaReR  tok ":    "tok",
		" Bearer tok":     "tok",
		"Bearer":          "",
		"Bearertok":       "",
		"Basic tok":       "",
		"tok":             "",
		"":                "",
		"Bearer\ttok":     "",
		"Bearer tok more": "tok more",
	} {
		h := http.Header{}
		if in != "" {
			h.Set("Authorization", in)
		}
		got, bearer := BearerToken(h.Get("Authorization"))
		if !bearer {
			got = ""
		}
		ok := got != ""
		if got != want || ok != (want != "") {
			t.Errorf("BearerToken(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}
