package auth_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"

	"github.com/wasmgate/wasmgate/auth"
	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/internal/jwttest"
)

const (
	issuer   = "https://auth.example.com"
	audience = "https://mcp.example.com/mcp"
)

func newIDP(t *testing.T, keys ...jwk.Key) *jwttest.JWKS { return jwttest.NewJWKS(t, keys...) }

func rsaKey(t *testing.T, kid string) jwk.Key { return jwttest.NewKey(t, kid, jwa.RS256()) }

func ecKey(t *testing.T, kid string) jwk.Key { return jwttest.NewKey(t, kid, jwa.ES256()) }

// claims are the claims of a valid token at now.
func claims(now time.Time) map[string]any {
	return map[string]any{
		"iss":    issuer,
		"aud":    audience,
		"sub":    "user-1",
		"iat":    now.Unix(),
		"nbf":    now.Unix(),
		"exp":    now.Add(5 * time.Minute).Unix(),
		"groups": []string{"dev", "ops"},
		"tenant": "acme",
	}
}

// with returns c with the given claims changed; a nil value deletes one.
func with(c map[string]any, kv ...any) map[string]any { return jwttest.With(c, kv...) }

// mint signs claims with key under alg; the kid header comes from the key.
func mint(t *testing.T, s *secrets, key jwk.Key, alg jwa.SignatureAlgorithm, c map[string]any) string {
	t.Helper()
	return s.add(jwttest.SignAlg(t, key, alg, c))
}

// unsigned builds an `alg: none`-style token by hand.
func unsigned(s *secrets, alg string, c map[string]any) string {
	return s.add(jwttest.Unsigned(alg, "k1", c))
}

func jwtConfig(t testing.TB, jwksURL string, mod func(*auth.JWTConfig)) auth.Config {
	t.Helper()
	c := auth.Config{JWT: &auth.JWTConfig{Issuer: issuer, Audience: audience, JWKSURL: jwksURL}}
	if mod != nil {
		mod(c.JWT)
	}
	mustNormalize(t, &c)
	return c
}

func bearer(tok string) *http.Request { return request("Bearer " + tok) }

