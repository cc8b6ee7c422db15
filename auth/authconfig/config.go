// Package authconfig is the auth section of gateway.yaml: its keys,
// defaults and checks. It is a leaf, so that the config loader does not
// link the authenticator (package auth) and its JWT libraries.
package authconfig

import (
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/internal/netutil"
)

// Defaults and bounds of the auth section.
const (
	DefaultLeeway         = 30 * time.Second
	MaxLeeway             = 5 * time.Minute
	DefaultRefresh        = 10 * time.Minute
	MinRefresh            = time.Minute
	MaxRefresh            = 24 * time.Hour
	DefaultPrincipalClaim = "sub"
	DefaultGroupsClaim    = "groups"
)

// MetadataPath is where RFC 9728 puts the protected-resource metadata
// (auth.MetadataPath): the MCP listener serves it there and under it, so
// no endpoint's path may be either.
const MetadataPath = "/.well-known/oauth-protected-resource"

// DefaultAlgorithms are the JWS algorithms accepted when jwt.algorithms is
// not set: every asymmetric signature algorithm this package supports.
var DefaultAlgorithms = []string{
	"RS256", "RS384", "RS512",
	"PS256", "PS384", "PS512",
	"ES256", "ES384", "ES512",
	"EdDSA",
}

// Config is the auth section of gateway.yaml: who may call the gateway
// over HTTP.
type Config struct {
	// Principals are callers known by a static bearer token.
	Principals []PrincipalConfig `koanf:"principals"`
	// JWT, when set, accepts OAuth 2.1 access tokens (signed JWTs).
	JWT *JWTConfig `koanf:"jwt"`
	// AllowAnonymous accepts a listener that is not loopback with no
	// principals and no jwt (see CheckExposure).
	AllowAnonymous bool `koanf:"allow_anonymous"`

	// File (gateway.yaml) and Key (where the section sits, "auth") are
	// set by Normalize, for the errors of auth.New.
	File string `koanf:"-"`
	Key  string `koanf:"-"`
}

// PrincipalConfig is one named caller with a static bearer token. The
// token is given by exactly one of TokenSHA256 (its SHA-256 in hex),
// TokenEnv (an environment variable holding it) or TokenFile (a file
// holding it, surrounding whitespace trimmed); never in clear.
type PrincipalConfig struct {
	Name        string   `koanf:"name"`
	TokenSHA256 string   `koanf:"token_sha256"`
	TokenEnv    string   `koanf:"token_env"`
	TokenFile   string   `koanf:"token_file"`
	Groups      []string `koanf:"groups"`
}

// JWTConfig accepts JWT access tokens signed by an authorization server,
// checked against its JWKS (from JWKSURL, refreshed every Refresh, or
// from JWKSFile, reloaded when saved).
type JWTConfig struct {
	Issuer     string          `koanf:"issuer"`
	Audience   string          `koanf:"audience"`
	JWKSURL    string          `koanf:"jwks_url"`
	JWKSFile   string          `koanf:"jwks_file"`
	Algorithms []string        `koanf:"algorithms"`
	Leeway     config.Duration `koanf:"leeway"`
	// PrincipalClaim names the claim that becomes Principal.Name.
	PrincipalClaim string `koanf:"principal_claim"`
	// GroupsClaim names the claim that becomes Principal.Groups: an array
	// of strings or a space-separated string (like scope).
	GroupsClaim string `koanf:"groups_claim"`
	// AuthorizationServers are named in the protected-resource metadata;
	// the default is [Issuer].
	AuthorizationServers []string        `koanf:"authorization_servers"`
	Refresh              config.Duration `koanf:"refresh"`
}

// TokenRef is where the principal's token is, for config.SecretRef.Read;
// key is where the principal sits ("auth.principals[0]").
func (p PrincipalConfig) TokenRef(key string) config.SecretRef {
	return config.SecretRef{Key: key, EnvKey: "token_env", Env: p.TokenEnv, FileKey: "token_file", File: p.TokenFile}
}

// Enabled reports whether HTTP callers must authenticate: some principals
// or a jwt section are configured.
func (c Config) Enabled() bool { return len(c.Principals) > 0 || c.JWT != nil }

