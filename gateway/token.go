package gateway

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/wasmgate/wasmgate/loader"
)

// readToken reads a bearer token from where the config's auth section
// (at key) points. Messages name the variable or file, never the token.
func readToken(cfg *loader.Config, key string, a loader.HTTPAuth) (string, error) {
	switch {
	case a.BearerTokenEnv != "":
		v, ok := os.LookupEnv(a.BearerTokenEnv)
		v = strings.TrimSpace(v)
		if !ok || v == "" {
			return "", &loader.ConfigError{File: cfg.File, Key: key + ".bearer_token_env",
				Msg: fmt.Sprintf("environment variable %s is not set or empty", a.BearerTokenEnv)}
		}
		return v, nil
	case a.BearerTokenFile != "":
		b, err := os.ReadFile(a.BearerTokenFile)
		if err != nil {
			return "", &loader.ConfigError{File: cfg.File, Key: key + ".bearer_token_file",
				Msg: fmt.Sprintf("%q: %v", a.BearerTokenFile, errors.Unwrap(err))}
		}
		v := strings.TrimSpace(string(b))
		if v == "" {
			return "", &loader.ConfigError{File: cfg.File, Key: key + ".bearer_token_file",
				Msg: fmt.Sprintf("%q is empty", a.BearerTokenFile)}
		}
		return v, nil
	}
	return "", nil
}
