package main

import (
	"encoding/json"
	"reflect"
	"regexp"
	"testing"
)

func TestValidCard(t *testing.T) {
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"4111111111111111", true},
		{"4111 1111 1111 1111", true},
		{"4111-1111-1111-1111", true},
		{"5500 0000 0000 0004", true},
		{"378282246310005", true}, // 15 digits (Amex)
		{"4111111111111112", false},
		{"411111111111", false}, // 12 digits
		{"41111111111111111111", false},
		{"4111x111111111111", false},
	} {
		if got := ValidCard(c.s); got != c.want {
			t.Errorf("ValidCard(%q) = %v", c.s, got)
		}
	}
}

func TestValidIBAN(t *testing.T) {
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"DE89370400440532013000", true},
		{"DE89 3704 0044 0532 0130 00", true},
		{"GB82WEST12345698765432", true},
		{"FR1420041010050500013M02606", true},
		{"DE88370400440532013000", false}, // wrong check digits
		{"DE8937040044", false},           // too short
	} {
		if got := ValidIBAN(c.s); got != c.want {
			t.Errorf("ValidIBAN(%q) = %v", c.s, got)
		}
	}
}

func TestRedact(t *testing.T) {
	all, err := NewRedactor(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, want string }{
		{"Write to jane.doe+x@mail.example.co.uk today.", "Write to [redacted email] today."},
		{"IBAN DE89 3704 0044 0532 0130 00, thanks", "IBAN [redacted iban], thanks"},
		{"GB82WEST12345698765432 and GB82WEST12345698765433", "[redacted iban] and GB82WEST12345698765433"},
		{"card 4111 1111 1111 1111 exp 12/29", "card [redacted card] exp 12/29"},
		{"order 4111111111111112 is not a card", "order 4111111111111112 is not a card"},
		{"a@b.io, 5500-0000-0000-0004 and DE89370400440532013000", "[redacted email], [redacted card] and [redacted iban]"},
		{"nothing here, 12 items at 3.50", "nothing here, 12 items at 3.50"},
		{"user@localhost has no domain", "user@localhost has no domain"},
	} {
		if got := all.Redact(c.in); got != c.want {
			t.Errorf("Redact(%q)\n = %q\nwant %q", c.in, got, c.want)
		}
	}
	only, err := NewRedactor([]string{"card"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := only.Redact("a@b.io 4111111111111111"), "a@b.io [redacted card]"; got != want {
		t.Errorf("card only: %q, want %q", got, want)
	}
	if _, err := NewRedactor([]string{"ssn"}); err == nil {
		t.Error("pattern ssn: no error")
	}
}

func TestMayHold(t *testing.T) {
	all, _ := NewRedactor(nil)
	cardOnly, _ := NewRedactor([]string{"card"})
	for _, c := range []struct {
		r    *Redactor
		raw  string
		want bool
	}{
		{all, `{"content":[{"type":"text","text":"12 files"}]}`, false},
		{all, `{"content":[{"type":"text","text":"a@b.io"}]}`, true},
		{cardOnly, `{"content":[{"type":"text","text":"a@b.io"}]}`, false},
		{all, `{"content":[{"type":"text","text":"a\u0040b.io"}]}`, true},
		{cardOnly, `{"content":[{"type":"text","text":"4111 1111 1111 1111"}]}`, true},
		{cardOnly, `{"content":[{"type":"text","text":"4111 1111 1111"}]}`, false},
	} {
		if got := c.r.MayHold([]byte(c.raw)); got != c.want {
			t.Errorf("MayHold(%s) = %v", c.raw, got)
		}
	}
}

// The regular expressions the scanners implement (redact.go), and the
// redaction they give with package regexp: the reference the scanners
// are compared with.
var (
	emailRE = regexp.MustCompile(`[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}`)
	ibanRE  = regexp.MustCompile(`\b[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b`)
	cardRE  = regexp.MustCompile(`\b(?:[0-9][ \-]?){12,18}[0-9]\b`)
)

func redactRE(s string) string {
	s = emailRE.ReplaceAllLiteralString(s, "[redacted email]")
	s = ibanRE.ReplaceAllStringFunc(s, func(m string) string {
		if ValidIBAN(m) {
			return "[redacted iban]"
		}
		return m
	})
	return cardRE.ReplaceAllStringFunc(s, func(m string) string {
		if ValidCard(m) {
			return "[redacted card]"
		}
		return m
	})
}

// FuzzRedact compares the scanners with the regular expressions.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{
		"Write to jane.doe+x@mail.example.co.uk today.",
		"IBAN DE89 3704 0044 0532 0130 00, thanks",
		"GB82WEST12345698765432 and GB82WEST12345698765433",
		"card 4111 1111 1111 1111 exp 12/29 4111-1111-1111-1111-1111 1",
		"a@b@c.com x@y z@a.b..cd a@b.c1 q@-x.org.uk9 DE89370400440532013000A",
		"DE00 4111 1111 1111 1111 DE89 3704 0044 0532 0130 00 1",
	} {
		f.Add(s)
	}
	all, _ := NewRedactor(nil)
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := all.Redact(s), redactRE(s); got != want {
			t.Errorf("Redact(%q)\n = %q\nwant %q (regexp)", s, got, want)
		}
	})
}