func TestJWT(t *testing.T) {
	s := newSecrets(t)
	clock := newClock()
	now := clock.Now()
	k1 := rsaKey(t, "k1")
	ec := ecKey(t, "e1")
	p := newIDP(t, k1, ec)
	static := s.add("static-token-7c6b5a4d3e2f1")
	c := jwtConfig(t, p.URL(), nil)
	c.Principals = []auth.PrincipalConfig{{Name: "robot", TokenSHA256: sha(static)}}
	a := newAuth(t, s, c, auth.Options{Now: clock.Now})

	valid := claims(now)
	impostor := rsaKey(t, "k1") // another key under k1's kid
	noKid := jwttest.Import(t, mustRaw(t, k1), "", jwa.RS256())

	tok := mint(t, s, k1, jwa.RS256(), valid)
	pr, err := a.Authenticate(bearer(tok))
	if err != nil {
		t.Fatalf("valid token: %v", s.err(err))
	}
	if pr.Name != "user-1" || !slices.Equal(pr.Groups, []string{"dev", "ops"}) || pr.Claims["tenant"] != "acme" || pr.Claims["iss"] != issuer {
		t.Errorf("valid token: got %+v", pr)
	}

	// Parts of a valid token put together wrongly.
	parts := strings.Split(tok, ".")
	other := strings.Split(mint(t, s, k1, jwa.RS256(), with(valid, "sub", "admin")), ".")
	tampered := parts[0] + "." + other[1] + "." + parts[2]

	tests := []struct {
		name   string
		token  string
		reason string // "" for accepted
	}{
		{"ES256", mint(t, s, ec, jwa.ES256(), valid), ""},
		{"no kid", mint(t, s, noKid, jwa.RS256(), valid), ""},
		{"audience in an array", mint(t, s, k1, jwa.RS256(), with(valid, "aud", []string{"other", audience})), ""},
		{"expired within leeway", mint(t, s, k1, jwa.RS256(), with(valid, "exp", now.Add(-10*time.Second).Unix())), ""},
		{"nbf within leeway", mint(t, s, k1, jwa.RS256(), with(valid, "nbf", now.Add(10*time.Second).Unix())), ""},
		{"no groups", mint(t, s, k1, jwa.RS256(), with(valid, "groups", nil)), ""},
		{"expired", mint(t, s, k1, jwa.RS256(), with(valid, "exp", now.Add(-time.Minute).Unix())), "token expired (exp)"},
		{"no exp", mint(t, s, k1, jwa.RS256(), with(valid, "exp", nil)), "no expiry (exp)"},
		{"nbf ahead", mint(t, s, k1, jwa.RS256(), with(valid, "nbf", now.Add(time.Minute).Unix())), "token not valid yet (nbf)"},
		{"iat ahead", mint(t, s, k1, jwa.RS256(), with(valid, "iat", now.Add(time.Minute).Unix())), "token issued in the future (iat)"},
		{"wrong audience", mint(t, s, k1, jwa.RS256(), with(valid, "aud", "https://other.example.com/mcp")), "wrong audience (aud)"},
		{"wrong audiences", mint(t, s, k1, jwa.RS256(), with(valid, "aud", []string{"a", "b"})), "wrong audience (aud)"},
		{"no audience", mint(t, s, k1, jwa.RS256(), with(valid, "aud", nil)), "wrong audience (aud)"},
		{"wrong issuer", mint(t, s, k1, jwa.RS256(), with(valid, "iss", "https://evil.example.com")), "wrong issuer (iss)"},
		{"no issuer", mint(t, s, k1, jwa.RS256(), with(valid, "iss", nil)), "wrong issuer (iss)"},
		{"wrong key", mint(t, s, impostor, jwa.RS256(), valid), "bad signature"},
		{"tampered claims", s.add(tampered), "bad signature"},
		{"unknown kid", mint(t, s, rsaKey(t, "k9"), jwa.RS256(), valid), "no key in the JWKS has the token's kid"},
		{"ES256 under an RSA kid", mint(t, s, jwttest.Import(t, mustRaw(t, ec), "k1", jwa.ES256()), jwa.ES256(), valid), "no key in the JWKS fits algorithm ES256"},
		{"alg none", unsigned(s, "none", valid), `alg "none" (unsigned JWT) is refused`},
		{"alg None", unsigned(s, "None", valid), "malformed JWT"}, // jws.Parse knows no such algorithm
		{"alg NONE", unsigned(s, "NONE", valid), "malformed JWT"},
		{"alg empty", unsigned(s, "", valid), "malformed JWT"},
		{"HS256 with the public key as secret", hmacConfusion(t, s, k1, valid), "algorithm HS256 is not allowed"},
		{"no subject", mint(t, s, k1, jwa.RS256(), with(valid, "sub", nil)), "claim sub (the principal) is missing, empty or not a string"},
		{"numeric subject", mint(t, s, k1, jwa.RS256(), with(valid, "sub", 42)), "malformed claims"}, // jwx wants sub to be a string
		{"groups of numbers", mint(t, s, k1, jwa.RS256(), with(valid, "groups", []int{1, 2})), "claim groups (the groups) is neither an array of strings nor a string"},
		{"groups an object", mint(t, s, k1, jwa.RS256(), with(valid, "groups", map[string]any{"a": 1})), "claim groups (the groups) is neither"},
		{"not a JWT", s.add("abc.def"), "neither the token of a principal nor a JWT"},
		{"JWT-shaped garbage", s.add("abc.def.ghi"), "malformed JWT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pr, err := a.Authenticate(bearer(tt.token))
			s.err(err)
			if tt.reason == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if pr.Name != "user-1" {
					t.Errorf("principal %q", pr.Name)
				}
				return
			}
			if !errors.Is(err, auth.ErrInvalidToken) || errors.Is(err, auth.ErrNoToken) {
				t.Fatalf("err = %v, want ErrInvalidToken", err)
			}
			if want := auth.ErrInvalidToken.Error() + ": " + tt.reason; !strings.HasPrefix(err.Error(), want) {
				t.Errorf("err = %q, want %q", err, want)
			}
			if pr.Name != "" || pr.Claims != nil {
				t.Errorf("principal %+v with an error", pr)
			}
		})
	}

	// A static principal still works beside jwt.
	if pr, err := a.Authenticate(bearer(static)); err != nil || pr.Name != "robot" {
		t.Errorf("static token beside jwt: %+v, %v", pr, s.err(err))
	}
	// Time passes: the valid token expires once beyond the leeway.
	clock.Add(5*time.Minute + 31*time.Second)
	if _, err := a.Authenticate(bearer(tok)); !errors.Is(s.err(err), auth.ErrInvalidToken) {
		t.Errorf("token after exp + leeway: %v", err)
	}
}

