// Package loader turns a gateway.yaml into a validated Config and compiles
// the WebAssembly plugins it names into Plugins the gateway can serve.
//
// Nothing in this package serves traffic: Load and Build either succeed
// whole or return an error that names the file, the key and the bad value.
package loader

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/knadh/koanf/parsers/yaml"
	"github.com/knadh/koanf/providers/env/v2"
	"github.com/knadh/koanf/providers/file"
	"github.com/knadh/koanf/v2"
	yamlv3 "go.yaml.in/yaml/v3"
)

// EnvPrefix starts every environment variable that overrides a key of
// gateway.yaml. A double underscore separates nesting levels:
// WASMGATE_TRANSPORTS__HTTP__LISTEN overrides transports.http.listen.
const EnvPrefix = "WASMGATE_"

// EnvConfigPath names the environment variable holding the config path; it
// is not an override.
const EnvConfigPath = "WASMGATE_CONFIG"

// Defaults used when gateway.yaml leaves a key out.
const (
	DefaultHTTPListen      = "127.0.0.1:8080"
	DefaultHTTPPath        = "/mcp"
	DefaultAdminListen     = "127.0.0.1:9090"
	DefaultTimeout         = 5 * time.Second
	DefaultMemory          = 64 << 20
	DefaultMaxOutput       = 1 << 20
	DefaultKVQuota         = 16 << 20
	DefaultMaxBody         = 4 << 20
	DefaultShutdownTimeout = 10 * time.Second
)

// Config is a validated gateway.yaml.
type Config struct {
	Server     Server       `koanf:"server"`
	Transports Transports   `koanf:"transports"`
	Admin      Admin        `koanf:"admin"`
	Plugins    []PluginSpec `koanf:"plugins"`

	// File is the absolute path of the file this Config was read from.
	File string `koanf:"-"`

	// dirs are the absolute folders of dir: entries.
	dirs []string
}

// Server holds process-wide settings.
type Server struct {
	Name            string   `koanf:"name"`
	ShutdownTimeout Duration `koanf:"shutdown_timeout"`
	// CacheDir holds compiled modules across restarts. "" picks a default
	// (systemd's $CACHE_DIRECTORY, else the user cache directory); "off"
	// keeps the cache in memory only.
	CacheDir string `koanf:"cache_dir"`
	Log      Log    `koanf:"log"`
	// Watch reloads when gateway.yaml or a plugin file changes (default
	// true). SIGHUP and POST /-/reload work either way.
	Watch *bool `koanf:"watch"`
}

// WatchOn reports whether saving files reloads the gateway.
func (s Server) WatchOn() bool { return s.Watch == nil || *s.Watch }

// Log configures the slog output on stderr.
type Log struct {
	Level  string `koanf:"level"`
	Format string `koanf:"format"`
}

// Transports holds the MCP transports.
type Transports struct {
	HTTP  HTTP  `koanf:"http"`
	Stdio Stdio `koanf:"stdio"`
}

// HTTP is the Streamable HTTP transport.
type HTTP struct {
	Enabled        *bool    `koanf:"enabled"`
	Listen         string   `koanf:"listen"`
	Path           string   `koanf:"path"`
	AllowedOrigins []string `koanf:"allowed_origins"`
	MaxBody        ByteSize `koanf:"max_body"`
	// SessionIdleTimeout ends MCP sessions that sent nothing for this long.
	SessionIdleTimeout Duration `koanf:"session_idle_timeout"`
	Auth               HTTPAuth `koanf:"auth"`

	// What one client can hold (defaults and checks: HTTP.bounds).
	ReadHeaderTimeout    Duration `koanf:"read_header_timeout"`
	ReadTimeout          Duration `koanf:"read_timeout"`
	IdleTimeout          Duration `koanf:"idle_timeout"`
	MaxHeaderBytes       ByteSize `koanf:"max_header_bytes"`
	MaxConnections       int      `koanf:"max_connections"`
	MaxSessions          int      `koanf:"max_sessions"`
	MaxStreams           int      `koanf:"max_streams"`
	MaxStreamsPerSession int      `koanf:"max_streams_per_session"`
}

// On reports whether the HTTP transport is enabled (the default).
func (h HTTP) On() bool { return h.Enabled == nil || *h.Enabled }

