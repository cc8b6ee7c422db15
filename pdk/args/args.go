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
)

// Object is a parsed JSON object. Member names are matched exactly (not
// regardless of case, as encoding/json does); of members with the same
// name, the last one counts, as with encoding/json.
type Object struct {
	members []member
}

type member struct {
	// name is the member's name decoded: for a name without escapes or
	// non-ASCII bytes (nearly every one) the bytes between its quotes in
	// the input, so that Parse allocates no string per member.
	name  []byte
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
			name, ok := unquoteBytes(b[start:p.i])
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
			if o.members == nil {
				// One allocation for the objects tools take (a handful
				// of members) instead of one per doubling.
				o.members = make([]member, 0, 8)
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
		if string(o.members[i].name) == name {
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
	if n, neg, ok := smallInt(v); ok {
		f := float64(n)
		if neg {
			f = -f // "-0" is -0, as ParseFloat reads it
		}
		return f, true
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
	if n, neg, ok := smallInt(v); ok {
		if neg {
			n = -n
		}
		return n, true
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	return n, err == nil
}

// smallInt reads v when it is an integer of at most 15 digits with an
// optional minus sign, the numbers tools are mostly given: exactly, and
// without strconv's string conversion (an allocation) or its general
// parser. Any larger or other number is left to strconv (ok false).
func smallInt(v []byte) (n int64, neg bool, ok bool) {
	if len(v) > 0 && v[0] == '-' {
		neg, v = true, v[1:]
	}
	if len(v) == 0 || len(v) > 15 {
		return 0, false, false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, neg, true
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
		names[i] = string(m.name)
	}
	return names
}

// Strings returns the member name's value if it is an array of strings
// (an empty array gives an empty, non-nil slice; a null element is "",
// as encoding/json decodes it).
func (o Object) Strings(name string) ([]string, bool) {
	v, ok := o.Raw(name)
	if !ok {
		return nil, false
	}
	p := parser{b: v}
	p.space()
	if p.peek() != '[' {
		return nil, false
	}
	p.i++
	out := []string{}
	for {
		p.space()
		if len(out) == 0 && p.peek() == ']' {
			p.i++
			return out, p.end()
		}
		switch start := p.i; p.peek() {
		case '"':
			if p.string() != nil {
				return nil, false
			}
			s, ok := unquote(v[start:p.i])
			if !ok {
				return nil, false
			}
			out = append(out, s)
		case 'n':
			if p.literal("null") != nil {
				return nil, false
			}
			out = append(out, "")
		default:
			return nil, false
		}
		p.space()
		switch p.peek() {
		case ',':
			p.i++
		case ']':
			p.i++
			return out, p.end()
		default:
			return nil, false
		}
	}
}
