// Command redact is a wasmgate example interceptor (docs/interceptors.md):
// in the response phase it redacts personal data in the texts of a
// result before the client sees it: e-mail addresses, IBANs (checked with
// their mod-97 check digits) and card numbers (checked with the Luhn
// algorithm), each replaced by "[redacted email]", "[redacted iban]" or
// "[redacted card]".
//
// It searches every string of the result (RedactJSON): text content,
// embedded resources' text and URIs, every string of structuredContent,
// resource text contents, prompt message texts; object keys are left
// alone; lists (tools/list, ...) are not searched. It works on the
// result's JSON without decoding it, and a result
// with nothing to redact is answered continue, so the common case costs
// a scan and no copy.
//
// Its config (interceptors[].config):
//
//	patterns  which of email, iban and card to redact; all by default
//
// Build it as the example plugins are (make plugins):
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o redact.wasm ./examples/interceptors/redact
package main

import (
	"bytes"
	"fmt"
	"strings"
)

func main() {}

// Config is the interceptor's config: section.
type Config struct {
	Patterns []string `json:"patterns"`
}

// Redactor redacts the patterns it was made with.
type Redactor struct {
	email, iban, card bool
}

// NewRedactor returns a Redactor for patterns (email, iban, card); none
// means all.
func NewRedactor(patterns []string) (*Redactor, error) {
	if len(patterns) == 0 {
		return &Redactor{email: true, iban: true, card: true}, nil
	}
	var r Redactor
	for _, p := range patterns {
		switch strings.ToLower(strings.TrimSpace(p)) {
		case "email":
			r.email = true
		case "iban":
			r.iban = true
		case "card":
			r.card = true
		default:
			return nil, fmt.Errorf("redact: unknown pattern %q (want email, iban or card)", p)
		}
	}
	return &r, nil
}

// The patterns, found by hand-written scanners rather than package regexp
// (inside a WebAssembly module regexp took milliseconds over 10 KiB; these
// take microseconds). Each matches exactly what its regular expression,
// kept in redact_test.go as the reference the fuzz test compares with,
// matches:
//
//	email  [A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}
//	iban   \b[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b
//	card   \b(?:[0-9][ \-]?){12,18}[0-9]\b
//
// An IBAN is redacted only if its check digits hold (ValidIBAN), a card
// number only if it passes the Luhn check (ValidCard). E-mail addresses
// are replaced first, then IBANs, then card numbers, each over the text
// the previous one left.

// Redact returns s with every match of r's patterns replaced.
func (r *Redactor) Redact(s string) string {
	out, changed := r.redact([]byte(s))
	if !changed {
		return s
	}
	return string(out)
}

// redact returns b with every match replaced, and whether there was one;
// b itself when there was none.
func (r *Redactor) redact(b []byte) ([]byte, bool) {
	changed := false
	if r.email {
		if out, ok := emails(b); ok {
			b, changed = out, true
		}
	}
	// IBANs and card numbers have at least 13 digits: a text with fewer
	// is not searched.
	if (r.iban || r.card) && digits(b) >= 13 {
		if out, ok := r.numbers(b); ok {
			b, changed = out, true
		}
	}
	return b, changed
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isAlpha(c byte) bool { return isUpper(c) || c >= 'a' && c <= 'z' }
func isAlnum(c byte) bool { return isAlpha(c) || isDigit(c) }

// isWord is \b's word character: ASCII letters, digits and '_'.
func isWord(c byte) bool { return isAlnum(c) || c == '_' }

func isLocal(c byte) bool {
	return isAlnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-'
}

// emails replaces every e-mail address in b.
func emails(b []byte) ([]byte, bool) {
	var out []byte
	last, from := 0, 0
	for {
		k := bytes.IndexByte(b[from:], '@')
		if k < 0 {
			break
		}
		at := from + k
		from = at + 1
		start := at
		for start > last && isLocal(b[start-1]) {
			start--
		}
		if start == at {
			continue
		}
		end := domainEnd(b, at+1)
		if end < 0 {
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(b)+len(b)/4)
		}
		out = append(out, b[last:start]...)
		out = append(out, "[redacted email]"...)
		last, from = end, end
	}
	if out == nil {
		return b, false
	}
	return append(out, b[last:]...), true
}

// domainEnd is where the longest domain starting at b[p] ends, labels of
// [A-Za-z0-9-] joined by dots with a last label of two or more letters;
// -1 without one.
func domainEnd(b []byte, p int) int {
	q := p
	for q < len(b) && (isAlnum(b[q]) || b[q] == '-' || b[q] == '.') {
		q++
	}
	run := b[p:q]
	if len(run) == 0 || run[0] == '.' {
		return -1
	}
	if k := bytes.Index(run, []byte("..")); k >= 0 {
		run = run[:k]
	}
	for e := len(run); e > 0; e-- {
		d := bytes.LastIndexByte(run[:e], '.')
		if d < 1 {
			return -1
		}
		label := run[d+1 : e]
		if len(label) < 2 {
			continue
		}
		letters := true
		for _, c := range label {
			if !isAlpha(c) {
				letters = false
				break
			}
		}
		if letters {
			return p + e
		}
	}
	return -1
}

