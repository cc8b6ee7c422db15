// Package oauthtest starts real authorization servers for tests of the
// gateway's OAuth client side (auth/upstreamauth) and a test upstream
// that validates the tokens it receives.
//
// zitadel.go runs an OpenID provider from zitadel/oidc v3.52.0's op
// package (Apache-2.0, github.com/zitadel/oidc): discovery, JWKS, the
// token endpoint with client_secret_basic and private_key_jwt client
// authentication, and RFC 8693 token exchange are the library's code.
// Ours (this file) is the in-memory Storage (written for these tests, in
// the shape of the module's example/server/storage, much smaller: no
// login UI, no authorization-code flow) and, because op refuses token
// types it does not know, the two halves of the identity-assertion
// authorization grant (draft-ietf-oauth-identity-assertion-authz-grant):
// issuing an ID-JAG for requested_token_type id-jag (an HTTP handler in
// front of op's, see idjag) and accepting one as a jwt-bearer assertion
// at a resource authorization server (Server.JWTProfile below, which
// verifies it with op's JWTProfileVerifier against the keys the storage
// trusts).
package oauthtest

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	zcrypto "github.com/zitadel/oidc/v3/pkg/crypto"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// Token types and grant types of the identity-assertion grant.
const (
	TokenTypeIDJAG   = "urn:ietf:params:oauth:token-type:id-jag"
	GrantTypeJWTBear = "urn:ietf:params:oauth:grant-type:jwt-bearer"
)

// Clients every Provider registers.
const (
	// ClientID authenticates with client_secret_basic and ClientSecret.
	ClientID     = "wasmgate"
	ClientSecret = "wasmgate-test-secret"
	// JWTClientID authenticates with private_key_jwt, signed by
	// Provider.ClientKey under JWTClientKID.
	JWTClientID  = "wasmgate-jwt"
	JWTClientKID = "wasmgate-jwt-key"
)

// Users every Provider knows unless ProviderOptions.Users says otherwise.
var Users = []string{"alice", "bob"}

// ProviderOptions configure StartProvider. The zero value is a provider
// issuing access tokens valid for five minutes.
type ProviderOptions struct {
	// TokenLifetime is how long issued access tokens are valid.
	TokenLifetime time.Duration
	// Users are the users the provider knows (Users when empty).
	Users []string
	// Trust is another provider (the enterprise IdP) whose ID-JAGs this
	// one accepts as jwt-bearer assertions (it then acts as the resource
	// authorization server of the identity-assertion grant).
	Trust *Provider
}

// Provider is a running OpenID provider on 127.0.0.1.
type Provider struct {
	// Issuer is the provider's issuer URL (http://127.0.0.1:port).
	Issuer string
	// TokenURL and JWKSURL are its token endpoint and key set.
	TokenURL, JWKSURL string
	// ClientKey is JWTClientID's private key (private_key_jwt).
	ClientKey *rsa.PrivateKey

	srv      *httptest.Server
	provider *op.Provider
	legacy   *op.LegacyServer
	st       *storage

	delay atomic.Int64 // nanoseconds every request waits
	mu    sync.Mutex
	count map[string]int // token requests by grant_type (and "id-jag")
}

