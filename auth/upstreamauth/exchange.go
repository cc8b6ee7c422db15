package upstreamauth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/wasmgate/wasmgate/config"
)

// Token types and grant types of RFC 8693, RFC 7523 and the
// identity-assertion authorization grant.
const (
	GrantTypeTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	GrantTypeJWTBearer     = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	TokenTypeAccessToken   = "urn:ietf:params:oauth:token-type:access_token"
	TokenTypeIDToken       = "urn:ietf:params:oauth:token-type:id_token"
	TokenTypeIDJAG         = "urn:ietf:params:oauth:token-type:id-jag"
	clientAssertionJWT     = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
)

// PrivateKeyJWT is client authentication with a signed assertion
// (private_key_jwt, RFC 7523 section 2.2).
type PrivateKeyJWT struct {
	// Key signs the assertion: an *rsa.PrivateKey, *ecdsa.PrivateKey or
	// ed25519.PrivateKey (ParsePrivateKeyPEM reads one).
	Key crypto.Signer
	// KID is the key's id, sent in the JWS header when set.
	KID string
	// Alg is the JWS algorithm; by default RS256, ES256/384/512 or EdDSA
	// after the key.
	Alg string
	// Audience is added to the assertion's aud, which always holds the
	// token URL: some authorization servers want their issuer there.
	Audience []string
}

// ClientAuth is how the gateway authenticates to an authorization
// server: ClientSecret (client_secret_basic) or PrivateKeyJWT.
type ClientAuth struct {
	ClientID      string
	ClientSecret  config.Secret
	PrivateKeyJWT *PrivateKeyJWT
}

func (a ClientAuth) check() error {
	switch {
	case a.ClientID == "":
		return errors.New("client_id is required")
	case a.ClientSecret.IsSet() && a.PrivateKeyJWT != nil:
		return errors.New("set one of client_secret and private_key_jwt, not both")
	case a.PrivateKeyJWT != nil:
		_, err := a.PrivateKeyJWT.alg()
		return err
	}
	return nil
}

// TokenExchangeOptions configure a TokenExchange.
type TokenExchangeOptions struct {
	// Upstream names the upstream, for errors.
	Upstream string
	// TokenURL is the authorization server's token endpoint.
	TokenURL string
	ClientAuth
	// Audience, Resource and Scopes are what the exchanged token is for.
	Audience string
	Resource []string
	Scopes   []string
	// SubjectTokenType is the caller token's type (default
	// urn:ietf:params:oauth:token-type:access_token).
	SubjectTokenType string
	// HTTPClient sends the requests (default http.DefaultClient); the
	// gateway passes its checked outbound client.
	HTTPClient *http.Client
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Cache keeps exchanged tokens; nil: a cache of its own of
	// DefaultCacheSize entries. One Cache may serve many sources.
	Cache *Cache
}

// TokenExchange is a Source that exchanges the caller's access token for
// one scoped to the upstream (RFC 8693), cached until shortly before it
// expires.
type TokenExchange struct {
	o   TokenExchangeOptions
	key sourceKey
}

