// Each user's own identity toward a remote upstream: upstreams[].auth's
// token_exchange, user_oauth and identity_assertion (docs/upstreams.md,
// "Each user's identity"), and server.public_url, where browsers reach
// the gateway's connect pages.

package loader

import (
	"fmt"
	neturl "net/url"
	"os"
	"strings"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/internal/netutil"
)

// Modes of upstreams[].auth that reach the upstream as the caller.
const (
	ModeTokenExchange     = "token_exchange"
	ModeUserOAuth         = "user_oauth"
	ModeIdentityAssertion = "identity_assertion"
)

// OAuthPath is where the gateway serves the pages of user_oauth (the
// connect page, the callback, client ID metadata documents) on the MCP
// HTTP listener.
const OAuthPath = "/oauth"

// Subject token types of RFC 8693 a caller's token may be sent as.
const (
	TokenTypeAccessToken = "urn:ietf:params:oauth:token-type:access_token"
	TokenTypeIDToken     = "urn:ietf:params:oauth:token-type:id_token"
	TokenTypeJWT         = "urn:ietf:params:oauth:token-type:jwt"
)

// ClientAuth is how the gateway authenticates itself to an authorization
// server: a client secret (client_secret_env or client_secret_file) or
// a private key (private_key_jwt, RFC 7523).
type ClientAuth struct {
	ClientID         string         `koanf:"client_id"`
	ClientSecretEnv  string         `koanf:"client_secret_env"`
	ClientSecretFile string         `koanf:"client_secret_file"`
	PrivateKeyJWT    *PrivateKeyJWT `koanf:"private_key_jwt"`
}

// PrivateKeyJWT is a client's private key (PEM: RSA, ECDSA or Ed25519)
// and the key id its assertions name.
type PrivateKeyJWT struct {
	KeyFile string `koanf:"key_file"`
	KID     string `koanf:"kid"`
	// Alg is the signing algorithm; default from the key (RS256, ES256,
	// ES384, EdDSA).
	Alg string `koanf:"alg"`
}

// SecretRef is where the client secret is.
func (c ClientAuth) SecretRef(key string) config.SecretRef {
	return config.SecretRef{Key: key, EnvKey: "client_secret_env", Env: c.ClientSecretEnv, FileKey: "client_secret_file", File: c.ClientSecretFile}
}

// UpstreamTokenExchange is auth.token_exchange: the caller's access token
// exchanged (RFC 8693) for one scoped to the upstream.
type UpstreamTokenExchange struct {
	TokenURL   string `koanf:"token_url"`
	ClientAuth `koanf:",squash"`
	Audience   string   `koanf:"audience"`
	Resource   string   `koanf:"resource"`
	Scopes     []string `koanf:"scopes"`
	// SubjectTokenType is how the caller's token is presented; default
	// access_token.
	SubjectTokenType string `koanf:"subject_token_type"`
	Key              string `koanf:"-"`
}

// UpstreamUserOAuth is auth.user_oauth: each user connects their own
// account once (authorization code with PKCE); the grants are kept in
// the credentials vault.
type UpstreamUserOAuth struct {
	AuthorizationURL string `koanf:"authorization_url"`
	TokenURL         string `koanf:"token_url"`
	ClientID         string `koanf:"client_id"`
	ClientSecretEnv  string `koanf:"client_secret_env"`
	ClientSecretFile string `koanf:"client_secret_file"`
	// ClientMetadata: the gateway serves a client ID metadata document
	// under server.public_url, and its URL is the client ID.
	ClientMetadata bool     `koanf:"client_metadata"`
	Scopes         []string `koanf:"scopes"`
	Key            string   `koanf:"-"`
	// PublicURL is server.public_url (checkUserIdentity copies it): a
	// change restarts the upstream.
	PublicURL string `koanf:"-"`
}

// SecretRef is where the client secret is.
func (o UpstreamUserOAuth) SecretRef() config.SecretRef {
	return config.SecretRef{Key: o.Key, EnvKey: "client_secret_env", Env: o.ClientSecretEnv, FileKey: "client_secret_file", File: o.ClientSecretFile}
}

// UpstreamIdentityAssertion is auth.identity_assertion: the caller's
// identity token exchanged at the enterprise IdP for an identity
// assertion JWT (ID-JAG), and that at the upstream's authorization
// server for an access token. One client (client_id and its secret or
// key) authenticates at both.
type UpstreamIdentityAssertion struct {
	IdPTokenURL      string `koanf:"idp_token_url"`
	ResourceTokenURL string `koanf:"resource_token_url"`
	ClientAuth       `koanf:",squash"`
	// Audience is the upstream authorization server's issuer, the
	// assertion's audience.
	Audience string `koanf:"audience"`
	// Resource is the upstream's resource identifier; default its url.
	Resource string   `koanf:"resource"`
	Scopes   []string `koanf:"scopes"`
	// SubjectTokenType is how the caller's token is presented; default
	// id_token.
	SubjectTokenType string `koanf:"subject_token_type"`
	Key              string `koanf:"-"`
}

