package ops

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/wasmgate/wasmgate/internal/plural"
	"github.com/wasmgate/wasmgate/loader"
)

// InForceOf is what guards a gateway serving cfg: auth, policy, audit,
// and where its calls are traced.
func InForceOf(cfg *loader.Config) InForce {
	a, p := cfg.Auth, cfg.Policy
	out := InForce{
		Auth: AuthStatus{Principals: len(a.Principals), JWT: a.JWT != nil, AllowAnonymous: a.AllowAnonymous},
		Policy: PolicyStatus{Enabled: p.Present(), Default: "allow", Rules: len(p.Rules),
			RateLimit: p.RateLimit != nil},
		Audit: AuditStatus{File: cfg.Audit.File, Arguments: cfg.Audit.Arguments},
	}
	if t := cfg.Tracing; t.On() {
		out.Tracing = TracingStatus{Enabled: true, SampleRatio: t.Ratio()}
		if u, err := url.Parse(t.Endpoint); err == nil {
			out.Tracing.Endpoint = u.Scheme + "://" + u.Host
		}
	}
	out.Auth.Enabled = out.Auth.Principals > 0 || out.Auth.JWT
	if a.JWT != nil {
		out.Auth.JWTIssuer = a.JWT.Issuer
	}
	if out.Policy.Enabled {
		out.Policy.Default = p.Default
	}
	return out
}

// SectionsSummary describes in a few words every section in force
// beyond what the sources provide: auth, policy, relay sites, audit.
// "auth: 2 principals, jwt; policy: 3 rules, default deny; relay: 1
// site (demo); audit: log".
func SectionsSummary(cfg *loader.Config) string {
	f := InForceOf(cfg)
	var parts []string
	switch a := f.Auth; {
	case !a.Enabled:
		parts = append(parts, "auth: off")
	default:
		var what []string
		if a.Principals > 0 {
			what = append(what, plural.N(a.Principals, "principal"))
		}
		if a.JWT {
			what = append(what, "jwt")
		}
		parts = append(parts, "auth: "+strings.Join(what, ", "))
	}
	if p := f.Policy; p.Enabled {
		s := fmt.Sprintf("policy: %s, default %s", plural.N(p.Rules, "rule"), p.Default)
		if p.RateLimit {
			s += ", rate limit"
		}
		parts = append(parts, s)
	} else {
		parts = append(parts, "policy: off")
	}
	if sites := cfg.Relay.Sites; len(sites) > 0 {
		names := make([]string, len(sites))
		for i, s := range sites {
			names[i] = s.Name
		}
		parts = append(parts, fmt.Sprintf("relay: %s (%s)", plural.N(len(sites), "site"), strings.Join(names, ", ")))
	}
	audit := "audit: log"
	if f.Audit.File != "" {
		audit = "audit: " + f.Audit.File
	}
	if f.Audit.Arguments {
		audit += ", with arguments"
	}
	return strings.Join(append(parts, audit), "; ")
}
