package loader

import (
	"fmt"
	"math"
	neturl "net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wasmgate/wasmgate/internal/childproc"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/internal/netutil"
)

// Defaults of an upstream server's limits and modes.
const (
	DefaultUpstreamTimeout     = 30 * time.Second
	DefaultUpstreamConcurrency = 16
	// DefaultUpstreamStartTimeout bounds starting an upstream session
	// (process, initialize, lists).
	DefaultUpstreamStartTimeout = 30 * time.Second
	// DefaultUpstreamMaxMessage bounds one JSON-RPC message an upstream
	// sends (a line on a stdio server's stdout).
	DefaultUpstreamMaxMessage = 16 << 20
	// DefaultUpstreamMaxTools bounds the tools an upstream may list.
	DefaultUpstreamMaxTools = 1000
	// MaxUpstreamListed bounds each of an upstream's other lists
	// (resources, resource templates, prompts).
	MaxUpstreamListed = 10000
)

// Session modes of an upstream (session:).
const (
	// SessionShared: one upstream session serves every downstream client.
	SessionShared = "shared"
	// SessionPerClient: each downstream MCP session has its own upstream
	// session (a process, for a command), opened at its first use and
	// closed when it ends.
	SessionPerClient = "per_client"
)

// Start modes of an upstream (start:).
const (
	// StartEager: started (and initialized) when the config loads; a
	// failure is a load error.
	StartEager = "eager"
	// StartBackground: started once the config serves, without holding
	// up the load; a failure is retried with backoff and shown on the
	// status page, and the lists are published (list_changed) once the
	// server answered initialize.
	StartBackground = "background"
	// StartLazy: started at the first call that needs it (its lists are
	// served from the catalog cached by an earlier run, or read once at
	// load when there is none), and stopped again after idle_timeout
	// without a call.
	StartLazy = "lazy"
	// DefaultUpstreamIdleTimeout is how long a lazy upstream's shared session
	// stays up without a call.
	DefaultUpstreamIdleTimeout = 10 * time.Minute
)

// Upstreams is the upstreams section: MCP servers the gateway fronts,
// local ones started as a command (stdio) and remote ones (url:, over
// Streamable HTTP or the older HTTP+SSE).
type Upstreams []UpstreamSpec

// UpstreamSpec is one entry of upstreams.
type UpstreamSpec struct {
	Name string `koanf:"name"`

	// stdio
	Command []string          `koanf:"command"`
	Env     map[string]string `koanf:"env"`
	EnvFrom []string          `koanf:"env_from"`
	Cwd     string            `koanf:"cwd"`
	Sandbox *UpstreamSandbox  `koanf:"sandbox"`

	// remote
	URL     string            `koanf:"url"`
	Headers map[string]string `koanf:"headers"`
	Auth    UpstreamAuth      `koanf:"auth"`
	TLS     UpstreamTLS       `koanf:"tls"`
	// FollowRedirects lets the upstream's HTTP clients (its own and its
	// OAuth token endpoint's) follow a redirect within the same origin
	// (scheme, host and port); off, every redirect fails the request.
	FollowRedirects bool `koanf:"follow_redirects"`

	Session string `koanf:"session"`
	Start   string `koanf:"start"`
	// IdleTimeout stops a lazy upstream's shared session (its process,
	// for a command) after this long without a call (start: lazy only).
	IdleTimeout config.Duration `koanf:"idle_timeout"`
	Prefix      string          `koanf:"prefix"`

	config.Curation `koanf:",squash"`

	// RedactSecrets replaces credential-shaped strings in the tool
	// arguments the upstream gets and the results it returns.
	RedactSecrets bool `koanf:"redact_secrets"`

	Limits UpstreamLimits `koanf:"limits"`

	// Key is where the upstream is declared, e.g. "upstreams[1]".
	Key string `koanf:"-"`
	// ChildEnv is the whole environment of a command: env, env_from (read
	// from the gateway's environment at load) and PATH and HOME unless
	// env sets them.
	ChildEnv []string `koanf:"-"`
}

