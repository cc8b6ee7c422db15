package relay

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/config"
)

func normalize(c *Config) (files []string, err error) {
	var errs []error
	env := config.NewEnv("/etc/wasmgate/gateway.yaml", &errs)
	c.Normalize("relay", env)
	files, _ = env.Watched()
	return files, errors.Join(errs...)
}

func TestConfigDefaults(t *testing.T) {
	c := Config{Sites: []SiteConfig{{Name: "demo", TokenEnv: "T"}, {Name: "wu", Protocol: "wu-legacy", TokenFile: "wu.token"}}}
	files, err := normalize(&c)
	if err != nil {
		t.Fatal(err)
	}
	d := c.Sites[0]
	if c.Path != "/relay" || d.Prefix != "demo_" || d.Protocol != "wasmgate" || time.Duration(d.AuthTimeout) != 5*time.Second ||
		time.Duration(d.CallTimeout) != 30*time.Second || d.MaxFrame != 1<<20 || d.Key != "relay.sites[0]" {
		t.Errorf("defaults: %+v %+v", c, d)
	}
	if w := c.Sites[1]; w.Prefix != "wu_" || w.TokenFile != "/etc/wasmgate/wu.token" {
		t.Errorf("wu-legacy defaults: %+v", w)
	}
	if len(files) != 1 || files[0] != "/etc/wasmgate/wu.token" {
		t.Errorf("watched %v, want the token file", files)
	}
}

func TestConfigErrors(t *testing.T) {
	c := Config{Path: "relay/", Sites: []SiteConfig{
		{Name: "demo", Token: "secret-in-clear"},
		{Name: "demo", TokenEnv: "A", TokenFile: "b"},
		{Name: "bridge.js", TokenEnv: "A", Protocol: "ws", Insecure: true},
		{Name: "x", TokenEnv: "A", AuthTimeout: config.Duration(time.Millisecond), CallTimeout: config.Duration(time.Hour), MaxFrame: 10, Prefix: "bad prefix"},
		{Name: "y", TokenEnv: "A", AllowedOrigins: []string{"*"}},
		{Name: "", TokenEnv: "A"},
	}}
	_, err := normalize(&c)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		"relay.path:",
		"relay.sites[0].token: never write a token in gateway.yaml",
		"relay.sites[1].name: duplicate site name \"demo\"",
		"relay.sites[1]: set token_env or token_file, not both",
		"relay.sites[2].name: \"bridge.js\"",
		"relay.sites[2].protocol: \"ws\"",
		"relay.sites[2].insecure: only a wu-legacy site",
		"relay.sites[3].auth_timeout: 1ms is out of range",
		"relay.sites[3].call_timeout: 1h0m0s is out of range",
		"relay.sites[3].max_frame: 10B is out of range",
		"relay.sites[3].prefix: \"bad prefix\"",
		"relay.sites[4].allowed_origins[0]",
		"relay.sites[5].name: missing",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "secret-in-clear") {
		t.Errorf("the error shows the token:\n%v", err)
	}
	c = Config{Sites: []SiteConfig{{Name: "nope"}}}
	if _, err := normalize(&c); err == nil || !strings.Contains(err.Error(), "relay.sites[0]: needs token_env") {
		t.Errorf("no token: %v", err)
	}
}

func TestPrepareTokens(t *testing.T) {
	dir := t.TempDir()
	short := filepath.Join(dir, "short")
	os.WriteFile(short, []byte("tiny\n"), 0o600)
	good := filepath.Join(dir, "good")
	os.WriteFile(good, []byte("  "+testToken+"\n"), 0o600)
	t.Setenv("RELAY_EMPTY", " ")
	c := Config{Sites: []SiteConfig{
		{Name: "a", TokenEnv: "RELAY_UNSET_VARIABLE"},
		{Name: "b", TokenEnv: "RELAY_EMPTY"},
		{Name: "c", TokenFile: short},
		{Name: "d", TokenFile: filepath.Join(dir, "missing")},
		{Name: "e", TokenFile: good},
	}}
	if _, err := normalize(&c); err != nil {
		t.Fatal(err)
	}
	r := New(Options{})
	_, err := r.Prepare("/etc/wasmgate/gateway.yaml", c, Listener{Addr: "127.0.0.1:8080"})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		"relay.sites[0].token_env: environment variable RELAY_UNSET_VARIABLE is not set or empty",
		"relay.sites[1].token_env: environment variable RELAY_EMPTY is not set or empty",
		"relay.sites[2].token_file: the token in \"" + short + "\" is 4 bytes; use at least 16",
		"relay.sites[3].token_file: \"" + filepath.Join(dir, "missing") + "\": no such file",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "sites[4]") || strings.Contains(err.Error(), "tiny") {
		t.Errorf("unexpected:\n%v", err)
	}
	p, err := r.Prepare("/etc/wasmgate/gateway.yaml", Config{Sites: c.Sites[4:]}, Listener{Addr: "127.0.0.1:8080"})
	if err != nil || string(p.tokens[0]) != testToken {
		t.Errorf("token file with spaces: %v", err)
	}
}