// HTTPAuth configures the optional bearer token. The token itself never
// appears in gateway.yaml: it is read from an environment variable or a file.
type HTTPAuth struct {
	BearerTokenEnv  string `koanf:"bearer_token_env"`
	BearerTokenFile string `koanf:"bearer_token_file"`
}

// Stdio is the stdio transport.
type Stdio struct {
	Enabled bool `koanf:"enabled"`
}

// Admin is the listener for /metrics, /healthz, /readyz and /-/reload.
type Admin struct {
	Enabled *bool  `koanf:"enabled"`
	Listen  string `koanf:"listen"`
	// Auth is an optional bearer token for /metrics and /-/reload, for a
	// listener that is not on loopback.
	Auth HTTPAuth `koanf:"auth"`
}

// On reports whether the admin listener is enabled (the default).
func (a Admin) On() bool { return a.Enabled == nil || *a.Enabled }

// PluginSpec is one entry of plugins: either a single module (path) or
// every *.wasm file in a folder (dir). After Load, dir entries are expanded
// into one PluginSpec per file and every path is absolute.
type PluginSpec struct {
	Name         string            `koanf:"name"`
	Path         string            `koanf:"path"`
	Dir          string            `koanf:"dir"`
	SHA256       string            `koanf:"sha256"`
	Prefix       string            `koanf:"prefix"`
	Config       map[string]string `koanf:"config"`
	Limits       Limits            `koanf:"limits"`
	AllowedHosts []string          `koanf:"allowed_hosts"`
	AllowedPaths map[string]string `koanf:"allowed_paths"`

	// Key is where this plugin was declared, e.g. "plugins[2]" or
	// "plugins[3] (dir ./plugins, file echo.wasm)", for error messages.
	Key string `koanf:"-"`
}

// Limits bound what one plugin may use.
type Limits struct {
	Timeout     Duration `koanf:"timeout"`
	Memory      ByteSize `koanf:"memory"`
	Concurrency int      `koanf:"concurrency"`
	MaxOutput   ByteSize `koanf:"max_output"`
	KVQuota     ByteSize `koanf:"kv_quota"`
}

// Duration is a time.Duration written as "5s" in YAML.
type Duration time.Duration

// ByteSize is a size written as 64MiB, 512KiB, 1GB or a plain byte count.
type ByteSize int64

// ConfigError is a validation failure: File, Key and a message that
// includes the bad value.
type ConfigError struct {
	File string
	Key  string
	Msg  string
}

func (e *ConfigError) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s: %s: %s", e.File, e.Key, e.Msg)
}

// Load reads the config file at path, applies environment overrides from
// environ (os.Environ() form), fills defaults and validates everything that
// can be checked without compiling a module. Errors are *ConfigError or a
// join of them. When the file parsed but did not validate, Load returns the
// partial Config with the error: use it only to know which files it names.
func Load(path string, environ []string) (*Config, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("resolve config path %q: %w", path, err)
	}
	k := koanf.New(".")
	if err := k.Load(file.Provider(abs), yaml.Parser()); err != nil {
		var ye *yamlv3.TypeError
		if errors.As(err, &ye) || strings.Contains(err.Error(), "yaml:") {
			return nil, &ConfigError{File: abs, Msg: "invalid YAML: " + trimYAMLPrefix(err)}
		}
		return nil, &ConfigError{File: abs, Msg: fmt.Sprintf("read: %v", unwrapPathError(err))}
	}
	// The variable holding the bearer token may itself start with
	// WASMGATE_; it is a secret, not an override.
	tokenEnv := k.String("transports.http.auth.bearer_token_env")
	adminTokenEnv := k.String("admin.auth.bearer_token_env")
	fromEnv := map[string]string{} // key -> variable, to name it in errors
	if err := k.Load(env.Provider(".", env.Opt{
		Prefix: EnvPrefix,
		TransformFunc: func(name, v string) (string, any) {
			if name == tokenEnv || name == adminTokenEnv {
				return "", nil
			}
			key, val := envKeyValue(name, v)
			if key != "" {
				fromEnv[key] = name
			}
			return key, val
		},
		EnvironFunc: func() []string { return environ },
	}), nil); err != nil {
		return nil, fmt.Errorf("read %s* environment overrides: %w", EnvPrefix, err)
	}

	var cfg Config
	dc := &mapstructure.DecoderConfig{
		TagName:     "koanf",
		ErrorUnused: true,
		DecodeHook:  mapstructure.ComposeDecodeHookFunc(durationHook, byteSizeHook, intHook),
		Result:      &cfg,
	}
	dec, err := mapstructure.NewDecoder(dc)
	if err != nil {
		return nil, fmt.Errorf("build config decoder: %w", err)
	}
	if err := dec.Decode(k.Raw()); err != nil {
		return nil, blameEnv(decodeErrors(abs, k.Raw(), err), fromEnv)
	}
	cfg.File = abs
	if err := cfg.normalize(); err != nil {
		// The partial Config still says which files the user meant, so a
		// watcher can wait for them.
		return &cfg, blameEnv(err, fromEnv)
	}
	return &cfg, nil
}