// NewTokenExchange checks o and returns its Source.
func NewTokenExchange(o TokenExchangeOptions) (*TokenExchange, error) {
	if o.TokenURL == "" {
		return nil, fmt.Errorf("upstream %q: token_exchange: token_url is required", o.Upstream)
	}
	if err := o.ClientAuth.check(); err != nil {
		return nil, fmt.Errorf("upstream %q: token_exchange: %w", o.Upstream, err)
	}
	if o.SubjectTokenType == "" {
		o.SubjectTokenType = TokenTypeAccessToken
	}
	if o.HTTPClient == nil {
		o.HTTPClient = http.DefaultClient
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Cache == nil {
		o.Cache = NewCache(DefaultCacheSize)
	}
	return &TokenExchange{o: o, key: sourceKey{upstream: o.Upstream, audience: o.Audience + "\x00" + strings.Join(o.Resource, " ")}}, nil
}

// errNoCallerToken is the answer for a caller without an access token.
const errNoCallerToken = "the caller has no access token to exchange (token exchange needs a caller authenticated with an OAuth access token, not a static principal or stdio)"

// Token gives the caller's exchanged token for the upstream.
func (x *TokenExchange) Token(ctx context.Context, c Caller) (Token, error) {
	if !c.Token.IsSet() {
		return Token{}, &ExchangeError{Upstream: x.o.Upstream, Step: "token_exchange", Reason: errNoCallerToken}
	}
	tok, key, ok := x.o.Cache.hit(x.key, c, x.o.Now())
	if ok {
		return tok, nil
	}
	return x.o.Cache.miss(ctx, key, "token_exchange", c, x.o.Now, func(ctx context.Context, callerSub string) (Token, error) {
		form := url.Values{
			"grant_type":           {GrantTypeTokenExchange},
			"subject_token":        {c.Token.Value()},
			"subject_token_type":   {x.o.SubjectTokenType},
			"requested_token_type": {TokenTypeAccessToken},
		}
		setTarget(form, x.o.Audience, x.o.Resource, x.o.Scopes)
		r, err := post(ctx, x.o.HTTPClient, x.o.Upstream, "token_exchange", x.o.TokenURL, x.o.ClientAuth, form, x.o.Now, c.Token.Value())
		if err != nil {
			return Token{}, err
		}
		return r.token(ModeTokenExchange, callerSub, c.Principal, x.o.Now), nil
	})
}

func setTarget(form url.Values, audience string, resource, scopes []string) {
	if audience != "" {
		form.Set("audience", audience)
	}
	for _, r := range resource {
		form.Add("resource", r)
	}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
}

// tokenResponse is a token endpoint's answer (RFC 6749 5.1, RFC 8693 2.2.1).
type tokenResponse struct {
	AccessToken     string `json:"access_token"`
	IssuedTokenType string `json:"issued_token_type"`
	TokenType       string `json:"token_type"`
	ExpiresIn       int64  `json:"expires_in"`
	Scope           string `json:"scope"`

	issuedAt time.Time
}

// token makes the answer a Token: its expiry from expires_in, else the
// JWT's exp; its subject the JWT's sub, else the caller's subject, else
// the principal. The JWT is parsed without verifying its signature, only
// to read sub and exp for audit and caching: the upstream verifies it.
func (r tokenResponse) token(mode, callerSub, principal string, now func() time.Time) Token {
	t := Token{Value: config.NewSecret(r.AccessToken), Mode: mode}
	var claims struct {
		Sub string           `json:"sub"`
		Exp *jwt.NumericDate `json:"exp"`
	}
	if tok, err := jwt.ParseSigned(r.AccessToken, allAlgs); err == nil && tok.UnsafeClaimsWithoutVerification(&claims) == nil {
		t.Subject = claims.Sub
		if claims.Exp != nil {
			t.Expiry = claims.Exp.Time()
		}
	}
	if r.ExpiresIn > 0 {
		t.Expiry = r.issuedAt.Add(time.Duration(r.ExpiresIn) * time.Second)
	}
	if t.Subject == "" {
		t.Subject = callerSub
	}
	if t.Subject == "" {
		t.Subject = principal
	}
	return t
}

var allAlgs = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512, jose.EdDSA, jose.HS256, jose.HS384, jose.HS512,
}

// maxBody bounds what is read of a token endpoint's answer.
const maxBody = 1 << 20

// post sends one token request and reads its answer. Every failure is an
// *ExchangeError whose Reason holds none of the values in secrets, the
// client secret or the client assertion.
func post(ctx context.Context, hc *http.Client, upstream, step, tokenURL string, auth ClientAuth, form url.Values, now func() time.Time, secrets ...string) (tokenResponse, error) {
	fail := func(format string, args ...any) (tokenResponse, error) {
		reason := fmt.Sprintf(format, args...)
		return tokenResponse{}, &ExchangeError{Upstream: upstream, Step: step, Reason: scrub(reason, secrets)}
	}
	if auth.ClientSecret.IsSet() {
		secrets = append(secrets, auth.ClientSecret.Value(), url.QueryEscape(auth.ClientSecret.Value()))
	}
	if p := auth.PrivateKeyJWT; p != nil {
		assertion, err := p.assertion(auth.ClientID, tokenURL, now())
		if err != nil {
			return fail("signing the client assertion: %v", err)
		}
		secrets = append(secrets, assertion)
		form.Set("client_id", auth.ClientID)
		form.Set("client_assertion_type", clientAssertionJWT)
		form.Set("client_assertion", assertion)
	} else if !auth.ClientSecret.IsSet() {
		form.Set("client_id", auth.ClientID)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, tokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return fail("building the request: %v", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if auth.ClientSecret.IsSet() {
		// RFC 6749 2.3.1: both form-encoded before Basic.
		req.SetBasicAuth(url.QueryEscape(auth.ClientID), url.QueryEscape(auth.ClientSecret.Value()))
	}
	sent := now()
	resp, err := hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return fail("the authorization server did not answer in time (%v)", ctx.Err())
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fail("cannot reach the authorization server at %s: %v", redactURL(tokenURL), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		if ctx.Err() != nil {
			return fail("the authorization server did not answer in time (%v)", ctx.Err())
		}
		return fail("reading the authorization server's answer: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error       string `json:"error"`
			Description string `json:"error_description"`
		}
		if json.Unmarshal(body, &e) != nil || e.Error == "" {
			return fail("the authorization server answered HTTP %d", resp.StatusCode)
		}
		if e.Description == "" {
			return fail("the authorization server refused: %s", clean(e.Error, 64))
		}
		return fail("the authorization server refused: %s: %s", clean(e.Error, 64), clean(e.Description, 300))
	}
	var r tokenResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return fail("the authorization server's answer is not a token response (%v)", jsonProblem(err))
	}
	if r.AccessToken == "" {
		return fail("the authorization server's answer has no access_token")
	}
	r.issuedAt = sent
	return r, nil
}

// jsonProblem describes a JSON error without quoting the input.
func jsonProblem(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("invalid JSON at offset %d", se.Offset)
	case errors.As(err, &te):
		return fmt.Sprintf("field %q has the wrong type", te.Field)
	}
	return "invalid JSON"
}

