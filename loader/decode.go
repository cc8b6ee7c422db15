package loader

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-viper/mapstructure/v2"
	yamlv3 "go.yaml.in/yaml/v3"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/internal/spell"
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
		// mapstructure wraps several errors ("decoding failed due to the
		// following error(s)"): every one of them is a leaf.
		if _, ok := e.(*mapstructure.DecodeError); !ok {
			if inner := errors.Unwrap(e); inner != nil {
				walk(inner)
				return
			}
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
					msg := "unknown key"
					if near := spell.Nearest(k, knownKeys(reflect.TypeFor[Config](), key)); near != "" {
						msg += " (did you mean " + near + "?)"
					}
					out = append(out, &config.Error{File: file, Key: full, Msg: msg})
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

// yamlLineRE finds the line number in a YAML parser error.
var yamlLineRE = regexp.MustCompile(`^line (\d+): `)

// syntaxError describes a YAML syntax error at the line where the text
// stops being YAML. The parser reports some errors at the start of the
// enclosing block (a bad indent on line 74 of a list that starts on line
// 44 is "line 44: did not find expected '-' indicator"), so the line is
// found again: the first prefix of the file, cut at a line end, that
// fails with the same problem.
func syntaxError(data []byte, err error) string {
	msg := trimYAMLPrefix(err)
	problem := yamlLineRE.ReplaceAllString(msg, "")
	if problem == msg {
		return msg // no line to correct (unmarshal errors name theirs)
	}
	lines := strings.SplitAfter(string(data), "\n")
	var prefix strings.Builder
	for i, l := range lines {
		prefix.WriteString(l)
		var n yamlv3.Node
		perr := yamlv3.Unmarshal([]byte(prefix.String()), &n)
		if perr == nil {
			continue
		}
		if yamlLineRE.ReplaceAllString(trimYAMLPrefix(perr), "") != problem {
			continue
		}
		text := strings.TrimRight(l, "\r\n")
		if len(text) > 80 {
			text = text[:80] + "..."
		}
		return fmt.Sprintf("line %d: %s (at %q)", i+1, problem, text)
	}
	return msg
}

// withPositions adds to each error naming a key the line and column of
// that key in the file, when the file has it (a key set by an
// environment override, or filled by a default, has none).
func withPositions(err error, data []byte, fromEnv map[string]string) error {
	var root yamlv3.Node
	if yamlv3.Unmarshal(data, &root) != nil || len(root.Content) == 0 {
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
		if !errors.As(e, &ce) || ce.Key == "" || setByEnv(ce.Key, fromEnv) || strings.Contains(ce.Msg, " (line ") {
			continue
		}
		if n := findKey(root.Content[0], ce.Key); n != nil {
			ce.Msg += fmt.Sprintf(" (line %d, column %d)", n.Line, n.Column)
		}
	}
	return errors.Join(errs...)
}

func setByEnv(key string, fromEnv map[string]string) bool {
	for k := range fromEnv {
		if key == k || strings.HasPrefix(key, k+".") || strings.HasPrefix(key, k+"[") {
			return true
		}
	}
	return false
}

// parenRE matches the notes some keys carry, e.g.
// plugins[3] (dir ./plugins, file echo.wasm).
var parenRE = regexp.MustCompile(` \([^)]*\)`)

// findKey returns the node of key (plugins[4].limits.timeout) under n: the
// key's own node for a mapping entry, the item for a list index; for a key
// the file does not have, the deepest part of it that it does have (the
// plugin item missing a key); nil when not even the first part is there.
func findKey(n *yamlv3.Node, key string) *yamlv3.Node {
	var found *yamlv3.Node
	for _, part := range strings.Split(parenRE.ReplaceAllString(key, ""), ".") {
		name, rest, _ := strings.Cut(part, "[")
		if name != "" {
			if n.Kind != yamlv3.MappingNode {
				return found
			}
			var next *yamlv3.Node
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == name {
					found, next = n.Content[i], n.Content[i+1]
					break
				}
			}
			if next == nil {
				return found
			}
			n = next
		}
		for rest != "" {
			idx, after, _ := strings.Cut(rest, "]")
			i, err := strconv.Atoi(idx)
			if err != nil || n.Kind != yamlv3.SequenceNode || i < 0 || i >= len(n.Content) {
				return found
			}
			n = n.Content[i]
			found = n
			rest = strings.TrimPrefix(after, "[")
		}
	}
	return found
}

// knownKeys are the keys the struct at path (plugins[0].limits, "" for
// the top) of t, a config type decoded by its koanf tags, accepts.
func knownKeys(t reflect.Type, path string) []string {
	for _, part := range strings.Split(path, ".") {
		name, _, _ := strings.Cut(part, "[")
		if name != "" {
			if t = fieldType(t, name); t == nil {
				return nil
			}
		}
		for range strings.Count(part, "[") { // an element per index
			for t.Kind() == reflect.Pointer {
				t = t.Elem()
			}
			if k := t.Kind(); k != reflect.Slice && k != reflect.Array && k != reflect.Map {
				return nil
			}
			t = t.Elem()
		}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var keys []string
	for f := range t.Fields() {
		tag, opts, _ := strings.Cut(f.Tag.Get("koanf"), ",")
		switch {
		case tag == "-" || !f.IsExported():
		case tag == "" && strings.Contains(opts, "squash"):
			keys = append(keys, knownKeys(f.Type, "")...)
		case tag != "":
			keys = append(keys, tag)
		}
	}
	return keys
}

// fieldType is the type of t's field tagged name (through squashed
// structs), or nil.
func fieldType(t reflect.Type, name string) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	for f := range t.Fields() {
		tag, opts, _ := strings.Cut(f.Tag.Get("koanf"), ",")
		if tag == name {
			return f.Type
		}
		if tag == "" && strings.Contains(opts, "squash") {
			if ft := fieldType(f.Type, name); ft != nil {
				return ft
			}
		}
	}
	return nil
}
