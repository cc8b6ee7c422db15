package loader

import (
	"encoding/base64"
	"fmt"
	"os"
	"strings"

	"github.com/wasmgate/wasmgate/auth/vault"
	"github.com/wasmgate/wasmgate/config"
)

// CredentialsKey is where the section sits, for messages.
const CredentialsKey = "credentials"

// Credentials is the credentials section: the key that encrypts what the
// gateway stores for its users (their grants to upstream servers), and
// the previous key while rotating. Each key is 32 bytes in base64
// (standard or URL encoding, padded or not), e.g. `openssl rand -base64
// 32`.
//
// To rotate: set previous_key_env (or previous_key_file) to the old key
// and key_env (key_file) to the new one, and restart; entries are read
// with either and rewritten under the new one when read, and `wasmgate
// credentials list` reads (so rewrites) them all. Then drop the previous
// key; an entry still under it is "not connected" (its user connects
// again).
type Credentials struct {
	KeyEnv          string `koanf:"key_env"`
	KeyFile         string `koanf:"key_file"`
	PreviousKeyEnv  string `koanf:"previous_key_env"`
	PreviousKeyFile string `koanf:"previous_key_file"`

	bad bool // Normalize reported a problem: the values are not read
}

// Set reports whether the section names a key.
func (c Credentials) Set() bool { return c.KeyEnv != "" || c.KeyFile != "" }

// KeyRef is where the current key is.
func (c Credentials) KeyRef() config.SecretRef {
	return config.SecretRef{Key: CredentialsKey, EnvKey: "key_env", Env: c.KeyEnv, FileKey: "key_file", File: c.KeyFile}
}

// PreviousKeyRef is where the previous key is (rotation).
func (c Credentials) PreviousKeyRef() config.SecretRef {
	return config.SecretRef{Key: CredentialsKey, EnvKey: "previous_key_env", Env: c.PreviousKeyEnv, FileKey: "previous_key_file", File: c.PreviousKeyFile}
}

// Normalize checks the section: one of key_env and key_file, at most one
// of previous_key_env and previous_key_file (and only with a key), the
// files there. The values are checked by Keys (and by Load, with the
// environment it was given).
func (c *Credentials) Normalize(key string, env *config.Env) {
	bad := func(key, format string, args ...any) {
		c.bad = true
		env.Bad(key, format, args...)
	}
	pair := func(envKey, fileKey, envVal string, fileVal *string) {
		if envVal != "" && *fileVal != "" {
			bad(key, "set %s or %s, not both", envKey, fileKey)
			return
		}
		if *fileVal == "" {
			return
		}
		*fileVal = env.Path(*fileVal)
		if _, err := os.Stat(*fileVal); err != nil {
			bad(key+"."+fileKey, "%q: %v", *fileVal, unwrapPathError(err))
		} else {
			env.WatchFile(*fileVal)
		}
	}
	pair("key_env", "key_file", c.KeyEnv, &c.KeyFile)
	pair("previous_key_env", "previous_key_file", c.PreviousKeyEnv, &c.PreviousKeyFile)
	if !c.Set() && (c.PreviousKeyEnv != "" || c.PreviousKeyFile != "") {
		bad(key, "a previous key without a key: set key_env or key_file to the new key")
	}
}

// RestartOnly: the vault is opened with the keys at start.
func (c *Credentials) RestartOnly(key string, prev any, diff config.Diff) {
	p := prev.(*Credentials)
	diff(key+".key_env", p.KeyEnv, c.KeyEnv)
	diff(key+".key_file", p.KeyFile, c.KeyFile)
	diff(key+".previous_key_env", p.PreviousKeyEnv, c.PreviousKeyEnv)
	diff(key+".previous_key_file", p.PreviousKeyFile, c.PreviousKeyFile)
}

// Keys reads the keys for vault.Open, looking variables up with lookup
// (os.LookupEnv when nil); cfgFile is the config file, for errors. A key
// that is unset, empty, not base64 or not 32 bytes is a *config.Error
// naming the key and the variable or file, never the value. With no key
// set: the zero Keys and no error.
func (c Credentials) Keys(cfgFile string, lookup func(string) (string, bool)) (vault.Keys, error) {
	k := vault.Keys{File: cfgFile, Key: CredentialsKey + ".key_env", PreviousKey: CredentialsKey + ".previous_key_env"}
	if c.KeyFile != "" {
		k.Key, k.PreviousKey = CredentialsKey+".key_file", CredentialsKey+".previous_key_file"
	}
	if !c.Set() {
		return k, nil
	}
	var err error
	if k.Current, err = readKey(c.KeyRef(), cfgFile, lookup); err != nil {
		return vault.Keys{}, err
	}
	if p := c.PreviousKeyRef(); p.Set() {
		if k.Previous, err = readKey(p, cfgFile, lookup); err != nil {
			return vault.Keys{}, err
		}
	}
	return k, nil
}

// readKey reads one key and decodes it.
func readKey(ref config.SecretRef, cfgFile string, lookup func(string) (string, bool)) ([]byte, error) {
	sec, err := ref.Read(cfgFile, lookup)
	if err != nil {
		return nil, err
	}
	key := ref.Key + "." + ref.FileKey
	if ref.Env != "" {
		key = ref.Key + "." + ref.EnvKey
	}
	b, ok := decodeKey(sec.Value())
	if !ok {
		return nil, &config.Error{File: cfgFile, Key: key,
			Msg: fmt.Sprintf("%s does not hold base64; give 32 random bytes in base64 (openssl rand -base64 32)", ref.From())}
	}
	if len(b) != vault.KeySize {
		return nil, &config.Error{File: cfgFile, Key: key,
			Msg: fmt.Sprintf("%s holds %d bytes once decoded, want %d (openssl rand -base64 32)", ref.From(), len(b), vault.KeySize)}
	}
	return b, nil
}

// decodeKey decodes standard or URL base64, padded or not.
func decodeKey(s string) ([]byte, bool) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.Strict().DecodeString(s); err == nil {
			return b, true
		}
	}
	return nil, false
}

// checkCredentials reads the keys with the environment Load was given,
// so that `wasmgate validate` and a reload report a key that is missing
// or malformed.
func (c *Config) checkCredentials(env *config.Env) {
	if c.Credentials.bad {
		return
	}
	if _, err := c.Credentials.Keys(c.File, c.lookupEnv); err != nil {
		if ce, ok := err.(*config.Error); ok {
			env.Bad(ce.Key, "%s", ce.Msg)
			return
		}
		env.Bad(CredentialsKey, "%v", err)
	}
}

// lookupEnv looks name up in the environment Load was given.
func (c *Config) lookupEnv(name string) (string, bool) {
	for i := len(c.environ) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(c.environ[i], "="); ok && k == name {
			return v, true
		}
	}
	return "", false
}