// blameEnv names the environment variable behind each error whose key an
// override set, since that value is not in the file.
func blameEnv(err error, fromEnv map[string]string) error {
	if len(fromEnv) == 0 {
		return err
	}
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	for _, e := range errs {
		var ce *ConfigError
		if !errors.As(e, &ce) {
			continue
		}
		for key, name := range fromEnv {
			if ce.Key == key || strings.HasPrefix(ce.Key, key+".") || strings.HasPrefix(ce.Key, key+"[") {
				ce.Msg += fmt.Sprintf(" (set by environment variable %s)", name)
				break
			}
		}
	}
	return errors.Join(errs...)
}

// envKeyValue maps WASMGATE_TRANSPORTS__HTTP__LISTEN=v to
// transports.http.listen and parses v as a YAML scalar or flow sequence so
// numbers, booleans and lists ("[a, b]") keep their types.
func envKeyValue(k, v string) (string, any) {
	if k == EnvConfigPath {
		return "", nil
	}
	key := strings.ToLower(strings.TrimPrefix(k, EnvPrefix))
	key = strings.ReplaceAll(key, "__", ".")
	var parsed any
	if err := yamlv3.Unmarshal([]byte(v), &parsed); err != nil || parsed == nil {
		return key, v
	}
	switch parsed.(type) {
	case map[string]any:
		return key, v // an override sets one key; a mapping is taken as text
	}
	return key, parsed
}

func trimYAMLPrefix(err error) string {
	s := err.Error()
	if i := strings.Index(s, "yaml: "); i >= 0 {
		return s[i+len("yaml: "):]
	}
	return s
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// decodeErrors turns mapstructure's errors into ConfigErrors naming keys.
func decodeErrors(file string, raw map[string]any, err error) error {
	var leaves []error
	var walk func(error)
	walk = func(e error) {
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				walk(x)
			}
			return
		}
		leaves = append(leaves, e)
	}
	walk(err)
	var out []error
	for _, e := range leaves {
		var de *mapstructure.DecodeError
		if errors.As(e, &de) {
			key := strings.TrimPrefix(strings.TrimPrefix(de.Name(), "loader.Config"), ".")
			msg := de.Unwrap().Error()
			if strings.HasPrefix(msg, "has invalid keys: ") {
				keys := strings.Split(strings.TrimPrefix(msg, "has invalid keys: "), ", ")
				for _, k := range keys {
					full := k
					if key != "" {
						full = key + "." + k
					}
					out = append(out, &ConfigError{File: file, Key: full, Msg: "unknown key"})
				}
				continue
			}
			msg = cleanDecodeMsg(msg)
			if v, ok := lookup(raw, key); ok && !strings.Contains(msg, fmt.Sprint(v)) {
				msg = fmt.Sprintf("%s (value %q)", msg, fmt.Sprint(v))
			}
			out = append(out, &ConfigError{File: file, Key: key, Msg: msg})
			continue
		}
		out = append(out, &ConfigError{File: file, Msg: e.Error()})
	}
	return errors.Join(out...)
}

// lookup finds a key such as plugins[0].limits.timeout in the raw map.
func lookup(raw map[string]any, key string) (any, bool) {
	var cur any = raw
	for _, part := range strings.Split(key, ".") {
		name, idx, hasIdx := strings.Cut(part, "[")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[name]; !ok {
			return nil, false
		}
		for hasIdx {
			var rest string
			var n int
			if _, err := fmt.Sscanf(idx, "%d]", &n); err != nil {
				return nil, false
			}
			l, ok := cur.([]any)
			if !ok || n < 0 || n >= len(l) {
				return nil, false
			}
			cur = l[n]
			_, rest, _ = strings.Cut(idx, "]")
			idx, hasIdx = strings.CutPrefix(rest, "[")
		}
	}
	return cur, true
}

