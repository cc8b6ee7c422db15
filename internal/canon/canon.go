// Package canon puts a call's arguments in the one form that both policy
// and the plugin read, so that they cannot disagree about what was sent.
//
// Decoders disagree about some JSON: encoding/json matches object keys to
// struct fields regardless of case (and Unicode folding: "K" is the
// Kelvin sign's fold too), keeps the last of duplicate keys, and replaces
// invalid UTF-8 with U+FFFD; other parsers keep the first duplicate, or
// the bytes as they are. A policy condition on args.path evaluated on one
// decoding, and a plugin reading "PATH" or a second "path" from the raw
// bytes, would decide on different arguments. Args refuses objects whose
// keys could be read differently (duplicates, keys equal under case
// folding, which includes keys equal after unescaping such as
// "\u0050ATH" and "path") and returns the arguments re-encoded: the bytes
// policy evaluates are the bytes the plugin receives.
//
// The package imports nothing of wasmgate's.
package canon

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxDepth bounds how deeply arrays and objects may nest.
const MaxDepth = 256

// Errors Args wraps, for errors.Is.
var (
	ErrInvalid   = errors.New("invalid JSON")
	ErrNotObject = errors.New("arguments must be a JSON object")
	ErrDuplicate = errors.New("duplicate key")
	ErrCollision = errors.New("keys differ only in case")
	ErrTooDeep   = fmt.Errorf("nested deeper than %d levels", MaxDepth)
)

// Args checks raw, a call's arguments, and returns them in canonical form:
// the same object, re-encoded compactly with its members in their order,
// every string in valid UTF-8 (an invalid byte or a lone surrogate is
// U+FFFD, as encoding/json decodes it) and numbers as written. Empty input
// (no arguments) is {}. It fails, naming the key and where it is, when raw
// is not valid JSON, is not an object, nests deeper than MaxDepth, or has,
// in any object at any depth, two keys that are equal (ErrDuplicate) or
// equal under Unicode case folding (ErrCollision), after unescaping.
func Args(raw []byte) ([]byte, error) {
	if out, ok := flat(raw); ok { // the common case, in one pass (fast.go)
		return out, nil
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return []byte("{}"), nil
	}
	return argsDecoded(raw)
}

// argsDecoded is Args by a json.Decoder, token by token: what flat leaves.
func argsDecoded(raw []byte) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	c := canonicalizer{d: d, out: make([]byte, 0, len(raw))}
	tok, err := d.Token()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if tok != json.Delim('{') {
		if err := c.value(tok, "", 0); err != nil {
			return nil, err
		}
		if err := c.end(); err != nil {
			return nil, err
		}
		return nil, ErrNotObject
	}
	if err := c.object("", 1); err != nil {
		return nil, err
	}
	if err := c.end(); err != nil {
		return nil, err
	}
	return c.out, nil
}

// Unique checks that raw, one JSON value (a tool's inputSchema), has
// no object, at any depth, with a key twice (equal after unescaping;
// keys that differ only in case are allowed). Readers disagree on which
// of two equal keys counts (encoding/json keeps the last, others the
// first), so a digest of one reading does not pin what another reader
// sees. It fails with ErrDuplicate naming the key and where it is under
// name, or with ErrInvalid or ErrTooDeep.
func Unique(raw []byte, name string) error {
	if uniqueFast(raw) {
		return nil
	}
	return uniqueDecoded(raw, name)
}

// uniqueDecoded is Unique by the decoder, which words the errors.
func uniqueDecoded(raw []byte, name string) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	c := canonicalizer{d: d, exact: true, name: name}
	tok, err := d.Token()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if err := c.value(tok, "", 0); err != nil {
		return err
	}
	return c.end()
}

type canonicalizer struct {
	d   *json.Decoder
	out []byte
	// exact: only equal keys are refused (Unique), not keys equal under
	// case folding; name is the value's, for errors ("": the arguments).
	exact bool
	name  string
}

