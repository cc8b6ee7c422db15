// Package relayconfig is the relay section of gateway.yaml: its keys,
// defaults and checks. It is a leaf, so that the config loader does not
// link the WebSocket server (package relay) that serves it.
package relayconfig

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmgate/wasmgate/config"
)

// Defaults of the relay section.
const (
	DefaultPath        = "/relay"
	DefaultAuthTimeout = 5 * time.Second
	DefaultCallTimeout = 30 * time.Second
	DefaultMaxFrame    = 1 << 20
	// DefaultMaxRegistrations is max_registrations_per_minute: how many
	// register frames a page may send a minute (in bursts of a tenth).
	DefaultMaxRegistrations = 60
	// MinTokenBytes is the shortest token a site accepts (as WU's relay).
	MinTokenBytes = 16
)

// Protocols a site speaks.
const (
	ProtocolWasmgate = "wasmgate"  // mutual HMAC challenge-response (docs/relay-protocol.md)
	ProtocolWULegacy = "wu-legacy" // the WU framework's published bridge: token in clear
)

// BridgeJS is the file name under relay.path that serves bridge.js; no
// site may take it.
const BridgeJS = "bridge.js"

// Config is the relay section of gateway.yaml: web pages connect to
// ws(s)://HOST:PORT<path>/<site name> on the MCP HTTP listener and provide
// the tools of one site each.
type Config struct {
	// Path is where the relay listens on the MCP HTTP listener.
	// Restart-only.
	Path  string       `koanf:"path"`
	Sites []SiteConfig `koanf:"sites"`

	Unauthenticated `koanf:",squash"` // the caps of the block at the end of this file
}

// SiteConfig is one entry of relay.sites: a name pages connect to, the token
// they prove they know, and the limits of their connection.
type SiteConfig struct {
	Name string `koanf:"name"`
	// Token is only here to refuse a token written in clear.
	Token     string `koanf:"token"`
	TokenEnv  string `koanf:"token_env"`
	TokenFile string `koanf:"token_file"`
	// AllowedOrigins are the page origins allowed to connect; empty
	// means loopback origins only.
	AllowedOrigins []string `koanf:"allowed_origins"`
	// Prefix is joined to the names of the site's tools and prompts as
	// config.PrefixedName says (with "_" unless it ends in "_", "-" or
	// "."); default "<name>_" ("wu_" for wu-legacy).
	Prefix      string          `koanf:"prefix"`
	Protocol    string          `koanf:"protocol"`
	AuthTimeout config.Duration `koanf:"auth_timeout"`
	CallTimeout config.Duration `koanf:"call_timeout"`
	MaxFrame    config.ByteSize `koanf:"max_frame"`
	// MaxRegistrations bounds the register frames a page may send a
	// minute; beyond it the page gets an error frame.
	MaxRegistrations int `koanf:"max_registrations_per_minute"`
	// Insecure lets a wu-legacy page connect without a token when the
	// site has none and the listener is loopback.
	Insecure bool `koanf:"insecure"`
	// ResourceSchemes are the URI schemes the site's pages may register
	// resources and templates under; empty means the one derived from the
	// prefix (DefaultScheme). See namespace.go.
	ResourceSchemes []string `koanf:"resource_schemes"`
	// Curation is tools: {include, exclude} and overrides over the names
	// the site's pages register (before the prefix).
	config.Curation `koanf:",squash"`
	// RedactSecrets replaces credential-shaped strings in the tool
	// arguments the site's pages get and the results they return.
	RedactSecrets bool `koanf:"redact_secrets"`

	// Key is where the site is declared, e.g. "relay.sites[0]".
	Key string `koanf:"-"`

	SiteUnauthenticated `koanf:",squash"` // the caps of the block at the end of this file
}

// TokenRef is where the site's token is, for config.SecretRef.Read.
func (s SiteConfig) TokenRef() config.SecretRef {
	return config.SecretRef{Key: s.Key, EnvKey: "token_env", Env: s.TokenEnv, FileKey: "token_file", File: s.TokenFile}
}

// Normalize fills defaults and checks the relay section.
func (c *Config) Normalize(key string, env *config.Env) {
	if c.Path == "" {
		c.Path = DefaultPath
	}
	if !strings.HasPrefix(c.Path, "/") || (len(c.Path) > 1 && strings.HasSuffix(c.Path, "/")) || c.Path == "/" ||
		strings.ContainsAny(c.Path, "{}?#* ") {
		env.Bad(key+".path", "%q: want a path such as /relay (starting with /, not ending with /)", c.Path)
	}
	names := map[string]string{}
	for i := range c.Sites {
		s := &c.Sites[i]
		s.Key = fmt.Sprintf("%s.sites[%d]", key, i)
		if prev, ok := names[s.Name]; ok && s.Name != "" {
			env.Bad(s.Key+".name", "duplicate site name %q (also %s)", s.Name, prev)
		} else {
			names[s.Name] = s.Key
		}
		s.normalize(env)
		s.Curation.Check(s.Key, env.Bad)
	}
	c.normalizeSchemes(env)
	c.normalizeUnauthenticated(key, env)
}

