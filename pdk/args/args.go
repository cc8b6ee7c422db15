// Package args reads a JSON object's members without reflection: the
// arguments of a tool or prompt export, cheaply.
//
// In a Go plugin, encoding/json costs far more than anything else a small
// tool does: decoding {"operation":"add","a":5,"b":3} into a struct or a
// map takes about 20 µs of the guest's time, against about 2 µs with
// Parse and the Object accessors. Parse checks that its input is valid
// JSON and an object, and records where each member's value is; the
// accessors decode a value only when asked, and only scalar values (a
// nested object or array is returned raw, for encoding/json).
//
// It has no build constraints, so it is usable (and tested) on the host as
// well as inside wasip1 plugins; plugins reach it through the pdk package
// (pdk.Arguments).
package args

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Object is a parsed JSON object. Member names are matched exactly (not
// regardless of case, as encoding/json does); of members with the same
// name, the last one counts, as with encoding/json.
type Object struct {
	members []member
}

type member struct {
	name  string
	value []byte // the raw JSON value
}

// ErrNotObject is returned by Parse for input that is not a JSON object.
var ErrNotObject = errors.New("expected a JSON object")

// Parse parses b, which must be a JSON object (with optional surrounding
// white space). The Object refers to b, which must not change while the
// Object is used.
func Parse(b []byte) (Object, error) {
	p := parser{b: b}
	p.space()
	if p.i >= len(b) || b[p.i] != '{' {
		if err := p.value(); err != nil || !p.end() {
			return Object{}, errors.New("invalid JSON")
		}
		return Object{}, ErrNotObject
	}
	var o Object
	p.i++
	p.depth = 1
	p.space()
	if p.peek() == '}' {
		p.i++
	} else {
		for {
			p.space()
			if p.peek() != '"' {
				return Object{}, p.errorf("a member name")
			}
			start := p.i
			if err := p.string(); err != nil {
				return Object{}, err
			}
			name, ok := unquote(b[start:p.i])
			if !ok {
				return Object{}, p.errorf("a valid string")
			}
			p.space()
			if p.peek() != ':' {
				return Object{}, p.errorf("':'")
			}
			p.i++
			p.space()
			vstart := p.i
			if err := p.value(); err != nil {
				return Object{}, err
			}
			o.members = append(o.members, member{name: name, value: b[vstart:p.i]})
			p.space()
			if p.peek() == ',' {
				p.i++
				continue
			}
			if p.peek() != '}' {
				return Object{}, p.errorf("',' or '}'")
			}
			p.i++
			break
		}
	}
	if !p.end() {
		return Object{}, errors.New("invalid JSON: data after the object")
	}
	return o, nil
}

// Len returns the number of members (counting repeated names).
func (o Object) Len() int { return len(o.members) }

// Raw returns the raw JSON value of the member name, and whether there is
// one.
func (o Object) Raw(name string) (json.RawMessage, bool) {
	for i := len(o.members) - 1; i >= 0; i-- {
		if o.members[i].name == name {
			return o.members[i].value, true
		}
	}
	return nil, false
}

// Has reports whether the object has a member name (of any value, null
// included).
func (o Object) Has(name string) bool {
	_, ok := o.Raw(name)
	return ok
}

// String returns the member name's value if it is a string.
func (o Object) String(name string) (string, bool) {
	v, ok := o.Raw(name)
	if !ok || len(v) == 0 || v[0] != '"' {
		return "", false
	}
	return unquote(v)
}

// Number returns the member name's value if it is a number. A number too
// large for a float64 is ±Inf, as in JavaScript, and one too small is 0.
func (o Object) Number(name string) (float64, bool) {
	v, ok := o.Raw(name)
	if !ok || len(v) == 0 || !(v[0] == '-' || v[0] >= '0' && v[0] <= '9') {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		var numErr *strconv.NumError
		if errors.As(err, &numErr) && numErr.Err == strconv.ErrRange {
			return f, true
		}
		return 0, false
	}
	return f, true
}

// Int returns the member name's value if it is a number that is an
// integer in the range of int64 (written without a fraction or an
// exponent, as JSON encoders write integers).
func (o Object) Int(name string) (int64, bool) {
	v, ok := o.Raw(name)
	if !ok || len(v) == 0 || !(v[0] == '-' || v[0] >= '0' && v[0] <= '9') {
		return 0, false
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	return n, err == nil
}

// Bool returns the member name's value if it is true or false.
func (o Object) Bool(name string) (bool, bool) {
	v, ok := o.Raw(name)
	switch {
	case !ok:
		return false, false
	case string(v) == "true":
		return true, true
	case string(v) == "false":
		return false, true
	}
	return false, false
}

// IsNull reports whether the member name is present with the value null.
func (o Object) IsNull(name string) bool {
	v, ok := o.Raw(name)
	return ok && string(v) == "null"
}

// Names returns the member names, in order (a repeated name as often as
// it appears).
func (o Object) Names() []string {
	names := make([]string, len(o.members))
	for i, m := range o.members {
		names[i] = m.name
	}
	return names
}

// parser checks JSON values (RFC 8259) and finds their ends.
type parser struct {
	b     []byte
	i     int
	depth int
}

// maxDepth bounds the nesting of arrays and objects inside a value, as
// encoding/json does (10000).
const maxDepth = 10000

func (p *parser) peek() byte {
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

func (p *parser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) end() bool {
	p.space()
	return p.i == len(p.b)
}

func (p *parser) errorf(want string) error {
	if p.i >= len(p.b) {
		return errors.New("invalid JSON: unexpected end, expected " + want)
	}
	return errors.New("invalid JSON at offset " + strconv.Itoa(p.i) + ": expected " + want)
}

// value skips one JSON value at p.i.
func (p *parser) value() error {
	switch c := p.peek(); {
	case c == '"':
		return p.string()
	case c == '{' || c == '[':
		return p.container()
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	}
	return p.errorf("a value")
}

func (p *parser) literal(s string) error {
	if len(p.b)-p.i < len(s) || string(p.b[p.i:p.i+len(s)]) != s {
		return p.errorf(s)
	}
	p.i += len(s)
	return nil
}

func (p *parser) container() error {
	p.depth++
	if p.depth > maxDepth {
		return errors.New("invalid JSON: nested too deeply")
	}
	defer func() { p.depth-- }()
	open := p.b[p.i]
	close := byte(']')
	if open == '{' {
		close = '}'
	}
	p.i++
	p.space()
	if p.peek() == close {
		p.i++
		return nil
	}
	for {
		p.space()
		if open == '{' {
			if p.peek() != '"' {
				return p.errorf("a member name")
			}
			if err := p.string(); err != nil {
				return err
			}
			p.space()
			if p.peek() != ':' {
				return p.errorf("':'")
			}
			p.i++
			p.space()
		}
		if err := p.value(); err != nil {
			return err
		}
		p.space()
		switch p.peek() {
		case ',':
			p.i++
		case close:
			p.i++
			return nil
		default:
			return p.errorf("',' or '" + string(close) + "'")
		}
	}
}

// string skips a string at p.i, checking its escapes.
func (p *parser) string() error {
	p.i++ // the opening quote
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return nil
		case c == '\\':
			if p.i+1 >= len(p.b) {
				return p.errorf("an escape")
			}
			switch p.b[p.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i += 2
			case 'u':
				if p.i+6 > len(p.b) {
					return p.errorf("4 hexadecimal digits")
				}
				for _, h := range p.b[p.i+2 : p.i+6] {
					if hexValue(h) < 0 {
						return p.errorf("4 hexadecimal digits")
					}
				}
				p.i += 6
			default:
				return p.errorf("an escape")
			}
		case c < 0x20:
			return p.errorf("no control character in a string")
		default:
			// Bytes that are not UTF-8 are accepted, as encoding/json
			// accepts them, and decoded as U+FFFD.
			p.i++
		}
	}
	return p.errorf("'\"'")
}

func (p *parser) number() error {
	if p.peek() == '-' {
		p.i++
	}
	switch c := p.peek(); {
	case c == '0':
		p.i++
	case c >= '1' && c <= '9':
		p.digits()
	default:
		return p.errorf("a digit")
	}
	if p.peek() == '.' {
		p.i++
		if c := p.peek(); c < '0' || c > '9' {
			return p.errorf("a digit")
		}
		p.digits()
	}
	if c := p.peek(); c == 'e' || c == 'E' {
		p.i++
		if c := p.peek(); c == '+' || c == '-' {
			p.i++
		}
		if c := p.peek(); c < '0' || c > '9' {
			return p.errorf("a digit")
		}
		p.digits()
	}
	return nil
}

func (p *parser) digits() {
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
}

func hexValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// unquote decodes a JSON string that parser.string checked, quotes
// included. Invalid surrogates become U+FFFD, as with encoding/json.
func unquote(q []byte) (string, bool) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return "", false
	}
	s := q[1 : len(q)-1]
	plain := true
	for _, c := range s {
		if c == '\\' || c >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	if plain {
		return string(s), true
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			// Each byte that is not part of UTF-8 becomes U+FFFD, as with
			// encoding/json.
			r, size := utf8.DecodeRune(s[i:])
			out = utf8.AppendRune(out, r)
			i += size
			continue
		}
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(s) {
			return "", false
		}
		switch s[i+1] {
		case '"', '\\', '/':
			out = append(out, s[i+1])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(s[i+2:])
			if !ok {
				return "", false
			}
			i += 6
			if utf16.IsSurrogate(r) {
				if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
					if r2, ok := hex4(s[i+2:]); ok {
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							out = utf8.AppendRune(out, dec)
							i += 6
							continue
						}
					}
				}
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
			continue
		default:
			return "", false
		}
		i += 2
	}
	return string(out), true
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		v := hexValue(c)
		if v < 0 {
			return 0, false
		}
		r = r<<4 | rune(v)
	}
	return r, true
}