// TestRedactJSON redacts strings in JSON, values only, escapes kept.
func TestRedactJSON(t *testing.T) {
	all, _ := NewRedactor(nil)
	for _, c := range []struct{ in, want string }{
		{`{"content":[{"type":"text","text":"12 files"}]}`, ``},
		{`{"content":[{"type":"text","text":"mail a@b.io now"}]}`, `{"content":[{"type":"text","text":"mail [redacted email] now"}]}`},
		{`{"a@b.io":"x","k":["c@d.io", 4111111111111111]}`, `{"a@b.io":"x","k":["[redacted email]", 4111111111111111]}`},
		{`{"t":"line\njane@example.com\t4111 1111 1111 1111\"q\""}`, `{"t":"line\n[redacted email]\t[redacted card]\"q\""}`},
		{`{"t":"x\\nj@example.com"}`, `{"t":"x\\[redacted email]"}`}, // a backslash, then "nj@example.com"
		{`{"t":"jane\u0040example.com <b>"}`, `{"t":"[redacted email] <b>"}`},
		{`{"t":"\u00e9 nothing"}`, ``},
		{`{"s" : "DE89 3704 0044 0532 0130 00"}`, `{"s" : "[redacted iban]"}`},
	} {
		got, changed, err := all.RedactJSON([]byte(c.in))
		if err != nil {
			t.Fatalf("RedactJSON(%s): %v", c.in, err)
		}
		if c.want == "" {
			if changed || string(got) != c.in {
				t.Errorf("RedactJSON(%s) = %s, %v; want it unchanged", c.in, got, changed)
			}
			continue
		}
		if !changed || string(got) != c.want {
			t.Errorf("RedactJSON(%s)\n = %s, %v\nwant %s", c.in, got, changed, c.want)
		}
	}
	if _, _, err := all.RedactJSON([]byte(`{"t":"open`)); err == nil {
		t.Error("an unterminated string: no error")
	}
}

// FuzzRedactJSON checks that RedactJSON of valid JSON is valid JSON and
// redacts each string value as Redact does.
func FuzzRedactJSON(f *testing.F) {
	f.Add(`{"content":[{"type":"text","text":"mail a@b.io now\n4111 1111 1111 1111"}]}`)
	f.Add(`["jane\u0040example.com", {"k\"@x.io":"DE89370400440532013000"}]`)
	all, _ := NewRedactor(nil)
	f.Fuzz(func(t *testing.T, s string) {
		var v any
		if json.Unmarshal([]byte(s), &v) != nil {
			return
		}
		got, _, err := all.RedactJSON([]byte(s))
		if err != nil {
			t.Fatalf("RedactJSON(%s): %v", s, err)
		}
		var w any
		if err := json.Unmarshal(got, &w); err != nil {
			t.Fatalf("RedactJSON(%s) = %s: not JSON: %v", s, got, err)
		}
		if want := redactValue(all, v); !reflect.DeepEqual(w, want) {
			t.Fatalf("RedactJSON(%s) = %s\nwant %v", s, got, want)
		}
	})
}

func redactValue(r *Redactor, v any) any {
	switch v := v.(type) {
	case string:
		return r.Redact(v)
	case []any:
		for i := range v {
			v[i] = redactValue(r, v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = redactValue(r, v[k])
		}
	}
	return v
}
