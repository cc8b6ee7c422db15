package config

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
)

// Secret is a secret read from where the config points (an environment
// variable or a file): trimmed, never empty once read, and never printed:
// String, GoString, MarshalText and LogValue all give "[secret]". Value
// is the one way to the secret itself.
type Secret struct{ v string }

const redacted = "[secret]"

// NewSecret wraps v, a secret obtained at run time (a token an
// authorization server issued, say), so that it never prints either.
func NewSecret(v string) Secret { return Secret{v} }

// Value is the secret itself.
func (s Secret) Value() string { return s.v }

// IsSet reports whether a secret was read.
func (s Secret) IsSet() bool { return s.v != "" }

func (Secret) String() string               { return redacted }
func (Secret) GoString() string             { return redacted }
func (Secret) MarshalText() ([]byte, error) { return []byte(redacted), nil }
func (Secret) LogValue() slog.Value         { return slog.StringValue(redacted) }
func (s Secret) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(redacted)) }

// SecretRef is where a config section points for one secret: at most one
// of an environment variable (Env, under the key EnvKey) and a file (File,
// under FileKey), the keys sitting at Key ("admin.auth",
// "relay.sites[0]").
type SecretRef struct {
	Key     string
	EnvKey  string
	Env     string
	FileKey string
	File    string
}

// Set reports whether the reference names a variable or a file.
func (r SecretRef) Set() bool { return r.Env != "" || r.File != "" }

// Read reads the secret, looking variables up with lookup (os.LookupEnv
// when nil). Neither set: the zero Secret and no error. An unset or empty
// variable, an unreadable or empty file: a *Error of cfgFile at the key
// (Key.EnvKey or Key.FileKey) that names the variable or the file, never
// the secret. Every secret key of gateway.yaml is read here.
func (r SecretRef) Read(cfgFile string, lookup func(string) (string, bool)) (Secret, error) {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	bad := func(key, format string, args ...any) (Secret, error) {
		return Secret{}, &Error{File: cfgFile, Key: r.Key + "." + key, Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case r.Env != "":
		v, ok := lookup(r.Env)
		if v = strings.TrimSpace(v); !ok || v == "" {
			return bad(r.EnvKey, "environment variable %s is not set or empty", r.Env)
		}
		return Secret{v}, nil
	case r.File != "":
		b, err := os.ReadFile(r.File)
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return bad(r.FileKey, "%q: %v", r.File, err)
		}
		v := strings.TrimSpace(string(b))
		if v == "" {
			return bad(r.FileKey, "%q is empty", r.File)
		}
		return Secret{v}, nil
	}
	return Secret{}, nil
}

// From names where the secret was read, for messages: "environment
// variable X" or the file's quoted path.
func (r SecretRef) From() string {
	if r.Env != "" {
		return "environment variable " + r.Env
	}
	return fmt.Sprintf("%q", r.File)
}
