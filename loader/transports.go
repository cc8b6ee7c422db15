package loader

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmgate/wasmgate/config"
)

// Defaults of the transports section.
const (
	DefaultHTTPListen = "127.0.0.1:8080"
	DefaultHTTPPath   = "/mcp"
	DefaultMaxBody    = 4 << 20
)

// Transports holds the MCP transports.
type Transports struct {
	HTTP  HTTP  `koanf:"http"`
	Stdio Stdio `koanf:"stdio"`
}

// HTTP is the Streamable HTTP transport.
type HTTP struct {
	Enabled        *bool           `koanf:"enabled"`
	Listen         string          `koanf:"listen"`
	Path           string          `koanf:"path"`
	AllowedOrigins []string        `koanf:"allowed_origins"`
	MaxBody        config.ByteSize `koanf:"max_body"`
	// SessionIdleTimeout ends MCP sessions that sent nothing for this long.
	SessionIdleTimeout config.Duration `koanf:"session_idle_timeout"`
	// StreamHeartbeat is how often a session's GET stream is sent a ping,
	// so that proxies in front do not cut it as idle; 0s: never (an idle
	// session then costs no CPU). Unset: DefaultStreamHeartbeat.
	StreamHeartbeat *config.Duration `koanf:"stream_heartbeat"`
	Auth            HTTPAuth         `koanf:"auth"`

	// What one client can hold (defaults and checks: HTTP.bounds).
	ReadHeaderTimeout    config.Duration `koanf:"read_header_timeout"`
	ReadTimeout          config.Duration `koanf:"read_timeout"`
	IdleTimeout          config.Duration `koanf:"idle_timeout"`
	MaxHeaderBytes       config.ByteSize `koanf:"max_header_bytes"`
	MaxConnections       int             `koanf:"max_connections"`
	MaxSessions          int             `koanf:"max_sessions"`
	MaxStreams           int             `koanf:"max_streams"`
	MaxStreamsPerSession int             `koanf:"max_streams_per_session"`
	// Each authenticated principal's share (defaults: a quarter of
	// max_sessions and of max_streams, at least 1).
	MaxSessionsPerPrincipal int `koanf:"max_sessions_per_principal"`
	MaxStreamsPerPrincipal  int `koanf:"max_streams_per_principal"`
}

// On reports whether the HTTP transport is enabled (the default).
func (h HTTP) On() bool { return h.Enabled == nil || *h.Enabled }

// DefaultStreamHeartbeat is transports.http.stream_heartbeat unset: under
// the idle timeouts of common proxies and load balancers (60 s and up).
const DefaultStreamHeartbeat = 30 * time.Second

// Heartbeat is stream_heartbeat (DefaultStreamHeartbeat when unset; 0:
// none).
func (h HTTP) Heartbeat() time.Duration {
	if h.StreamHeartbeat == nil {
		return DefaultStreamHeartbeat
	}
	return time.Duration(*h.StreamHeartbeat)
}

// HTTPAuth configures the optional bearer token. The token itself never
// appears in gateway.yaml: it is read from an environment variable or a file.
type HTTPAuth struct {
	BearerTokenEnv  string `koanf:"bearer_token_env"`
	BearerTokenFile string `koanf:"bearer_token_file"`
}

// Ref is where the token is, for config.SecretRef.Read; key is where
// the auth keys sit ("transports.http.auth", "admin.auth").
func (a HTTPAuth) Ref(key string) config.SecretRef {
	return config.SecretRef{Key: key, EnvKey: "bearer_token_env", Env: a.BearerTokenEnv, FileKey: "bearer_token_file", File: a.BearerTokenFile}
}

// Set reports whether a bearer token is configured.
func (a HTTPAuth) Set() bool { return a.BearerTokenEnv != "" || a.BearerTokenFile != "" }

// LegacyPrincipal is the principal that transports.http.auth's token
// stands for: it is treated as one of auth.principals with this name.
const LegacyPrincipal = "bearer"

// Stdio is the stdio transport.
type Stdio struct {
	Enabled bool `koanf:"enabled"`
	// Principal is who the stdio client is, for policy and the audit log
	// (default "local"); groups come from auth.principals when it is
	// named there.
	Principal string `koanf:"principal"`
	// Endpoint is the endpoint stdio serves (default: the first one,
	// or the default endpoint without an endpoints section).
	Endpoint string `koanf:"endpoint"`
}