// Normalize fills defaults, resolves token_file and jwks_file against the
// config's folder (and watches them) and reports every bad value.
func (c *Config) Normalize(key string, env *config.Env) {
	c.File, c.Key = env.File, key
	names := map[string]int{}
	digests := map[string]int{}
	for i := range c.Principals {
		p := &c.Principals[i]
		pk := fmt.Sprintf("%s.principals[%d]", key, i)
		switch j, dup := names[p.Name]; {
		case p.Name == "":
			env.Bad(pk+".name", "missing: every principal needs a name")
		case !config.ValidName(p.Name):
			env.Bad(pk+".name", "%q is not a valid name (1-64 letters, digits, '_', '-' or '.')", p.Name)
		case dup:
			env.Bad(pk+".name", "%q is also the name of %s.principals[%d]", p.Name, key, j)
		default:
			names[p.Name] = i
		}
		var set []string
		if p.TokenSHA256 != "" {
			set = append(set, "token_sha256")
		}
		if p.TokenEnv != "" {
			set = append(set, "token_env")
		}
		if p.TokenFile != "" {
			set = append(set, "token_file")
		}
		switch len(set) {
		case 0:
			env.Bad(pk, "no token: set one of token_sha256, token_env or token_file")
		case 1:
		default:
			env.Bad(pk, "set only one of token_sha256, token_env or token_file, not %s", strings.Join(set, " and "))
		}
		if p.TokenSHA256 != "" {
			// The value is not repeated: it might be a token pasted by mistake.
			d, err := hex.DecodeString(p.TokenSHA256)
			if err != nil || len(d) != 32 {
				env.Bad(pk+".token_sha256", "is not 64 hex digits: write the SHA-256 of the token, not the token (printf %%s \"$TOKEN\" | sha256sum)")
			} else {
				p.TokenSHA256 = hex.EncodeToString(d)
				if j, dup := digests[p.TokenSHA256]; dup {
					env.Bad(pk+".token_sha256", "the same token as %s.principals[%d]; give each principal its own token", key, j)
				} else {
					digests[p.TokenSHA256] = i
				}
			}
		}
		if p.TokenEnv != "" && !validEnvName(p.TokenEnv) {
			env.Bad(pk+".token_env", "%q is not an environment variable name (letters, digits and '_', not starting with a digit)", p.TokenEnv)
		}
		if p.TokenFile != "" {
			p.TokenFile = env.Path(p.TokenFile)
			env.WatchFile(p.TokenFile)
		}
		for g, name := range p.Groups {
			if !config.ValidName(name) {
				env.Bad(fmt.Sprintf("%s.groups[%d]", pk, g), "%q is not a valid group name (1-64 letters, digits, '_', '-' or '.')", name)
			}
		}
	}
	if c.JWT != nil {
		c.JWT.normalize(key+".jwt", env)
	}
}