func cleanDecodeMsg(msg string) string {
	msg = strings.ReplaceAll(msg, "loader.", "")
	return msg
}

var (
	durationType = reflect.TypeOf(Duration(0))
	byteSizeType = reflect.TypeOf(ByteSize(0))
)

func durationHook(from, to reflect.Type, data any) (any, error) {
	if to != durationType {
		return data, nil
	}
	switch v := data.(type) {
	case string:
		d, err := time.ParseDuration(v)
		if err != nil {
			return nil, fmt.Errorf("invalid duration %q (write e.g. 5s, 250ms, 1m)", v)
		}
		return Duration(d), nil
	case int, int64, uint64, float64:
		return nil, fmt.Errorf("duration %v needs a unit (write e.g. %vs)", v, v)
	}
	return nil, fmt.Errorf("invalid duration %v", data)
}

// intHook refuses fractions for integer keys (mapstructure would truncate).
func intHook(from, to reflect.Type, data any) (any, error) {
	if to.Kind() != reflect.Int {
		return data, nil
	}
	if f, ok := data.(float64); ok && f != float64(int64(f)) {
		return nil, fmt.Errorf("%v is not a whole number", f)
	}
	return data, nil
}

func byteSizeHook(from, to reflect.Type, data any) (any, error) {
	if to != byteSizeType {
		return data, nil
	}
	switch v := data.(type) {
	case string:
		n, err := ParseByteSize(v)
		if err != nil {
			return nil, err
		}
		return ByteSize(n), nil
	case int:
		return ByteSize(v), nil
	case int64:
		return ByteSize(v), nil
	case uint64:
		return ByteSize(v), nil
	}
	return nil, fmt.Errorf("invalid size %v (write e.g. 64MiB)", data)
}

// ParseByteSize parses 64MiB, 512KiB, 1GiB, 10MB, 4096 or 4096B.
func ParseByteSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   int64
	}{
		{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
		{"KB", 1000}, {"MB", 1000 * 1000}, {"GB", 1000 * 1000 * 1000},
		{"B", 1},
	}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			mult = u.mult
			t = strings.TrimSpace(strings.TrimSuffix(t, u.suffix))
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("invalid size %q (write e.g. 64MiB, 512KiB or a byte count)", s)
	}
	return n * mult, nil
}

// String writes a size the way ParseByteSize reads it.
func (b ByteSize) String() string {
	switch {
	case b >= 1<<30 && b%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", b>>30)
	case b >= 1<<20 && b%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", b>>20)
	case b >= 1<<10 && b%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", b>>10)
	}
	return fmt.Sprintf("%dB", int64(b))
}

// String writes a duration as time.Duration does.
func (d Duration) String() string { return time.Duration(d).String() }

