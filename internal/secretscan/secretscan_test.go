package secretscan

import (
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	pem := "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\n-----END RSA PRIVATE KEY-----"
	for _, tc := range []struct {
		in   string
		kind Kind
	}{
		{"key AKIAIOSFODNN7EXAMPLE in text", "aws-access-key"},
		{`aws_secret_access_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"`, "aws-secret-key"},
		{"token ghp_0123456789abcdefghijABCDEFGHIJ012345 here", "github-token"},
		{"github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789", "github-token"},
		{"glpat-abcdefghij0123456789", "gitlab-token"},
		{"xoxb-1234567890-abcdefghijkl", "slack-token"},
		{"AIzaSyA-1234567890abcdefghijklmnopqrstu", "google-api-key"},
		{"sk_live_0123456789abcdefghijklmn", "stripe-key"},
		{"sk-proj-0123456789abcdefghijklmnopqrstuvwxyzABCD", "openai-key"},
		{"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLXNpZ25hdHVyZQ", "jwt"},
		{"Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345", "bearer-token"},
		{"key:\n" + pem + "\nend", "private-key"},
	} {
		var got []Kind
		out := Redact(tc.in, func(k Kind) { got = append(got, k) })
		if len(got) == 0 || got[0] != tc.kind || !strings.Contains(out, "[redacted "+string(tc.kind)+"]") {
			t.Errorf("Redact(%.40q) = %q, found %v; want %s redacted", tc.in, out, got, tc.kind)
		}
		if strings.Contains(out, "EXAMPLE") && tc.kind == "aws-access-key" || strings.Contains(out, "MIIEow") {
			t.Errorf("the secret is still in %q", out)
		}
	}
	for _, clean := range []string{
		"the quick brown fox jumps over the lazy dog",
		"sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		"AKIA is a prefix, AKIA123 is short",
		"bearer of good news",
		"a UUID 123e4567-e89b-12d3-a456-426614174000",
	} {
		if out := Redact(clean, func(k Kind) { t.Errorf("%q: found %s", clean, k) }); out != clean {
			t.Errorf("Redact(%q) = %q, want it unchanged", clean, out)
		}
	}
}

func TestValue(t *testing.T) {
	v := map[string]any{"a": []any{"AKIAIOSFODNN7EXAMPLE", 1.0, map[string]any{"ghp_0123456789abcdefghijABCDEFGHIJ012345": true}}}
	n := 0
	Value(v, func(Kind) { n++ })
	a := v["a"].([]any)
	if a[0] != "[redacted aws-access-key]" || n != 2 {
		t.Errorf("Value: %v (%d found)", v, n)
	}
	if _, ok := a[2].(map[string]any)["[redacted github-token]"]; !ok {
		t.Errorf("a key holding a token was not redacted: %v", a[2])
	}
}

// BenchmarkRedact is what redact_secrets costs per KiB of text without a
// secret (the common case) and with one.
func BenchmarkRedact(b *testing.B) {
	clean := strings.Repeat("The result of the computation is 42, computed in 3 ms. ", 19)[:1024]
	dirty := clean[:900] + " AKIAIOSFODNN7EXAMPLE " + clean[:100]
	b.Run("clean-1KiB", func(b *testing.B) {
		b.SetBytes(int64(len(clean)))
		for range b.N {
			Redact(clean, nil)
		}
	})
	b.Run("one-key-1KiB", func(b *testing.B) {
		b.SetBytes(int64(len(dirty)))
		for range b.N {
			Redact(dirty, nil)
		}
	})
}

func TestJSON(t *testing.T) {
	const tok = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	for _, tc := range []struct{ in, want string }{
		// Every string, at any depth, member names too; numbers as written.
		{`{"a":{"b":["x ` + tok + `",12345678901234567890,1.50]},"` + tok + `":true}`,
			`{"[redacted github-token]":true,"a":{"b":["x [redacted github-token]",12345678901234567890,1.50]}}`},
		// A token spelled with \u escapes is found in the decoded string.
		{`["\u0067hp_0123456789abcdefghijABCDEFGHIJ012345"]`, `["[redacted github-token]"]`},
		{`{"auth":"BEARER abcdefghijklmnopqrstuvwxyz012345"}`, `{"auth":"[redacted bearer-token]"}`},
		{`["\u003cb\u003e gh\u0070_0123456789abcdefghijABCDEFGHIJ012345"]`, `["\u003cb\u003e [redacted github-token]"]`},
	} {
		n := 0
		out, changed, err := JSON([]byte(tc.in), func(Kind) { n++ })
		if err != nil || !changed || string(out) != tc.want || n == 0 {
			t.Errorf("JSON(%s) = %s, %v, %v (%d found); want %s", tc.in, out, changed, err, n, tc.want)
		}
	}
	for _, clean := range []string{
		`{"content":[{"type":"text","text":"42"}],"structuredContent":{"n":12345678901234567890}}`,
		`{"text":"\u003cb\u003e a secret-free page \u003c/b\u003e \u0026 \u2028"}`, // <, >, &: not decoded
		`{"text":"\u0041 letter escaped, decoded, nothing found"}`,
	} {
		out, changed, err := JSON([]byte(clean), func(k Kind) { t.Errorf("%s: found %s", clean, k) })
		if err != nil || changed || string(out) != clean {
			t.Errorf("JSON(%s) = %s, %v, %v; want it unchanged", clean, out, changed, err)
		}
	}
	if _, _, err := JSON([]byte(`{"a":"AKIAIOSFODNN7EXAMPLE"`), nil); err == nil {
		t.Error("JSON of a truncated object: no error")
	}
	for in, want := range map[string]bool{
		`"\u003c\u003e\u0026\u2028\u00e9"`: false, `"\u0067"`: true, `"\u005F"`: true, `"\u0020"`: true, `"\u00"`: true, `"x"`: false,
	} {
		if got := escapesHint([]byte(in)); got != want {
			t.Errorf("escapesHint(%s) = %v, want %v", in, got, want)
		}
	}
}

func TestRecoded(t *testing.T) {
	type msg struct {
		Text string         `json:"text"`
		Meta map[string]any `json:"_meta,omitempty"`
	}
	const tok = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	n := 0
	got, err := Recoded(msg{Text: "use " + tok, Meta: map[string]any{"k": tok}}, func(Kind) { n++ })
	if err != nil || got.Text != "use [redacted github-token]" || got.Meta["k"] != "[redacted github-token]" || n != 2 {
		t.Errorf("Recoded = %+v, %v (%d found)", got, err, n)
	}
	clean := msg{Text: "nothing here", Meta: map[string]any{"n": 1}}
	if got, err := Recoded(clean, func(k Kind) { t.Errorf("found %s", k) }); err != nil || got.Meta["n"] != 1 {
		t.Errorf("Recoded of a clean value = %+v, %v; want it as it was", got, err)
	}
}