func mustRaw(t *testing.T, k jwk.Key) any {
	t.Helper()
	var raw any
	if err := jwk.Export(k, &raw); err != nil {
		t.Fatal(err)
	}
	return raw
}

// hmacConfusion signs claims with HS256 using k's public key (PEM) as the
// HMAC secret under k's kid: the algorithm-confusion attack.
func hmacConfusion(t *testing.T, s *secrets, k jwk.Key, c map[string]any) string {
	t.Helper()
	return s.add(jwttest.HMACConfusion(t, k, "k1", c))
}

func TestJWTClaimMapping(t *testing.T) {
	s := newSecrets(t)
	clock := newClock()
	k1 := rsaKey(t, "k1")
	p := newIDP(t, k1)
	a := newAuth(t, s, jwtConfig(t, p.URL(), func(j *auth.JWTConfig) {
		j.PrincipalClaim = "email"
		j.GroupsClaim = "scope"
	}), auth.Options{Now: clock.Now})
	base := with(claims(clock.Now()), "email", "ann@example.com")
	tests := []struct {
		scope any
		want  []string
	}{
		{"tools:read  tools:call", []string{"tools:read", "tools:call"}},
		{[]string{"admins", "", "dev"}, []string{"admins", "dev"}},
		{"", []string{}},
		{nil, nil},
	}
	for _, tt := range tests {
		pr, err := a.Authenticate(bearer(mint(t, s, k1, jwa.RS256(), with(base, "scope", tt.scope))))
		if err != nil {
			t.Errorf("scope %v: %v", tt.scope, s.err(err))
			continue
		}
		if pr.Name != "ann@example.com" || len(pr.Groups) != len(tt.want) || !slices.Equal(pr.Groups, tt.want) && len(tt.want) > 0 {
			t.Errorf("scope %v: got %q %q, want ann@example.com %q", tt.scope, pr.Name, pr.Groups, tt.want)
		}
		if pr.Claims["sub"] != "user-1" {
			t.Errorf("claims = %v", pr.Claims)
		}
	}
	// sub is not the principal any more: a token without email is refused.
	if _, err := a.Authenticate(bearer(mint(t, s, k1, jwa.RS256(), with(base, "email", nil)))); !errors.Is(s.err(err), auth.ErrInvalidToken) ||
		!strings.Contains(err.Error(), "claim email") {
		t.Errorf("no email: %v", err)
	}
}

func TestJWTAlgorithms(t *testing.T) {
	s := newSecrets(t)
	clock := newClock()
	k1, ec := rsaKey(t, "k1"), ecKey(t, "e1")
	p := newIDP(t, k1, ec)
	a := newAuth(t, s, jwtConfig(t, p.URL(), func(j *auth.JWTConfig) { j.Algorithms = []string{"ES256"} }), auth.Options{Now: clock.Now})
	if _, err := a.Authenticate(bearer(mint(t, s, ec, jwa.ES256(), claims(clock.Now())))); err != nil {
		t.Errorf("ES256: %v", s.err(err))
	}
	_, err := a.Authenticate(bearer(mint(t, s, k1, jwa.RS256(), claims(clock.Now()))))
	if !errors.Is(s.err(err), auth.ErrInvalidToken) || !strings.Contains(err.Error(), "algorithm RS256 is not allowed") {
		t.Errorf("RS256 when only ES256 is allowed: %v", err)
	}

	// New refuses none and HS* even in a config that skipped Normalize.
	for _, alg := range []string{"HS256", "none", "RS257"} {
		c := auth.Config{JWT: &auth.JWTConfig{Issuer: issuer, Audience: audience, JWKSURL: p.URL(), PrincipalClaim: "sub", Algorithms: []string{"RS256", alg}}}
		_, err := auth.New(t.Context(), c, auth.Options{Logger: s.logger})
		var ce *config.Error
		if !errors.As(s.err(err), &ce) || ce.Key != "auth.jwt.algorithms[1]" {
			t.Errorf("New with algorithm %s: %v", alg, err)
		}
	}
}

