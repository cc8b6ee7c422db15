package abi

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// URITemplate is an RFC 6570 level-1 template such as storage://{key}.
type URITemplate struct {
	Raw  string
	Vars []string
	lits []string // the literal text before, between and after the expressions: len(Vars)+1
	re   *regexp.Regexp
}

var templateVar = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// ParseURITemplate parses a template with simple {var} expressions.
func ParseURITemplate(raw string) (*URITemplate, error) {
	if !utf8.ValidString(raw) {
		return nil, fmt.Errorf("uri template %q is not valid UTF-8", raw)
	}
	var b strings.Builder
	b.WriteString("^")
	var vars, lits []string
	last := 0
	for _, m := range templateVar.FindAllStringSubmatchIndex(raw, -1) {
		lit := raw[last:m[0]]
		if strings.ContainsAny(lit, "{}") {
			return nil, fmt.Errorf("uri template %q: only {name} expressions are supported", raw)
		}
		b.WriteString(regexp.QuoteMeta(lit))
		b.WriteString(`([^/?#]+)`)
		lits = append(lits, lit)
		vars = append(vars, raw[m[2]:m[3]])
		last = m[1]
	}
	tail := raw[last:]
	if strings.ContainsAny(tail, "{}") {
		return nil, fmt.Errorf("uri template %q: only {name} expressions are supported", raw)
	}
	b.WriteString(regexp.QuoteMeta(tail))
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("uri template %q: %w", raw, err)
	}
	return &URITemplate{Raw: raw, Vars: vars, lits: append(lits, tail), re: re}, nil
}

// Literal is how many bytes of t are literal text (not expressions).
func (t *URITemplate) Literal() int {
	n := 0
	for _, l := range t.lits {
		n += len(l)
	}
	return n
}

// Match returns the variables of uri, or false when it does not match.
func (t *URITemplate) Match(uri string) (map[string]string, bool) {
	if n := len(t.lits); n > 0 && (!strings.HasPrefix(uri, t.lits[0]) || !strings.HasSuffix(uri, t.lits[n-1])) {
		return nil, false // most templates a read is tried against, cheaply
	}
	m := t.re.FindStringSubmatch(uri)
	if m == nil {
		return nil, false
	}
	vars := make(map[string]string, len(t.Vars))
	for i, v := range t.Vars {
		vars[v] = m[i+1]
	}
	return vars, true
}
