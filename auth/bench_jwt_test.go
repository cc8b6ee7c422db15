package auth_test

import (
	"context"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"

	"github.com/wasmgate/wasmgate/auth"
	"github.com/wasmgate/wasmgate/internal/jwttest"
)

// BenchmarkAuthenticateJWT authenticates a request with a JWT: "first"
// is the full check a token's first request gets (signature, claims),
// "again" a later request with the same token (verifiedCache).
func BenchmarkAuthenticateJWT(b *testing.B) {
	for _, alg := range []jwa.SignatureAlgorithm{jwa.RS256(), jwa.ES256()} {
		b.Run(alg.String(), func(b *testing.B) {
			k := jwttest.NewKey(b, "k1", alg)
			p := jwttest.NewJWKS(b, k)
			a, err := auth.New(context.Background(), jwtConfig(b, p.URL(), nil), auth.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer a.Close()
			tok := jwttest.SignAlg(b, k, alg, claims(time.Now()))
			r := bearer(tok)
			if _, err := a.Authenticate(r); err != nil {
				b.Fatal(err)
			}
			b.Run("first", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := auth.CheckJWT(a, tok); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("again", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := a.Authenticate(r); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