// A key rotated at the authorization server is fetched when a token names
// an unknown kid, at most once per auth.MinRefetch.
func TestJWKSUnknownKidRefetch(t *testing.T) {
	s := newSecrets(t)
	clock := newClock()
	k1, k2, k3 := rsaKey(t, "k1"), rsaKey(t, "k2"), rsaKey(t, "k3")
	p := newIDP(t, k1)
	a := newAuth(t, s, jwtConfig(t, p.URL(), nil), auth.Options{Now: clock.Now})
	if got := p.Hits(); got != 1 {
		t.Fatalf("New fetched the JWKS %d times, want 1", got)
	}
	if _, err := a.Authenticate(bearer(mint(t, s, k1, jwa.RS256(), claims(clock.Now())))); err != nil {
		t.Fatalf("k1: %v", s.err(err))
	}

	p.Serve(t, k2)
	// Just fetched: an unknown kid does not fetch again yet.
	for range 5 {
		_, err := a.Authenticate(bearer(mint(t, s, k2, jwa.RS256(), claims(clock.Now()))))
		if !errors.Is(s.err(err), auth.ErrInvalidToken) || !strings.Contains(err.Error(), "no key in the JWKS has the token's kid") {
			t.Fatalf("k2 within MinRefetch: %v", err)
		}
	}
	if got := p.Hits(); got != 1 {
		t.Fatalf("%d fetches within MinRefetch, want 1", got)
	}
	clock.Add(auth.MinRefetch)
	if pr, err := a.Authenticate(bearer(mint(t, s, k2, jwa.RS256(), claims(clock.Now())))); err != nil || pr.Name != "user-1" {
		t.Fatalf("k2 after MinRefetch: %v", s.err(err))
	}
	if got := p.Hits(); got != 2 {
		t.Fatalf("%d fetches, want 2", got)
	}
	// k1 is gone from the set, and asking again is rate-limited.
	if _, err := a.Authenticate(bearer(mint(t, s, k1, jwa.RS256(), claims(clock.Now())))); !errors.Is(s.err(err), auth.ErrInvalidToken) {
		t.Errorf("k1 after rotation: %v", err)
	}
	if got := p.Hits(); got != 2 {
		t.Fatalf("%d fetches, want 2", got)
	}

	// Many callers with a new kid at once share one fetch.
	p.Serve(t, k2, k3)
	clock.Add(auth.MinRefetch)
	tok := mint(t, s, k3, jwa.RS256(), claims(clock.Now()))
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			if _, err := a.Authenticate(bearer(tok)); err != nil {
				errs <- s.err(err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("k3 at once: %v", err)
	}
	if got := p.Hits(); got != 3 {
		t.Errorf("%d fetches after the burst, want 3", got)
	}
}

// The refresher picks a rotated key up on its own, keeps the known keys
// when a fetch fails, and stops on Close.
func TestJWKSPeriodicRefresh(t *testing.T) {
	s := newSecrets(t)
	clock := newClock() // still: no unknown-kid refetch can happen
	k1, k2 := rsaKey(t, "k1"), rsaKey(t, "k2")
	p := newIDP(t, k1)
	c := jwtConfig(t, p.URL(), nil)
	c.JWT.Refresh = config.Duration(20 * time.Millisecond) // below the config minimum, for the test
	a, err := auth.New(t.Context(), c, auth.Options{Now: clock.Now, Logger: s.logger})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()

	// A failing server: the keys already known stay in use.
	p.Fail(http.StatusServiceUnavailable)
	waitFor(t, "two failed refreshes", func() bool { return p.Hits() >= 3 })
	if _, err := a.Authenticate(bearer(mint(t, s, k1, jwa.RS256(), claims(clock.Now())))); err != nil {
		t.Errorf("k1 while the JWKS server fails: %v", s.err(err))
	}
	waitFor(t, "a warning in the log", func() bool {
		out := s.log.String()
		return strings.Contains(out, "level=WARN") && strings.Contains(out, "fetching the JWKS failed") &&
			strings.Contains(out, "503 Service Unavailable") && strings.Contains(out, p.URL())
	})

	p.Serve(t, k2)
	tok := mint(t, s, k2, jwa.RS256(), claims(clock.Now()))
	waitFor(t, "the rotated key", func() bool {
		_, err := a.Authenticate(bearer(tok))
		return err == nil
	})
	if out := s.log.String(); !strings.Contains(out, "JWKS keys changed") || !strings.Contains(out, "kids=[k2]") {
		t.Errorf("no log line for the change of keys:\n%s", out)
	}

	a.Close()
	a.Close()
	after := p.Hits()
	time.Sleep(200 * time.Millisecond) // ten refresh periods
	if got := p.Hits(); got != after {
		t.Errorf("%d fetches after Close", got-after)
	}
}

// waitFor is harness.WaitFor for 20 s that fails the test, naming what
// it waited for.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if !harness.WaitFor(20*time.Second, cond) {
		t.Fatalf("gave up waiting for %s", what)
	}
}

