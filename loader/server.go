package loader

import (
	"runtime"
	"strings"
	"time"

	"github.com/wasmgate/wasmgate/config"
)

// DefaultShutdownTimeout bounds a graceful shutdown when
// server.shutdown_timeout is not set.
const DefaultShutdownTimeout = 10 * time.Second

// Defaults of what one MCP session may subscribe to (resources/subscribe).
const (
	DefaultMaxSubscriptions   = 100
	DefaultMaxSubscriptionURI = 2 << 10
)

// Server holds process-wide settings.
type Server struct {
	Name            string          `koanf:"name"`
	ShutdownTimeout config.Duration `koanf:"shutdown_timeout"`
	// CacheDir holds compiled modules across restarts. "" picks a default
	// (systemd's $CACHE_DIRECTORY, else the user cache directory); "off"
	// keeps the cache in memory only.
	CacheDir string `koanf:"cache_dir"`
	Log      Log    `koanf:"log"`
	// Watch reloads when gateway.yaml or a plugin file changes (default
	// true). SIGHUP and POST /-/reload work either way.
	Watch *bool `koanf:"watch"`
	// MaxConcurrentCalls bounds the WebAssembly calls running at once in
	// the whole gateway (default: CPUs). A plugin's own limit
	// (limits.concurrency) defaults to half of it, so one plugin's
	// runaway calls leave room for the others.
	MaxConcurrentCalls int `koanf:"max_concurrent_calls"`
	// MaxSubscriptions bounds the resources/subscribe one MCP session
	// holds (and the resource subscriptions of one subscriptions/listen);
	// MaxSubscriptionURI bounds each subscribed URI's length.
	MaxSubscriptions   int             `koanf:"max_subscriptions_per_session"`
	MaxSubscriptionURI config.ByteSize `koanf:"max_subscription_uri"`
	// RequestState signs the requestState of input_required results
	// (2026-07-28 clients answering a plugin's sampling, elicitation or
	// roots request).
	RequestState RequestState `koanf:"request_state"`
	// LockFile is what an operator approved of every source (`wasmgate
	// lock`, docs/trust.md); default gateway.lock beside gateway.yaml.
	// Enforced (trust.on_change) only while the file exists.
	LockFile string `koanf:"lock_file"`
	// PublicURL is where browsers reach the gateway: the connect pages
	// and callback of upstreams with auth.user_oauth, and client ID
	// metadata documents, are under it (checked in checkUserIdentity).
	PublicURL string `koanf:"public_url"`
}

// RequestState is server.request_state: the HMAC key (at least 32 bytes,
// from a variable or a file; without one, a random key per process) and
// how long a client has to answer.
type RequestState struct {
	KeyEnv  string          `koanf:"key_env"`
	KeyFile string          `koanf:"key_file"`
	TTL     config.Duration `koanf:"ttl"`
}

// Key is where the key is read from (config.SecretRef.Read).
func (r RequestState) Key() config.SecretRef {
	return config.SecretRef{Key: "server.request_state", EnvKey: "key_env", Env: r.KeyEnv, FileKey: "key_file", File: r.KeyFile}
}

// DefaultRequestStateTTL is server.request_state.ttl's default.
const DefaultRequestStateTTL = 5 * time.Minute

// Log configures the slog output on stderr.
type Log struct {
	Level  string `koanf:"level"`
	Format string `koanf:"format"`
}

// WatchOn reports whether saving files reloads the gateway.
func (s Server) WatchOn() bool { return s.Watch == nil || *s.Watch }

// Normalize fills defaults and checks the server section.
func (s *Server) Normalize(key string, env *config.Env) {
	if s.Name == "" {
		s.Name = "wasmgate"
	}
	if s.ShutdownTimeout == 0 {
		s.ShutdownTimeout = config.Duration(DefaultShutdownTimeout)
	} else if s.ShutdownTimeout < 0 || time.Duration(s.ShutdownTimeout) > 10*time.Minute {
		env.Bad(key+".shutdown_timeout", "%s is out of range (0s < value <= 10m)", s.ShutdownTimeout)
	}
	switch strings.ToLower(s.Log.Level) {
	case "":
		s.Log.Level = "info"
	case "debug", "info", "warn", "error":
		s.Log.Level = strings.ToLower(s.Log.Level)
	default:
		env.Bad(key+".log.level", "%q: want debug, info, warn or error", s.Log.Level)
	}
	switch s.Log.Format {
	case "":
		s.Log.Format = "text"
	case "text", "json":
	default:
		env.Bad(key+".log.format", "%q: want text or json", s.Log.Format)
	}
	if s.MaxConcurrentCalls == 0 {
		s.MaxConcurrentCalls = runtime.NumCPU()
	} else if s.MaxConcurrentCalls < 1 || s.MaxConcurrentCalls > 4096 {
		env.Bad(key+".max_concurrent_calls", "%d is out of range (1..4096)", s.MaxConcurrentCalls)
	}
	if s.MaxSubscriptions == 0 {
		s.MaxSubscriptions = DefaultMaxSubscriptions
	} else if s.MaxSubscriptions < 1 || s.MaxSubscriptions > 100_000 {
		env.Bad(key+".max_subscriptions_per_session", "%d is out of range (1..100000)", s.MaxSubscriptions)
	}
	if s.MaxSubscriptionURI == 0 {
		s.MaxSubscriptionURI = DefaultMaxSubscriptionURI
	} else if s.MaxSubscriptionURI < 64 || s.MaxSubscriptionURI > 64<<10 {
		env.Bad(key+".max_subscription_uri", "%s is out of range (64B..64KiB)", s.MaxSubscriptionURI)
	}
	if s.LockFile == "" {
		s.LockFile = DefaultLockFile
	}
	s.LockFile = env.Path(s.LockFile)
	if s.CacheDir != "" && s.CacheDir != "off" {
		s.CacheDir = env.Path(s.CacheDir)
	}
	rs := &s.RequestState
	if rs.TTL == 0 {
		rs.TTL = config.Duration(DefaultRequestStateTTL)
	} else if rs.TTL < config.Duration(time.Second) || rs.TTL > config.Duration(24*time.Hour) {
		env.Bad(key+".request_state.ttl", "%s is out of range (1s..24h)", rs.TTL)
	}
	if rs.KeyEnv != "" && rs.KeyFile != "" {
		env.Bad(key+".request_state", "set key_env or key_file, not both")
	}
	if rs.KeyFile != "" {
		rs.KeyFile = env.Path(rs.KeyFile)
		env.WatchFile(rs.KeyFile)
	}
}

// RestartOnly names the server keys a reload cannot change.
func (s *Server) RestartOnly(key string, prev any, diff config.Diff) {
	p := prev.(*Server)
	diff(key+".cache_dir", p.CacheDir, s.CacheDir)
	diff(key+".log.format", p.Log.Format, s.Log.Format)
	diff(key+".max_concurrent_calls", p.MaxConcurrentCalls, s.MaxConcurrentCalls)
	// The MCP server's name is told to clients at initialize, and the
	// file watcher is started (or not) once.
	diff(key+".name", p.Name, s.Name)
	diff(key+".watch", p.WatchOn(), s.WatchOn())
}
