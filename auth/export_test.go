package auth

import "context"

// CheckJWT is the full check of a JWT, without verifiedCache: what a
// token's first request costs (BenchmarkAuthenticateJWT).
func CheckJWT(a *Authenticator, token string) error {
	_, _, err := a.jwt.check(context.Background(), token)
	return err
}