// Normalize fills defaults and checks the transports section.
func (t *Transports) Normalize(key string, env *config.Env) {
	h := &t.HTTP
	key += ".http"
	if h.SessionIdleTimeout == 0 {
		h.SessionIdleTimeout = config.Duration(time.Hour)
	} else if h.SessionIdleTimeout < config.Duration(time.Second) {
		env.Bad(key+".session_idle_timeout", "%s is out of range (at least 1s)", h.SessionIdleTimeout)
	}
	if d := h.Heartbeat(); d != 0 && (d < time.Second || d > time.Hour) {
		env.Bad(key+".stream_heartbeat", "%s is out of range (0s, which sends none, or 1s..1h)", d)
	}
	if h.Listen == "" {
		h.Listen = DefaultHTTPListen
	}
	if err := config.CheckListen(h.Listen); err != nil {
		env.Bad(key+".listen", "%q: %v", h.Listen, err)
	}
	if h.Path == "" {
		h.Path = DefaultHTTPPath
	}
	if !strings.HasPrefix(h.Path, "/") {
		env.Bad(key+".path", "%q must start with /", h.Path)
	}
	for i, o := range h.AllowedOrigins {
		if err := config.CheckOrigin(o); err != nil {
			env.Bad(fmt.Sprintf("%s.allowed_origins[%d]", key, i), "%q: %v", o, err)
		}
	}
	if h.MaxBody == 0 {
		h.MaxBody = DefaultMaxBody
	} else if h.MaxBody < 1<<10 || h.MaxBody > 1<<30 {
		env.Bad(key+".max_body", "%s is out of range (1KiB..1GiB)", h.MaxBody)
	}
	h.Auth.normalize(key+".auth", env)
	h.bounds(key, env.Bad)
	if t.Stdio.Principal == "" {
		t.Stdio.Principal = "local"
	} else if !config.ValidName(t.Stdio.Principal) {
		env.Bad(key[:len(key)-len(".http")]+".stdio.principal", "%q: use letters, digits, '_', '-' or '.' (1-64 characters)", t.Stdio.Principal)
	}
}

func (a *HTTPAuth) normalize(key string, env *config.Env) {
	if a.BearerTokenEnv != "" && a.BearerTokenFile != "" {
		env.Bad(key, "set bearer_token_env or bearer_token_file, not both")
	}
	if a.BearerTokenFile != "" {
		a.BearerTokenFile = env.Path(a.BearerTokenFile)
		env.WatchFile(a.BearerTokenFile)
	}
}

// RestartOnly names the transport keys a reload cannot change.
func (t *Transports) RestartOnly(key string, prev any, diff config.Diff) {
	p := prev.(*Transports)
	diff(key+".http.enabled", p.HTTP.On(), t.HTTP.On())
	diff(key+".http.listen", p.HTTP.Listen, t.HTTP.Listen)
	diff(key+".http.path", p.HTTP.Path, t.HTTP.Path)
	diff(key+".http.session_idle_timeout", p.HTTP.SessionIdleTimeout, t.HTTP.SessionIdleTimeout)
	diff(key+".http.stream_heartbeat", p.HTTP.Heartbeat(), t.HTTP.Heartbeat())
	diff(key+".http.read_header_timeout", p.HTTP.ReadHeaderTimeout, t.HTTP.ReadHeaderTimeout)
	diff(key+".http.read_timeout", p.HTTP.ReadTimeout, t.HTTP.ReadTimeout)
	diff(key+".http.idle_timeout", p.HTTP.IdleTimeout, t.HTTP.IdleTimeout)
	diff(key+".http.max_header_bytes", p.HTTP.MaxHeaderBytes, t.HTTP.MaxHeaderBytes)
	diff(key+".http.max_connections", p.HTTP.MaxConnections, t.HTTP.MaxConnections)
	diff(key+".stdio.enabled", p.Stdio.Enabled, t.Stdio.Enabled)
	// stdio.endpoint depends on the endpoints section: Config.RestartOnly.
}
