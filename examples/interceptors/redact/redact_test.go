package main

import "testing"

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
