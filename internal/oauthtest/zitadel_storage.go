package oauthtest

// The in-memory op.Storage of the zitadel provider (ours, written for
// these tests after the shape of zitadel/oidc's example/server/storage,
// Apache-2.0). It knows the users alice and bob (or ProviderOptions.Users),
// the clients ClientID (client_secret_basic) and JWTClientID
// (private_key_jwt), issues JWT access tokens, implements op.TokenExchangeStorage, and has no
// authorization-code flow and no refresh tokens.

import (
	"context"
	"crypto/rsa"
	"sync"
	"sync/atomic"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

type storage struct {
	issuer   string
	lifetime time.Duration
	signing  *rsa.PrivateKey
	kid      string
	client   *rsa.PrivateKey // JWTClientID's key
	trust    *Provider
	users    []string
	issued   atomic.Int64

	mu      sync.Mutex
	revoked map[string]bool
}

func (s *storage) userOK(sub string) *oidc.Error {
	if !contains(s.users, sub) {
		return oidc.ErrInvalidGrant().WithDescription("unknown user")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.revoked[sub] {
		return oidc.ErrInvalidGrant().WithDescription("the user's access has been revoked")
	}
	return nil
}

func (s *storage) clients() map[string]*client {
	return map[string]*client{
		ClientID:    {id: ClientID, secret: ClientSecret, method: oidc.AuthMethodBasic},
		JWTClientID: {id: JWTClientID, method: oidc.AuthMethodPrivateKeyJWT},
	}
}

// AuthStorage: no authorization-code flow, no refresh tokens.

func (s *storage) CreateAuthRequest(context.Context, *oidc.AuthRequest, string) (op.AuthRequest, error) {
	return nil, errNotSupported
}
func (s *storage) AuthRequestByID(context.Context, string) (op.AuthRequest, error) {
	return nil, errNotSupported
}
func (s *storage) AuthRequestByCode(context.Context, string) (op.AuthRequest, error) {
	return nil, errNotSupported
}
func (s *storage) SaveAuthCode(context.Context, string, string) error { return errNotSupported }
func (s *storage) DeleteAuthRequest(context.Context, string) error    { return nil }

func (s *storage) CreateAccessToken(context.Context, op.TokenRequest) (string, time.Time, error) {
	s.issued.Add(1)
	return randomID(), time.Now().Add(s.lifetime), nil
}

func (s *storage) CreateAccessAndRefreshTokens(context.Context, op.TokenRequest, string) (string, string, time.Time, error) {
	return "", "", time.Time{}, errNotSupported
}
func (s *storage) TokenRequestByRefreshToken(context.Context, string) (op.RefreshTokenRequest, error) {
	return nil, op.ErrInvalidRefreshToken
}
func (s *storage) TerminateSession(context.Context, string, string) error { return nil }
func (s *storage) RevokeToken(context.Context, string, string, string) *oidc.Error {
	return nil
}
func (s *storage) GetRefreshTokenInfo(context.Context, string, string) (string, string, error) {
	return "", "", op.ErrInvalidRefreshToken
}

type signingKey struct {
	id  string
	key *rsa.PrivateKey
}

func (k signingKey) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k signingKey) Key() any                                    { return k.key }
func (k signingKey) ID() string                                  { return k.id }

type publicKey struct {
	id  string
	key *rsa.PublicKey
}

func (k publicKey) ID() string                         { return k.id }
func (k publicKey) Algorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k publicKey) Use() string                        { return "sig" }
func (k publicKey) Key() any                           { return k.key }

func (s *storage) SigningKey(context.Context) (op.SigningKey, error) {
	return signingKey{id: s.kid, key: s.signing}, nil
}
func (s *storage) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.RS256}, nil
}
func (s *storage) KeySet(context.Context) ([]op.Key, error) {
	return []op.Key{publicKey{id: s.kid, key: &s.signing.PublicKey}}, nil
}

// OPStorage.

func (s *storage) GetClientByClientID(_ context.Context, id string) (op.Client, error) {
	if c, ok := s.clients()[id]; ok {
		return c, nil
	}
	return nil, oidc.ErrInvalidClient().WithDescription("unknown client")
}

func (s *storage) AuthorizeClientIDSecret(_ context.Context, id, secret string) error {
	c, ok := s.clients()[id]
	if !ok || c.secret == "" || c.secret != secret {
		return oidc.ErrInvalidClient().WithDescription("client authentication failed")
	}
	return nil
}

