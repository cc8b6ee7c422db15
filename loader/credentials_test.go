package loader

import (
	"bytes"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmgate/wasmgate/config"
)

// TestCredentialsKeys: a key in each base64 form, from a variable or a
// file, with a previous key; the error of a bad one names the key and
// the variable, never the value.
func TestCredentialsKeys(t *testing.T) {
	dir := t.TempDir()
	cur := bytes.Repeat([]byte{0xfb}, 32) // 0xfb makes '+' and '/' in standard base64, '-' and '_' in URL
	prev := bytes.Repeat([]byte{7}, 32)
	if err := os.WriteFile(filepath.Join(dir, "old.key"), []byte(base64.StdEncoding.EncodeToString(prev)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "gateway.yaml")
	if err := os.WriteFile(cfg, []byte("credentials: {key_env: VK, previous_key_file: old.key}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		v := enc.EncodeToString(cur)
		c, err := Load(cfg, []string{"VK=" + v})
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		k, err := c.Credentials.Keys(c.File, func(n string) (string, bool) { return v, n == "VK" })
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		if !bytes.Equal(k.Current, cur) || !bytes.Equal(k.Previous, prev) {
			t.Errorf("%s: keys %x %x", v, k.Current, k.Previous)
		}
		if k.Key != "credentials.key_env" || k.PreviousKey != "credentials.previous_key_env" || k.File != cfg {
			t.Errorf("where: %q %q %q", k.File, k.Key, k.PreviousKey)
		}
	}
	// Keys reads the variables anew (the gateway passes os.LookupEnv).
	c, err := Load(cfg, []string{"VK=" + base64.StdEncoding.EncodeToString(cur)})
	if err != nil {
		t.Fatal(err)
	}
	short := base64.StdEncoding.EncodeToString([]byte("sixteen bytes!!!"))
	_, err = c.Credentials.Keys(c.File, func(string) (string, bool) { return short, true })
	var ce *config.Error
	if !errors.As(err, &ce) || ce.Key != "credentials.key_env" || !strings.Contains(ce.Msg, "environment variable VK holds 16 bytes") {
		t.Fatalf("a short key: %v", err)
	}
	if strings.Contains(err.Error(), short) {
		t.Errorf("the error shows the key: %v", err)
	}
	// No section: no keys, no error.
	k, err := Credentials{}.Keys(cfg, nil)
	if err != nil || k.Current != nil {
		t.Errorf("no section: %v %v", k.Current, err)
	}
}

// TestCredentialsRestartOnly: a key's change takes a restart.
func TestCredentialsRestartOnly(t *testing.T) {
	a, b := &Config{Credentials: Credentials{KeyEnv: "A"}}, &Config{Credentials: Credentials{KeyEnv: "B"}}
	err := b.RestartOnly(a, "")
	if err == nil || !strings.Contains(err.Error(), "credentials.key_env: changed from A to B") {
		t.Fatalf("got %v", err)
	}
}
