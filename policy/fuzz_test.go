package policy

import (
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// FuzzPolicy compiles a policy from fuzzed principals, globs, condition
// and rate, and checks that whatever Decide allows, Visible and
// VisibleTemplate show, and that the limiters take the decision.
func FuzzPolicy(f *testing.F) {
	f.Add(false, "ci", "ops", "calc_*", "*_admin", `args.n < 10.0 && transport == "http"`, "10/s", "calc_add", 3.0, "x", "http")
	f.Add(true, "*", "guest", "*", "write_*", `principal.claims.c == "x"`, "60/m", "write_file", 0.0, "x", "stdio")
	f.Add(false, "alice", "ops", "storage://*", "storage://secret/*", `name.startsWith("storage://pub")`, "1/h", "storage://{key}", 1.0, "public", "http")
	f.Add(false, "bob", "", "a?", "b", `has(args.s) && args.s == principal.claims.c`, "0.5/s", "ab", 1.0, "", "http")
	f.Add(false, "group:x", "x", `\*`, "*", `kind == "prompt" || tool == "x"`, "bad", "*", -1.0, "c", "")
	f.Add(true, "x", "g", "f{", "}", `args.s.size() > 2`, "", "f{", 2.5, "long", "http")
	f.Fuzz(func(t *testing.T, defAllow bool, principal, group, allowGlob, denyGlob, when, rateStr, name string, n float64, claim, transport string) {
		def := "deny"
		if defAllow {
			def = "allow"
		}
		every := Match{Tools: all(allowGlob), Resources: all(allowGlob), Prompts: all(allowGlob)}
		denied := Match{Tools: all(denyGlob), Resources: all(denyGlob), Prompts: all(denyGlob)}
		var limit *RateLimit
		if rateStr != "" {
			limit = &RateLimit{Rate: Rate(rateStr)}
		}
		p, err := New(Config{Default: def, RateLimit: limit, Rules: []Rule{
			{Principals: all(principal), Allow: every, When: when, RateLimit: limit},
			{Principals: all("group:" + group), Deny: denied},
			{Principals: all("*"), Deny: Match{Tools: all(denyGlob)}, When: when},
			{Principals: all("*"), Allow: Match{Resources: all(name)}},
		}})
		if err != nil {
			return
		}
		var l Limiters
		for _, pr := range []Principal{
			{Name: principal, Claims: map[string]any{"c": claim}},
			{Name: "other", Groups: []string{group}},
			{},
		} {
			for kind := range numKinds {
				req := Request{Principal: pr, Kind: kind, Name: name, Args: map[string]any{"n": n, "s": claim}, Transport: transport}
				d := p.Decide(req)
				if d.Allowed && !p.Visible(pr, kind, name) {
					t.Fatalf("%+v allowed by rule %d but not visible", req, d.Rule)
				}
				if d.Allowed {
					l.AllowAt(time.Unix(0, 0), p, d, pr.Name, name)
				}
			}
			// name as a template, read at one of its expansions.
			uri := harness.ExpandTemplate(name, claim)
			req := Request{Principal: pr, Kind: Resource, Name: uri, Args: map[string]any{"key": claim}, Transport: transport}
			if d := p.Decide(req); d.Allowed && !p.VisibleTemplate(pr, name) {
				t.Fatalf("%q allowed by rule %d but template %q not visible", uri, d.Rule, name)
			}
		}
		l.Retain(p)
	})
}