func TestJWKSFetchErrors(t *testing.T) {
	s := newSecrets(t)
	k1 := rsaKey(t, "k1")
	oct, err := jwk.Import([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	down := newIDP(t, k1)
	down.Close()
	tests := []struct {
		name  string
		setup func(p *jwttest.JWKS)
		url   func(p *jwttest.JWKS) string
		msg   string
	}{
		{"server error", func(p *jwttest.JWKS) { p.Fail(http.StatusInternalServerError) }, (*jwttest.JWKS).URL, "HTTP status 500 Internal Server Error"},
		{"not a JWKS", func(p *jwttest.JWKS) { p.ServeRaw([]byte("<html>")) }, (*jwttest.JWKS).URL, "not a JWKS"},
		{"no signing key", func(p *jwttest.JWKS) {
			b, _ := json.Marshal(map[string]any{"keys": []any{oct}})
			p.ServeRaw(b)
		}, (*jwttest.JWKS).URL, "no key in the JWKS can verify signatures"},
		{"server down", func(*jwttest.JWKS) {}, func(*jwttest.JWKS) string { return down.URL() }, "connection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newIDP(t, k1)
			tt.setup(p)
			u := tt.url(p)
			_, err := auth.New(t.Context(), jwtConfig(t, u, nil), auth.Options{Logger: s.logger})
			var ce *config.Error
			if !errors.As(s.err(err), &ce) {
				t.Fatalf("New = %v, want a *config.Error", err)
			}
			if ce.Key != "auth.jwt.jwks_url" || !strings.HasPrefix(ce.Msg, "fetching "+u+": ") || !strings.Contains(ce.Msg, tt.msg) {
				t.Errorf("New = %q, want auth.jwt.jwks_url: fetching %s: ...%s...", err, u, tt.msg)
			}
		})
	}
}

func TestJWKSFile(t *testing.T) {
	s := newSecrets(t)
	clock := newClock()
	k1 := rsaKey(t, "k1")
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "jwks.json"), string(jwttest.SetJSON(t, k1)))
	writeFile(t, filepath.Join(dir, "bad.json"), `{"keys": [{"kty": "RSA"}]}`)
	load := func(file string) (*auth.Authenticator, error) {
		c := auth.Config{JWT: &auth.JWTConfig{Issuer: issuer, Audience: audience, JWKSFile: file}}
		if errs, _ := normalize(t, dir, &c); len(errs) > 0 {
			t.Fatalf("Normalize: %v", errs)
		}
		return auth.New(t.Context(), c, auth.Options{Now: clock.Now, Logger: s.logger})
	}
	a, err := load("jwks.json")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if pr, err := a.Authenticate(bearer(mint(t, s, k1, jwa.RS256(), claims(clock.Now())))); err != nil || pr.Name != "user-1" {
		t.Errorf("token with jwks_file: %+v %v", pr, s.err(err))
	}
	if _, err := a.Authenticate(bearer(mint(t, s, rsaKey(t, "k2"), jwa.RS256(), claims(clock.Now())))); !errors.Is(s.err(err), auth.ErrInvalidToken) {
		t.Errorf("unknown kid with jwks_file: %v", err)
	}

	for file, want := range map[string]string{
		"missing.json": fmt.Sprintf("%q: no such file or directory", filepath.Join(dir, "missing.json")),
		"bad.json":     fmt.Sprintf("%q: not a JWKS", filepath.Join(dir, "bad.json")),
	} {
		_, err := load(file)
		var ce *config.Error
		if !errors.As(s.err(err), &ce) || ce.Key != "auth.jwt.jwks_file" || !strings.HasPrefix(ce.Msg, want) {
			t.Errorf("jwks_file %s: %v, want auth.jwt.jwks_file: %s", file, err, want)
		}
	}
}