// UpstreamSandbox is what a sandboxed command may reach (Landlock).
type UpstreamSandbox struct {
	Read  []string `koanf:"read"`
	Write []string `koanf:"write"`
	// Network is true, false or a list of TCP ports; read it with Ports.
	Network any `koanf:"network"`

	// After Normalize: NetworkAll (true) or the ports of a list.
	NetworkAll bool     `koanf:"-"`
	Ports      []uint16 `koanf:"-"`
}

// UpstreamAuth is how the gateway authenticates to a remote upstream: one
// of a bearer token (bearer_env, bearer_file) or OAuth 2.0 client
// credentials. The downstream client's own token is never forwarded.
type UpstreamAuth struct {
	BearerEnv  string         `koanf:"bearer_env"`
	BearerFile string         `koanf:"bearer_file"`
	OAuth      *UpstreamOAuth `koanf:"oauth"`
	// The modes that reach the upstream as the caller
	// (upstream_identity.go).
	TokenExchange     *UpstreamTokenExchange     `koanf:"token_exchange"`
	UserOAuth         *UpstreamUserOAuth         `koanf:"user_oauth"`
	IdentityAssertion *UpstreamIdentityAssertion `koanf:"identity_assertion"`
	// Key is where the auth block sits ("upstreams[1].auth").
	Key string `koanf:"-"`
}

// UpstreamOAuth is the OAuth 2.0 client credentials grant.
type UpstreamOAuth struct {
	TokenURL         string   `koanf:"token_url"`
	ClientID         string   `koanf:"client_id"`
	ClientSecretEnv  string   `koanf:"client_secret_env"`
	ClientSecretFile string   `koanf:"client_secret_file"`
	Scopes           []string `koanf:"scopes"`
	Key              string   `koanf:"-"`
}

// UpstreamTLS configures the TLS client of a remote upstream.
type UpstreamTLS struct {
	CAFile string `koanf:"ca_file"`
}

// UpstreamLimits bound what one upstream may use.
type UpstreamLimits struct {
	Timeout     config.Duration `koanf:"timeout"`
	Concurrency int             `koanf:"concurrency"`
	MaxMessage  config.ByteSize `koanf:"max_message"`
	// MaxTools bounds the tools the upstream lists (before curation):
	// more is an error naming the upstream, and its lists are not taken.
	MaxTools int `koanf:"max_tools"`
	// StartTimeout bounds starting a session: the process or
	// connection, initialize, and reading the lists.
	StartTimeout config.Duration `koanf:"start_timeout"`
}

// Stdio reports whether the upstream is a local command.
func (u *UpstreamSpec) Stdio() bool { return len(u.Command) > 0 }

// BearerRef is where the bearer token is, for config.SecretRef.Read.
func (a UpstreamAuth) BearerRef() config.SecretRef {
	return bearerRef(a.Key, a.BearerEnv, a.BearerFile)
}

// bearerRef is the bearer token of the auth section at key: its keys
// bearer_env and bearer_file.
func bearerRef(key, env, file string) config.SecretRef {
	return config.SecretRef{Key: key, EnvKey: "bearer_env", Env: env, FileKey: "bearer_file", File: file}
}

// normalizeBearer checks the bearer_env and bearer_file of the auth
// section at key, resolves the file against the config's folder and
// watches it.
func normalizeBearer(env *config.Env, key, bearerEnv string, bearerFile *string) {
	if bearerEnv != "" && *bearerFile != "" {
		env.Bad(key, "set bearer_env or bearer_file, not both")
	}
	if *bearerFile != "" {
		*bearerFile = env.Path(*bearerFile)
		env.WatchFile(*bearerFile)
	}
}