func (s *storage) SetUserinfoFromScopes(_ context.Context, ui *oidc.UserInfo, userID, _ string, _ []string) error {
	ui.Subject = userID
	return nil
}
func (s *storage) SetUserinfoFromToken(_ context.Context, ui *oidc.UserInfo, _, subject, _ string) error {
	ui.Subject = subject
	return nil
}
func (s *storage) SetIntrospectionFromToken(_ context.Context, r *oidc.IntrospectionResponse, _, subject, clientID string) error {
	r.Active, r.Subject, r.ClientID = true, subject, clientID
	return nil
}
func (s *storage) GetPrivateClaimsFromScopes(context.Context, string, string, []string) (map[string]any, error) {
	return nil, nil
}

// GetKeyByIDAndClientID gives the keys the provider trusts for JWT
// assertions: JWTClientID's key for its client assertions, and the
// trusted IdP's signing key for ID-JAGs (clientID is then the IdP's
// issuer).
func (s *storage) GetKeyByIDAndClientID(_ context.Context, keyID, clientID string) (*jose.JSONWebKey, error) {
	switch {
	case clientID == JWTClientID && keyID == JWTClientKID:
		return &jose.JSONWebKey{Key: &s.client.PublicKey, KeyID: keyID, Algorithm: string(jose.RS256), Use: "sig"}, nil
	case s.trust != nil && clientID == s.trust.Issuer && keyID == s.trust.st.kid:
		return &jose.JSONWebKey{Key: &s.trust.st.signing.PublicKey, KeyID: keyID, Algorithm: string(jose.RS256), Use: "sig"}, nil
	}
	return nil, oidc.ErrInvalidClient().WithDescription("unknown key")
}

func (s *storage) ValidateJWTProfileScopes(_ context.Context, _ string, scopes []string) ([]string, error) {
	return scopes, nil
}

func (s *storage) Health(context.Context) error { return nil }

// JWTProfileTokenType: JWT access tokens.
func (s *storage) JWTProfileTokenType(context.Context, op.TokenRequest) (op.AccessTokenType, error) {
	return op.AccessTokenTypeJWT, nil
}

// TokenExchangeStorage: subject tokens issued by this provider, for a
// known user who is not revoked, exchanged for a JWT access token for
// the requested audience with sub = the subject.

func (s *storage) ValidateTokenExchangeRequest(_ context.Context, r op.TokenExchangeRequest) error {
	if r.GetRequestedTokenType() == "" {
		r.SetRequestedTokenType(oidc.AccessTokenType)
	}
	if r.GetRequestedTokenType() != oidc.AccessTokenType {
		return oidc.ErrInvalidRequest().WithDescription("only access tokens are issued by exchange")
	}
	if len(r.GetAudience()) == 0 && len(r.GetResourses()) == 0 {
		return oidc.ErrInvalidTarget().WithDescription("audience or resource is required")
	}
	if err := s.userOK(r.GetExchangeSubject()); err != nil {
		return err
	}
	r.SetSubject(r.GetExchangeSubject())
	return nil
}

func (s *storage) CreateTokenExchangeRequest(context.Context, op.TokenExchangeRequest) error {
	return nil
}

func (s *storage) GetPrivateClaimsFromTokenExchangeRequest(context.Context, op.TokenExchangeRequest) (map[string]any, error) {
	return map[string]any{"exchanged": true}, nil
}

func (s *storage) SetUserinfoFromTokenExchangeRequest(_ context.Context, ui *oidc.UserInfo, r op.TokenExchangeRequest) error {
	ui.Subject = r.GetSubject()
	return nil
}

// client is a registered client.
type client struct {
	id, secret string
	method     oidc.AuthMethod
}

func (c *client) GetID() string                        { return c.id }
func (c *client) RedirectURIs() []string               { return nil }
func (c *client) PostLogoutRedirectURIs() []string     { return nil }
func (c *client) ApplicationType() op.ApplicationType  { return op.ApplicationTypeWeb }
func (c *client) AuthMethod() oidc.AuthMethod          { return c.method }
func (c *client) ResponseTypes() []oidc.ResponseType   { return nil }
func (c *client) LoginURL(string) string               { return "" }
func (c *client) AccessTokenType() op.AccessTokenType  { return op.AccessTokenTypeJWT }
func (c *client) IDTokenLifetime() time.Duration       { return 5 * time.Minute }
func (c *client) DevMode() bool                        { return true }
func (c *client) IsScopeAllowed(string) bool           { return true }
func (c *client) IDTokenUserinfoClaimsAssertion() bool { return false }
func (c *client) ClockSkew() time.Duration             { return 0 }
func (c *client) RestrictAdditionalIdTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (c *client) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (c *client) GrantTypes() []oidc.GrantType {
	return []oidc.GrantType{oidc.GrantTypeTokenExchange, oidc.GrantTypeBearer, oidc.GrantTypeClientCredentials}
}