// clean keeps an authorization server's text printable and short.
func clean(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return ' '
	}, s)
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

// scrub replaces every secret found in s (and every long piece of one,
// in case an authorization server quotes part of a token).
func scrub(s string, secrets []string) string {
	for _, v := range secrets {
		if len(v) < 8 {
			continue
		}
		s = strings.ReplaceAll(s, v, "[redacted]")
		// A JWT quoted one part at a time.
		for part := range strings.SplitSeq(v, ".") {
			if len(part) >= 16 {
				s = strings.ReplaceAll(s, part, "[redacted]")
			}
		}
	}
	return s
}

// redactURL drops userinfo and the query from a URL for messages.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "the token URL"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

func (p *PrivateKeyJWT) alg() (jose.SignatureAlgorithm, error) {
	if p.Alg != "" {
		return jose.SignatureAlgorithm(p.Alg), nil
	}
	switch k := p.Key.(type) {
	case *rsa.PrivateKey:
		return jose.RS256, nil
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			return jose.ES256, nil
		case elliptic.P384():
			return jose.ES384, nil
		case elliptic.P521():
			return jose.ES512, nil
		}
	case ed25519.PrivateKey:
		return jose.EdDSA, nil
	case nil:
		return "", errors.New("private_key_jwt: no key")
	}
	return "", fmt.Errorf("private_key_jwt: unsupported key type %T", p.Key)
}

// assertion is a client assertion (RFC 7523 2.2): iss = sub = client_id,
// aud = the token URL (and Audience), a fresh jti, valid 60 seconds.
func (p *PrivateKeyJWT) assertion(clientID, tokenURL string, now time.Time) (string, error) {
	alg, err := p.alg()
	if err != nil {
		return "", err
	}
	opts := (&jose.SignerOptions{}).WithType("JWT")
	if p.KID != "" {
		opts = opts.WithHeader("kid", p.KID)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: p.Key}, opts)
	if err != nil {
		return "", err
	}
	var jti [16]byte
	if _, err := rand.Read(jti[:]); err != nil {
		return "", err
	}
	claims := jwt.Claims{
		Issuer:   clientID,
		Subject:  clientID,
		Audience: append(jwt.Audience{tokenURL}, p.Audience...),
		ID:       hex.EncodeToString(jti[:]),
		IssuedAt: jwt.NewNumericDate(now),
		Expiry:   jwt.NewNumericDate(now.Add(60 * time.Second)),
	}
	return jwt.Signed(signer).Claims(claims).Serialize()
}

// ParsePrivateKeyPEM reads a PEM private key (PKCS #8, PKCS #1 RSA or
// SEC 1 EC) for private_key_jwt.
func ParsePrivateKeyPEM(b []byte) (crypto.Signer, error) {
	block, _ := pem.Decode(b)
	if block == nil {
		return nil, errors.New("no PEM block found")
	}
	if k, err := x509.ParsePKCS8PrivateKey(block.Bytes); err == nil {
		s, ok := k.(crypto.Signer)
		if !ok {
			return nil, fmt.Errorf("PKCS #8 key of type %T cannot sign", k)
		}
		return s, nil
	}
	if k, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	if k, err := x509.ParseECPrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	return nil, fmt.Errorf("PEM block %q is not a PKCS #8, PKCS #1 or EC private key", block.Type)
}