// normalize fills defaults, resolves paths, expands dir entries and checks
// every value. All problems are reported together.
func (c *Config) normalize() error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, &ConfigError{File: c.File, Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	base := filepath.Dir(c.File)

	if c.Server.Name == "" {
		c.Server.Name = "wasmgate"
	}
	if c.Server.ShutdownTimeout == 0 {
		c.Server.ShutdownTimeout = Duration(DefaultShutdownTimeout)
	} else if c.Server.ShutdownTimeout < 0 || time.Duration(c.Server.ShutdownTimeout) > 10*time.Minute {
		bad("server.shutdown_timeout", "%s is out of range (0s < value <= 10m)", c.Server.ShutdownTimeout)
	}

	switch strings.ToLower(c.Server.Log.Level) {
	case "":
		c.Server.Log.Level = "info"
	case "debug", "info", "warn", "error":
		c.Server.Log.Level = strings.ToLower(c.Server.Log.Level)
	default:
		bad("server.log.level", "%q: want debug, info, warn or error", c.Server.Log.Level)
	}
	switch c.Server.Log.Format {
	case "":
		c.Server.Log.Format = "text"
	case "text", "json":
	default:
		bad("server.log.format", "%q: want text or json", c.Server.Log.Format)
	}
	if c.Server.CacheDir != "" && c.Server.CacheDir != "off" {
		c.Server.CacheDir = resolve(base, c.Server.CacheDir)
	}
	if c.Transports.HTTP.SessionIdleTimeout == 0 {
		c.Transports.HTTP.SessionIdleTimeout = Duration(time.Hour)
	} else if c.Transports.HTTP.SessionIdleTimeout < Duration(time.Second) {
		bad("transports.http.session_idle_timeout", "%s is out of range (at least 1s)", c.Transports.HTTP.SessionIdleTimeout)
	}

	h := &c.Transports.HTTP
	if h.Listen == "" {
		h.Listen = DefaultHTTPListen
	}
	if err := checkListen(h.Listen); err != nil {
		bad("transports.http.listen", "%q: %v", h.Listen, err)
	}
	if h.Path == "" {
		h.Path = DefaultHTTPPath
	}
	if !strings.HasPrefix(h.Path, "/") {
		bad("transports.http.path", "%q must start with /", h.Path)
	}
	for i, o := range h.AllowedOrigins {
		if err := checkOrigin(o); err != nil {
			bad(fmt.Sprintf("transports.http.allowed_origins[%d]", i), "%q: %v", o, err)
		}
	}
	if h.MaxBody == 0 {
		h.MaxBody = DefaultMaxBody
	} else if h.MaxBody < 1<<10 || h.MaxBody > 1<<30 {
		bad("transports.http.max_body", "%s is out of range (1KiB..1GiB)", h.MaxBody)
	}
	if h.Auth.BearerTokenEnv != "" && h.Auth.BearerTokenFile != "" {
		bad("transports.http.auth", "set bearer_token_env or bearer_token_file, not both")
	}
	if h.Auth.BearerTokenFile != "" {
		h.Auth.BearerTokenFile = resolve(base, h.Auth.BearerTokenFile)
	}
	h.bounds(bad)

	if c.Admin.Listen == "" {
		c.Admin.Listen = DefaultAdminListen
	}
	if err := checkListen(c.Admin.Listen); err != nil {
		bad("admin.listen", "%q: %v", c.Admin.Listen, err)
	}
	if a := &c.Admin.Auth; a.BearerTokenEnv != "" && a.BearerTokenFile != "" {
		bad("admin.auth", "set bearer_token_env or bearer_token_file, not both")
	} else if a.BearerTokenFile != "" {
		a.BearerTokenFile = resolve(base, a.BearerTokenFile)
	}

	var expanded []PluginSpec
	for i, p := range c.Plugins {
		key := fmt.Sprintf("plugins[%d]", i)
		p.Key = key
		switch {
		case p.Path != "" && p.Dir != "":
			bad(key, "set path or dir, not both")
			continue
		case p.Path == "" && p.Dir == "":
			bad(key, "needs path (one .wasm file) or dir (a folder of .wasm files)")
			continue
		}
		if p.Dir != "" {
			if p.Name != "" {
				bad(key+".name", "%q: a dir entry names its plugins after their files; remove name", p.Name)
				continue
			}
			if p.SHA256 != "" {
				bad(key+".sha256", "a dir entry cannot pin one hash; list the file with path to pin it")
				continue
			}
			dir := resolve(base, p.Dir)
			c.dirs = append(c.dirs, dir)
			files, err := wasmFiles(dir)
			if err != nil {
				bad(key+".dir", "%q: %v", p.Dir, err)
				continue
			}
			for _, f := range files {
				q := p
				q.Dir = ""
				q.Path = f
				q.Name = strings.TrimSuffix(filepath.Base(f), ".wasm")
				q.Key = fmt.Sprintf("%s (dir %s, file %s)", key, p.Dir, filepath.Base(f))
				expanded = append(expanded, q)
			}
			continue
		}
		p.Path = resolve(base, p.Path)
		if p.Name == "" {
			p.Name = strings.TrimSuffix(filepath.Base(p.Path), ".wasm")
		}
		expanded = append(expanded, p)
	}

	names := map[string]string{}
	for i := range expanded {
		p := &expanded[i]
		if !validName(p.Name) {
			bad(p.Key+".name", "%q: use letters, digits, '_', '-' or '.' (1-64 characters)", p.Name)
		}
		if prev, ok := names[p.Name]; ok {
			bad(p.Key+".name", "duplicate plugin name %q (also %s)", p.Name, prev)
		} else {
			names[p.Name] = p.Key
		}
		if p.Prefix != "" && !validName(p.Prefix) {
			bad(p.Key+".prefix", "%q: use letters, digits, '_', '-' or '.'", p.Prefix)
		}
		p.Limits.fill()
		p.Limits.check(p.Key+".limits", bad)
		for j, h := range p.AllowedHosts {
			if strings.TrimSpace(h) == "" {
				bad(fmt.Sprintf("%s.allowed_hosts[%d]", p.Key, j), "empty host pattern")
			}
		}
		if len(p.AllowedPaths) > 0 {
			resolved := make(map[string]string, len(p.AllowedPaths))
			for host, guest := range p.AllowedPaths {
				ro := strings.HasPrefix(host, "ro:")
				h := resolve(base, strings.TrimPrefix(host, "ro:"))
				st, err := os.Stat(h)
				if err != nil || !st.IsDir() {
					bad(p.Key+".allowed_paths", "%q: not a readable directory", host)
					continue
				}
				if !strings.HasPrefix(guest, "/") {
					bad(p.Key+".allowed_paths", "%q: guest path %q must be absolute", host, guest)
					continue
				}
				if ro {
					h = "ro:" + h
				}
				resolved[h] = guest
			}
			p.AllowedPaths = resolved
		}
		if err := checkModuleFile(p.Path); err != nil {
			bad(p.Key+".path", "%q: %v", p.Path, err)
		}
		if p.SHA256 != "" {
			p.SHA256 = strings.ToLower(strings.TrimPrefix(p.SHA256, "sha256:"))
			if len(p.SHA256) != 64 || strings.Trim(p.SHA256, "0123456789abcdef") != "" {
				bad(p.Key+".sha256", "%q is not a hex SHA-256 (64 hex digits)", p.SHA256)
			}
		}
	}
	c.Plugins = expanded
	return errors.Join(errs...)
}

