// Package glob is the one pattern language of gateway.yaml for names
// and URIs: policy rules and endpoint selections (tools, resources,
// prompts, source names) match with it.
package glob

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxLen bounds a pattern, in bytes.
const MaxLen = 1024

// A Pattern matches names and URIs: '*' matches any run of characters,
// including '/' and the empty run; '?' matches exactly one character;
// '\' makes the next character literal (\*, \?, \\). Everything else
// matches itself, case-sensitively. Characters are Unicode code points.
//
// Matching is O(len(pattern)·len(name)) at worst (no backtracking beyond
// the last '*'), never exponential. The zero Pattern matches nothing
// but the empty string; a Pattern is immutable once compiled and safe
// for concurrent use.
type Pattern struct {
	raw  string
	toks []token
	// Fast paths, decided at compile time.
	form globForm
	lit  string // the literal for exact, prefix and suffix forms
}

type globForm uint8

const (
	formGeneral globForm = iota
	formExact            // no wildcard
	formAll              // "*"
	formPrefix           // "lit*"
	formSuffix           // "*lit"
)

// A token is one element of a pattern: a literal code point, '?' or '*'.
type token struct {
	op opcode
	r  rune
}

type opcode uint8

const (
	opLit  opcode = iota
	opOne         // '?'
	opStar        // '*'
)

// Compile parses s. Consecutive stars collapse into one. The error says
// what is wrong with s without quoting it (the caller names the key and
// the value).
func Compile(s string) (Pattern, error) {
	switch {
	case s == "":
		return Pattern{}, errors.New("empty pattern")
	case len(s) > MaxLen:
		return Pattern{}, fmt.Errorf("longer than %d bytes", MaxLen)
	case !utf8.ValidString(s):
		return Pattern{}, errors.New("not valid UTF-8")
	}
	g := Pattern{raw: s}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch r {
		case '*':
			if n := len(g.toks); n > 0 && g.toks[n-1].op == opStar {
				continue
			}
			g.toks = append(g.toks, token{op: opStar})
		case '?':
			g.toks = append(g.toks, token{op: opOne})
		case '\\':
			if i == len(s) {
				return Pattern{}, errors.New(`ends with a lone '\' (write \\ for a backslash)`)
			}
			r, size = utf8.DecodeRuneInString(s[i:])
			i += size
			g.toks = append(g.toks, token{op: opLit, r: r})
		default:
			g.toks = append(g.toks, token{op: opLit, r: r})
		}
	}
	g.form, g.lit = classify(g.toks)
	return g, nil
}

// classify finds the fast path for toks.
func classify(toks []token) (globForm, string) {
	stars, ones := 0, 0
	for _, t := range toks {
		switch t.op {
		case opStar:
			stars++
		case opOne:
			ones++
		}
	}
	literal := func(ts []token) string {
		var b strings.Builder
		for _, t := range ts {
			b.WriteRune(t.r)
		}
		return b.String()
	}
	n := len(toks)
	switch {
	case ones > 0 || stars > 1:
		return formGeneral, ""
	case stars == 0:
		return formExact, literal(toks)
	case n == 1:
		return formAll, ""
	case toks[n-1].op == opStar:
		return formPrefix, literal(toks[:n-1])
	case toks[0].op == opStar:
		return formSuffix, literal(toks[1:])
	}
	return formGeneral, ""
}

// String is the pattern as written.
func (g *Pattern) String() string { return g.raw }

// Set is a list of patterns; it matches what any of them matches.
type Set []Pattern

// Match reports whether some pattern of s matches all of name.
func (s Set) Match(name string) bool {
	for i := range s {
		if s[i].Match(name) {
			return true
		}
	}
	return false
}

// Match reports whether g matches all of s.
func (g *Pattern) Match(s string) bool {
	switch g.form {
	case formExact:
		return s == g.lit
	case formAll:
		return true
	case formPrefix:
		return strings.HasPrefix(s, g.lit)
	case formSuffix:
		return strings.HasSuffix(s, g.lit)
	}
	return matchTokens(g.toks, s)
}