// StartProvider starts a provider on a free port, stopped when the test
// ends.
func StartProvider(t testing.TB, opts ProviderOptions) *Provider {
	t.Helper()
	if opts.TokenLifetime == 0 {
		opts.TokenLifetime = 5 * time.Minute
	}
	signKey := mustRSA(t)
	clientKey := mustRSA(t)
	p := &Provider{ClientKey: clientKey, count: map[string]int{}}
	p.srv = httptest.NewUnstartedServer(nil)
	p.Issuer = "http://" + p.srv.Listener.Addr().String()
	p.st = &storage{
		issuer:   p.Issuer,
		lifetime: opts.TokenLifetime,
		signing:  signKey,
		kid:      kid(&signKey.PublicKey),
		client:   clientKey,
		revoked:  map[string]bool{},
		trust:    opts.Trust,
		users:    opts.Users,
	}
	if len(p.st.users) == 0 {
		p.st.users = Users
	}
	var cryptoKey [32]byte
	if _, err := rand.Read(cryptoKey[:]); err != nil {
		t.Fatal(err)
	}
	provider, err := op.NewOpenIDProvider(p.Issuer, &op.Config{
		CryptoKey:               cryptoKey,
		AuthMethodPrivateKeyJWT: true,
	}, p.st, op.WithAllowInsecure(), op.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatalf("zitadel op provider: %v", err)
	}
	p.provider = provider
	p.legacy = op.NewLegacyServer(provider, provider.Endpoints())
	handler := op.RegisterLegacyServer(&opServer{LegacyServer: p.legacy, p: p}, op.AuthorizeCallbackHandler(provider))
	p.TokenURL = provider.Endpoints().Token.Absolute(p.Issuer)
	p.JWKSURL = provider.Endpoints().JwksURI.Absolute(p.Issuer)
	p.srv.Config.Handler = p.middleware(handler)
	p.srv.Start()
	t.Cleanup(p.srv.Close)
	return p
}

// Close stops the provider now (an authorization server that is down).
func (p *Provider) Close() { p.srv.Close() }

// SetDelay makes every request wait d (or until the client gives up)
// before it is answered: a slow authorization server.
func (p *Provider) SetDelay(d time.Duration) { p.delay.Store(int64(d)) }

// Revoke makes the provider refuse every exchange for user from now on.
func (p *Provider) Revoke(user string) {
	p.st.mu.Lock()
	defer p.st.mu.Unlock()
	p.st.revoked[user] = true
}

// Requests is how many token requests of grantType reached the token
// endpoint ("id-jag" counts token exchanges asking for an ID-JAG).
func (p *Provider) Requests(grantType string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.count[grantType]
}

// Issued is how many access tokens the provider has minted through its
// storage (exchanges and jwt-bearer grants that succeeded).
func (p *Provider) Issued() int { return int(p.st.issued.Load()) }