// checkSentHeaders refuses, among the headers the gateway sends to
// another server (whom: "to an upstream"), a credential, which has keys
// of its own (use), and the admin listener's header.
func checkSentHeaders(env *config.Env, key string, headers map[string]string, use, whom string) {
	for name := range headers {
		if strings.EqualFold(name, "Authorization") {
			env.Bad(key, "never write a credential in gateway.yaml: use %s", use)
		}
		if strings.EqualFold(name, netutil.AdminHeader) {
			env.Bad(key, "%s is the header the admin listener's POST endpoints require; the gateway never sends it %s", netutil.AdminHeader, whom)
		}
	}
}

// SecretRef is where the client secret is.
func (o UpstreamOAuth) SecretRef() config.SecretRef {
	return config.SecretRef{Key: o.Key, EnvKey: "client_secret_env", Env: o.ClientSecretEnv, FileKey: "client_secret_file", File: o.ClientSecretFile}
}

// Curated is the upstream's curation (tools.include/exclude, overrides).
func (u *UpstreamSpec) Curated() *config.Curation { return &u.Curation }

// Normalize fills defaults and checks every upstream. Checks that need
// the gateway's environment or the other sections are in
// Config.checkUpstreams.
func (us *Upstreams) Normalize(key string, env *config.Env) {
	names := map[string]string{}
	for i := range *us {
		u := &(*us)[i]
		u.Key = fmt.Sprintf("%s[%d]", key, i)
		if prev, ok := names[u.Name]; ok && u.Name != "" {
			env.Bad(u.Key+".name", "duplicate upstream name %q (also %s)", u.Name, prev)
		} else {
			names[u.Name] = u.Key
		}
		u.normalize(env)
	}
}

func (u *UpstreamSpec) normalize(env *config.Env) {
	k := u.Key
	switch {
	case u.Name == "":
		env.Bad(k+".name", "missing: every upstream needs a name (it labels metrics, logs and the status page)")
	case !config.ValidName(u.Name):
		env.Bad(k+".name", "%q: use letters, digits, '_', '-' or '.' (1-64 characters)", u.Name)
	}
	if u.Prefix != "" && !config.ValidName(u.Prefix) {
		env.Bad(k+".prefix", "%q: use letters, digits, '_', '-' or '.'", u.Prefix)
	}
	switch {
	case u.Stdio() && u.URL != "":
		env.Bad(k, "set command (a local server over stdio) or url (a remote server), not both")
	case !u.Stdio() && u.URL == "":
		env.Bad(k, "needs command (a local server over stdio, e.g. [npx, -y, some-mcp-server]) or url (a remote server, https://...)")
	case u.Stdio():
		u.normalizeStdio(env)
	default:
		u.normalizeRemote(env)
	}
	switch u.Session {
	case "":
		u.Session = SessionShared
	case SessionShared, SessionPerClient:
	default:
		env.Bad(k+".session", "%q: use %s or %s", u.Session, SessionShared, SessionPerClient)
	}
	switch u.Start {
	case "":
		u.Start = StartEager
	case StartEager, StartBackground, StartLazy:
	default:
		env.Bad(k+".start", "%q: use %s, %s or %s", u.Start, StartEager, StartBackground, StartLazy)
	}
	switch {
	case u.Start != StartLazy && u.IdleTimeout != 0:
		env.Bad(k+".idle_timeout", "applies only to start: lazy (this upstream is start: %s)", u.Start)
	case u.Start == StartLazy && u.IdleTimeout == 0:
		u.IdleTimeout = config.Duration(DefaultUpstreamIdleTimeout)
	case u.Start == StartLazy && (u.IdleTimeout < config.Duration(time.Second) || u.IdleTimeout > config.Duration(24*time.Hour)):
		env.Bad(k+".idle_timeout", "%s is out of range (1s..24h)", u.IdleTimeout)
	}
	u.checkCuration(env)
	l := &u.Limits
	if l.Timeout == 0 {
		l.Timeout = config.Duration(DefaultUpstreamTimeout)
	}
	if l.Concurrency == 0 {
		l.Concurrency = DefaultUpstreamConcurrency
	}
	if l.MaxMessage == 0 {
		l.MaxMessage = DefaultUpstreamMaxMessage
	}
	if l.StartTimeout == 0 {
		l.StartTimeout = config.Duration(DefaultUpstreamStartTimeout)
	}
	if l.MaxTools == 0 {
		l.MaxTools = DefaultUpstreamMaxTools
	}
	if l.MaxTools < 1 || l.MaxTools > MaxUpstreamListed {
		env.Bad(k+".limits.max_tools", "%d is out of range (1..%d)", l.MaxTools, MaxUpstreamListed)
	}
	if l.StartTimeout < config.Duration(100*time.Millisecond) || l.StartTimeout > config.Duration(10*time.Minute) {
		env.Bad(k+".limits.start_timeout", "%s is out of range (100ms..10m)", l.StartTimeout)
	}
	if l.Timeout < config.Duration(time.Millisecond) || l.Timeout > config.Duration(time.Hour) {
		env.Bad(k+".limits.timeout", "%s is out of range (1ms..1h)", l.Timeout)
	}
	if l.Concurrency < 1 || l.Concurrency > 1024 {
		env.Bad(k+".limits.concurrency", "%d is out of range (1..1024)", l.Concurrency)
	}
	if l.MaxMessage < 1<<10 || l.MaxMessage > 1<<30 {
		env.Bad(k+".limits.max_message", "%s is out of range (1KiB..1GiB)", l.MaxMessage)
	}
}