// matchTokens is the classic wildcard match: on a mismatch, go back to
// the last star and let it take one more character. Only the last star
// is ever revisited, so the work is bounded by len(p)·len(s).
func matchTokens(p []token, s string) bool {
	pi, si := 0, 0
	starP, starS := -1, 0
	for si < len(s) {
		r, size := utf8.DecodeRuneInString(s[si:])
		if pi < len(p) {
			switch t := p[pi]; {
			case t.op == opStar:
				starP, starS = pi, si
				pi++
				continue
			case t.op == opOne || t.r == r:
				pi++
				si += size
				continue
			}
		}
		if starP < 0 {
			return false
		}
		_, size = utf8.DecodeRuneInString(s[starS:])
		starS += size
		pi, si = starP+1, starS
	}
	for pi < len(p) && p[pi].op == opStar {
		pi++
	}
	return pi == len(p)
}

// Template turns an RFC 6570 URI template into a pattern matching every
// expansion: each {expression} becomes '*', the rest is literal. An
// unclosed '{' is taken literally. This over-approximates (a simple
// {var} expansion never contains '/', '*' does), which only ever makes
// a template look usable, never a read allowed: reads are decided on the
// concrete URI.
func Template(tmpl string) Pattern {
	toks := templateTokens(tmpl)
	g := Pattern{raw: tmpl, toks: toks}
	g.form, g.lit = classify(toks)
	return g
}

func templateTokens(tmpl string) []token {
	var toks []token
	for i := 0; i < len(tmpl); {
		if tmpl[i] == '{' {
			if j := strings.IndexByte(tmpl[i:], '}'); j >= 0 {
				if n := len(toks); n == 0 || toks[n-1].op != opStar {
					toks = append(toks, token{op: opStar})
				}
				i += j + 1
				continue
			}
		}
		r, size := utf8.DecodeRuneInString(tmpl[i:])
		toks = append(toks, token{op: opLit, r: r})
		i += size
	}
	return toks
}

// Overlaps reports whether some string matches both patterns a and b.
// It explores the product of the two automata, states (i, j) = positions
// in a and b, so it costs O(len(a)·len(b)).
func Overlaps(a, b *Pattern) bool { return overlaps(a.toks, b.toks) }

func overlaps(a, b []token) bool {
	w := len(b) + 1
	seen := make([]bool, (len(a)+1)*w)
	stack := []int{0}
	seen[0] = true
	push := func(i, j int) {
		if k := i*w + j; !seen[k] {
			seen[k] = true
			stack = append(stack, k)
		}
	}
	for len(stack) > 0 {
		k := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		i, j := k/w, k%w
		if i == len(a) && j == len(b) {
			return true
		}
		// A star may match nothing.
		if i < len(a) && a[i].op == opStar {
			push(i+1, j)
		}
		if j < len(b) && b[j].op == opStar {
			push(i, j+1)
		}
		// Or both sides consume one common character.
		if i == len(a) || j == len(b) {
			continue
		}
		ta, tb := a[i], b[j]
		if ta.op == opLit && tb.op == opLit && ta.r != tb.r {
			continue
		}
		ni, nj := i+1, j+1
		if ta.op == opStar {
			ni = i
		}
		if tb.op == opStar {
			nj = j
		}
		push(ni, nj)
	}
	return false
}

// Covers reports whether every string matched by t is matched by g. It
// is sound but not complete: true means covered; false may also mean
// "could not tell". It matches g against t's tokens, where a star of t
// may only be taken by a star of g and '?' of g takes one literal of t.
func Covers(g, t *Pattern) bool { return covers(g.toks, t.toks) }

func covers(g, t []token) bool {
	pi, ti := 0, 0
	starP, starT := -1, 0
	for ti < len(t) {
		if pi < len(g) {
			switch gp, tt := g[pi], t[ti]; {
			case gp.op == opStar:
				starP, starT = pi, ti
				pi++
				continue
			case gp.op == opOne && tt.op != opStar, gp.op == opLit && tt.op == opLit && gp.r == tt.r:
				pi++
				ti++
				continue
			}
		}
		if starP < 0 {
			return false
		}
		starT++
		pi, ti = starP+1, starT
	}
	for pi < len(g) && g[pi].op == opStar {
		pi++
	}
	return pi == len(g)
}