// UserMode is the mode of auth that reaches the upstream as the caller
// (ModeTokenExchange, ModeUserOAuth, ModeIdentityAssertion), or "".
func (a UpstreamAuth) UserMode() string {
	switch {
	case a.TokenExchange != nil:
		return ModeTokenExchange
	case a.UserOAuth != nil:
		return ModeUserOAuth
	case a.IdentityAssertion != nil:
		return ModeIdentityAssertion
	}
	return ""
}

// normalizeIdentity checks the per-user modes of a (the bearer and
// client credentials are checked by normalizeRemote); it returns how
// many modes are set.
func (a *UpstreamAuth) normalizeIdentity(env *config.Env) int {
	n := 0
	if t := a.TokenExchange; t != nil {
		n++
		t.Key = a.Key + "." + ModeTokenExchange
		checkEndpointURL(env, t.Key+".token_url", t.TokenURL)
		t.ClientAuth.normalize(t.Key, env)
		if t.Audience == "" && t.Resource == "" && len(t.Scopes) == 0 {
			env.Bad(t.Key, "set audience, resource or scopes: what the exchanged token is for (without them the authorization server would issue one for any of its resources)")
		}
		if t.Resource != "" {
			checkAbsURL(env, t.Key+".resource", t.Resource)
		}
		t.SubjectTokenType = subjectTokenType(env, t.Key+".subject_token_type", t.SubjectTokenType, TokenTypeAccessToken)
	}
	if o := a.UserOAuth; o != nil {
		n++
		o.Key = a.Key + "." + ModeUserOAuth
		checkEndpointURL(env, o.Key+".authorization_url", o.AuthorizationURL)
		checkEndpointURL(env, o.Key+".token_url", o.TokenURL)
		switch {
		case o.ClientMetadata && o.ClientID != "":
			env.Bad(o.Key+".client_id", "with client_metadata: true the client ID is the URL of the gateway's client ID metadata document; remove client_id")
		case !o.ClientMetadata && o.ClientID == "":
			env.Bad(o.Key+".client_id", "missing: the client ID registered at the authorization server (or client_metadata: true)")
		}
		if o.ClientSecretEnv != "" && o.ClientSecretFile != "" {
			env.Bad(o.Key, "set client_secret_env or client_secret_file, not both")
		}
		if o.ClientMetadata && (o.ClientSecretEnv != "" || o.ClientSecretFile != "") {
			env.Bad(o.Key, "a client ID metadata document names a public client: remove client_secret_env/client_secret_file, or client_metadata")
		}
		if o.ClientSecretFile != "" {
			o.ClientSecretFile = env.Path(o.ClientSecretFile)
			env.WatchFile(o.ClientSecretFile)
		}
	}
	if ia := a.IdentityAssertion; ia != nil {
		n++
		ia.Key = a.Key + "." + ModeIdentityAssertion
		checkEndpointURL(env, ia.Key+".idp_token_url", ia.IdPTokenURL)
		checkEndpointURL(env, ia.Key+".resource_token_url", ia.ResourceTokenURL)
		ia.ClientAuth.normalize(ia.Key, env)
		if ia.Audience == "" {
			env.Bad(ia.Key+".audience", "missing: the issuer of the upstream's authorization server (the identity assertion's audience)")
		}
		if ia.Resource != "" {
			checkAbsURL(env, ia.Key+".resource", ia.Resource)
		}
		ia.SubjectTokenType = subjectTokenType(env, ia.Key+".subject_token_type", ia.SubjectTokenType, TokenTypeIDToken)
	}
	return n
}