func (j *JWTConfig) normalize(key string, env *config.Env) {
	issuerOK := false
	if j.Issuer == "" {
		env.Bad(key+".issuer", "missing: the issuer your tokens carry in iss, e.g. https://auth.example.com")
	} else if err := checkURL(j.Issuer, false); err != nil {
		env.Bad(key+".issuer", "%q: %v", j.Issuer, err)
	} else {
		issuerOK = true
	}
	if j.Audience == "" {
		env.Bad(key+".audience", "missing: the audience your tokens carry in aud, usually this gateway's MCP URL, e.g. https://mcp.example.com/mcp")
	}
	switch {
	case j.JWKSURL == "" && j.JWKSFile == "":
		env.Bad(key, "no keys: set jwks_url (the authorization server's JWKS) or jwks_file")
	case j.JWKSURL != "" && j.JWKSFile != "":
		env.Bad(key, "set jwks_url or jwks_file, not both")
	}
	if j.JWKSURL != "" {
		if err := checkURL(j.JWKSURL, true); err != nil {
			env.Bad(key+".jwks_url", "%q: %v", j.JWKSURL, err)
		}
		if j.Refresh == 0 {
			j.Refresh = config.Duration(DefaultRefresh)
		} else if j.Refresh < config.Duration(MinRefresh) || j.Refresh > config.Duration(MaxRefresh) {
			env.Bad(key+".refresh", "%s is out of range (%s..%s)", j.Refresh, config.Duration(MinRefresh), config.Duration(MaxRefresh))
		}
	}
	if j.JWKSFile != "" {
		j.JWKSFile = env.Path(j.JWKSFile)
		env.WatchFile(j.JWKSFile)
		if j.Refresh != 0 && j.JWKSURL == "" {
			env.Bad(key+".refresh", "applies to jwks_url only; jwks_file is read again when it is saved")
		}
	}
	if len(j.Algorithms) == 0 {
		j.Algorithms = slices.Clone(DefaultAlgorithms)
	}
	for i, a := range j.Algorithms {
		ak := fmt.Sprintf("%s.algorithms[%d]", key, i)
		switch {
		case strings.EqualFold(a, "none"):
			env.Bad(ak, `"none" is never allowed: it accepts unsigned tokens`)
		case strings.HasPrefix(strings.ToUpper(a), "HS"):
			env.Bad(ak, "%q is refused: HMAC algorithms need a shared secret, and keys come from a public JWKS; use an asymmetric algorithm (RS256, ES256, ...)", a)
		case !slices.Contains(DefaultAlgorithms, a):
			env.Bad(ak, "%q is not supported (supported: %s)", a, strings.Join(DefaultAlgorithms, ", "))
		}
	}
	if j.Leeway == 0 {
		j.Leeway = config.Duration(DefaultLeeway)
	} else if j.Leeway < 0 || j.Leeway > config.Duration(MaxLeeway) {
		env.Bad(key+".leeway", "%s is out of range (at most %s)", j.Leeway, config.Duration(MaxLeeway))
	}
	if j.PrincipalClaim == "" {
		j.PrincipalClaim = DefaultPrincipalClaim
	}
	if j.GroupsClaim == "" {
		j.GroupsClaim = DefaultGroupsClaim
	}
	if len(j.AuthorizationServers) == 0 && issuerOK {
		j.AuthorizationServers = []string{j.Issuer}
	}
	for i, s := range j.AuthorizationServers {
		if err := checkURL(s, false); err != nil {
			env.Bad(fmt.Sprintf("%s.authorization_servers[%d]", key, i), "%q: %v", s, err)
		}
	}
}

// checkURL checks an absolute http(s) URL. With httpsOnly, plain http is
// accepted only for a loopback host (a test or a local authorization
// server), since keys fetched in clear could be swapped on the way.
func checkURL(s string, httpsOnly bool) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("want an absolute https URL, e.g. https://auth.example.com")
	}
	if u.User != nil {
		return fmt.Errorf("must not contain a user or password")
	}
	if httpsOnly && u.Scheme == "http" && !netutil.Loopback(u.Hostname()) {
		return fmt.Errorf("must use https (http is accepted only for localhost and loopback addresses)")
	}
	return nil
}

func validEnvName(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// CheckExposure is the secure default: without principals and without
// jwt, anyone who can reach the HTTP listener may call every tool, so a
// listen address other than loopback (127.0.0.1, ::1, localhost) is
// refused unless allow_anonymous is true. listen is host:port; an empty
// host (":8080") listens everywhere and is refused too.
func CheckExposure(c Config, listen string) error {
	if c.Enabled() || c.AllowAnonymous {
		return nil
	}
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("listen address %q: want host:port", listen)
	}
	if netutil.Loopback(host) {
		return nil
	}
	what := fmt.Sprintf("%q is not a loopback address", listen)
	if host == "" || host == "0.0.0.0" || host == "::" {
		what = fmt.Sprintf("%q listens on every interface", listen)
	}
	return fmt.Errorf("HTTP listen address %s and auth has no principals and no jwt, so anyone who can reach it could call every tool: "+
		"add auth.principals (a token per caller) or auth.jwt (OAuth access tokens), "+
		"or listen on 127.0.0.1, or set auth.allow_anonymous: true if the network in front is trusted", what)
}

// CheckURL applies jwks_url's rule (an absolute http(s) URL without user
// info; with httpsOnly, plain http only to a loopback host) to s: the
// JWKS client checks every redirect with it.
func CheckURL(s string, httpsOnly bool) error { return checkURL(s, httpsOnly) }
