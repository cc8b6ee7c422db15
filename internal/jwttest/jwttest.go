// Package jwttest mints OAuth access tokens for tests: signing keys, a
// JWKS endpoint on loopback, signed and unsigned tokens, the
// algorithm-confusion attack. The tests of package auth and the
// end-to-end tests of cmd/wasmgate both use it.
package jwttest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
)

// JWKS is a test authorization server's JWKS endpoint on 127.0.0.1: it
// serves the public halves of its keys (any path) and counts the fetches.
type JWKS struct {
	srv  *httptest.Server
	hits atomic.Int32

	mu     sync.Mutex
	body   []byte
	status int
}

// NewJWKS serves the public halves of keys until the end of the test.
func NewJWKS(t testing.TB, keys ...jwk.Key) *JWKS {
	t.Helper()
	p := &JWKS{}
	p.Serve(t, keys...)
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.hits.Add(1)
		p.mu.Lock()
		status, body := p.status, p.body
		p.mu.Unlock()
		w.Header().Set("Content-Type", "application/jwk-set+json")
		w.WriteHeader(status)
		w.Write(body)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

// Serve makes the JWKS hold the public halves of keys, answered with 200.
func (p *JWKS) Serve(t testing.TB, keys ...jwk.Key) {
	t.Helper()
	p.ServeRaw(SetJSON(t, keys...))
}

// ServeRaw makes the JWKS answer body, as it is, with 200.
func (p *JWKS) ServeRaw(body []byte) {
	p.mu.Lock()
	p.body, p.status = body, http.StatusOK
	p.mu.Unlock()
}

// Fail makes every fetch answer status (with the last body).
func (p *JWKS) Fail(status int) {
	p.mu.Lock()
	p.status = status
	p.mu.Unlock()
}

// Close stops serving: fetches are refused from now on.
func (p *JWKS) Close() { p.srv.Close() }

// URL is the JWKS's URL.
func (p *JWKS) URL() string { return p.srv.URL + "/jwks.json" }

// Hits is how many times the JWKS was fetched.
func (p *JWKS) Hits() int32 { return p.hits.Load() }

// SetJSON is the JWK set of the public halves of keys.
func SetJSON(t testing.TB, keys ...jwk.Key) []byte {
	t.Helper()
	set := jwk.NewSet()
	for _, k := range keys {
		pub, err := k.PublicKey()
		if err != nil {
			t.Fatal(err)
		}
		if err := set.AddKey(pub); err != nil {
			t.Fatal(err)
		}
	}
	b, err := json.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Import wraps a private key as a JWK with kid (none if "") and alg.
func Import(t testing.TB, raw any, kid string, alg jwa.SignatureAlgorithm) jwk.Key {
	t.Helper()
	k, err := jwk.Import(raw)
	if err != nil {
		t.Fatal(err)
	}
	if kid != "" {
		k.Set(jwk.KeyIDKey, kid)
	}
	k.Set(jwk.AlgorithmKey, alg)
	return k
}

// NewKey is a fresh private key as a JWK with kid (none if "") and alg:
// P-256 for ES256, else RSA 2048.
func NewKey(t testing.TB, kid string, alg jwa.SignatureAlgorithm) jwk.Key {
	t.Helper()
	var raw any
	var err error
	if alg == jwa.ES256() {
		raw, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	} else {
		raw, err = rsa.GenerateKey(rand.Reader, 2048)
	}
	if err != nil {
		t.Fatal(err)
	}
	return Import(t, raw, kid, alg)
}

// Sign signs claims with key under its own alg; the kid header comes from
// the key.
func Sign(t testing.TB, key jwk.Key, claims map[string]any) string {
	t.Helper()
	alg, _ := key.Algorithm()
	return sign(t, key, alg, claims)
}

// SignAlg signs claims with key under alg; the kid header comes from the
// key.
func SignAlg(t testing.TB, key jwk.Key, alg jwa.SignatureAlgorithm, claims map[string]any) string {
	t.Helper()
	return sign(t, key, alg, claims)
}

func sign(t testing.TB, key jwk.Key, alg jwa.KeyAlgorithm, claims map[string]any) string {
	t.Helper()
	payload, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jws.Sign(payload, jws.WithKey(alg, key))
	if err != nil {
		t.Fatal(err)
	}
	return string(tok)
}

// Unsigned builds an `alg: none`-style token by hand: header {alg, typ
// JWT, kid}, claims, an empty signature.
func Unsigned(alg, kid string, claims map[string]any) string {
	h, _ := json.Marshal(map[string]any{"alg": alg, "typ": "JWT", "kid": kid})
	p, _ := json.Marshal(claims)
	enc := base64.RawURLEncoding
	return enc.EncodeToString(h) + "." + enc.EncodeToString(p) + "."
}

// HMACConfusion signs claims with HS256 using the PEM of k's RSA public
// key as the HMAC secret, under kid: the algorithm-confusion attack.
func HMACConfusion(t testing.TB, k jwk.Key, kid string, claims map[string]any) string {
	t.Helper()
	pub, err := k.PublicKey()
	if err != nil {
		t.Fatal(err)
	}
	var raw rsa.PublicKey
	if err := jwk.Export(pub, &raw); err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&raw)
	if err != nil {
		t.Fatal(err)
	}
	secret := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	h := jws.NewHeaders()
	h.Set(jws.KeyIDKey, kid)
	payload, _ := json.Marshal(claims)
	tok, err := jws.Sign(payload, jws.WithKey(jwa.HS256(), secret, jws.WithProtectedHeaders(h)))
	if err != nil {
		t.Fatal(err)
	}
	return string(tok)
}

// With returns a copy of c with the given claims (key, value pairs)
// changed; a nil value deletes one.
func With(c map[string]any, kv ...any) map[string]any {
	out := maps.Clone(c)
	if out == nil {
		out = map[string]any{}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(out, kv[i].(string))
		} else {
			out[kv[i].(string)] = kv[i+1]
		}
	}
	return out
}

// Secrets are the parts of tok a log or an error must never show: the
// whole token and, for a JWT, its signature.
func Secrets(tok string) []string {
	out := []string{tok}
	if parts := strings.Split(tok, "."); len(parts) == 3 && len(parts[2]) >= 16 {
		out = append(out, parts[2])
	}
	return out
}
