package source

import (
	"bytes"
	"encoding/json"

	"github.com/wasmgate/wasmgate/internal/canon"
)

// FlatSchema is the part of a tool's input schema that the common call
// can be checked against without a JSON Schema validator: an object whose
// properties each have a type (string, number, integer, boolean, null, or
// a list of them) and perhaps an enum of strings, some of them required,
// perhaps no others allowed. Accepts says yes only where the full
// validator would; everything else (a "no", or arguments it cannot judge)
// goes to the full validator, which words the error. A schema with any
// other keyword has no FlatSchema.
type FlatSchema struct {
	props    map[string]flatProp
	required uint64 // one bit per required name
	closed   bool   // additionalProperties: false
}

type flatProp struct {
	types  uint8    // flatString | ...; 0 accepts every type
	enum   []string // nil: no enum (an enum of strings only)
	reqBit uint64   // this name's bit of FlatSchema.required
	extra  bool     // only in required, not in properties
}

const (
	flatString uint8 = 1 << iota
	flatNumber
	flatInteger
	flatBoolean
	flatNull
)

var flatTypes = map[string]uint8{"string": flatString, "number": flatNumber, "integer": flatInteger, "boolean": flatBoolean, "null": flatNull}

// annotations are keywords that assert nothing (in every draft the
// compiler reads): a schema may have them and still be flat.
var annotations = map[string]bool{"title": true, "description": true, "default": true, "examples": true,
	"$comment": true, "deprecated": true, "readOnly": true, "writeOnly": true}

// CompileFlat is the FlatSchema of a tool's input schema (as given, and
// already compiled by CompileSchema), or nil when the schema asks more
// than a FlatSchema checks.
func CompileFlat(raw json.RawMessage) *FlatSchema {
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return nil
	}
	fs := &FlatSchema{props: map[string]flatProp{}}
	var required []string
	for k, v := range top {
		switch {
		case annotations[k] || k == "$schema":
		case k == "type":
			var t string
			if json.Unmarshal(v, &t) != nil || t != "object" {
				return nil
			}
		case k == "additionalProperties":
			var b bool
			if json.Unmarshal(v, &b) != nil {
				return nil // a schema for the others is not flat
			}
			fs.closed = !b
		case k == "required":
			if json.Unmarshal(v, &required) != nil {
				return nil
			}
		case k == "properties":
			var props map[string]json.RawMessage
			if json.Unmarshal(v, &props) != nil {
				return nil
			}
			for name, ps := range props {
				p, ok := flatPropOf(ps)
				if !ok {
					return nil
				}
				fs.props[name] = p
			}
		default:
			return nil
		}
	}
	if len(required) > 64 {
		return nil
	}
	for i, name := range required {
		p, ok := fs.props[name]
		if !ok {
			p = flatProp{extra: true}
		}
		if p.reqBit != 0 {
			continue // listed twice
		}
		p.reqBit = 1 << i
		fs.required |= p.reqBit
		fs.props[name] = p
	}
	return fs
}

func flatPropOf(raw json.RawMessage) (flatProp, bool) {
	var p flatProp
	if b := bytes.TrimSpace(raw); string(b) == "true" {
		return p, true
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return p, false // false, or not a schema
	}
	for k, v := range m {
		switch {
		case annotations[k]:
		case k == "type":
			var one string
			var many []string
			if json.Unmarshal(v, &one) == nil {
				many = []string{one}
			} else if json.Unmarshal(v, &many) != nil || len(many) == 0 {
				return p, false
			}
			for _, t := range many {
				bit, ok := flatTypes[t]
				if !ok {
					return p, false // object, array: not flat
				}
				p.types |= bit
			}
		case k == "enum":
			var vals []any
			if json.Unmarshal(v, &vals) != nil || len(vals) == 0 {
				return p, false
			}
			p.enum = make([]string, 0, len(vals))
			for _, x := range vals {
				s, ok := x.(string)
				if !ok {
					return p, false // numeric equality is the validator's
				}
				p.enum = append(p.enum, s)
			}
		default:
			return p, false
		}
	}
	return p, true
}

// Accepts reports that canonical arguments (canon.Args's output) are
// valid for the schema; false means the full validator must judge them.
// It allocates nothing.
func (fs *FlatSchema) Accepts(canonical []byte) bool {
	var seen uint64
	ok := canon.EachFlat(canonical, func(key []byte, kind byte, val []byte) bool {
		p, known := fs.props[string(key)]
		seen |= p.reqBit
		if !known || p.extra {
			return !fs.closed
		}
		if p.types != 0 && !p.typed(kind, val) {
			return false
		}
		if p.enum != nil {
			if kind != canon.String {
				return false
			}
			for _, e := range p.enum {
				if e == string(val) {
					return true
				}
			}
			return false
		}
		return true
	})
	return ok && seen&fs.required == fs.required
}

func (p flatProp) typed(kind byte, val []byte) bool {
	switch kind {
	case canon.String:
		return p.types&flatString != 0
	case canon.Boolean:
		return p.types&flatBoolean != 0
	case canon.Null:
		return p.types&flatNull != 0
	}
	if p.types&flatNumber != 0 {
		return true
	}
	// An integer written with a fraction or an exponent (2.0, 1e3) is the
	// validator's to judge.
	return p.types&flatInteger != 0 && bytes.IndexAny(val, ".eE") < 0
}