func (u *UpstreamSpec) checkCuration(env *config.Env) {
	for j, p := range append(slices.Clone(u.Tools.Include), u.Tools.Exclude...) {
		if _, err := filepath.Match(p, ""); err != nil {
			which := "include"
			n := j
			if j >= len(u.Tools.Include) {
				which, n = "exclude", j-len(u.Tools.Include)
			}
			env.Bad(fmt.Sprintf("%s.tools.%s[%d]", u.Key, which, n), "%q: not a valid pattern: %v", p, err)
		}
	}
	for which, ps := range map[string][]string{"include": u.Skills.Include, "exclude": u.Skills.Exclude} {
		for i, p := range ps {
			if _, err := filepath.Match(p, ""); err != nil || p == "" {
				env.Bad(fmt.Sprintf("%s.skills.%s[%d]", u.Key, which, i), "%q is not a valid pattern (shell patterns: *, ?, [a-z]; see path.Match)", p)
			}
		}
	}
}

func (u *UpstreamSpec) normalizeStdio(env *config.Env) {
	k := u.Key
	for _, key := range []string{"headers", "auth", "tls", "follow_redirects"} {
		set := map[string]bool{"headers": len(u.Headers) > 0,
			"auth":             u.Auth.BearerEnv != "" || u.Auth.BearerFile != "" || u.Auth.OAuth != nil || u.Auth.UserMode() != "",
			"tls":              u.TLS.CAFile != "",
			"follow_redirects": u.FollowRedirects}[key]
		if set {
			env.Bad(k+"."+key, "is for a remote upstream (url); a command gets its settings through env")
		}
	}
	if u.Command[0] == "" {
		env.Bad(k+".command", "the first element (the program) is empty")
	} else if strings.Contains(u.Command[0], "/") || strings.HasPrefix(u.Command[0], "~") {
		u.Command[0] = env.Path(u.Command[0])
	}
	if u.Cwd != "" {
		u.Cwd = env.Path(u.Cwd)
		if st, err := os.Stat(u.Cwd); err != nil || !st.IsDir() {
			env.Bad(k+".cwd", "%q: not a directory", u.Cwd)
		}
	}
	for name := range u.Env {
		if name == "" || strings.ContainsAny(name, "=\x00") {
			env.Bad(k+".env", "%q is not a variable name", name)
		}
	}
	for j, name := range u.EnvFrom {
		if name == "" || strings.ContainsAny(name, "=\x00") {
			env.Bad(fmt.Sprintf("%s.env_from[%d]", k, j), "%q is not a variable name", name)
		}
	}
	if s := u.Sandbox; s != nil {
		for j := range s.Read {
			s.Read[j] = env.Path(s.Read[j])
		}
		for j := range s.Write {
			s.Write[j] = env.Path(s.Write[j])
		}
		switch n := s.Network.(type) {
		case nil, bool:
			s.NetworkAll = n == true
		case []any:
			for j, p := range n {
				port, ok := wholePort(p)
				if !ok {
					env.Bad(fmt.Sprintf("%s.sandbox.network[%d]", k, j), "%v is not a TCP port (1..65535)", p)
					continue
				}
				s.Ports = append(s.Ports, port)
			}
		default:
			env.Bad(k+".sandbox.network", "want true, false or a list of TCP ports, e.g. [443]")
		}
		// Paths that exist and a kernel that enforces it (Landlock), at
		// load: never an unsandboxed start.
		sb := &childproc.Sandbox{Read: s.Read, Write: s.Write, Network: s.NetworkAll, Ports: s.Ports}
		if err := sb.Check(); err != nil {
			env.Bad(k+".sandbox", "%v", err)
		}
	}
}

