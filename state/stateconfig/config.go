// Package stateconfig is the state section of gateway.yaml: where the
// state replicas share (plugin key-value stores, rate limits, the list of
// replicas) lives. It is a leaf: the loader imports it without linking a
// Redis client; package state opens what it describes.
package stateconfig

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/wasmgate/wasmgate/config"
)

// Backends and on_unavailable choices.
const (
	BackendMemory = "memory"
	BackendRedis  = "redis"

	FailClosed = "fail_closed"
	FailOpen   = "fail_open"

	// DefaultKeyPrefix starts every key wasmgate writes in Redis.
	DefaultKeyPrefix = "wasmgate:"
)

// Config is the state section.
type Config struct {
	// Backend is memory (the default: each replica keeps its own state)
	// or redis (the state below is shared by every replica).
	Backend string `koanf:"backend"`
	Redis   Redis  `koanf:"redis"`
	// OnUnavailable is what a rate-limited call does while Redis cannot
	// be reached: fail_closed (refused, the default) or fail_open
	// (allowed, unlimited). Key-value calls always fail with an error.
	OnUnavailable string `koanf:"on_unavailable"`
}

// Redis is state.redis.
type Redis struct {
	// URL is redis://[user:password@]host:port[/db] or rediss:// for TLS.
	// A master_name query parameter makes it Sentinel (host:port and
	// every addr= parameter are sentinels); addr= parameters without
	// master_name make it Cluster (host:port and every addr= are seed
	// nodes). Other query parameters are go-redis options (dial_timeout,
	// read_timeout, pool_size, ...).
	URL          string `koanf:"url"`
	PasswordEnv  string `koanf:"password_env"`
	PasswordFile string `koanf:"password_file"`
	KeyPrefix    string `koanf:"key_prefix"`
}

// Redis reports whether the backend is redis.
func (c *Config) IsRedis() bool { return c.Backend == BackendRedis }

// FailOpen reports whether rate limits let calls through while Redis is
// unavailable.
func (c *Config) FailOpen() bool { return c.OnUnavailable == FailOpen }

// Password is where state.redis's password is read from.
func (r Redis) Password(key string) config.SecretRef {
	return config.SecretRef{Key: key, EnvKey: "password_env", Env: r.PasswordEnv, FileKey: "password_file", File: r.PasswordFile}
}

// Mode is how URL is read: "single", "sentinel" or "cluster".
func (r Redis) Mode() string {
	u, err := url.Parse(r.URL)
	if err != nil {
		return "single"
	}
	q := u.Query()
	switch {
	case q.Get("master_name") != "":
		return "sentinel"
	case len(q["addr"]) > 0:
		return "cluster"
	}
	return "single"
}

// Normalize fills the defaults and checks the section.
func (c *Config) Normalize(key string, env *config.Env) {
	if c.Backend == "" {
		c.Backend = BackendMemory
	}
	if c.OnUnavailable == "" {
		c.OnUnavailable = FailClosed
	}
	if c.Redis.KeyPrefix == "" {
		c.Redis.KeyPrefix = DefaultKeyPrefix
	}
	switch c.Backend {
	case BackendMemory, BackendRedis:
	default:
		env.Bad(key+".backend", "%q is not a backend: memory or redis", c.Backend)
	}
	switch c.OnUnavailable {
	case FailClosed, FailOpen:
	default:
		env.Bad(key+".on_unavailable", "%q is not a choice: fail_closed or fail_open", c.OnUnavailable)
	}
	r := &c.Redis
	rk := key + ".redis"
	if r.PasswordFile != "" {
		r.PasswordFile = env.Path(r.PasswordFile)
	}
	if r.PasswordEnv != "" && r.PasswordFile != "" {
		env.Bad(rk+".password_env", "set password_env or password_file, not both")
	}
	if strings.ContainsAny(r.KeyPrefix, " \t\r\n") {
		env.Bad(rk+".key_prefix", "%q has white space", r.KeyPrefix)
	}
	if c.Backend != BackendRedis {
		if r.URL != "" || r.PasswordEnv != "" || r.PasswordFile != "" {
			env.Bad(rk, "is set but state.backend is %s: set backend: redis, or remove state.redis", c.Backend)
		}
		return
	}
	if r.URL == "" {
		env.Bad(rk+".url", "is required with backend: redis (redis://host:port/db, rediss:// for TLS)")
		return
	}
	if msg := checkURL(r.URL); msg != "" {
		env.Bad(rk+".url", "%s: %s", Redacted(r.URL), msg)
	}
}

// checkURL is what can be said of a Redis URL without a Redis client
// (package state parses it fully when it opens it).
func checkURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "not a URL"
	}
	if u.Scheme != "redis" && u.Scheme != "rediss" {
		return "the scheme must be redis:// or rediss:// (TLS)"
	}
	if u.Host == "" {
		return "no host: redis://host:port/db"
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "the port " + strconv.Quote(p) + " is not a number in 1..65535"
		}
	}
	if db := strings.Trim(u.Path, "/"); db != "" {
		n, err := strconv.Atoi(db)
		if err != nil || n < 0 {
			return "the database " + strconv.Quote(db) + " is not a number (redis://host:port/0)"
		}
		if len(u.Query()["addr"]) > 0 && u.Query().Get("master_name") == "" && n != 0 {
			return "Redis Cluster has only database 0"
		}
	}
	return ""
}

// Redacted is u with its password hidden, for messages.
func Redacted(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(the URL)"
	}
	return u.Redacted()
}
