package ops

import "github.com/wasmgate/wasmgate/relay"

// InForce says what guards the gateway, as the status page's "In force"
// table and /api/status's in_force show it.
type InForce struct {
	Auth    AuthStatus    `json:"auth"`
	Policy  PolicyStatus  `json:"policy"`
	Audit   AuditStatus   `json:"audit"`
	Tracing TracingStatus `json:"tracing"`
}

// TracingStatus is where calls' spans go: Enabled with an OTLP collector
// (Endpoint, its scheme and host: never a path or credentials), and the
// share of new traces recorded.
type TracingStatus struct {
	Enabled     bool    `json:"enabled"`
	Endpoint    string  `json:"endpoint,omitempty"`
	SampleRatio float64 `json:"sample_ratio,omitempty"`
}

// AuthStatus is the auth section in force: Enabled when callers over
// HTTP must present a bearer token (static principals or a JWT).
type AuthStatus struct {
	Enabled        bool   `json:"enabled"`
	Principals     int    `json:"principals"`
	JWT            bool   `json:"jwt"`
	JWTIssuer      string `json:"jwt_issuer,omitempty"`
	AllowAnonymous bool   `json:"allow_anonymous"`
}

// PolicyStatus is the policy section in force: without one (Enabled
// false) every caller may call everything.
type PolicyStatus struct {
	Enabled   bool   `json:"enabled"`
	Default   string `json:"default"` // allow or deny
	Rules     int    `json:"rules"`
	RateLimit bool   `json:"rate_limit"` // a global policy.rate_limit
}

// AuditStatus is where audit lines go: File, or the log when "".
type AuditStatus struct {
	File      string `json:"file,omitempty"`
	Arguments bool   `json:"arguments"`
}

// RelaySiteStatus is one configured relay site as the relay reports it:
// whether a page serves it, from which origin, since when, and its last
// refusal.
type RelaySiteStatus = relay.SiteStatus

// RelayRefusal is a connection a relay site refused.
type RelayRefusal = relay.Refusal