// wholePort is p (a decoded YAML number) as a TCP port.
func wholePort(p any) (uint16, bool) {
	var f float64
	switch v := p.(type) {
	case int:
		f = float64(v)
	case int64:
		f = float64(v)
	case uint64:
		f = float64(v)
	case float64:
		f = v
	default:
		return 0, false
	}
	if f != math.Trunc(f) || f < 1 || f > 65535 {
		return 0, false
	}
	return uint16(f), true
}

func (u *UpstreamSpec) normalizeRemote(env *config.Env) {
	k := u.Key
	for key, set := range map[string]bool{"env": len(u.Env) > 0, "env_from": len(u.EnvFrom) > 0, "cwd": u.Cwd != "", "sandbox": u.Sandbox != nil} {
		if set {
			env.Bad(k+"."+key, "is for a local upstream (command); a remote server runs elsewhere")
		}
	}
	if err := checkUpstreamURL(u.URL); err != nil {
		env.Bad(k+".url", "%q: %v", u.URL, err)
	}
	checkSentHeaders(env, k+".headers", u.Headers, "auth.bearer_env, auth.bearer_file or auth.oauth", "to an upstream")
	a := &u.Auth
	a.Key = k + ".auth"
	n := 0
	if a.BearerEnv != "" || a.BearerFile != "" {
		n++
	}
	normalizeBearer(env, a.Key, a.BearerEnv, &a.BearerFile)
	if o := a.OAuth; o != nil {
		n++
		o.Key = a.Key + ".oauth"
		if err := checkUpstreamURL(o.TokenURL); err != nil {
			env.Bad(o.Key+".token_url", "%q: %v", o.TokenURL, err)
		}
		if o.ClientID == "" {
			env.Bad(o.Key+".client_id", "missing")
		}
		switch {
		case o.ClientSecretEnv != "" && o.ClientSecretFile != "":
			env.Bad(o.Key, "set client_secret_env or client_secret_file, not both")
		case o.ClientSecretEnv == "" && o.ClientSecretFile == "":
			env.Bad(o.Key, "needs client_secret_env (an environment variable) or client_secret_file (a file) holding the client secret")
		}
		if o.ClientSecretFile != "" {
			o.ClientSecretFile = env.Path(o.ClientSecretFile)
			env.WatchFile(o.ClientSecretFile)
		}
	}
	n += a.normalizeIdentity(env)
	if n > 1 {
		env.Bad(a.Key, "set one mode: bearer_env, bearer_file, oauth, "+modeList())
	}
	if u.TLS.CAFile != "" {
		u.TLS.CAFile = env.Path(u.TLS.CAFile)
		if _, err := os.Stat(u.TLS.CAFile); err != nil {
			env.Bad(u.Key+".tls.ca_file", "%q: %v", u.TLS.CAFile, unwrapPathError(err))
		} else {
			env.WatchFile(u.TLS.CAFile)
		}
	}
}