func (l *Limits) fill() {
	if l.Timeout == 0 {
		l.Timeout = Duration(DefaultTimeout)
	}
	if l.Memory == 0 {
		l.Memory = DefaultMemory
	}
	if l.Concurrency == 0 {
		l.Concurrency = runtime.NumCPU()
	}
	if l.MaxOutput == 0 {
		l.MaxOutput = DefaultMaxOutput
	}
	if l.KVQuota == 0 {
		l.KVQuota = DefaultKVQuota
	}
}

func (l Limits) check(key string, bad func(key, format string, args ...any)) {
	if l.Timeout < Duration(time.Millisecond) || l.Timeout > Duration(10*time.Minute) {
		bad(key+".timeout", "%s is out of range (1ms..10m)", l.Timeout)
	}
	if l.Memory < 2<<20 || l.Memory > 4<<30 {
		bad(key+".memory", "%s is out of range (2MiB..4GiB)", l.Memory)
	}
	if l.Concurrency < 1 || l.Concurrency > 1024 {
		bad(key+".concurrency", "%d is out of range (1..1024)", l.Concurrency)
	}
	if l.MaxOutput < 1<<10 || l.MaxOutput > 256<<20 {
		bad(key+".max_output", "%s is out of range (1KiB..256MiB)", l.MaxOutput)
	}
	if l.KVQuota < 0 || l.KVQuota > 4<<30 {
		bad(key+".kv_quota", "%s is out of range (0..4GiB)", l.KVQuota)
	}
}

func validName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}

func resolve(base, p string) string {
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

func checkListen(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New("want host:port, e.g. 127.0.0.1:8080")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("port %q is not a number in 0..65535", port)
	}
	return nil
}

func checkOrigin(o string) error {
	if o == "*" {
		return errors.New(`"*" is not allowed; list each origin`)
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return errors.New("want scheme://host[:port], e.g. https://app.example.com")
	}
	return nil
}

func wasmFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, unwrapPathError(err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".wasm") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		out = append(out, filepath.Join(dir, e.Name()))
	}
	slices.Sort(out)
	return out, nil
}

func checkModuleFile(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return unwrapPathError(err)
	}
	if st.IsDir() {
		return errors.New("is a directory, not a .wasm file")
	}
	f, err := os.Open(path)
	if err != nil {
		return unwrapPathError(err)
	}
	return f.Close()
}
