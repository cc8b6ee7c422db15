package loader

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRestartOnlyServerKeys: server.name (told to clients at initialize),
// server.watch (the watcher starts once) and transports.http.stream_heartbeat
// (the HTTP server is built with it) cannot change on reload; the refusal
// names the key and both values.
func TestRestartOnlyServerKeys(t *testing.T) {
	dir := t.TempDir()
	load := func(yaml string) *Config {
		t.Helper()
		p := filepath.Join(dir, "gateway.yaml")
		if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := Load(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	prev := load("server: {name: one}\n")
	for yaml, want := range map[string]string{
		"server: {name: two}\n":                                             "server.name: changed from one to two",
		"server: {name: one, watch: false}\n":                               "server.watch: changed from true to false",
		"server: {name: one}\ntransports: {http: {stream_heartbeat: 0s}}\n": "transports.http.stream_heartbeat: changed from 30s to 0s",
	} {
		err := load(yaml).RestartOnly(prev, "systemctl restart wasmgate")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: RestartOnly = %v, want %q", yaml, err, want)
		}
	}
	if err := load("server: {name: one}\n").RestartOnly(prev, ""); err != nil {
		t.Errorf("same config: %v", err)
	}
}

// TestRestartOnlyHint: the refusal suggests the restart its caller names
// (systemctl only under systemd), and "restart wasmgate" without one.
func TestRestartOnlyHint(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "gateway.yaml")
	load := func(yaml string) *Config {
		t.Helper()
		if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := Load(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	prev, next := load("server: {name: one}\n"), load("server: {name: two}\n")
	for hint, want := range map[string]string{
		"systemctl restart wasmgate": "(systemctl restart wasmgate)",
		"restart wasmgate":           "takes a restart (restart wasmgate)",
		"":                           "takes a restart (restart wasmgate)",
	} {
		err := next.RestartOnly(prev, hint)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("hint %q: %v, want %q", hint, err, want)
		}
		if hint != "systemctl restart wasmgate" && strings.Contains(err.Error(), "systemctl") {
			t.Errorf("hint %q: %v names systemctl", hint, err)
		}
	}
}
