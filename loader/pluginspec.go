package loader

import (
	"errors"
	"fmt"
	neturl "net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/loader/egress"
	"github.com/wasmgate/wasmgate/loader/fetch"
)

// Defaults of a plugin's limits.
const (
	DefaultTimeout   = 5 * time.Second
	DefaultMemory    = 64 << 20
	DefaultMaxOutput = 1 << 20
	DefaultKVQuota   = 16 << 20
	// DefaultHTTPResponse bounds each HTTP response body a plugin gets.
	DefaultHTTPResponse = 4 << 20
	// DefaultMaxNotifications bounds the notifications (progress, log,
	// resource updated) one call of a plugin may send.
	DefaultMaxNotifications = 1000
)

// Plugins is the plugins section: one entry per module or dir: folder.
// After Normalize, dir entries are expanded into one PluginSpec per file
// and every path is absolute.
type Plugins []PluginSpec

// PluginSpec is one entry of plugins: either a single module (path) or
// every *.wasm file in a folder (dir).
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
	// Instances is the scope of the plugin's instances: InstancesPool
	// (the default), InstancesSingle or InstancesSession.
	Instances string `koanf:"instances"`
	// RedactSecrets replaces credentials shaped like the usual tokens in
	// the arguments the plugin gets and the results it returns
	// (internal/secretscan).
	RedactSecrets bool `koanf:"redact_secrets"`
	// Curation is tools: {include, exclude} and overrides: what of the
	// plugin's tools is published, under which name and description.
	config.Curation `koanf:",squash"`
	// Verify, when set, is the Sigstore signature the module must carry,
	// checked before it is compiled or cached.
	Verify *VerifySpec `koanf:"verify"`

	// Key is where this plugin was declared, e.g. "plugins[2]" or
	// "plugins[3] (dir ./plugins, file echo.wasm)", for error messages.
	Key string `koanf:"-"`

	kvQuotaSet bool // limits.kv_quota is the config's, not the default (flow labels)
}

// Scopes of a plugin's instances (instances:).
const (
	// InstancesPool: any idle instance runs a call; up to
	// limits.concurrency run at once.
	InstancesPool = "pool"
	// InstancesSingle: one instance runs every call, one at a time, so
	// the state a plugin keeps in its globals is the same for every call.
	InstancesSingle = "single"
	// InstancesSession: each MCP session has its own instance, closed
	// when the session ends.
	InstancesSession = "session"
)

// Limits bound what one plugin may use.
type Limits struct {
	Timeout     config.Duration `koanf:"timeout"`
	Memory      config.ByteSize `koanf:"memory"`
	Concurrency int             `koanf:"concurrency"`
	MaxOutput   config.ByteSize `koanf:"max_output"`
	KVQuota     config.ByteSize `koanf:"kv_quota"`
	// HTTPResponse bounds the body of each HTTP response the plugin gets.
	HTTPResponse config.ByteSize `koanf:"http_response"`
	// MaxNotifications bounds the notifications one call may send
	// (progress, log, resource updated); beyond it the host function
	// fails and the refusal is counted.
	MaxNotifications int `koanf:"max_notifications"`
	// TaskTimeout lets a client run the plugin's tools as tasks (the MCP
	// tasks extension: start, poll, fetch the result later) and bounds
	// such a call instead of Timeout; 0 (the default) offers no tasks.
	TaskTimeout config.Duration `koanf:"task_timeout"`
}

// DefaultConcurrency is limits.concurrency when a plugin does not set it:
// half of server.max_concurrent_calls (at least 1), so one plugin's
// runaway calls cannot take every slot.
func DefaultConcurrency(maxCalls int) int { return max(1, maxCalls/2) }

