package args

import (
	"errors"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

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
	b, ok := unquoteBytes(q)
	return string(b), ok
}

// unquoteBytes is unquote's bytes: for a string without escapes or
// non-ASCII bytes, the bytes between the quotes of q itself.
func unquoteBytes(q []byte) ([]byte, bool) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return nil, false
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
		return s, true
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
			return nil, false
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
				return nil, false
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
			return nil, false
		}
		i += 2
	}
	return out, true
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
