package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

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

// noLoader refuses every external $ref: a plugin's schema must be
// self-contained, and resolving it must not touch the network or disk.
type noLoader struct{}

func (noLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("external $ref %q is not allowed", u)
}

func compileSchema(name string, raw json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	u := "wasmgate:///tools/" + url.PathEscape(name) + ".json"
	if err := c.AddResource(u, doc); err != nil {
		return nil, err
	}
	return c.Compile(u)
}
