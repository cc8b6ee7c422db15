package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecretNeverPrints: however a Secret is printed, logged or encoded,
// the value does not appear.
func TestSecretNeverPrints(t *testing.T) {
	const v = "s3cret-value-0123456789"
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("  "+v+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := SecretRef{Key: "k", FileKey: "token_file", File: file}.Read("gateway.yaml", nil)
	if err != nil || s.Value() != v {
		t.Fatalf("Read = %q, %v; want the trimmed value", s.Value(), err)
	}
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("x", "secret", s)
	j, _ := json.Marshal(struct{ S Secret }{s})
	for _, out := range []string{fmt.Sprint(s), fmt.Sprintf("%v %+v %#v %s %q", s, s, s, s, s), string(j), logged.String()} {
		if strings.Contains(out, v) {
			t.Errorf("the secret printed: %s", out)
		}
	}
}

// TestSecretRefErrors: an unset or empty variable, a missing or empty
// file: an error at the key, naming the variable or the file.
func TestSecretRefErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte(" \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	lookup := func(name string) (string, bool) { return map[string]string{"BLANK": "  "}[name], name == "BLANK" }
	for _, c := range []struct {
		ref  SecretRef
		want string
	}{
		{SecretRef{Key: "a", EnvKey: "token_env", Env: "UNSET"}, "g.yaml: a.token_env: environment variable UNSET is not set or empty"},
		{SecretRef{Key: "a", EnvKey: "token_env", Env: "BLANK"}, "a.token_env: environment variable BLANK is not set or empty"},
		{SecretRef{Key: "a", FileKey: "token_file", File: filepath.Join(dir, "nope")}, "a.token_file: \"" + filepath.Join(dir, "nope") + "\": no such file"},
		{SecretRef{Key: "a", FileKey: "token_file", File: empty}, "a.token_file: \"" + empty + "\" is empty"},
	} {
		_, err := c.ref.Read("g.yaml", lookup)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.ref, err, c.want)
		}
	}
	if s, err := (SecretRef{Key: "a"}).Read("g.yaml", lookup); err != nil || s.IsSet() {
		t.Errorf("no reference: %v, %v", s, err)
	}
}
