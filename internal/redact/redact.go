// Package redact decides which argument values the audit log leaves out:
// those under a key whose name, or one of whose words, is on a list of
// secret names. Matching whole names and words, not substrings, keeps
// "monkey" and "keyboard" while catching "key", "api_key", "apiKey",
// "X-Auth-Token" and "github_token". It imports nothing of wasmgate's.
package redact

import (
	"fmt"
	"strings"
	"unicode"
)

// Placeholder replaces a redacted value.
const Placeholder = "[redacted]"

// DefaultNames returns the secret names used when the configuration
// lists none (audit.redact).
func DefaultNames() []string {
	return []string{
		"token", "password", "passwd", "passphrase", "secret", "key", "authorization", "auth",
		"credential", "credentials", "cookie", "bearer", "apikey", "private_key", "client_secret",
		"access_token", "refresh_token", "session_id", "otp", "pin",
	}
}

// Matcher matches argument names against a list of secret names. The
// zero value matches nothing; New(nil) matches DefaultNames().
type Matcher struct {
	names map[string]bool // normalized: the name's words, lower case, joined
}

// New returns a Matcher for names (DefaultNames() when empty). Each name is
// compared after normalization: its words (split at characters other
// than letters and digits, and where a lower-case letter or a digit is
// followed by an upper-case one) in lower case, joined, so "api_key",
// "apiKey" and "API-Key" are one name.
func New(names []string) Matcher {
	if len(names) == 0 {
		names = DefaultNames()
	}
	m := Matcher{names: make(map[string]bool, len(names))}
	for _, n := range names {
		if w := words(n); len(w) > 0 {
			m.names[strings.Join(w, "")] = true
		}
	}
	return m
}

// Check reports a name a configuration may not list (it has no letter or
// digit); nil when it is fine.
func Check(name string) error {
	if len(words(name)) == 0 {
		return fmt.Errorf("%q has no letter or digit", name)
	}
	return nil
}

// Secret reports whether the value under key is a secret: key's words
// joined, or any one of them, is a listed name.
func (m Matcher) Secret(key string) bool {
	w := words(key)
	if len(w) == 0 || len(m.names) == 0 {
		return false
	}
	if m.names[strings.Join(w, "")] {
		return true
	}
	for _, x := range w {
		if m.names[x] {
			return true
		}
	}
	return false
}

// Redact returns a copy of v (a value decoded from JSON: maps, slices,
// scalars) with the values under secret keys, at any depth, replaced by
// Placeholder. v itself is not changed.
func (m Matcher) Redact(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			if m.Secret(k) {
				out[k] = Placeholder
			} else {
				out[k] = m.Redact(val)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = m.Redact(val)
		}
		return out
	}
	return v
}

// words splits s into lower-case words: at every character that is not a
// letter or a digit, and between a lower-case letter or digit and an
// upper-case letter ("apiKey" is api, key; "APIKey" is api, key).
func words(s string) []string {
	var out []string
	rs := []rune(s)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			out = append(out, strings.ToLower(string(rs[start:end])))
		}
		start = -1
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := rs[i-1]
		upper := unicode.IsUpper(r)
		switch {
		case upper && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			flush(i)
			start = i
		case upper && unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
			// the last capital of an acronym starts the next word: APIKey
			flush(i)
			start = i
		}
	}
	flush(len(rs))
	return out
}
