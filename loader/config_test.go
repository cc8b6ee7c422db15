package loader

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/auth/authconfig"
	"github.com/wasmgate/wasmgate/config"
)

// writeFiles creates a config dir with gateway.yaml and empty module files.
func writeFiles(t testing.TB, yaml string, modules ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, m := range modules {
		p := filepath.Join(dir, m)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("\x00asm"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(dir, "gateway.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadDefaultsAndPaths(t *testing.T) {
	p := writeFiles(t, `
plugins:
  - path: mods/calc.wasm
  - dir: more
    prefix: x
    limits: {timeout: 2s, memory: 32MiB, concurrency: 3}
  - path: mods/kept.wasm
    instances: single
`, "mods/calc.wasm", "more/a.wasm", "more/b.wasm", "more/notwasm.txt", "mods/kept.wasm")
	cfg, err := Load(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(p)
	if got := cfg.Transports.HTTP.Listen; got != DefaultHTTPListen {
		t.Errorf("listen = %q, want %q", got, DefaultHTTPListen)
	}
	if got := cfg.Admin.Listen; got != DefaultAdminListen {
		t.Errorf("admin = %q", got)
	}
	if len(cfg.Plugins) != 4 {
		t.Fatalf("plugins = %d, want 4 (dir expanded): %+v", len(cfg.Plugins), cfg.Plugins)
	}
	if got := cfg.Plugins[0].Instances; got != InstancesPool {
		t.Errorf("instances = %q, want %q by default", got, InstancesPool)
	}
	if p := cfg.Plugins[3]; p.Instances != InstancesSingle || p.Limits.Concurrency != 1 {
		t.Errorf("instances: single: %q with concurrency %d, want 1", p.Instances, p.Limits.Concurrency)
	}
	if cfg.Plugins[0].Name != "calc" || cfg.Plugins[0].Path != filepath.Join(dir, "mods/calc.wasm") {
		t.Errorf("plugin 0 = %q %q", cfg.Plugins[0].Name, cfg.Plugins[0].Path)
	}
	if l := cfg.Plugins[0].Limits; l.Timeout != Duration(DefaultTimeout) || l.Memory != DefaultMemory || l.HTTPResponse != DefaultHTTPResponse {
		t.Errorf("defaults not filled: %+v", cfg.Plugins[0].Limits)
	}
	b := cfg.Plugins[2]
	if b.Name != "b" || b.Prefix != "x" || b.Limits.Timeout != Duration(2*time.Second) || b.Limits.Memory != 32<<20 || b.Limits.Concurrency != 3 {
		t.Errorf("dir plugin = %+v", b)
	}
}

func TestLoadEnvOverrides(t *testing.T) {
	p := writeFiles(t, "transports: {http: {listen: 127.0.0.1:1}}\n")
	cfg, err := Load(p, []string{
		"WASMGATE_TRANSPORTS__HTTP__LISTEN=127.0.0.1:2",
		"WASMGATE_TRANSPORTS__HTTP__ALLOWED_ORIGINS=[https://a.example, https://b.example]",
		"WASMGATE_ADMIN__ENABLED=false",
		"WASMGATE_CONFIG=/elsewhere.yaml", // the config path, not an override
		"OTHER=1",
	})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Transports.HTTP.Listen != "127.0.0.1:2" {
		t.Errorf("listen = %q", cfg.Transports.HTTP.Listen)
	}
	if got := strings.Join(cfg.Transports.HTTP.AllowedOrigins, ","); got != "https://a.example,https://b.example" {
		t.Errorf("origins = %q", got)
	}
	if cfg.Admin.On() {
		t.Error("admin still on")
	}
}

func TestLoadErrorsNameKeyAndValue(t *testing.T) {
	cases := []struct {
		name, yaml string
		env        []string
		want       []string
	}{
		{"unknown top key", "servr: {}\n", nil, []string{"servr", "unknown key"}},
		{"unknown nested key", "transports: {http: {lisen: x}}\n", nil, []string{"transports.http.lisen", "unknown key"}},
		{"wrong type", "plugins: [{path: m.wasm, limits: {concurrency: many}}]\n", nil, []string{"plugins[0].limits.concurrency", "many"}},
		{"bad duration", "plugins: [{path: m.wasm, limits: {timeout: 5x}}]\n", nil, []string{"plugins[0].limits.timeout", `"5x"`}},
		{"duration without unit", "server: {shutdown_timeout: 5}\n", nil, []string{"server.shutdown_timeout", "unit"}},
		{"out of range", "plugins: [{path: m.wasm, limits: {concurrency: 5000}}]\n", nil, []string{"plugins[0].limits.concurrency", "5000", "out of range"}},
		{"bad size", "plugins: [{path: m.wasm, limits: {memory: lots}}]\n", nil, []string{"plugins[0].limits.memory", `"lots"`}},
		{"duplicate names", "plugins: [{path: m.wasm}, {name: m, path: m.wasm}]\n", nil, []string{"plugins[1].name", `duplicate plugin name "m"`}},
		{"missing wasm", "plugins: [{path: nope.wasm}]\n", nil, []string{"plugins[0].path", "nope.wasm", "no such file"}},
		{"bad pin", "plugins: [{path: m.wasm, sha256: abc}]\n", nil, []string{"plugins[0].sha256", `"abc"`}},
		{"path and dir", "plugins: [{path: m.wasm, dir: .}]\n", nil, []string{"plugins[0]", "not both"}},
		{"bad origin", "transports: {http: {allowed_origins: ['*']}}\n", nil, []string{"transports.http.allowed_origins[0]", `"*"`}},
		{"bad listen", "admin: {listen: nonsense}\n", nil, []string{"admin.listen", `"nonsense"`}},
		{"env override", "{}\n", []string{"WASMGATE_TRANSPORTS__HTTP__LISTEN=nonsense"}, []string{"transports.http.listen", `"nonsense"`}},
		{"env unknown key", "{}\n", []string{"WASMGATE_NOPE=1"}, []string{"nope", "unknown key"}},
		{"invalid yaml", "plugins: [\n", nil, []string{"invalid YAML"}},
		{"bad name", "plugins: [{name: 'a b', path: m.wasm}]\n", nil, []string{"plugins[0].name", `"a b"`}},
		{"missing dir", "plugins: [{dir: nowhere}]\n", nil, []string{"plugins[0].dir", `"nowhere"`}},
		{"http_response too small", "plugins: [{path: m.wasm, limits: {http_response: 512}}]\n", nil, []string{"plugins[0].limits.http_response", "512B", "1KiB..256MiB"}},
		{"http_response too large", "plugins: [{path: m.wasm, limits: {http_response: 1GiB}}]\n", nil, []string{"plugins[0].limits.http_response", "1GiB", "out of range"}},
		{"bad allowed host", "plugins: [{path: m.wasm, allowed_hosts: [ok.example, 'https://x.example/']}]\n", nil, []string{"plugins[0].allowed_hosts[1]", `"https://x.example/"`, "not a URL"}},
		{"bad allowed port", "plugins: [{path: m.wasm, allowed_hosts: ['x.example:99999']}]\n", nil, []string{"plugins[0].allowed_hosts[0]", "out of range"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := writeFiles(t, c.yaml, "m.wasm")
			_, err := Load(p, c.env)
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			msg := err.Error()
			if !strings.Contains(msg, p) {
				t.Errorf("error does not name the file %s:\n%s", p, msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error does not contain %q:\n%s", w, msg)
				}
			}
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Errorf("error is %T, want *ConfigError inside", err)
			}
		})
	}
}

func TestLoadReportsEveryError(t *testing.T) {
	p := writeFiles(t, "admin: {listen: x}\nplugins: [{path: a.wasm}, {path: b.wasm}]\n")
	_, err := Load(p, nil)
	if err == nil {
		t.Fatal("want errors")
	}
	for _, w := range []string{"admin.listen", "plugins[0].path", "plugins[1].path"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("missing %q in:\n%v", w, err)
		}
	}
}

func TestParseByteSize(t *testing.T) {
	for in, want := range map[string]int64{"64MiB": 64 << 20, "512KiB": 512 << 10, "1GiB": 1 << 30, "10MB": 10e6, "4096": 4096, "7B": 7} {
		got, err := ParseByteSize(in)
		if err != nil || got != want {
			t.Errorf("ParseByteSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "1TiB", "x", "1.5MiB", "99999999999999999999"} {
		if _, err := ParseByteSize(in); err == nil {
			t.Errorf("ParseByteSize(%q) succeeded", in)
		}
	}
}

// FuzzLoad feeds arbitrary bytes as gateway.yaml: Load must never panic,
// and whatever it accepts must satisfy the invariants the gateway relies on.
func FuzzLoad(f *testing.F) {
	for _, s := range []string{
		"{}", "plugins: [{path: m.wasm}]", "transports: {http: {listen: 127.0.0.1:0, allowed_origins: [http://a.b]}}",
		"plugins: [{path: m.wasm, limits: {timeout: 1s, memory: 8MiB, concurrency: 2, max_output: 2KiB}}]",
		"server: {shutdown_timeout: 1s, log: {level: debug}}", "plugins: [{dir: .}]", "- a\n- b", "a: [", "\t",
		"plugins: [{path: m.wasm}]\nendpoints: [{name: dev, sources: [\"m*\"], tools: {exclude: [\"*delete*\"]}}, {name: s, path: /s}]",
		"transports: {stdio: {endpoint: b}}\nendpoints: [{name: a, path: /relay/a}, {name: b, path: /-/b, access: {principals: [local]}}]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "m.wasm"), []byte("\x00asm"), 0o644); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "gateway.yaml")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := Load(p, nil)
		if err != nil {
			if !strings.Contains(err.Error(), p) && !strings.Contains(err.Error(), "environment") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		names := map[string]bool{}
		for _, pl := range cfg.Plugins {
			if pl.Path == "" || !filepath.IsAbs(pl.Path) || names[pl.Name] {
				t.Fatalf("accepted bad plugin %+v", pl)
			}
			names[pl.Name] = true
			if pl.Limits.Concurrency < 1 || pl.Limits.Timeout <= 0 || pl.Limits.Memory <= 0 || pl.Limits.MaxOutput <= 0 {
				t.Fatalf("accepted bad limits %+v", pl.Limits)
			}
		}
		checkEndpointsAccepted(t, cfg)
	})
}

func TestTokenVariableIsNotAnOverride(t *testing.T) {
	p := writeFiles(t, "transports: {http: {auth: {bearer_token_env: WASMGATE_TOKEN}}}\n")
	cfg, err := Load(p, []string{"WASMGATE_TOKEN=s3cret-value"})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if cfg.Transports.HTTP.Auth.BearerTokenEnv != "WASMGATE_TOKEN" {
		t.Errorf("bearer_token_env = %q", cfg.Transports.HTTP.Auth.BearerTokenEnv)
	}
	// Without the config naming it, the same variable is an unknown key,
	// and the error names the key, never the value.
	p2 := writeFiles(t, "{}\n")
	_, err = Load(p2, []string{"WASMGATE_TOKEN=s3cret-value"})
	if err == nil || !strings.Contains(err.Error(), "token") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("err = %v", err)
	}
}

// A principal's token_env may start with WASMGATE_ too: it is a secret,
// not an override.
func TestPrincipalTokenVariableIsNotAnOverride(t *testing.T) {
	p := writeFiles(t, "auth:\n  principals:\n    - {name: ci, token_env: WASMGATE_CI_TOKEN}\n    - {name: ops, token_env: OPS_TOKEN}\n")
	cfg, err := Load(p, []string{"WASMGATE_CI_TOKEN=s3cret-value-ci", "OPS_TOKEN=s3cret-value-ops"})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if got := cfg.Auth.Principals[0].TokenEnv; got != "WASMGATE_CI_TOKEN" {
		t.Errorf("auth.principals[0].token_env = %q", got)
	}
}

// A config file that cannot be read is reported as such, not as bad YAML.
func TestUnreadableConfigFile(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct{ path, want string }{
		"missing":   {filepath.Join(dir, "nope.yaml"), "cannot read the config file: no such file or directory"},
		"directory": {dir, "cannot read the config file: is a directory"},
	} {
		_, err := Load(c.path, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "YAML") {
			t.Errorf("%s: Load(%s) = %v, want %q", name, c.path, err, c.want)
		}
	}
}

// checkEndpointsAccepted fails t unless cfg's endpoints hold what
// checkEndpoints promises the gateway: names valid and unique, paths
// clean, unique and clear of the relay, the metadata and the admin
// listener, every source entry matching a source, stdio on an endpoint.
func checkEndpointsAccepted(t *testing.T, cfg *Config) {
	t.Helper()
	list := cfg.EndpointList()
	names, paths := map[string]bool{}, map[string]bool{}
	for _, e := range list {
		if !config.ValidName(e.Name) || names[e.Name] || paths[e.Path] {
			t.Fatalf("accepted endpoint %q at %q twice or invalid", e.Name, e.Path)
		}
		names[e.Name], paths[e.Path] = true, true
		if len(cfg.Endpoints) == 0 {
			continue
		}
		p := e.Path
		if checkEndpointPath(p) != nil || AdminPath(p) || p == cfg.Relay.Path || strings.HasPrefix(p, cfg.Relay.Path+"/") ||
			strings.HasPrefix(p, authconfig.MetadataPath) {
			t.Fatalf("accepted endpoint %q at %q", e.Name, p)
		}
		for _, s := range e.Sources {
			found := false
			for _, pl := range cfg.Plugins {
				found = found || (&Endpoint{Sources: []string{s}}).SourceMatch(pl.Name)
			}
			for _, u := range cfg.Upstreams {
				found = found || (&Endpoint{Sources: []string{s}}).SourceMatch(u.Name)
			}
			for _, r := range cfg.Relay.Sites {
				found = found || (&Endpoint{Sources: []string{s}}).SourceMatch(r.Name)
			}
			if !found {
				t.Fatalf("accepted endpoint %q's source %q, which matches no source", e.Name, s)
			}
		}
	}
	if !names[cfg.StdioEndpoint()] {
		t.Fatalf("accepted transports.stdio.endpoint %q, no endpoint of %v", cfg.StdioEndpoint(), names)
	}
}
