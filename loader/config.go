// Package loader turns a gateway.yaml into a validated Config and compiles
// the WebAssembly plugins it names into Plugins the gateway can serve.
//
// Nothing in this package serves traffic: Load and Build either succeed
// whole or return an error that names the file, the key and the bad value.
package loader

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/go-viper/mapstructure/v2"
	"github.com/knadh/koanf/parsers/yaml"
	"github.com/knadh/koanf/providers/env/v2"
	"github.com/knadh/koanf/providers/rawbytes"
	"github.com/knadh/koanf/v2"

	"github.com/wasmgate/wasmgate/auth/authconfig"
	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/internal/netutil"
	"github.com/wasmgate/wasmgate/policy"
	"github.com/wasmgate/wasmgate/relay/relayconfig"
	"github.com/wasmgate/wasmgate/state/stateconfig"
)

// EnvPrefix starts every environment variable that overrides a key of
// gateway.yaml. A double underscore separates nesting levels:
// WASMGATE_TRANSPORTS__HTTP__LISTEN overrides transports.http.listen.
const EnvPrefix = "WASMGATE_"

// EnvConfigPath names the environment variable holding the config path; it
// is not an override.
const EnvConfigPath = "WASMGATE_CONFIG"

// Names kept for callers that predate package config.
type (
	ConfigError = config.Error
	Duration    = config.Duration
	ByteSize    = config.ByteSize
)

// ParseByteSize parses 64MiB, 512KiB, 1GiB, 10MB, 4096 or 4096B.
func ParseByteSize(s string) (int64, error) { return config.ParseByteSize(s) }

// Config is a validated gateway.yaml. Each field is a section: a type that
// fills its own defaults and checks its own keys (config.Section), and may
// name keys a reload cannot change (config.RestartOnly). Adding a section
// is adding a field here.
type Config struct {
	Server      Server             `koanf:"server"`
	Transports  Transports         `koanf:"transports"`
	Admin       Admin              `koanf:"admin"`
	Plugins     Plugins            `koanf:"plugins"`
	Auth        authconfig.Config  `koanf:"auth"`
	Policy      policy.Config      `koanf:"policy"`
	Audit       Audit              `koanf:"audit"`
	Relay       relayconfig.Config `koanf:"relay"`
	Tracing     Tracing            `koanf:"tracing"`
	Upstreams   Upstreams          `koanf:"upstreams"`
	Endpoints   Endpoints          `koanf:"endpoints"`
	State       stateconfig.Config `koanf:"state"`
	Trust       Trust              `koanf:"trust"`
	Credentials Credentials        `koanf:"credentials"`
	Flows       Flows              `koanf:"flows"`
	// Interceptors are the operators' own filters of calls and lists.
	Interceptors Interceptors `koanf:"interceptors"`
	// Lists are the caching hints of list results (SEP-2549).
	Lists Lists `koanf:"lists"`
	// Skills are folders of Agent Skills served through the MCP skills
	// extension.
	Skills Skills `koanf:"skills"`

	// File is the absolute path of the file this Config was read from.
	File string `koanf:"-"`

	// What a reload should watch, as the sections recorded it.
	watchFiles, watchDirs []string
	watchTrees            []string
	// environ is the environment Load was given (env_from reads it).
	environ []string
	// readLockFile: normalize reads server.lock_file (LoadUnlocked: not).
	readLockFile bool
	// data is the file as read and fromEnv the keys set by variables, for
	// Locate.
	data    []byte
	fromEnv map[string]string
}

// Locate adds the line and column of the key in the file to each
// *config.Error of err that names a key of c's file and has none yet: for
// the errors of what is built from c after it loaded (a token_file that
// cannot be read, an upstream that does not start).
func (c *Config) Locate(err error) error {
	if err == nil || c == nil || len(c.data) == 0 {
		return err
	}
	return withPositions(err, c.data, c.fromEnv)
}

// WatchFiles are the absolute files whose change should reload: plugin
// modules, token files. The config file itself is not included.
func (c *Config) WatchFiles() []string { return c.watchFiles }

// WatchModuleDirs are the folders whose *.wasm files should reload.
func (c *Config) WatchModuleDirs() []string { return c.watchDirs }

// WatchTrees are the folders any file of which, in any folder below them,
// should reload (skills folders).
func (c *Config) WatchTrees() []string { return c.watchTrees }

// Load reads the config file at path, applies environment overrides from
// environ (os.Environ() form), fills defaults and validates everything that
// can be checked without compiling a module. Errors are *config.Error or a
// join of them. When the file parsed but did not validate, Load returns the
// partial Config with the error: use it only to know which files it names.
func Load(path string, environ []string) (*Config, error) { return load(path, environ, true) }

// LoadUnlocked is Load without reading server.lock_file (Trust.Lock is
// nil): what `wasmgate lock` builds from, whatever the lock holds.
func LoadUnlocked(path string, environ []string) (*Config, error) { return load(path, environ, false) }

