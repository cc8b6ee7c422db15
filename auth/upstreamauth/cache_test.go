package upstreamauth

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/config"
)

func fakeJWT(payload string) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"none"}`)) + "." + enc([]byte(payload)) + ".sig"
}

// TestCallerSubject: only the top-level sub counts (not an act claim's),
// escapes are decoded, and a token that is not a JWT has no subject.
func TestCallerSubject(t *testing.T) {
	cases := []struct{ payload, want string }{
		{`{"sub":"alice"}`, "alice"},
		{`{"act":{"sub":"mallory"},"sub":"alice"}`, "alice"},
		{`{"aud":["x","sub"],"x":"\"sub\":\"eve\"", "sub" : "bob"}`, "bob"},
		{`{"sub":"al\u0069ce"}`, "alice"},
		{`{"act":{"sub":"mallory"}}`, ""},
		{`{"sub":42}`, ""},
	}
	for _, tc := range cases {
		if got := callerSubject(fakeJWT(tc.payload)); got != tc.want {
			t.Errorf("%s: subject %q, want %q", tc.payload, got, tc.want)
		}
	}
	if got := callerSubject("opaque-token"); got != "" {
		t.Errorf("opaque token: subject %q", got)
	}
	if identity(fakeJWT(`{"sub":"alice"}`)) == identity(fakeJWT(`{"sub":"bob"}`)) {
		t.Error("two subjects, one identity")
	}
	if identity(fakeJWT(`{"sub":"alice","jti":"1"}`)) != identity(fakeJWT(`{"sub":"alice","jti":"2"}`)) {
		t.Error("one subject, two identities")
	}
	if identity("opaque-a") == identity("opaque-b") {
		t.Error("two opaque tokens, one identity")
	}
}

// TestCacheBoundsAndMargin: past its size the oldest entry goes; a token
// is not kept past expiry minus max(30s, 10%), nor at all without expiry.
func TestCacheBoundsAndMargin(t *testing.T) {
	c := NewCache(2)
	now := time.Now()
	src := sourceKey{upstream: "u", audience: "a"}
	fetches := 0
	fetch := func(exp time.Duration) func(context.Context, string) (Token, error) {
		return func(context.Context, string) (Token, error) {
			fetches++
			var e time.Time
			if exp > 0 {
				e = now.Add(exp)
			}
			return Token{Value: config.NewSecret(fmt.Sprint("tok", fetches)), Expiry: e}, nil
		}
	}
	get := func(user string, exp time.Duration) {
		t.Helper()
		caller := Caller{Principal: user, Token: config.NewSecret(fakeJWT(`{"sub":"` + user + `"}`))}
		if _, key, ok := c.hit(src, caller, now); !ok {
			if _, err := c.miss(t.Context(), key, "s", caller, func() time.Time { return now }, fetch(exp)); err != nil {
				t.Fatal(err)
			}
		}
	}
	get("a", time.Hour)
	get("b", time.Hour)
	get("c", time.Hour) // evicts a
	if c.Len() != 2 || fetches != 3 {
		t.Fatalf("len %d, fetches %d", c.Len(), fetches)
	}
	get("b", time.Hour)
	get("a", time.Hour)
	if fetches != 4 {
		t.Fatalf("fetches %d: b should have been kept and a evicted", fetches)
	}
	get("x", 0) // no expiry: not kept
	get("x", 0)
	if fetches != 6 {
		t.Fatalf("fetches %d: a token without expiry was kept", fetches)
	}
	get("y", 20*time.Second) // shorter than the 30s margin: not kept
	get("y", 20*time.Second)
	if fetches != 8 {
		t.Fatalf("fetches %d: a token inside the margin was kept", fetches)
	}
}

// BenchmarkCacheHit: a cached exchanged token for a caller (a real-sized
// JWT with its subject read on every call).
func BenchmarkCacheHit(b *testing.B) {
	x, err := NewTokenExchange(TokenExchangeOptions{Upstream: "u", TokenURL: "http://127.0.0.1:1/token", ClientAuth: ClientAuth{ClientID: "c"}, Audience: "a"})
	if err != nil {
		b.Fatal(err)
	}
	payload := `{"iss":"https://idp.example.com","sub":"alice@example.com","aud":["https://gateway.example.com"],"exp":1900000000,"iat":1800000000,"jti":"0123456789abcdef","client_id":"wasmgate","scope":"openid profile email tickets:read tickets:write","act":{"sub":"svc"}}`
	// An RS256 signature is 342 base64 characters.
	caller := Caller{Principal: "alice", Token: config.NewSecret(strings.TrimSuffix(fakeJWT(payload), "sig") + strings.Repeat("s", 342))}
	now := time.Now()
	key := cacheKey{src: x.key, principal: caller.Principal, identity: identity(caller.Token.Value())}
	x.o.Cache.store(key, Token{Value: config.NewSecret("exchanged"), Expiry: now.Add(time.Hour)}, now)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := x.Token(ctx, caller); err != nil {
			b.Fatal(err)
		}
	}
}
