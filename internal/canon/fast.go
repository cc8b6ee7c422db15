package canon

// The common case of a tool call's arguments is one flat object of
// scalars with ASCII keys and plain strings ({"operation":"add","a":5}).
// Its canonical form is the input without its whitespace, and the checks
// (valid JSON, no repeated or case-colliding key) need no decoder: flat
// scans it in one pass, without allocating beyond the output. Anything
// else (nesting, escapes, bytes outside printable ASCII, a repeated or
// colliding key, anything invalid) is left to the decoder-based path, so
// that every error is the one it words. FuzzFlat checks that both agree
// on whatever flat accepts.

import "encoding/json"

// maxFlatKeys bounds the keys flat compares pairwise.
const maxFlatKeys = 32

// flat returns the canonical form of raw when raw is a flat object of
// scalars with printable-ASCII keys and strings without escapes, and ok;
// otherwise ok is false and Args decodes it.
func flat(raw []byte) (out []byte, ok bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, false
	}
	out = make([]byte, 0, len(raw))
	out = append(out, '{')
	var keys [maxFlatKeys][]byte
	n := 0
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		out = append(out, '}')
		return out, skipSpace(raw, i+1) == len(raw)
	}
	for {
		// a key
		if i >= len(raw) || raw[i] != '"' {
			return nil, false
		}
		end, ok := plainString(raw, i)
		if !ok || n == maxFlatKeys {
			return nil, false
		}
		key := raw[i+1 : end-1]
		for _, k := range keys[:n] {
			if equalFoldASCII(k, key) {
				return nil, false // the decoder words the error
			}
		}
		keys[n] = key
		n++
		if n > 1 {
			out = append(out, ',')
		}
		out = append(out, raw[i:end]...)
		i = skipSpace(raw, end)
		if i >= len(raw) || raw[i] != ':' {
			return nil, false
		}
		out = append(out, ':')
		// a scalar value
		i = skipSpace(raw, i+1)
		if i >= len(raw) {
			return nil, false
		}
		switch c := raw[i]; {
		case c == '"':
			end, ok = plainString(raw, i)
		case c == '-' || ('0' <= c && c <= '9'):
			end, ok = number(raw, i)
		case c == 't':
			end, ok = literal(raw, i, "true")
		case c == 'f':
			end, ok = literal(raw, i, "false")
		case c == 'n':
			end, ok = literal(raw, i, "null")
		default:
			return nil, false
		}
		if !ok {
			return nil, false
		}
		out = append(out, raw[i:end]...)
		i = skipSpace(raw, end)
		if i >= len(raw) {
			return nil, false
		}
		switch raw[i] {
		case ',':
			i = skipSpace(raw, i+1)
			continue
		case '}':
			out = append(out, '}')
			return out, skipSpace(raw, i+1) == len(raw)
		}
		return nil, false
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// plainString is the end (past the closing quote) of the string starting
// at b[i] == '"', when every byte in it is printable ASCII other than a
// backslash: such a string reads and re-encodes as it is.
func plainString(b []byte, i int) (int, bool) {
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return j + 1, true
		case c == '\\' || c < 0x20 || c >= 0x7f:
			return 0, false
		}
	}
	return 0, false
}

// number is the end of the JSON number starting at b[i], by the grammar
// of RFC 8259: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
func number(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(b, i)
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

func literal(b []byte, i int, word string) (int, bool) {
	if len(b)-i < len(word) || string(b[i:i+len(word)]) != word {
		return 0, false
	}
	return i + len(word), true
}

// equalFoldASCII is strings.EqualFold for printable ASCII, where it is
// fold's equality too (no ASCII letter shares a fold with another ASCII
// byte but its other case).
func equalFoldASCII(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// FlatValue decodes canonical arguments (Args's output) that are a flat
// object of scalars with plain strings, as a json.Decoder with UseNumber
// would (numbers as json.Number, as written): the instance a schema
// validates, without a decoder. ok is false for anything else.
func FlatValue(canonical []byte) (v map[string]any, ok bool) {
	v = make(map[string]any, 4)
	ok = EachFlat(canonical, func(key []byte, kind byte, val []byte) bool {
		if len(v) == maxFlatKeys {
			return false // beyond what flat accepts
		}
		var x any
		switch kind {
		case String:
			x = string(val)
		case Boolean:
			x = val[0] == 't'
		case Null:
			x = nil
		default:
			x = json.Number(val)
		}
		v[string(key)] = x
		return true
	})
	if !ok {
		return nil, false
	}
	return v, true
}

// Scalar kinds of a flat object's values, for EachFlat.
const (
	String  = '"' // a plain string (no escapes): the value is its text between the quotes
	Number  = '0' // a JSON number, as written
	Boolean = 't' // true or false
	Null    = 'n' // null
)

// EachFlat calls fn with each member of canonical arguments (Args's
// output) that are a flat object of scalars with plain strings, in order,
// until fn returns false: the key (without quotes), the value's kind and
// the value (a string's text between its quotes, otherwise the token as
// written). It allocates nothing. It reports whether canonical is such an
// object and fn returned true for every member; when it is false, fn may
// have seen some of the members.
func EachFlat(canonical []byte, fn func(key []byte, kind byte, val []byte) bool) (ok bool) {
	if len(canonical) < 2 || canonical[0] != '{' {
		return false
	}
	i := 1
	if canonical[i] == '}' {
		return i+1 == len(canonical)
	}
	for {
		if i >= len(canonical) || canonical[i] != '"' {
			return false
		}
		end, ok := plainString(canonical, i)
		if !ok || end >= len(canonical) || canonical[end] != ':' {
			return false
		}
		key := canonical[i+1 : end-1]
		i = end + 1
		if i >= len(canonical) {
			return false
		}
		var kind byte
		var val []byte
		switch c := canonical[i]; {
		case c == '"':
			kind = String
			end, ok = plainString(canonical, i)
			if ok {
				val = canonical[i+1 : end-1]
			}
		case c == '-' || ('0' <= c && c <= '9'):
			kind = Number
			end, ok = number(canonical, i)
		case c == 't':
			kind = Boolean
			end, ok = literal(canonical, i, "true")
		case c == 'f':
			kind = Boolean
			end, ok = literal(canonical, i, "false")
		case c == 'n':
			kind = Null
			end, ok = literal(canonical, i, "null")
		default:
			return false
		}
		if !ok || end >= len(canonical) {
			return false
		}
		if kind != String {
			val = canonical[i:end]
		}
		if !fn(key, kind, val) {
			return false
		}
		i = end
		switch canonical[i] {
		case ',':
			i++
		case '}':
			return i+1 == len(canonical)
		default:
			return false
		}
	}
}