func (s *SiteConfig) normalize(env *config.Env) {
	k := s.Key
	switch {
	case s.Name == "":
		env.Bad(k+".name", "missing: pages connect to <relay.path>/<name>")
	case !config.ValidName(s.Name) || s.Name == BridgeJS:
		env.Bad(k+".name", "%q: use letters, digits, '_', '-' or '.' (1-64 characters; not %q)", s.Name, BridgeJS)
	}
	switch s.Protocol {
	case "":
		s.Protocol = ProtocolWasmgate
	case ProtocolWasmgate, ProtocolWULegacy:
	default:
		env.Bad(k+".protocol", "%q: want %s or %s", s.Protocol, ProtocolWasmgate, ProtocolWULegacy)
	}
	if s.Token != "" {
		env.Bad(k+".token", "never write a token in gateway.yaml: name where it is with token_env or token_file")
		s.Token = ""
	}
	switch {
	case s.TokenEnv != "" && s.TokenFile != "":
		env.Bad(k, "set token_env or token_file, not both")
	case s.TokenEnv == "" && s.TokenFile == "" && !(s.Protocol == ProtocolWULegacy && s.Insecure):
		env.Bad(k, "needs token_env (an environment variable) or token_file (a file) holding the site's token")
	}
	if s.TokenFile != "" {
		s.TokenFile = env.Path(s.TokenFile)
		env.WatchFile(s.TokenFile)
	}
	if s.Insecure && s.Protocol != ProtocolWULegacy {
		env.Bad(k+".insecure", "only a wu-legacy site can allow pages without a token")
	}
	for i, o := range s.AllowedOrigins {
		if err := config.CheckOrigin(o); err != nil {
			env.Bad(fmt.Sprintf("%s.allowed_origins[%d]", k, i), "%q: %v", o, err)
		}
	}
	if s.Prefix == "" {
		if s.Protocol == ProtocolWULegacy {
			s.Prefix = "wu_"
		} else {
			s.Prefix = s.Name + "_"
		}
	} else if !validPrefix(s.Prefix) {
		env.Bad(k+".prefix", "%q: use letters, digits, '_', '-' or '.' (1-32 characters)", s.Prefix)
	}
	durations := []struct {
		key      string
		v        *config.Duration
		def, min time.Duration
		max      time.Duration
	}{
		{"auth_timeout", &s.AuthTimeout, DefaultAuthTimeout, 50 * time.Millisecond, time.Minute},
		{"call_timeout", &s.CallTimeout, DefaultCallTimeout, 50 * time.Millisecond, 5 * time.Minute},
	}
	for _, d := range durations {
		if *d.v == 0 {
			*d.v = config.Duration(d.def)
		} else if time.Duration(*d.v) < d.min || time.Duration(*d.v) > d.max {
			env.Bad(k+"."+d.key, "%s is out of range (%s..%s)", *d.v, d.min, d.max)
		}
	}
	if s.MaxFrame == 0 {
		s.MaxFrame = DefaultMaxFrame
	} else if s.MaxFrame < 1<<10 || s.MaxFrame > 16<<20 {
		env.Bad(k+".max_frame", "%s is out of range (1KiB..16MiB)", s.MaxFrame)
	}
	if s.MaxRegistrations == 0 {
		s.MaxRegistrations = DefaultMaxRegistrations
	} else if s.MaxRegistrations < 1 || s.MaxRegistrations > 6000 {
		env.Bad(k+".max_registrations_per_minute", "%d is out of range (1..6000)", s.MaxRegistrations)
	}
}

func validPrefix(p string) bool {
	if len(p) > 32 {
		return false
	}
	return config.ValidName(p)
}

// RestartOnly names the relay keys a reload cannot change.
func (c *Config) RestartOnly(key string, prev any, diff config.Diff) {
	p := prev.(*Config)
	diff(key+".path", p.Path, c.Path)
}

// ---- Caps on connections not authenticated yet (issue 16) ----

// Defaults of the caps on unauthenticated connections.
const (
	DefaultMaxUnauthenticated     = 64
	DefaultSiteMaxUnauthenticated = 16
	DefaultFailedAuthBurst        = 10
	DefaultFailedAuthEvery        = time.Second
)

// Unauthenticated are the relay section's caps on connections that have
// not completed the handshake: relay.max_unauthenticated (every site
// together), and the failed handshakes a client address may make
// (failed_auth_burst at once, then one per failed_auth_every).
type Unauthenticated struct {
	MaxUnauthenticated int             `koanf:"max_unauthenticated"`
	FailedAuthBurst    int             `koanf:"failed_auth_burst"`
	FailedAuthEvery    config.Duration `koanf:"failed_auth_every"`
}

// SiteUnauthenticated is a site's cap on its unauthenticated connections:
// relay.sites[i].max_unauthenticated.
type SiteUnauthenticated struct {
	MaxUnauthenticated int `koanf:"max_unauthenticated"`
}

func (c *Config) normalizeUnauthenticated(key string, env *config.Env) {
	u := &c.Unauthenticated
	intKey := func(k string, v *int, def, max int) {
		if *v == 0 {
			*v = def
		} else if *v < 1 || *v > max {
			env.Bad(k, "%d is out of range (1..%d)", *v, max)
		}
	}
	intKey(key+".max_unauthenticated", &u.MaxUnauthenticated, DefaultMaxUnauthenticated, 10000)
	intKey(key+".failed_auth_burst", &u.FailedAuthBurst, DefaultFailedAuthBurst, 10000)
	if u.FailedAuthEvery == 0 {
		u.FailedAuthEvery = config.Duration(DefaultFailedAuthEvery)
	} else if d := time.Duration(u.FailedAuthEvery); d < 10*time.Millisecond || d > time.Hour {
		env.Bad(key+".failed_auth_every", "%s is out of range (10ms..1h)", u.FailedAuthEvery)
	}
	for i := range c.Sites {
		s := &c.Sites[i]
		def := min(DefaultSiteMaxUnauthenticated, u.MaxUnauthenticated)
		intKey(s.Key+".max_unauthenticated", &s.SiteUnauthenticated.MaxUnauthenticated, max(def, 1), 10000)
	}
}