// AccessToken is a caller's access token for user with the given
// audience (the gateway's resource), as a JWT signed with the provider's
// key and built by op's own CreateJWT, so that op's access-token verifier
// accepts it as one of its own. It is minted directly rather than
// through an endpoint: op has no grant that issues a user's token
// without the interactive login this harness leaves out.
func (p *Provider) AccessToken(t testing.TB, user, audience string) string {
	t.Helper()
	ctx := op.ContextWithIssuer(context.Background(), p.Issuer)
	req := &tokenRequest{subject: user, audience: []string{audience}, scopes: []string{"openid"}}
	client := p.st.clients()[ClientID]
	id, exp, err := p.st.CreateAccessToken(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := op.CreateJWT(ctx, p.Issuer, req, exp, id, client, p.st)
	if err != nil {
		t.Fatalf("access token for %s: %v", user, err)
	}
	return tok
}

// IDToken is an ID token for user issued to clientID (the gateway), signed
// with the provider's key, for the identity-assertion grant's first step.
func (p *Provider) IDToken(t testing.TB, user, clientID string) string {
	t.Helper()
	now := time.Now()
	claims := oidc.NewIDTokenClaims(p.Issuer, user, []string{clientID}, now.Add(p.st.lifetime), now, "", "", nil, clientID, 0)
	tok, err := p.sign(claims, "")
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func (p *Provider) sign(claims any, typ string) (string, error) {
	opts := (&jose.SignerOptions{}).WithHeader("kid", p.st.kid)
	if typ != "" {
		opts = opts.WithType(jose.ContentType(typ))
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: p.st.signing}, opts)
	if err != nil {
		return "", err
	}
	return zcrypto.Sign(claims, signer)
}

// middleware counts token requests, applies the delay and answers
// token exchanges for an ID-JAG (which op refuses as an unknown type).
func (p *Provider) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d := time.Duration(p.delay.Load()); d > 0 {
			select {
			case <-time.After(d):
			case <-r.Context().Done():
				return
			}
		}
		if r.Method == http.MethodPost && r.URL.Path == "/oauth/token" {
			if err := r.ParseForm(); err == nil {
				key := r.PostForm.Get("grant_type")
				if r.PostForm.Get("requested_token_type") == TokenTypeIDJAG {
					key = "id-jag"
				}
				p.mu.Lock()
				p.count[key]++
				p.mu.Unlock()
				if key == "id-jag" {
					p.idjag(w, r.WithContext(op.ContextWithIssuer(r.Context(), p.Issuer)))
					return
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// client authenticates the request's client with op's own checks
// (client_secret_basic, client_secret_post or private_key_jwt).
func (p *Provider) clientOf(ctx context.Context, r *op.Request[op.ClientCredentials]) (op.Client, error) {
	cc := r.Data
	if id, secret, ok := basicAuth(r.Header); ok {
		cc.ClientID, cc.ClientSecret = id, secret
	}
	return p.legacy.VerifyClient(ctx, r)
}

func basicAuth(h http.Header) (id, secret string, ok bool) {
	r := http.Request{Header: h}
	return r.BasicAuth()
}

func credentialsOf(r *http.Request) *op.Request[op.ClientCredentials] {
	return &op.Request[op.ClientCredentials]{
		Method: r.Method, URL: r.URL, Header: r.Header, Form: r.Form, PostForm: r.PostForm,
		Data: &op.ClientCredentials{
			ClientID:            r.PostForm.Get("client_id"),
			ClientSecret:        r.PostForm.Get("client_secret"),
			ClientAssertion:     r.PostForm.Get("client_assertion"),
			ClientAssertionType: r.PostForm.Get("client_assertion_type"),
		},
	}
}

// idjag is the IdP half of the identity-assertion grant (ours): a token
// exchange whose subject token is one of this provider's ID or access
// tokens, answered with an ID-JAG for the requested audience.
func (p *Provider) idjag(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	client, err := p.clientOf(ctx, credentialsOf(r))
	if err != nil {
		op.WriteError(w, r, err, nil)
		return
	}
	f := r.PostForm
	subject := f.Get("subject_token")
	var sub string
	switch f.Get("subject_token_type") {
	case string(oidc.IDTokenType):
		c, err := op.VerifyIDTokenHint[*oidc.IDTokenClaims](ctx, subject, p.provider.IDTokenHintVerifier(ctx))
		if err != nil {
			op.WriteError(w, r, oidc.ErrInvalidGrant().WithDescription("subject_token is invalid"), nil)
			return
		}
		sub = c.Subject
	case string(oidc.AccessTokenType):
		c, err := op.VerifyAccessToken[*oidc.AccessTokenClaims](ctx, subject, p.provider.AccessTokenVerifier(ctx))
		if err != nil {
			op.WriteError(w, r, oidc.ErrInvalidGrant().WithDescription("subject_token is invalid"), nil)
			return
		}
		sub = c.Subject
	default:
		op.WriteError(w, r, oidc.ErrInvalidRequest().WithDescription("subject_token_type is not supported"), nil)
		return
	}
	if err := p.st.userOK(sub); err != nil {
		op.WriteError(w, r, err, nil)
		return
	}
	aud := f["audience"]
	if len(aud) == 0 {
		op.WriteError(w, r, oidc.ErrInvalidTarget().WithDescription("audience (the resource authorization server) is required"), nil)
		return
	}
	now := time.Now()
	claims := map[string]any{
		"iss":       p.Issuer,
		"sub":       sub,
		"aud":       aud,
		"client_id": client.GetID(),
		"jti":       randomID(),
		"iat":       now.Unix(),
		"exp":       now.Add(5 * time.Minute).Unix(),
	}
	if res := f["resource"]; len(res) > 0 {
		claims["resource"] = res[0]
	}
	if s := f.Get("scope"); s != "" {
		claims["scope"] = s
	}
	jag, err := p.sign(claims, "oauth-id-jag+jwt")
	if err != nil {
		op.WriteError(w, r, oidc.ErrServerError().WithParent(err), nil)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = fmt.Fprintf(w, `{"access_token":%q,"issued_token_type":%q,"token_type":"N_A","expires_in":300}`, jag, TokenTypeIDJAG)
}

// opServer is op's LegacyServer with the jwt-bearer grant replaced by the
// resource-AS half of the identity-assertion grant (ours).
type opServer struct {
	*op.LegacyServer
	p *Provider
}

// JWTProfile accepts an ID-JAG issued by the trusted IdP to the
// authenticated client and answers an access token for the ID-JAG's
// subject, its audience the ID-JAG's resource.
func (s *opServer) JWTProfile(ctx context.Context, r *op.Request[oidc.JWTProfileGrantRequest]) (*op.Response, error) {
	if s.p.st.trust == nil {
		return nil, oidc.ErrUnsupportedGrantType().WithDescription("this provider trusts no identity assertion issuer")
	}
	cr := &op.Request[op.ClientCredentials]{Method: r.Method, URL: r.URL, Header: r.Header, Form: r.Form, PostForm: r.PostForm,
		Data: &op.ClientCredentials{
			ClientID: r.Form.Get("client_id"), ClientSecret: r.Form.Get("client_secret"),
			ClientAssertion: r.Form.Get("client_assertion"), ClientAssertionType: r.Form.Get("client_assertion_type"),
		}}
	client, err := s.p.clientOf(ctx, cr)
	if err != nil {
		return nil, err
	}
	v := op.NewJWTProfileVerifier(s.p.st, op.IssuerFromContext(ctx), time.Hour, time.Second,
		op.SubjectCheck(func(*oidc.JWTTokenRequest) error { return nil }))
	jag, err := op.VerifyJWTAssertion(ctx, r.Data.Assertion, v)
	if err != nil {
		return nil, oidc.ErrInvalidGrant().WithDescription("assertion invalid").WithParent(err)
	}
	if jag.Issuer != s.p.st.trust.Issuer {
		return nil, oidc.ErrInvalidGrant().WithDescription("assertion from an untrusted issuer")
	}
	if cid, _ := jag.GetCustomClaim("client_id").(string); cid != client.GetID() {
		return nil, oidc.ErrInvalidGrant().WithDescription("assertion was issued to another client")
	}
	if err := s.p.st.userOK(jag.Subject); err != nil {
		return nil, err
	}
	aud := []string{s.p.Issuer}
	if res, _ := jag.GetCustomClaim("resource").(string); res != "" {
		aud = []string{res}
	}
	var scopes []string
	if sc, _ := jag.GetCustomClaim("scope").(string); sc != "" {
		scopes = strings.Fields(sc)
	}
	req := &tokenRequest{subject: jag.Subject, audience: aud, scopes: scopes}
	tok, _, validity, err := op.CreateAccessToken(ctx, req, op.AccessTokenTypeJWT, s.p.provider, client, "")
	if err != nil {
		return nil, err
	}
	return op.NewResponse(&oidc.AccessTokenResponse{
		AccessToken: tok, TokenType: oidc.BearerToken, ExpiresIn: uint64(validity.Seconds()), Scope: scopes,
	}), nil
}

// tokenRequest is an op.TokenRequest built here.
type tokenRequest struct {
	subject  string
	audience []string
	scopes   []string
}

func (r *tokenRequest) GetSubject() string    { return r.subject }
func (r *tokenRequest) GetAudience() []string { return r.audience }
func (r *tokenRequest) GetScopes() []string   { return r.scopes }

func mustRSA(t testing.TB) *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func kid(pub crypto.PublicKey) string {
	j := jose.JSONWebKey{Key: pub}
	b, err := j.Thumbprint(crypto.SHA256)
	if err != nil {
		sum := sha256.Sum256([]byte(fmt.Sprint(pub)))
		b = sum[:]
	}
	return hex.EncodeToString(b[:8])
}

func randomID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

var errNotSupported = errors.New("not supported by the oauthtest provider")

// contains reports whether s holds v.
func contains(s []string, v string) bool { return slices.Contains(s, v) }