// A JWT accepted once is not checked again on every request
// (verifiedCache), but is refused as soon as the full check would
// refuse it: past its exp and the leeway, with the clock moved back
// before its iat, and once the key that signed it leaves the JWKS.
func TestJWTVerifiedTokens(t *testing.T) {
	s := newSecrets(t)
	clock := newClock()
	start := clock.Now()
	k1, k2 := rsaKey(t, "k1"), rsaKey(t, "k2")
	p := newIDP(t, k1)
	a := newAuth(t, s, jwtConfig(t, p.URL(), nil), auth.Options{Now: clock.Now})
	expect := func(what, tok, reason string) {
		t.Helper()
		pr, err := a.Authenticate(bearer(tok))
		if reason == "" {
			if err != nil || pr.Name != "user-1" || !slices.Equal(pr.Groups, []string{"dev", "ops"}) || pr.Claims["tenant"] != "acme" {
				t.Fatalf("%s: got %+v, %v; want user-1 accepted", what, pr, s.err(err))
			}
			pr.Groups[0] = "changed by the caller" // the next caller's groups are its own
			return
		}
		if !errors.Is(s.err(err), auth.ErrInvalidToken) || !strings.Contains(err.Error(), reason) {
			t.Fatalf("%s: got %+v, %v; want refused with %q", what, pr, err, reason)
		}
	}

	tok := mint(t, s, k1, jwa.RS256(), claims(start)) // exp in 5 minutes
	for i := range 3 {
		expect(fmt.Sprintf("request %d", i+1), tok, "")
	}
	clock.Add(5*time.Minute + 10*time.Second)
	expect("past exp, within the leeway", tok, "")
	clock.Add(time.Minute)
	expect("past exp and the leeway", tok, "token expired (exp)")

	// Accepted at its iat and nbf; with the clock set back before them and
	// the leeway, refused as the full check refuses it.
	clock.Add(-time.Minute)
	tok = mint(t, s, k1, jwa.RS256(), claims(clock.Now()))
	expect("fresh token", tok, "")
	expect("fresh token again", tok, "")
	clock.Add(-2 * time.Minute)
	expect("clock set back", tok, "token issued in the future (iat)")
	clock.Add(2 * time.Minute)
	expect("clock forward again", tok, "")

	// k1 leaves the JWKS: a k2 token makes the gateway fetch it again, and
	// the k1 token it accepted a moment ago is refused from then on.
	p.Serve(t, k2)
	clock.Add(auth.MinRefetch)
	expect("k2 token", mint(t, s, k2, jwa.RS256(), claims(clock.Now())), "")
	expect("k1 token after k1 left the JWKS", tok, "no key in the JWKS has the token's kid")
}
