// Package metrics holds wasmgate's Prometheus registry and the collectors
// every other package reports to. Label values come from configuration
// (tool, source and endpoint names), never from clients, so cardinality
// stays bounded.
//
// The call metrics name a call's source (a plugin, an upstream server, a
// relay site) in the label source, and the endpoint it came through in the
// label endpoint; metrics of a plugin module itself (its instances, its
// host calls' notifications) keep the label plugin.
package metrics

import (
	"net/http"
	"runtime"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Call outcomes, the values of the outcome label.
const (
	OutcomeOK          = "ok"           // the tool returned a result
	OutcomeError       = "error"        // the tool returned isError: true
	OutcomeInvalidArgs = "invalid_args" // arguments failed the input schema
	OutcomeTimeout     = "timeout"      // stopped by limits.timeout or cancelled
	OutcomeCrash       = "crash"        // the plugin trapped, panicked or exited
	OutcomeDenied      = "denied"       // refused by policy
	OutcomeRateLimited = "rate_limited" // refused by a policy rate limit
	OutcomeRejected    = "rejected"     // result over limits.max_output, or input over half of limits.memory
	// OutcomeInputRequired: the call asked a 2026-07-28 client for input
	// (input_required); the client's retry is another call.
	OutcomeInputRequired = "input_required"
	// OutcomeBlocked: stopped by a flow rule (flows:), or not approved
	// by the person asked.
	OutcomeBlocked = "blocked"
)

// Metrics is the set of wasmgate collectors on their own registry.
type Metrics struct {
	reg *prometheus.Registry

	// The call metrics, labelled by source and endpoint.
	ToolCalls     *prometheus.CounterVec
	ToolDuration  *prometheus.HistogramVec
	ToolsInFlight *prometheus.GaugeVec
	ResourceReads *prometheus.CounterVec
	PromptGets    *prometheus.CounterVec

	// Tool search (endpoints in discovery mode search), by endpoint.
	ToolSearches        *prometheus.CounterVec   // find_tools calls, by outcome
	ToolSearchDuration  *prometheus.HistogramVec // how long a search took
	ToolSearchResults   *prometheus.HistogramVec // tools a search returned
	ToolSearchEmpty     *prometheus.CounterVec   // searches that found nothing
	ToolSearchRanker    *prometheus.CounterVec   // ranker runs, by outcome
	ToolSearchIndexSize *prometheus.GaugeVec     // tools in the endpoint's search index

	Plugins         prometheus.Gauge
	PluginInstances *prometheus.GaugeVec
	Tools           prometheus.Gauge

	ReloadSuccess   prometheus.Gauge
	ReloadTimestamp prometheus.Gauge
	Reloads         *prometheus.CounterVec
	HTTPRejected    *prometheus.CounterVec
	// ClaimsRefused counts names, URIs and templates a source asked for
	// and did not get: another source owns them (or overlaps them).
	ClaimsRefused *prometheus.CounterVec
	// TrustUnapproved counts, per source, the tools, prompts and
	// resources that differ from the lock file now: action withheld, or
	// served (trust.on_change: warn).
	TrustUnapproved *prometheus.GaugeVec
	// TrustRefused counts refusals that keep the lock file's promise,
	// by reason (TrustRefused* constants).
	TrustRefused *prometheus.CounterVec

	RelayBridges        *prometheus.GaugeVec
	RelayHandshakes     *prometheus.CounterVec
	RelayFramesRejected *prometheus.CounterVec
	// Connections not authenticated yet, and those refused before the
	// handshake (issue 16).
	RelayUnauthenticated *prometheus.GaugeVec
	RelayRefused         *prometheus.CounterVec
	// LogSuppressed counts log lines of refusals left out by a rate limit.
	LogSuppressed *prometheus.CounterVec
	// Identity and policy, by principal and kind: not by endpoint (a
	// refusal's endpoint is in the call metrics, outcome denied or
	// rate_limited), and counted outside calls too (a task's result).
	PolicyDenials *prometheus.CounterVec
	RateLimited   *prometheus.CounterVec
	// Per-caller and per-call caps.
	PluginNotificationsRefused *prometheus.CounterVec
	SubscriptionsRefused       *prometheus.CounterVec
	SecretsRedacted            *prometheus.CounterVec
	// Upstream MCP servers (issue 17).
	UpstreamUp       *prometheus.GaugeVec
	UpstreamRestarts *prometheus.CounterVec
	// UpstreamNotificationsDropped counts an upstream's notifications
	// left out by its rate limits (a flood), by upstream and kind.
	UpstreamNotificationsDropped *prometheus.CounterVec
	// UpstreamRequestsRefused counts requests between the gateway and an
	// upstream the gateway refused, by upstream and reason: its HTTP
	// clients' redirects and connections (redirect, redirect_cross_origin,
	// redirect_loop, own_listener), and the sampling, elicitation and
	// roots requests a shared session's server sent outside every call's
	// stream that could not be given to one caller (ambiguous, no_call),
	// or, with redact_secrets, checked for secrets (unscannable).
	UpstreamRequestsRefused *prometheus.CounterVec
	// UpstreamCallsRefused counts calls of an upstream the gateway
	// refused, by upstream and reason.
	UpstreamCallsRefused *prometheus.CounterVec
	// Each user's identity toward upstreams (issue 42): the tokens got
	// for callers, by upstream, mode and how (cached, issued,
	// refreshed), the failures by reason, and the users connected.
	UpstreamIdentityTokens   *prometheus.CounterVec
	UpstreamIdentityFailures *prometheus.CounterVec
	UpstreamConnectedUsers   *prometheus.GaugeVec
	// Flow control (issue 43).
	FlowBlocks      *prometheus.CounterVec
	FlowStateErrors prometheus.Counter
	// Interceptors (issue 44).
	InterceptorDecisions *prometheus.CounterVec
	InterceptorDuration  *prometheus.HistogramVec
	// Shared state (issue 18).
	StateUp    prometheus.Gauge
	ConfigHash *prometheus.GaugeVec
}

// New registers every collector on a fresh registry.
func New(version, revision string) *Metrics {
	reg := prometheus.NewRegistry()
	m := &Metrics{
		UpstreamUp: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "wasmgate_upstream_up",
			Help: "1 while the upstream MCP server's shared session is connected and initialized, else 0, by upstream.",
		}, []string{"upstream"}),
		UpstreamRestarts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wasmgate_upstream_restarts_total",
			Help: "Times an upstream MCP server's session was started again, by upstream and reason: ended (a process exited, a connection broke), stdin_stalled (a stdio server stopped reading its stdin), start_failed (the last start failed).",
		}, []string{"upstream", "reason"}),
		UpstreamNotificationsDropped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wasmgate_upstream_notifications_dropped_total",
			Help: "Notifications of an upstream MCP server left out by its rate limits (progress, message, resource_updated; list_changed: coalesced into one relist), or (message_unattributed) log notifications of a shared session sent while not exactly one call was in flight on it, or refused (progress_foreign: progress for a token no call of that upstream session has), by upstream and kind.",
		}, []string{"upstream", "kind"}),
		UpstreamRequestsRefused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wasmgate_upstream_requests_refused_total",
			Help: "Requests between the gateway and an upstream MCP server that the gateway refused, by upstream and reason: redirect (follow_redirects is off), redirect_cross_origin, redirect_loop, own_listener (a connection to the gateway's own listener), ambiguous and no_call (a sampling, elicitation or roots request on a shared session's GET stream with several or no calls in flight), unscannable (a sampling or elicitation request of an upstream with redact_secrets that could not be checked for secrets).",
		}, []string{"upstream", "reason"}),
		UpstreamCallsRefused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wasmgate_upstream_calls_refused_total",
			Help: "Calls of an upstream MCP server the gateway refused, by upstream and reason (parked_per_principal: the caller's principal has limits.concurrency calls parked on the upstream, waiting for its answers).",
		}, []string{"upstream", "reason"}),
		UpstreamIdentityTokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wasmgate_upstream_identity_tokens_total",
			Help: "Calls of an upstream reached as the caller (auth.token_exchange, user_oauth, identity_assertion) that got the caller's token, by upstream and mode.",
		}, []string{"upstream", "mode"}),
		UpstreamIdentityFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wasmgate_upstream_identity_failures_total",
			Help: "Calls of an upstream reached as the caller that got no token, by upstream, mode and reason (not_connected: the user has not connected the upstream; else the step that failed: token_exchange, id_jag, jwt_bearer, refresh, ...).",
		}, []string{"upstream", "mode", "reason"}),
		UpstreamConnectedUsers: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "wasmgate_upstream_connected_users",
			Help: "Users with a grant in the credentials vault for an upstream with auth.user_oauth, as last counted (at each connect, revoke and status page load).",
		}, []string{"upstream"}),
		FlowBlocks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wasmgate_flow_blocks_total",
			Help: "Calls a flow rule fired on (flows.rules), by rule, action (deny, elicit: the person was asked, audit: allowed and logged) and endpoint.",
		}, []string{"rule", "action", "endpoint"}),
		FlowStateErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "wasmgate_flow_state_errors_total",
			Help: "Reads and writes of flow taint that failed (state backend unavailable); a failed read refuses the call it was for.",
		}),
		InterceptorDecisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wasmgate_interceptor_decisions_total",
			Help: "What interceptors decided of the calls and lists they saw: continue, deny, modify, or error (it failed: the call failed or went on per its failure setting).",
		}, []string{"interceptor", "decision"}),
		InterceptorDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "wasmgate_interceptor_duration_seconds",
			Help:    "Time one interceptor took on one call or list, waiting for an instance included.",
			Buckets: []float64{.00005, .0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1},
		}, []string{"interceptor"}),
		reg: reg,
		ToolCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wasmgate_tool_calls_total",
			Help: "Tool calls by tool, source (plugin, upstream or relay site), endpoint and outcome (ok, error, invalid_args, timeout, crash, denied, rate_limited, rejected, input_required). A result with isError true is not ok.",
		}, []string{"tool", "source", "endpoint", "outcome"}),
		ToolDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "wasmgate_tool_call_duration_seconds",
			Help:    "Time from a tool call's arrival at the gateway to its result, by tool, source and endpoint.",
			Buckets: ToolDurationBuckets(),
		}, []string{"tool", "source", "endpoint"}),
		ToolsInFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "wasmgate_tool_calls_in_flight",
			Help: "Tool calls running now, by source and endpoint.",
		}, []string{"source", "endpoint"}),
		ResourceReads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wasmgate_resource_reads_total",
			Help: "resources/read requests by source, endpoint and outcome.",
		}, []string{"source", "endpoint", "outcome"}),
		PromptGets: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wasmgate_prompt_gets_total",
			Help: "prompts/get requests by source, endpoint and outcome.",
		}, []string{"source", "endpoint", "outcome"}),
		ToolSearches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wasmgate_tool_searches_total",
			Help: "find_tools searches of endpoints in discovery mode search, by endpoint and outcome (ok, invalid_args, denied).",
		}, []string{"endpoint", "outcome"}),
		ToolSearchDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "wasmgate_tool_search_duration_seconds",
			Help:    "How long a find_tools search took in the gateway (ranker included), by endpoint.",
			Buckets: []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1},
		}, []string{"endpoint"}),
		ToolSearchResults: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "wasmgate_tool_search_results",
			Help:    "Tools a find_tools search returned, by endpoint.",
			Buckets: []float64{0, 1, 2, 3, 5, 8, 13, 20, 50},
		}, []string{"endpoint"}),
		ToolSearchEmpty: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wasmgate_tool_search_empty_total",
			Help: "find_tools searches that found no tool the caller may use, by endpoint.",
		}, []string{"endpoint"}),
		ToolSearchRanker: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wasmgate_tool_search_ranker_total",
			Help: "Runs of an endpoint's discovery.ranker, by endpoint and outcome (ok; error, timeout or invalid: the lexical order was used).",
		}, []string{"endpoint", "outcome"}),
		ToolSearchIndexSize: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "wasmgate_tool_search_index_tools",
			Help: "Tools in the search index of an endpoint in discovery mode search, by endpoint.",
		}, []string{"endpoint"}),
		Plugins: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "wasmgate_plugins",
			Help: "Plugins loaded in the serving configuration.",
		}),
		PluginInstances: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "wasmgate_plugin_instances",
			Help: "Live WebAssembly instances by plugin.",
		}, []string{"plugin"}),
		Tools: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "wasmgate_tools",
			Help: "Tools exposed by the serving configuration.",
		}),
		ReloadSuccess: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "wasmgate_config_last_reload_successful",
			Help: "Whether the last configuration load or reload attempt succeeded (1) or failed (0).",
		}),
		ReloadTimestamp: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "wasmgate_config_last_reload_success_timestamp_seconds",
			Help: "Unix time of the last successful configuration load or reload.",
		}),
		Reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wasmgate_config_reloads_total",
			Help: "Configuration reload attempts by outcome (success, failure).",
		}, []string{"outcome"}),
		ClaimsRefused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wasmgate_claims_refused_total",
			Help: "Tools, resources, templates and prompts a source listed (an upstream or relay page at load or reload, a plugin's relist, an upstream's list_changed, a relay page's registration) and was refused: another source provides that name or URI, a URI inside its template, a template overlapping its template, or a relay resource outside its site's namespace.",
		}, []string{"source"}),
		TrustUnapproved: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "wasmgate_trust_unapproved",
			Help: "Tools, prompts and resources a source publishes now that differ from the lock file (server.lock_file) or are not in it, by action: withheld (trust.on_change withhold or refuse) or served (warn). 0 once `wasmgate lock` approves them.",
		}, []string{"source", "action"}),
		TrustRefused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wasmgate_trust_refused_total",
			Help: "Refusals that keep the lock file (server.lock_file) true, by reason: unapproved_source (a source whose command, URL, module or grants differ from the lock, or that it does not hold, refused at reload or start before anything of it ran), duplicate_key (a tool whose inputSchema or outputSchema repeats an object key, which the lock's digest could not pin), lock_changed (`wasmgate lock` refused: what the sources publish changed after it was shown).",
		}, []string{"reason"}),
		HTTPRejected: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wasmgate_http_rejected_total",
			Help: "HTTP requests refused before reaching MCP or the admin endpoints, by reason (origin, auth, too_large, timeout, sessions, principal_sessions, streams, principal_streams, admin_auth, admin_cross_site).",
		}, []string{"reason"}),
		RelayBridges: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "wasmgate_relay_bridges",
			Help: "Authenticated pages connected to the relay, by site (0 or 1).",
		}, []string{"site"}),
		RelayHandshakes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wasmgate_relay_handshakes_total",
			Help: "Relay connection attempts by site and outcome (ok, origin, unknown_site, insecure, bad_proof, replay, no_token, timeout, busy, malformed, too_large, closed). Unknown sites count under site=\"\".",
		}, []string{"site", "outcome"}),
		RelayFramesRejected: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wasmgate_relay_frames_rejected_total",
			Help: "Frames from relay pages refused, by site and reason (too_large, malformed, binary, unexpected, unknown_id, late, rate_limited).",
		}, []string{"site", "reason"}),
		RelayUnauthenticated: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "wasmgate_relay_unauthenticated_connections",
			Help: "Relay WebSocket connections that have not completed the handshake yet, by site.",
		}, []string{"site"}),
		RelayRefused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wasmgate_relay_connections_refused_total",
			Help: "Relay connections refused before the WebSocket upgrade, by site and reason (site_cap: the site's max_unauthenticated; total_cap: relay.max_unauthenticated; throttled: the client address failed too many handshakes).",
		}, []string{"site", "reason"}),
		LogSuppressed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wasmgate_log_lines_suppressed_total",
			Help: "Log lines about refused requests (unauthenticated, a foreign origin, a full transports.http cap) left out by the log rate limit, by component (relay, http).",
		}, []string{"component"}),
		PolicyDenials: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wasmgate_policy_denials_total",
			Help: "Calls refused by policy, by principal (a configured name, or jwt for access-token callers) and kind (tool, resource, prompt).",
		}, []string{"principal", "kind"}),
		RateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wasmgate_rate_limited_total",
			Help: "Calls refused by a policy rate limit, by principal and kind.",
		}, []string{"principal", "kind"}),
		PluginNotificationsRefused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wasmgate_plugin_notifications_refused_total",
			Help: "Notifications a plugin tried to send beyond its limits.max_notifications for one call, by plugin and kind (progress, log, resource_updated).",
		}, []string{"plugin", "kind"}),
		SecretsRedacted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wasmgate_secrets_redacted_total",
			Help: "Credential-shaped strings replaced in what sources with redact_secrets are sent or send (tool arguments; results, errors, notifications, requests toward the client, list definitions), by source, kind (aws-access-key, github-token, ...) and where (arguments, result, error, notification, request, definition).",
		}, []string{"source", "kind", "where"}),
		SubscriptionsRefused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wasmgate_subscriptions_refused_total",
			Help: "resources/subscribe refused, by reason (uri_too_long, too_many, not_served, denied).",
		}, []string{"reason"}),
	}
	buildInfo := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "wasmgate_build_info",
		Help:        "A metric with a constant 1 labelled by version, revision and Go version.",
		ConstLabels: prometheus.Labels{"version": version, "revision": revision, "goversion": runtime.Version()},
	})
	buildInfo.Set(1)
	reg.MustRegister(
		m.ToolCalls, m.ToolDuration, m.ToolsInFlight, m.ResourceReads, m.PromptGets,
		m.ToolSearches, m.ToolSearchDuration, m.ToolSearchResults, m.ToolSearchEmpty, m.ToolSearchRanker, m.ToolSearchIndexSize,
		m.Plugins, m.PluginInstances, m.Tools,
		m.ReloadSuccess, m.ReloadTimestamp, m.Reloads, m.HTTPRejected, m.ClaimsRefused, m.TrustUnapproved, m.TrustRefused,
		m.RelayBridges, m.RelayHandshakes, m.RelayFramesRejected,
		m.RelayUnauthenticated, m.RelayRefused, m.LogSuppressed,
		m.PolicyDenials, m.RateLimited,
		m.PluginNotificationsRefused, m.SubscriptionsRefused, m.SecretsRedacted,
		m.UpstreamUp, m.UpstreamRestarts, m.UpstreamNotificationsDropped,
		m.UpstreamRequestsRefused, m.UpstreamCallsRefused, m.UpstreamIdentityTokens, m.UpstreamIdentityFailures, m.UpstreamConnectedUsers,
		m.FlowBlocks, m.FlowStateErrors, m.InterceptorDecisions, m.InterceptorDuration,
		buildInfo,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	for _, o := range []string{"success", "failure"} {
		m.Reloads.WithLabelValues(o)
	}
	for _, r := range []string{TrustRefusedUnapproved, TrustRefusedDuplicateKey, TrustRefusedLockChanged} {
		m.TrustRefused.WithLabelValues(r)
	}
	m.StateUp = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "wasmgate_state_up",
		Help: "1 when the shared state (state.backend redis) answers, 0 while it does not; always 1 with backend memory.",
	})
	m.ConfigHash = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "wasmgate_config_hash",
		Help: "A constant 1 labelled by the hash of the serving config file (the first 12 hex digits of its SHA-256; environment overrides are not included): replicas with one config have one hash.",
	}, []string{"hash"})
	reg.MustRegister(m.StateUp, m.ConfigHash)
	return m
}

// Registry is the registry every collector is on.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the registry in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	// OpenMetrics when the scraper asks for it: the exemplars (trace ids)
	// on the latency histograms are only in that format.
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg, EnableOpenMetrics: true})
}

// The reasons of wasmgate_trust_refused_total.
const (
	TrustRefusedUnapproved   = "unapproved_source"
	TrustRefusedDuplicateKey = "duplicate_key"
	TrustRefusedLockChanged  = "lock_changed"
)

// ReloadResult records a load or reload attempt the Prometheus way.
func (m *Metrics) ReloadResult(ok bool, at time.Time) {
	if ok {
		m.ReloadSuccess.Set(1)
		m.ReloadTimestamp.Set(float64(at.Unix()))
		m.Reloads.WithLabelValues("success").Inc()
		return
	}
	m.ReloadSuccess.Set(0)
	m.Reloads.WithLabelValues("failure").Inc()
}

// ToolDurationBuckets are the upper bounds of wasmgate_tool_call_duration_seconds's buckets.
func ToolDurationBuckets() []float64 {
	return []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}
}