// Normalize expands dir entries, fills defaults and checks every plugin.
func (ps *Plugins) Normalize(key string, env *config.Env) {
	var expanded Plugins
	for i, p := range *ps {
		k := fmt.Sprintf("%s[%d]", key, i)
		p.Key = k
		switch {
		case p.Path != "" && p.Dir != "":
			env.Bad(k, "set path or dir, not both")
		case p.Path == "" && p.Dir == "":
			env.Bad(k, "needs path (one .wasm file) or dir (a folder of .wasm files)")
		case p.Dir != "" && fetch.Scheme(p.Dir) != "":
			env.Bad(k+".dir", "%q: dir is a local folder; name a module by URL with path", p.Dir)
		case p.Dir != "":
			expanded = append(expanded, p.expandDir(env)...)
		default:
			if fetch.Scheme(p.Path) == "" { // a URL stays as written
				p.Path = env.Path(p.Path)
			}
			if p.Name == "" {
				p.Name = defaultName(p.Path)
			}
			expanded = append(expanded, p)
		}
	}
	names := map[string]string{}
	for i := range expanded {
		p := &expanded[i]
		if prev, ok := names[p.Name]; ok {
			env.Bad(p.Key+".name", "duplicate plugin name %q (also %s)", p.Name, prev)
		} else {
			names[p.Name] = p.Key
		}
		p.normalize(env)
	}
	*ps = expanded
}

// expandDir turns a dir entry into one spec per *.wasm file in it.
func (p PluginSpec) expandDir(env *config.Env) []PluginSpec {
	if p.Name != "" {
		env.Bad(p.Key+".name", "%q: a dir entry names its plugins after their files; remove name", p.Name)
		return nil
	}
	if p.SHA256 != "" {
		env.Bad(p.Key+".sha256", "a dir entry cannot pin one hash; list the file with path to pin it")
		return nil
	}
	if p.Verify != nil {
		env.Bad(p.Key+".verify", "a dir entry cannot name one signature; list each module with path and its verify.bundle")
		return nil
	}
	dir := env.Path(p.Dir)
	env.WatchModuleDir(dir)
	files, err := wasmFiles(dir)
	if err != nil {
		env.Bad(p.Key+".dir", "%q: %v", p.Dir, err)
		return nil
	}
	var out []PluginSpec
	for _, f := range files {
		q := p
		q.Dir = ""
		q.Path = f
		q.Name = strings.TrimSuffix(filepath.Base(f), ".wasm")
		q.Key = fmt.Sprintf("%s (dir %s, file %s)", p.Key, p.Dir, filepath.Base(f))
		out = append(out, q)
	}
	return out
}

// normalize checks one expanded spec.
func (p *PluginSpec) normalize(env *config.Env) {
	url := fetch.Scheme(p.Path) != ""
	if !url { // URL sources are fetched again on every reload instead
		env.WatchFile(p.Path)
	}
	if !config.ValidName(p.Name) {
		env.Bad(p.Key+".name", "%q: use letters, digits, '_', '-' or '.' (1-64 characters)", p.Name)
	}
	if p.Prefix != "" && !config.ValidName(p.Prefix) {
		env.Bad(p.Key+".prefix", "%q: use letters, digits, '_', '-' or '.'", p.Prefix)
	}
	p.kvQuotaSet = p.Limits.KVQuota != 0 // before the default fills it
	p.Limits.fill()
	p.Limits.check(p.Key+".limits", env.Bad)
	p.Curation.Check(p.Key, env.Bad)
	switch p.Instances {
	case "":
		p.Instances = InstancesPool
	case InstancesPool, InstancesSession:
	case InstancesSingle:
		if p.Limits.Concurrency > 1 {
			env.Bad(p.Key+".limits.concurrency", "%d: instances: single runs one call at a time; remove limits.concurrency or use instances: pool", p.Limits.Concurrency)
		}
		p.Limits.Concurrency = 1
	default:
		env.Bad(p.Key+".instances", "%q: use pool, single or session", p.Instances)
	}
	for j, h := range p.AllowedHosts {
		if _, err := egress.ParseGrant(h); err != nil {
			env.Bad(fmt.Sprintf("%s.allowed_hosts[%d]", p.Key, j), "%q: %v", h, err)
		}
	}
	if len(p.AllowedPaths) > 0 {
		resolved := make(map[string]string, len(p.AllowedPaths))
		for host, guest := range p.AllowedPaths {
			ro := strings.HasPrefix(host, "ro:")
			h := env.Path(strings.TrimPrefix(host, "ro:"))
			st, err := os.Stat(h)
			if err != nil || !st.IsDir() {
				env.Bad(p.Key+".allowed_paths", "%q: not a readable directory", host)
				continue
			}
			if !strings.HasPrefix(guest, "/") {
				env.Bad(p.Key+".allowed_paths", "%q: guest path %q must be absolute", host, guest)
				continue
			}
			if ro {
				h = "ro:" + h
			}
			resolved[h] = guest
		}
		p.AllowedPaths = resolved
	}
	if url {
		if err := builtinFetchers(fetch.Options{}).Check(p.Path); err != nil {
			env.Bad(p.Key+".path", "%q: %v", p.Path, err)
		}
	} else if err := checkModuleFile(p.Path); err != nil {
		env.Bad(p.Key+".path", "%q: %v", p.Path, err)
	}
	if p.Verify != nil {
		v := *p.Verify // a copy: dir entries and reloads share nothing
		v.normalize(p, url, env)
		p.Verify = &v
	}
	if p.SHA256 != "" {
		p.SHA256 = strings.ToLower(strings.TrimPrefix(p.SHA256, "sha256:"))
		if len(p.SHA256) != 64 || strings.Trim(p.SHA256, "0123456789abcdef") != "" {
			env.Bad(p.Key+".sha256", "%q is not a hex SHA-256 (64 hex digits)", p.SHA256)
		}
	}
}