// checkUpstreamURL accepts https:// anywhere and http:// to a loopback
// host only (a token or the calls' arguments would cross the network in
// clear).
func checkUpstreamURL(raw string) error {
	u, err := neturl.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("want an absolute URL, e.g. https://mcp.example.com/mcp")
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !netutil.Loopback(u.Hostname()) {
			return fmt.Errorf("plain http is allowed only to a loopback host; use https://")
		}
	default:
		return fmt.Errorf("scheme %q: want https:// (or http:// to a loopback host)", u.Scheme)
	}
	if u.User != nil {
		return fmt.Errorf("never write a credential in the URL: use auth")
	}
	return nil
}

// sourceOwners maps the name of each plugin and relay site to where it
// is declared (the first, when names repeat).
func (c *Config) sourceOwners() map[string]string {
	owners := map[string]string{}
	for _, p := range c.Plugins {
		if _, ok := owners[p.Name]; !ok {
			owners[p.Name] = p.Key
		}
	}
	for _, s := range c.Relay.Sites {
		if _, ok := owners[s.Name]; !ok {
			owners[s.Name] = s.Key
		}
	}
	return owners
}

// checkUpstreams checks what upstreams share with the other sections and
// the gateway's environment: names unique among every source, env_from
// variables set, the command found, and builds each command's
// environment.
func (c *Config) checkUpstreams(env *config.Env) {
	owners := c.sourceOwners()
	lookup := func(name string) (string, bool) {
		for i := len(c.environ) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(c.environ[i], "="); ok && k == name {
				return v, true
			}
		}
		return "", false
	}
	for i := range c.Upstreams {
		u := &c.Upstreams[i]
		if prev, ok := owners[u.Name]; ok && u.Name != "" {
			env.Bad(u.Key+".name", "%q is also the name of %s; every source needs its own name (metrics, logs and the status page label it)", u.Name, prev)
		}
		if !u.Stdio() {
			continue
		}
		vars := map[string]string{}
		for _, name := range []string{"PATH", "HOME"} {
			if v, ok := lookup(name); ok {
				vars[name] = v
			}
		}
		for j, name := range u.EnvFrom {
			v, ok := lookup(name)
			if !ok {
				env.Bad(fmt.Sprintf("%s.env_from[%d]", u.Key, j), "environment variable %s is not set in the gateway's environment", name)
				continue
			}
			vars[name] = v
		}
		for name, v := range u.Env {
			vars[name] = v
		}
		u.ChildEnv = u.ChildEnv[:0]
		for _, name := range slices.Sorted(mapsKeys(vars)) {
			u.ChildEnv = append(u.ChildEnv, name+"="+vars[name])
		}
		if prog := u.Command[0]; prog != "" {
			if err := findProgram(prog, vars["PATH"]); err != nil {
				env.Bad(u.Key+".command", "%q: %v", prog, err)
			}
		}
	}
}

func mapsKeys(m map[string]string) func(yield func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// findProgram checks that prog (a path, or a name looked up in path, the
// PATH the command gets) is an executable file.
func findProgram(prog, path string) error {
	exe := func(p string) error {
		st, err := os.Stat(p)
		if err != nil {
			return unwrapPathError(err)
		}
		if st.IsDir() || st.Mode()&0o111 == 0 {
			return fmt.Errorf("is not an executable file")
		}
		return nil
	}
	if strings.Contains(prog, "/") {
		return exe(prog)
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		if exe(filepath.Join(dir, prog)) == nil {
			return nil
		}
	}
	if path == "" {
		return fmt.Errorf("not found: the command's PATH is empty (set env.PATH, or PATH in the gateway's environment)")
	}
	return fmt.Errorf("not found in the command's PATH (%s)", path)
}

// upstreamPrefixes are the upstreams' prefixes for checkPrefixes.
func (c *Config) upstreamPrefixes() [][2]string {
	var out [][2]string
	for _, u := range c.Upstreams {
		if u.Prefix != "" {
			out = append(out, [2]string{u.Key, config.NamePrefix(u.Prefix)})
		}
	}
	return out
}
