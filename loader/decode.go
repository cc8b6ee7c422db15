package loader

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/go-viper/mapstructure/v2"
	yamlv3 "go.yaml.in/yaml/v3"

	"github.com/wasmgate/wasmgate/config"
)

// blameEnv names the environment variable behind each error whose key an
// override set, since that value is not in the file.
func blameEnv(err error, fromEnv map[string]string) error {
	if len(fromEnv) == 0 {
		return err
	}
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	for _, e := range errs {
		var ce *config.Error
		if !errors.As(e, &ce) {
			continue
		}
		for key, name := range fromEnv {
			if ce.Key == key || strings.HasPrefix(ce.Key, key+".") || strings.HasPrefix(ce.Key, key+"[") {
				ce.Msg += fmt.Sprintf(" (set by environment variable %s)", name)
				break
			}
		}
	}
	return errors.Join(errs...)
}

// envKeyValue maps WASMGATE_TRANSPORTS__HTTP__LISTEN=v to
// transports.http.listen and parses v as a YAML scalar or flow sequence so
// numbers, booleans and lists ("[a, b]") keep their types.
func envKeyValue(k, v string) (string, any) {
	if k == EnvConfigPath {
		return "", nil
	}
	key := strings.ToLower(strings.TrimPrefix(k, EnvPrefix))
	key = strings.ReplaceAll(key, "__", ".")
	var parsed any
	if err := yamlv3.Unmarshal([]byte(v), &parsed); err != nil || parsed == nil {
		return key, v
	}
	switch parsed.(type) {
	case map[string]any:
		return key, v // an override sets one key; a mapping is taken as text
	}
	return key, parsed
}

func trimYAMLPrefix(err error) string {
	s := err.Error()
	if i := strings.Index(s, "yaml: "); i >= 0 {
		return s[i+len("yaml: "):]
	}
	return s
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// decodeErrors turns mapstructure's errors into ConfigErrors naming keys.
func decodeErrors(file string, raw map[string]any, err error) error {
	var leaves []error
	var walk func(error)
	walk = func(e error) {
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				walk(x)
			}
			return
		}
		leaves = append(leaves, e)
	}
	walk(err)
	var out []error
	for _, e := range leaves {
		var de *mapstructure.DecodeError
		if errors.As(e, &de) {
			key := strings.TrimPrefix(strings.TrimPrefix(de.Name(), "loader.Config"), ".")
			msg := de.Unwrap().Error()
			if strings.HasPrefix(msg, "has invalid keys: ") {
				keys := strings.Split(strings.TrimPrefix(msg, "has invalid keys: "), ", ")
				for _, k := range keys {
					full := k
					if key != "" {
						full = key + "." + k
					}
					out = append(out, &config.Error{File: file, Key: full, Msg: "unknown key"})
				}
				continue
			}
			msg = cleanDecodeMsg(msg)
			if v, ok := lookup(raw, key); ok && !strings.Contains(msg, fmt.Sprint(v)) {
				msg = fmt.Sprintf("%s (value %q)", msg, fmt.Sprint(v))
			}
			out = append(out, &config.Error{File: file, Key: key, Msg: msg})
			continue
		}
		out = append(out, &config.Error{File: file, Msg: e.Error()})
	}
	return errors.Join(out...)
}

// lookup finds a key such as plugins[0].limits.timeout in the raw map.
func lookup(raw map[string]any, key string) (any, bool) {
	var cur any = raw
	for _, part := range strings.Split(key, ".") {
		name, idx, hasIdx := strings.Cut(part, "[")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[name]; !ok {
			return nil, false
		}
		for hasIdx {
			var rest string
			var n int
			if _, err := fmt.Sscanf(idx, "%d]", &n); err != nil {
				return nil, false
			}
			l, ok := cur.([]any)
			if !ok || n < 0 || n >= len(l) {
				return nil, false
			}
			cur = l[n]
			_, rest, _ = strings.Cut(idx, "]")
			idx, hasIdx = strings.CutPrefix(rest, "[")
		}
	}
	return cur, true
}

func cleanDecodeMsg(msg string) string {
	msg = strings.ReplaceAll(msg, "loader.", "")
	return strings.ReplaceAll(msg, "config.", "")
}
