// Package secretscan finds credentials shaped like the usual tokens in
// text (cloud access keys, API tokens, bearer tokens, JWTs, private key
// blocks) and replaces them, for sources with redact_secrets: true. It
// matches shapes, not meaning: a string that only looks like a key is
// replaced too, and a secret of no known shape passes.
package secretscan

import (
	"regexp"
	"strings"
)

// A Kind of credential, as the replacement and the metric name it.
type Kind string

// The shapes matched, in the order they are tried. Each has literals
// one of which every match contains (in lower case when fold is set): the
// regexp runs only on text that holds one, so text without a secret
// costs a few substring searches.
var shapes = []struct {
	kind  Kind
	re    *regexp.Regexp
	hints []string
	fold  bool
}{
	{"private-key", regexp.MustCompile(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----`), []string{"PRIVATE KEY-----"}, false},
	{"aws-access-key", regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b`), []string{"AKIA", "ASIA", "ABIA", "ACCA"}, false},
	{"aws-secret-key", regexp.MustCompile(`(?i)\baws_?secret_?access_?key\b["']?\s*[:=]\s*["']?[A-Za-z0-9/+=]{40}\b`), []string{"secret"}, true},
	{"github-token", regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b`), []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}, false},
	{"gitlab-token", regexp.MustCompile(`\bglpat-[A-Za-z0-9_\-]{20,}\b`), []string{"glpat-"}, false},
	{"slack-token", regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}\b`), []string{"xox"}, false},
	{"google-api-key", regexp.MustCompile(`\bAIza[0-9A-Za-z_\-]{35}\b`), []string{"AIza"}, false},
	{"stripe-key", regexp.MustCompile(`\b(?:sk|rk)_live_[0-9A-Za-z]{20,}\b`), []string{"_live_"}, false},
	{"openai-key", regexp.MustCompile(`\bsk-(?:proj-|ant-)?[A-Za-z0-9_\-]{32,}\b`), []string{"sk-"}, false},
	{"jwt", regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b`), []string{"eyJ"}, false},
	{"bearer-token", regexp.MustCompile(`(?i)\bbearer\s+[A-Za-z0-9\-._~+/]{20,}=*`), []string{"bearer"}, true},
}

// Kinds are the kinds matched, for documentation and tests.
func Kinds() []Kind {
	out := make([]Kind, len(shapes))
	for i, s := range shapes {
		out[i] = s.kind
	}
	return out
}

// Redact returns s with every match replaced by "[redacted <kind>]", and
// calls found once per match. s without a match is returned as it is.
func Redact(s string, found func(Kind)) string {
	if len(s) < 16 {
		return s
	}
	lower := ""
	for _, sh := range shapes {
		text := s
		if sh.fold {
			if lower == "" {
				lower = strings.ToLower(s)
			}
			text = lower
		}
		hinted := false
		for _, h := range sh.hints {
			if strings.Contains(text, h) {
				hinted = true
				break
			}
		}
		if !hinted || !sh.re.MatchString(s) {
			continue
		}
		s = sh.re.ReplaceAllStringFunc(s, func(string) string {
			if found != nil {
				found(sh.kind)
			}
			return "[redacted " + string(sh.kind) + "]"
		})
	}
	return s
}

// Value redacts every string in a decoded JSON value (keys included),
// in place where it can, and returns the value.
func Value(v any, found func(Kind)) any {
	switch x := v.(type) {
	case string:
		return Redact(x, found)
	case map[string]any:
		for k, e := range x {
			nk := Redact(k, found)
			if nk != k {
				delete(x, k)
			}
			x[nk] = Value(e, found)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = Value(e, found)
		}
		return x
	}
	return v
}