// numbers replaces IBANs and card numbers in one pass, as two passes
// would, IBANs first: an IBAN match whose check digits fail stays as it
// is and no other IBAN match starts inside it (regexp.ReplaceAllStringFunc
// goes on after it), but card numbers are still searched there; no card
// number can overlap an IBAN that is replaced, which starts with a letter
// after a non-word character.
func (r *Redactor) numbers(b []byte) ([]byte, bool) {
	var out []byte
	last, noIBAN := 0, 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		if !isDigit(c) && !isUpper(c) || i > 0 && isWord(b[i-1]) {
			continue
		}
		end, with := -1, ""
		if isUpper(c) {
			if !r.iban || i < noIBAN {
				continue
			}
			if end = ibanAt(b, i); end < 0 {
				continue
			}
			if !ValidIBAN(string(b[i:end])) {
				noIBAN = end
				continue
			}
			with = "[redacted iban]"
		} else {
			if !r.card {
				continue
			}
			if end = cardAt(b, i); end < 0 {
				continue
			}
			if !ValidCard(string(b[i:end])) {
				i = end - 1
				continue
			}
			with = "[redacted card]"
		}
		if out == nil {
			out = make([]byte, 0, len(b)+len(b)/4)
		}
		out = append(out, b[last:i]...)
		out = append(out, with...)
		last = end
		i = end - 1
	}
	if out == nil {
		return b, false
	}
	return append(out, b[last:]...), true
}

// boundaryAt reports whether \b holds after a word character at b[i-1].
func boundaryAt(b []byte, i int) bool { return i == len(b) || !isWord(b[i]) }

// ibanAt is the end of the IBAN pattern's match at b[i], -1 without one:
// the pattern's groups taken greedily, then given back one by one as a
// regular expression backtracks.
func ibanAt(b []byte, i int) int {
	if i+4 > len(b) || !isUpper(b[i]) || !isUpper(b[i+1]) || !isDigit(b[i+2]) || !isDigit(b[i+3]) {
		return -1
	}
	isGroup := func(c byte) bool { return isUpper(c) || isDigit(c) }
	// run[k] is where the k-th group of four (optionally after a space)
	// ends.
	var ends [8]int
	ends[0] = i + 4
	n := 0
	for n < 7 {
		p := ends[n]
		if p < len(b) && b[p] == ' ' {
			p++
		}
		if p+4 > len(b) || !isGroup(b[p]) || !isGroup(b[p+1]) || !isGroup(b[p+2]) || !isGroup(b[p+3]) {
			// Without the space, if there was one.
			p = ends[n]
			if p+4 > len(b) || !isGroup(b[p]) || !isGroup(b[p+1]) || !isGroup(b[p+2]) || !isGroup(b[p+3]) {
				break
			}
		}
		n++
		ends[n] = p + 4
	}
	for ; n >= 2; n-- {
		p := ends[n]
		// The last group of one to three, with and then without a space.
		for _, sp := range []int{1, 0} {
			q := p
			if sp == 1 {
				if q >= len(b) || b[q] != ' ' {
					continue
				}
				q++
			}
			k := 0
			for k < 3 && q+k < len(b) && isGroup(b[q+k]) {
				k++
			}
			for ; k >= 1; k-- {
				if boundaryAt(b, q+k) {
					return q + k
				}
			}
		}
		if boundaryAt(b, p) {
			return p
		}
	}
	return -1
}

// cardAt is the end of the card pattern's match at b[i], -1 without one:
// 13 to 19 digits, consecutive ones apart by at most one space or dash,
// the longest that ends at a word boundary.
func cardAt(b []byte, i int) int {
	// ends[m-1] is where the chain's m-th digit ends.
	var ends [19]int
	m := 0
	for p := i; m < 19 && p < len(b) && isDigit(b[p]); {
		ends[m] = p + 1
		m++
		p++
		if p+1 < len(b) && (b[p] == ' ' || b[p] == '-') && isDigit(b[p+1]) {
			p++
		}
	}
	for ; m >= 13; m-- {
		if boundaryAt(b, ends[m-1]) {
			return ends[m-1]
		}
	}
	return -1
}

// MayHold reports whether raw, a result as JSON, may hold something r
// redacts: it is false when raw has no '@' for e-mail addresses and fewer
// than 13 digits for IBANs and card numbers, and no \u escape that could
// hide either. A result it is false for need not be decoded.
func (r *Redactor) MayHold(raw []byte) bool {
	if bytes.Contains(raw, []byte(`\u`)) {
		return true
	}
	if r.email && bytes.IndexByte(raw, '@') >= 0 {
		return true
	}
	return (r.iban || r.card) && digits(raw) >= 13
}

func digits(b []byte) int {
	n := 0
	for _, c := range b {
		if c >= '0' && c <= '9' {
			n++
		}
	}
	return n
}

// ValidIBAN reports whether s, spaces aside, is 15 to 34 letters and
// digits whose ISO 13616 check (mod 97) holds.
func ValidIBAN(s string) bool {
	s = strings.ReplaceAll(s, " ", "")
	if len(s) < 15 || len(s) > 34 {
		return false
	}
	// Move the country and check digits to the end; letters count as
	// 10..35.
	rem := 0
	for _, c := range s[4:] + s[:4] {
		switch {
		case c >= '0' && c <= '9':
			rem = (rem*10 + int(c-'0')) % 97
		case c >= 'A' && c <= 'Z':
			rem = (rem*100 + int(c-'A') + 10) % 97
		default:
			return false
		}
	}
	return rem == 1
}

// ValidCard reports whether s, spaces and dashes aside, is 13 to 19
// digits that pass the Luhn check.
func ValidCard(s string) bool {
	var ds []int
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			ds = append(ds, int(c-'0'))
		case c == ' ' || c == '-':
		default:
			return false
		}
	}
	if len(ds) < 13 || len(ds) > 19 {
		return false
	}
	sum := 0
	for i := range ds {
		d := ds[len(ds)-1-i]
		if i%2 == 1 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}