// end checks that nothing follows the value.
func (c *canonicalizer) end() error {
	if _, err := c.d.Token(); err != io.EOF {
		return fmt.Errorf("%w: data after the value", ErrInvalid)
	}
	return nil
}

func (c *canonicalizer) next() (json.Token, error) {
	tok, err := c.d.Token()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return tok, nil
}

// value writes the value that starts with tok, at path (for errors).
func (c *canonicalizer) value(tok json.Token, path string, depth int) error {
	switch t := tok.(type) {
	case json.Delim:
		if depth >= MaxDepth {
			return fmt.Errorf("%w (at %s)", ErrTooDeep, c.where(path))
		}
		switch t {
		case '{':
			return c.object(path, depth+1)
		case '[':
			return c.array(path, depth+1)
		}
		return fmt.Errorf("%w: unexpected %q", ErrInvalid, t)
	case string:
		c.str(t)
	case json.Number:
		c.out = append(c.out, t...)
	case bool:
		c.out = append(c.out, fmt.Sprint(t)...)
	case nil:
		c.out = append(c.out, "null"...)
	default:
		return fmt.Errorf("%w: unexpected token %v", ErrInvalid, tok)
	}
	return nil
}

// object writes an object whose '{' was read.
func (c *canonicalizer) object(path string, depth int) error {
	c.out = append(c.out, '{')
	seen := map[string]string{} // folded key -> the key
	for first := true; ; first = false {
		tok, err := c.next()
		if err != nil {
			return err
		}
		if tok == json.Delim('}') {
			c.out = append(c.out, '}')
			return nil
		}
		key, ok := tok.(string)
		if !ok {
			return fmt.Errorf("%w: a member name is not a string", ErrInvalid)
		}
		f := key
		if !c.exact {
			f = fold(key)
		}
		if prev, ok := seen[f]; ok {
			if prev == key {
				return fmt.Errorf("%w %q (in %s)", ErrDuplicate, key, c.where(path))
			}
			return fmt.Errorf("%w: %q and %q (in %s)", ErrCollision, prev, key, c.where(path))
		}
		seen[f] = key
		if !first {
			c.out = append(c.out, ',')
		}
		c.str(key)
		c.out = append(c.out, ':')
		tok, err = c.next()
		if err != nil {
			return err
		}
		if err := c.value(tok, path+"."+key, depth); err != nil {
			return err
		}
	}
}

// array writes an array whose '[' was read.
func (c *canonicalizer) array(path string, depth int) error {
	c.out = append(c.out, '[')
	for i := 0; ; i++ {
		tok, err := c.next()
		if err != nil {
			return err
		}
		if tok == json.Delim(']') {
			c.out = append(c.out, ']')
			return nil
		}
		if i > 0 {
			c.out = append(c.out, ',')
		}
		if err := c.value(tok, fmt.Sprintf("%s[%d]", path, i), depth); err != nil {
			return err
		}
	}
}

// str writes s as a JSON string, escaping only what JSON requires.
func (c *canonicalizer) str(s string) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	_ = e.Encode(s) // a string always encodes
	c.out = append(c.out, bytes.TrimSuffix(b.Bytes(), []byte("\n"))...)
}

// where names a path for errors: "the arguments" at the top, or the
// value's name.
func (c *canonicalizer) where(path string) string {
	switch {
	case c.name != "":
		return c.name + path
	case path == "":
		return "the arguments"
	}
	return "args" + path
}

// fold maps s to a key equal for exactly the strings strings.EqualFold
// (and encoding/json's field matching) treats as equal: each rune becomes
// the smallest of its simple case-folding orbit.
func fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		min := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < min {
				min = f
			}
		}
		if min < utf8.RuneSelf {
			b.WriteByte(byte(min))
		} else {
			b.WriteRune(min)
		}
	}
	return b.String()
}
