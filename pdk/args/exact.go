package args

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
)

// Unmarshal decodes the JSON b into v with encoding/json, except that an
// object member fills a struct field only when its name is the field's
// JSON name exactly: encoding/json would also fill the field `json:"path"`
// from "PATH" or "Path" (or "paTH"), which a policy condition on
// args.path never saw. Members whose names differ from every field's are
// ignored, as unknown members are. Values of a type that decodes itself
// (json.Unmarshaler, encoding.TextUnmarshaler), of maps and of
// interfaces are passed to encoding/json as they are: map keys and
// decoded interfaces keep the names exactly.
func Unmarshal(b []byte, v any) error {
	t := reflect.TypeOf(v)
	if t != nil && t.Kind() == reflect.Pointer && needsExact(t.Elem()) {
		if filtered, ok := exact(b, t.Elem()); ok {
			b = filtered
		}
	}
	return json.Unmarshal(b, v)
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// decodesItself reports whether encoding/json hands values of t to t's
// own method.
func decodesItself(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return t.Implements(jsonUnmarshaler) || p.Implements(jsonUnmarshaler) ||
		t.Implements(textUnmarshaler) || p.Implements(textUnmarshaler)
}

// needsExact reports whether decoding into t may match a struct field.
func needsExact(t reflect.Type) bool { return needsExactWalk(t, map[reflect.Type]bool{}) }

func needsExactWalk(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false // a recursive type: answered where it started
	}
	seen[t] = true
	if decodesItself(t) {
		return false
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return needsExactWalk(t.Elem(), seen)
	case reflect.Struct:
		return true
	}
	return false
}

// exact rewrites the JSON b for decoding into t: in every object that
// decodes into a struct, members not named exactly like a field are left
// out. ok is false when b is not what t expects (encoding/json then
// reports the error, or ignores the value).
func exact(b []byte, t reflect.Type) ([]byte, bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if decodesItself(t) || !needsExact(t) {
		return b, true
	}
	trimmed := trimSpace(b)
	switch t.Kind() {
	case reflect.Struct:
		o, err := Parse(trimmed)
		if err != nil {
			return b, false
		}
		fields := structFields(t)
		out := []byte{'{'}
		for _, m := range o.members {
			ft, ok := fields[string(m.name)]
			if !ok {
				continue
			}
			val, _ := exact(m.value, ft)
			out = appendMember(out, string(m.name), val)
		}
		return append(out, '}'), true
	case reflect.Map:
		o, err := Parse(trimmed)
		if err != nil {
			return b, false
		}
		out := []byte{'{'}
		for _, m := range o.members {
			val, _ := exact(m.value, t.Elem())
			out = appendMember(out, string(m.name), val)
		}
		return append(out, '}'), true
	case reflect.Slice, reflect.Array:
		var elems []json.RawMessage
		if len(trimmed) == 0 || trimmed[0] != '[' || json.Unmarshal(trimmed, &elems) != nil {
			return b, false
		}
		out := []byte{'['}
		for i, e := range elems {
			if i > 0 {
				out = append(out, ',')
			}
			val, _ := exact(e, t.Elem())
			out = append(out, val...)
		}
		return append(out, ']'), true
	}
	return b, true
}

func appendMember(out []byte, name string, val []byte) []byte {
	if len(out) > 1 {
		out = append(out, ',')
	}
	q, _ := json.Marshal(name) // a string always encodes
	out = append(out, q...)
	out = append(out, ':')
	return append(out, val...)
}

func trimSpace(b []byte) []byte {
	p := parser{b: b}
	p.space()
	b = b[p.i:]
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// structFields maps the JSON names encoding/json gives t's fields to their
// types, embedded structs' promoted fields included (an outer field wins
// over a promoted one of the same name).
func structFields(t reflect.Type) map[string]reflect.Type {
	fields := map[string]reflect.Type{}
	var walk func(t reflect.Type, depth int)
	walk = func(t reflect.Type, depth int) {
		if depth > 16 {
			return
		}
		var embedded []reflect.Type
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			ft := f.Type
			if f.Anonymous && name == "" {
				et := ft
				if et.Kind() == reflect.Pointer {
					et = et.Elem()
				}
				if et.Kind() == reflect.Struct {
					embedded = append(embedded, et)
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if _, ok := fields[name]; !ok {
				fields[name] = ft
			}
		}
		for _, et := range embedded {
			walk(et, depth+1)
		}
	}
	walk(t, 0)
	return fields
}
