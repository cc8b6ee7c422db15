package upstreamauth

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// IdentityAssertionOptions configure an IdentityAssertion.
type IdentityAssertionOptions struct {
	// Upstream names the upstream, for errors.
	Upstream string
	// IdPTokenURL is the enterprise IdP's token endpoint (step 1: the
	// caller's token for an ID-JAG).
	IdPTokenURL string
	// ResourceTokenURL is the upstream's authorization server's token
	// endpoint (step 2: the ID-JAG for an access token).
	ResourceTokenURL string
	// ClientAuth authenticates the gateway at both; with PrivateKeyJWT,
	// list both servers' issuers in its Audience when they want them.
	ClientAuth
	// Audience is the resource authorization server's issuer, the
	// ID-JAG's audience.
	Audience string
	// Resource is the upstream's URL (the ID-JAG's resource).
	Resource string
	// Scopes are asked for in both steps.
	Scopes []string
	// SubjectTokenType is the caller token's type (default
	// urn:ietf:params:oauth:token-type:id_token).
	SubjectTokenType string
	// HTTPClient sends the requests (default http.DefaultClient).
	HTTPClient *http.Client
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Cache keeps the access tokens (not the ID-JAGs); nil: its own.
	Cache *Cache
}

// IdentityAssertion is a Source for the identity-assertion authorization
// grant (draft-ietf-oauth-identity-assertion-authz-grant), which MCP's
// enterprise-managed authorization uses: the caller's token is exchanged
// at the enterprise IdP for an identity assertion JWT (ID-JAG), and that
// at the upstream's authorization server (RFC 7523 jwt-bearer grant) for
// an access token, cached like TokenExchange's.
type IdentityAssertion struct {
	o   IdentityAssertionOptions
	key sourceKey
}

// Steps of IdentityAssertion, as ExchangeError.Step names them.
const (
	StepIDJAG     = "id_jag"     // at the IdP
	StepJWTBearer = "jwt_bearer" // at the resource authorization server
)

// NewIdentityAssertion checks o and returns its Source.
func NewIdentityAssertion(o IdentityAssertionOptions) (*IdentityAssertion, error) {
	bad := func(format string, args ...any) (*IdentityAssertion, error) {
		return nil, fmt.Errorf("upstream %q: identity_assertion: "+format, append([]any{o.Upstream}, args...)...)
	}
	switch {
	case o.IdPTokenURL == "":
		return bad("idp_token_url is required")
	case o.ResourceTokenURL == "":
		return bad("resource_token_url is required")
	case o.Audience == "":
		return bad("audience (the resource authorization server's issuer) is required")
	}
	if err := o.ClientAuth.check(); err != nil {
		return bad("%v", err)
	}
	if o.SubjectTokenType == "" {
		o.SubjectTokenType = TokenTypeIDToken
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
	return &IdentityAssertion{o: o, key: sourceKey{upstream: o.Upstream, audience: "id-jag\x00" + o.Audience + "\x00" + o.Resource}}, nil
}

// Token gives the caller's access token for the upstream.
func (a *IdentityAssertion) Token(ctx context.Context, c Caller) (Token, error) {
	if !c.Token.IsSet() {
		return Token{}, &ExchangeError{Upstream: a.o.Upstream, Step: StepIDJAG, Reason: "the caller has no token to present to the identity provider (identity assertion needs a caller authenticated with an OAuth token, not a static principal or stdio)"}
	}
	tok, key, ok := a.o.Cache.hit(a.key, c, a.o.Now())
	if ok {
		return tok, nil
	}
	return a.o.Cache.miss(ctx, key, StepIDJAG, c, a.o.Now, func(ctx context.Context, callerSub string) (Token, error) {
		return a.fetch(ctx, c, callerSub)
	})
}

func (a *IdentityAssertion) fetch(ctx context.Context, c Caller, callerSub string) (Token, error) {
	form := url.Values{
		"grant_type":           {GrantTypeTokenExchange},
		"requested_token_type": {TokenTypeIDJAG},
		"subject_token":        {c.Token.Value()},
		"subject_token_type":   {a.o.SubjectTokenType},
	}
	var resource []string
	if a.o.Resource != "" {
		resource = []string{a.o.Resource}
	}
	setTarget(form, a.o.Audience, resource, a.o.Scopes)
	jag, err := post(ctx, a.o.HTTPClient, a.o.Upstream, StepIDJAG, a.o.IdPTokenURL, a.o.ClientAuth, form, a.o.Now, c.Token.Value())
	if err != nil {
		return Token{}, err
	}
	if jag.IssuedTokenType != "" && jag.IssuedTokenType != TokenTypeIDJAG {
		return Token{}, &ExchangeError{Upstream: a.o.Upstream, Step: StepIDJAG,
			Reason: fmt.Sprintf("the identity provider issued a %s, not an ID-JAG", clean(jag.IssuedTokenType, 100))}
	}
	form = url.Values{
		"grant_type": {GrantTypeJWTBearer},
		"assertion":  {jag.AccessToken},
	}
	if len(a.o.Scopes) > 0 {
		form.Set("scope", strings.Join(a.o.Scopes, " "))
	}
	r, err := post(ctx, a.o.HTTPClient, a.o.Upstream, StepJWTBearer, a.o.ResourceTokenURL, a.o.ClientAuth, form, a.o.Now, c.Token.Value(), jag.AccessToken)
	if err != nil {
		return Token{}, err
	}
	return r.token(ModeIdentityAssertion, callerSub, c.Principal, a.o.Now), nil
}