func (c *ClientAuth) normalize(key string, env *config.Env) {
	if c.ClientID == "" {
		env.Bad(key+".client_id", "missing")
	}
	secret := c.ClientSecretEnv != "" || c.ClientSecretFile != ""
	switch {
	case c.ClientSecretEnv != "" && c.ClientSecretFile != "":
		env.Bad(key, "set client_secret_env or client_secret_file, not both")
	case secret && c.PrivateKeyJWT != nil:
		env.Bad(key, "set a client secret (client_secret_env, client_secret_file) or private_key_jwt, not both")
	case !secret && c.PrivateKeyJWT == nil:
		env.Bad(key, "needs client_secret_env, client_secret_file or private_key_jwt: how the gateway authenticates to the authorization server")
	}
	if c.ClientSecretFile != "" {
		c.ClientSecretFile = env.Path(c.ClientSecretFile)
		env.WatchFile(c.ClientSecretFile)
	}
	if p := c.PrivateKeyJWT; p != nil {
		k := key + ".private_key_jwt"
		if p.KeyFile == "" {
			env.Bad(k+".key_file", "missing: a PEM file with the client's private key")
		} else {
			p.KeyFile = env.Path(p.KeyFile)
			if _, err := os.Stat(p.KeyFile); err != nil {
				env.Bad(k+".key_file", "%q: %v", p.KeyFile, unwrapPathError(err))
			} else {
				env.WatchFile(p.KeyFile)
			}
		}
		switch p.Alg {
		case "", "RS256", "RS384", "RS512", "PS256", "ES256", "ES384", "ES512", "EdDSA":
		default:
			env.Bad(k+".alg", "%q: want RS256, RS384, RS512, PS256, ES256, ES384, ES512 or EdDSA (default: from the key)", p.Alg)
		}
	}
}

// subjectTokenType is v as an RFC 8693 token type URN: the short names
// access_token, id_token and jwt, or the URN itself.
func subjectTokenType(env *config.Env, key, v, def string) string {
	switch v {
	case "":
		return def
	case "access_token", TokenTypeAccessToken:
		return TokenTypeAccessToken
	case "id_token", TokenTypeIDToken:
		return TokenTypeIDToken
	case "jwt", TokenTypeJWT:
		return TokenTypeJWT
	}
	env.Bad(key, "%q: want access_token, id_token or jwt", v)
	return def
}

// checkEndpointURL checks an authorization server's endpoint: https, or
// http to a loopback host.
func checkEndpointURL(env *config.Env, key, raw string) {
	if raw == "" {
		env.Bad(key, "missing")
		return
	}
	if err := checkUpstreamURL(raw); err != nil {
		env.Bad(key, "%q: %v", raw, err)
	}
}

func checkAbsURL(env *config.Env, key, raw string) {
	if u, err := neturl.Parse(raw); err != nil || !u.IsAbs() {
		env.Bad(key, "%q: want an absolute URI", raw)
	}
}

// checkPublicURL checks server.public_url: an absolute https URL (http
// only to a loopback host), without query or fragment; returned without
// its trailing slash.
func checkPublicURL(env *config.Env, raw string) string {
	u, err := neturl.Parse(raw)
	switch {
	case err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http"):
		env.Bad("server.public_url", "%q: want the absolute URL browsers reach the gateway at, e.g. https://mcp.example.com", raw)
	case u.Scheme == "http" && !netutil.Loopback(u.Hostname()):
		env.Bad("server.public_url", "%q: plain http is allowed only to a loopback host (browsers carry OAuth codes to it); use https://", raw)
	case u.User != nil || u.RawQuery != "" || u.Fragment != "":
		env.Bad("server.public_url", "%q: no user info, query or fragment", raw)
	}
	return strings.TrimSuffix(raw, "/")
}

// checkUserIdentity checks what the per-user modes need of the other
// sections: a remote upstream, callers with access tokens for the
// exchanges, and server.public_url, the credentials vault and the HTTP
// transport for user_oauth.
func (c *Config) checkUserIdentity(env *config.Env) {
	if c.Server.PublicURL != "" {
		c.Server.PublicURL = checkPublicURL(env, c.Server.PublicURL)
	}
	for i := range c.Upstreams {
		u := &c.Upstreams[i]
		mode := u.Auth.UserMode()
		if mode == "" || u.Stdio() {
			continue
		}
		k := u.Auth.Key + "." + mode
		switch mode {
		case ModeTokenExchange, ModeIdentityAssertion:
			if c.Auth.JWT == nil {
				env.Bad(k, "exchanges each caller's access token, but no caller has one: configure auth.jwt (callers authenticated by OAuth access tokens)")
			}
		case ModeUserOAuth:
			u.Auth.UserOAuth.PublicURL = c.Server.PublicURL
			if c.Server.PublicURL == "" {
				env.Bad("server.public_url", "missing: %s sends each user's browser to the gateway's connect page and back; set the URL browsers reach the gateway at", k)
			}
			if !c.Credentials.Set() {
				env.Bad("credentials", "missing: %s keeps each user's grant encrypted; set credentials.key_env or credentials.key_file (32 bytes, base64)", k)
			}
			if !c.Transports.HTTP.On() {
				env.Bad(k, "the connect pages are served on the MCP HTTP listener: enable transports.http")
			}
		}
	}
}

// String names the mode for messages.
func modeList() string {
	return fmt.Sprintf("%s, %s or %s", ModeTokenExchange, ModeUserOAuth, ModeIdentityAssertion)
}
