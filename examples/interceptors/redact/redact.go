// Command redact is a wasmgate example interceptor (docs/interceptors.md):
// in the response phase it redacts personal data in the texts of a
// result before the client sees it: e-mail addresses, IBANs (checked with
// their mod-97 check digits) and card numbers (checked with the Luhn
// algorithm), each replaced by "[redacted email]", "[redacted iban]" or
// "[redacted card]".
//
// It reads the texts pdk/intercept's Result.EachText visits: text content,
// embedded resources' text, every string of structuredContent, resource
// text contents and prompt message texts. A result with nothing to
// redact is answered continue, so the common case costs a scan and no
// copy.
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
	"fmt"
	"regexp"
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

var (
	emailRE = regexp.MustCompile(`[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}`)
	// Two letters, two check digits, then groups of four, optionally
	// separated by single spaces, and a last group of one to three.
	ibanRE = regexp.MustCompile(`\b[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b`)
	// 13 to 19 digits, optionally separated by single spaces or dashes.
	cardRE = regexp.MustCompile(`\b(?:[0-9][ \-]?){12,18}[0-9]\b`)
)

// Redact returns s with every match of r's patterns replaced.
func (r *Redactor) Redact(s string) string {
	if r.email && strings.IndexByte(s, '@') >= 0 {
		s = emailRE.ReplaceAllLiteralString(s, "[redacted email]")
	}
	// IBANs and card numbers have at least 13 digits: a text with fewer
	// is not searched.
	if (r.iban || r.card) && digits(s) >= 13 {
		if r.iban {
			s = ibanRE.ReplaceAllStringFunc(s, func(m string) string {
				if ValidIBAN(m) {
					return "[redacted iban]"
				}
				return m
			})
		}
		if r.card {
			s = cardRE.ReplaceAllStringFunc(s, func(m string) string {
				if ValidCard(m) {
					return "[redacted card]"
				}
				return m
			})
		}
	}
	return s
}

// MayHold reports whether raw, a result as JSON, may hold something r
// redacts: it is false when raw has no '@' for e-mail addresses and fewer
// than 13 digits for IBANs and card numbers, and no \u escape that could
// hide either. A result it is false for need not be decoded.
func (r *Redactor) MayHold(raw []byte) bool {
	s := string(raw) // no copy: the conversion does not escape
	if strings.Contains(s, `\u`) {
		return true
	}
	if r.email && strings.IndexByte(s, '@') >= 0 {
		return true
	}
	return (r.iban || r.card) && digits(s) >= 13
}

func digits(s string) int {
	n := 0
	for i := range len(s) {
		if s[i] >= '0' && s[i] <= '9' {
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
