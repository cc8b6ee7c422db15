package egress

import (
	"reflect"
	"strings"
	"testing"
)

func TestConnectDomains(t *testing.T) {
	got := ConnectDomains([]string{
		"api.example.com", "API.example.com", "*.example.org", "127.0.0.1:8443", "[2001:db8::7]:*",
		"*", "api-?.example.net", "host.example:80*", "bad/url",
	})
	want := []string{"https://api.example.com", "https://*.example.org", "https://127.0.0.1:8443", "https://[2001:db8::7]:*", "https://*"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ConnectDomains = %q, want %q", got, want)
	}
	if got := ConnectDomains(nil); got != nil {
		t.Errorf("no grants: %q", got)
	}
}

// FuzzGrantOrigin: whatever a grant, its origin (if any) is an https
// origin a CSP source list can hold (no spaces, quotes or semicolons
// that would end or add a directive), and it allows no host the grant
// does not: a literal host's origin names exactly it.
func FuzzGrantOrigin(f *testing.F) {
	for _, s := range []string{"api.example.com", "*.example.org", "127.0.0.1:8443", "[::1]:*", "*", "a?b", "x:8*", "h; script-src *"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		g, err := ParseGrant(s)
		if err != nil {
			return
		}
		o, ok := g.Origin()
		if !ok {
			return
		}
		if !strings.HasPrefix(o, "https://") || strings.ContainsAny(o, " \t\r\n;,'\"") {
			t.Fatalf("grant %q: origin %q", s, o)
		}
		if !g.glob && !strings.Contains(o, g.host) {
			t.Fatalf("grant %q: origin %q does not name its host", s, o)
		}
	})
}