func load(path string, environ []string, readLock bool) (*Config, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("resolve config path %q: %w", path, err)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, &config.Error{File: abs, Msg: fmt.Sprintf("cannot read the config file: %v", unwrapPathError(err))}
	}
	k := koanf.New(".")
	if err := k.Load(rawbytes.Provider(data), yaml.Parser()); err != nil {
		return nil, &config.Error{File: abs, Msg: "invalid YAML: " + syntaxError(data, err)}
	}
	// The variables holding secrets may themselves start with WASMGATE_;
	// they are secrets, not overrides.
	secrets := secretVariables(k.Raw())
	fromEnv := map[string]string{} // key -> variable, to name it in errors
	if err := k.Load(env.Provider(".", env.Opt{
		Prefix: EnvPrefix,
		TransformFunc: func(name, v string) (string, any) {
			if secrets[name] {
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
	hooks := config.DecodeHooks()
	dc := &mapstructure.DecoderConfig{
		TagName:     "koanf",
		ErrorUnused: true,
		DecodeHook:  mapstructure.ComposeDecodeHookFunc(hooks[0], hooks[1], hooks[2]),
		Result:      &cfg,
	}
	dec, err := mapstructure.NewDecoder(dc)
	if err != nil {
		return nil, fmt.Errorf("build config decoder: %w", err)
	}
	if err := dec.Decode(k.Raw()); err != nil {
		return nil, blameEnv(withPositions(decodeErrors(abs, k.Raw(), err), data, fromEnv), fromEnv)
	}
	cfg.File = abs
	cfg.environ = environ
	cfg.data, cfg.fromEnv = data, fromEnv
	cfg.readLockFile = readLock
	if err := cfg.normalize(); err != nil {
		// The partial Config still says which files the user meant, so a
		// watcher can wait for them.
		return &cfg, blameEnv(withPositions(err, data, fromEnv), fromEnv)
	}
	return &cfg, nil
}

// secretVariables are the environment variables the file names as
// holding secrets: the value of every key, at any depth, whose name ends
// in "_env" (token_env, bearer_token_env, and those of sections to come)
// and is a string. A section that reads a secret from a variable names
// its key so; nothing here lists them.
func secretVariables(v any) map[string]bool {
	vars := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for key, val := range x {
				if strings.HasSuffix(key, "_env") {
					switch n := val.(type) {
					case string: // token_env: NAME
						vars[n] = true
					case map[string]any: // headers_env: {Header: NAME}
						for _, name := range n {
							if name, ok := name.(string); ok {
								vars[name] = true
							}
						}
					}
				}
				walk(val)
			}
		case []any:
			for _, val := range x {
				walk(val)
			}
		}
	}
	walk(v)
	return vars
}

// sections calls fn with the key and address of each section of c.
func (c *Config) sections(fn func(key string, s any)) {
	v := reflect.ValueOf(c).Elem()
	for i := range v.NumField() {
		key := v.Type().Field(i).Tag.Get("koanf")
		if key == "" || key == "-" {
			continue
		}
		fn(key, v.Field(i).Addr().Interface())
	}
}

// normalize lets each section fill its defaults and check its keys. All
// problems are reported together.
func (c *Config) normalize() error {
	var errs []error
	env := config.NewEnv(c.File, &errs)
	c.sections(func(key string, s any) {
		if sec, ok := s.(config.Section); ok {
			sec.Normalize(key, env)
		}
	})
	c.watchFiles, c.watchDirs = env.Watched()
	c.watchTrees = env.WatchedTrees()
	// Defaults and checks that depend on more than one section.
	c.watchFiles = append(c.watchFiles, c.Server.LockFile) // `wasmgate lock` writing it is a reload
	if c.readLockFile {
		if err := c.readLock(); err != nil {
			errs = append(errs, err)
		}
	} else {
		c.Trust.LockFile = c.Server.LockFile
	}
	for i := range c.Plugins {
		if c.Plugins[i].Limits.Concurrency == 0 {
			c.Plugins[i].Limits.Concurrency = DefaultConcurrency(c.Server.MaxConcurrentCalls)
		}
	}
	if c.Transports.HTTP.Auth.Set() {
		for i, p := range c.Auth.Principals {
			if p.Name == LegacyPrincipal {
				env.Bad(fmt.Sprintf("auth.principals[%d].name", i), "%q is the principal transports.http.auth's token stands for; name this one differently", p.Name)
			}
		}
	}
	c.checkRelay(env)
	c.checkUpstreams(env)
	c.checkSkills(env)
	c.checkUserIdentity(env)
	c.checkEndpoints(env)
	c.checkCredentials(env)
	c.deriveLabels()
	c.checkFlows(env)
	if h := c.Transports.HTTP; h.On() && !h.Auth.Set() && config.CheckListen(h.Listen) == nil {
		if err := authconfig.CheckExposure(c.Auth, h.Listen); err != nil {
			env.Bad("transports.http.listen", "%v", err)
		}
	}
	return errors.Join(errs...)
}

// checkRelay checks what the relay section shares with others: it serves
// on the MCP HTTP listener, beside the MCP path, and its sites' names
// label metrics as plugins' do.
func (c *Config) checkRelay(env *config.Env) {
	h := c.Transports.HTTP
	if len(c.Relay.Sites) > 0 && !h.On() {
		env.Bad("relay.sites", "the relay serves on the MCP HTTP listener: enable transports.http")
	}
	if c.Relay.Path == h.Path {
		env.Bad("relay.path", "%q is transports.http.path; give the relay its own path", c.Relay.Path)
	}
	c.checkPrefixes(env)
	for _, site := range c.Relay.Sites {
		if site.Protocol == relayconfig.ProtocolWULegacy && !site.Insecure && h.On() && config.CheckListen(h.Listen) == nil && !netutil.LoopbackListen(h.Listen) {
			env.Bad(site.Key+".protocol", "wu-legacy pages send the token in clear: the MCP HTTP listener must be loopback or TLS (transports.http.listen is %s)", h.Listen)
		}
		if site.Insecure && site.Protocol == relayconfig.ProtocolWULegacy && h.On() && config.CheckListen(h.Listen) == nil &&
			!netutil.LoopbackListen(h.Listen) {
			env.Bad(site.Key+".insecure", "pages without a token are allowed only on a loopback listener, where any local process can still be the page (transports.http.listen is %s); set token_env or token_file", h.Listen)
		}
		for _, p := range c.Plugins {
			if site.Name != "" && p.Name == site.Name {
				env.Bad(site.Key+".name", "%q is also the name of %s; metrics label both as plugin %q", site.Name, p.Key, site.Name)
			}
		}
	}
}

// checkPrefixes refuses two prefixes of which one starts with the other
// (relay sites app_ and app_admin_): the name app_admin_delete would be
// the first source's admin_delete and the second's delete, so a policy
// written for one would reach the other.
func (c *Config) checkPrefixes(env *config.Env) {
	type owned struct{ key, prefix string }
	var all []owned
	for _, p := range c.Plugins {
		if p.Prefix != "" {
			all = append(all, owned{p.Key, config.NamePrefix(p.Prefix)})
		}
	}
	for _, s := range c.Relay.Sites {
		if s.Prefix != "" {
			all = append(all, owned{s.Key, config.NamePrefix(s.Prefix)})
		}
	}
	for _, u := range c.upstreamPrefixes() {
		all = append(all, owned{u[0], u[1]})
	}
	for _, a := range all {
		for _, b := range all {
			if a.key != b.key && len(a.prefix) < len(b.prefix) && strings.HasPrefix(b.prefix, a.prefix) {
				env.Bad(b.key+".prefix", "names under %q also start with %q, the prefix of %s: a name could belong to either; choose prefixes of which neither starts with the other", b.prefix, a.prefix, a.key)
			}
		}
	}
}

// RestartOnly reports every key whose change from prev takes a restart,
// naming both values and how to restart (howToRestart, e.g. "systemctl
// restart wasmgate" under systemd: the caller knows, the loader does not
// look at the process); nil when a reload may apply c.
func (c *Config) RestartOnly(prev *Config, howToRestart string) error {
	if howToRestart == "" {
		howToRestart = "restart wasmgate"
	}
	var errs []error
	diff := func(key string, a, b any) {
		if fmt.Sprint(a) != fmt.Sprint(b) {
			errs = append(errs, &config.Error{File: c.File, Key: key,
				Msg: fmt.Sprintf("changed from %v to %v; this takes a restart (%s), the rest of the file was not applied", a, b, howToRestart)})
		}
	}
	old := map[string]any{}
	prev.sections(func(key string, s any) { old[key] = s })
	c.sections(func(key string, s any) {
		if r, ok := s.(config.RestartOnly); ok {
			r.RestartOnly(key, old[key], diff)
		}
	})
	c.stdioEndpointRestartOnly(prev, diff)
	return errors.Join(errs...)
}

// stdioEndpointRestartOnly refuses a change of the endpoint stdio
// serves: its session lives on one endpoint for the process's life.
// Without transports.stdio.endpoint that is the first endpoint, which a
// reload may change; that is compared when the file enables stdio (a
// stdio turned on by serve --stdio is its caller's to compare, with
// StdioEndpoint), the key itself whenever it is set.
func (c *Config) stdioEndpointRestartOnly(prev *Config, diff config.Diff) {
	p, n := prev.Transports.Stdio, c.Transports.Stdio
	if p.Endpoint == "" && n.Endpoint == "" && !(p.Enabled && n.Enabled) {
		return
	}
	if prev.StdioEndpoint() == c.StdioEndpoint() {
		return
	}
	shown := func(c *Config) string {
		if c.Transports.Stdio.Endpoint == "" {
			return c.StdioEndpoint() + " (not set: the first endpoint)"
		}
		return c.StdioEndpoint()
	}
	diff("transports.stdio.endpoint", shown(prev), shown(c))
}