func (l *Limits) fill() {
	if l.Timeout == 0 {
		l.Timeout = config.Duration(DefaultTimeout)
	}
	if l.Memory == 0 {
		l.Memory = DefaultMemory
	}
	if l.MaxOutput == 0 {
		l.MaxOutput = DefaultMaxOutput
	}
	if l.KVQuota == 0 {
		l.KVQuota = DefaultKVQuota
	}
	if l.HTTPResponse == 0 {
		l.HTTPResponse = DefaultHTTPResponse
	}
	if l.MaxNotifications == 0 {
		l.MaxNotifications = DefaultMaxNotifications
	}
}

func (l Limits) check(key string, bad config.Bad) {
	if l.Timeout < config.Duration(time.Millisecond) || l.Timeout > config.Duration(10*time.Minute) {
		bad(key+".timeout", "%s is out of range (1ms..10m)", l.Timeout)
	}
	if l.Memory < 2<<20 || l.Memory > 4<<30 {
		bad(key+".memory", "%s is out of range (2MiB..4GiB)", l.Memory)
	}
	if l.Concurrency < 0 || l.Concurrency > 1024 {
		bad(key+".concurrency", "%d is out of range (1..1024)", l.Concurrency)
	}
	if l.MaxOutput < 1<<10 || l.MaxOutput > 256<<20 {
		bad(key+".max_output", "%s is out of range (1KiB..256MiB)", l.MaxOutput)
	}
	if l.KVQuota < 0 || l.KVQuota > 4<<30 {
		bad(key+".kv_quota", "%s is out of range (0..4GiB)", l.KVQuota)
	}
	if l.HTTPResponse < 1<<10 || l.HTTPResponse > 256<<20 {
		bad(key+".http_response", "%s is out of range (1KiB..256MiB)", l.HTTPResponse)
	}
	if l.MaxNotifications < 1 || l.MaxNotifications > 1_000_000 {
		bad(key+".max_notifications", "%d is out of range (1..1000000)", l.MaxNotifications)
	}
	if l.TaskTimeout != 0 && (l.TaskTimeout < l.Timeout || l.TaskTimeout > config.Duration(24*time.Hour)) {
		bad(key+".task_timeout", "%s is out of range (limits.timeout %s..24h, or 0 for no tasks)", l.TaskTimeout, l.Timeout)
	}
}

// defaultName is the name of a plugin that sets none: the last element of
// its path or URL, without a tag, a digest or the .wasm extension
// (oci://ghcr.io/o/time-plugin:1.0 and https://h/d/time-plugin.wasm are
// both "time-plugin").
func defaultName(source string) string {
	scheme := fetch.Scheme(source)
	if scheme == "" {
		return strings.TrimSuffix(filepath.Base(source), ".wasm")
	}
	rest := source[len(scheme)+len("://"):]
	if scheme == "oci" {
		rest, _, _ = strings.Cut(rest, "@") // the digest
	} else if u, err := neturl.Parse(source); err == nil {
		rest = u.Path
	}
	rest = strings.TrimRight(rest, "/")
	rest = rest[strings.LastIndex(rest, "/")+1:]
	if scheme == "oci" {
		rest, _, _ = strings.Cut(rest, ":") // the tag
	}
	return strings.TrimSuffix(rest, ".wasm")
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
