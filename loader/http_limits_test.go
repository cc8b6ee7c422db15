package loader

import (
	"strings"
	"testing"
	"time"
)

func TestHTTPBounds(t *testing.T) {
	cfg, err := Load(writeFiles(t, "{}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	h := cfg.Transports.HTTP
	if h.ReadHeaderTimeout != Duration(DefaultReadHeaderTimeout) || h.ReadTimeout != Duration(DefaultReadTimeout) ||
		h.IdleTimeout != Duration(DefaultIdleTimeout) || h.MaxHeaderBytes != DefaultMaxHeaderBytes ||
		h.MaxConnections != DefaultMaxConnections || h.MaxSessions != DefaultMaxSessions ||
		h.MaxStreams != DefaultMaxStreams || h.MaxStreamsPerSession != DefaultMaxStreamsPerSession {
		t.Errorf("defaults not filled: %+v", h)
	}
	if h.MaxSessionsPerPrincipal != DefaultMaxSessions/4 || h.MaxStreamsPerPrincipal != DefaultMaxStreams/4 {
		t.Errorf("default shares: %d sessions, %d streams per principal", h.MaxSessionsPerPrincipal, h.MaxStreamsPerPrincipal)
	}
	if s := cfg.Server; s.MaxSubscriptions != DefaultMaxSubscriptions || s.MaxSubscriptionURI != DefaultMaxSubscriptionURI {
		t.Errorf("subscription defaults: %d, %s", s.MaxSubscriptions, s.MaxSubscriptionURI)
	}
	if l := cfg.Plugins; len(l) > 0 && l[0].Limits.MaxNotifications != DefaultMaxNotifications {
		t.Errorf("max_notifications default: %d", l[0].Limits.MaxNotifications)
	}
	if h.Heartbeat() != DefaultStreamHeartbeat {
		t.Errorf("stream_heartbeat default: %s, want %s", h.Heartbeat(), DefaultStreamHeartbeat)
	}
	if DefaultMaxStreams >= DefaultMaxConnections {
		t.Errorf("the defaults break their own rule: max_streams %d >= max_connections %d", DefaultMaxStreams, DefaultMaxConnections)
	}

	cfg, err = Load(writeFiles(t, `transports: {http: {read_header_timeout: 1s, read_timeout: 2s, idle_timeout: 3s,
  max_header_bytes: 8KiB, max_connections: 20, max_sessions: 5, max_streams: 4, max_streams_per_session: 1}}
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	for yaml, want := range map[string]time.Duration{"{stream_heartbeat: 0s}": 0, "{stream_heartbeat: 5m}": 5 * time.Minute} {
		cfg, err := Load(writeFiles(t, "transports: {http: "+yaml+"}\n"), nil)
		if err != nil {
			t.Fatalf("%s: %v", yaml, err)
		}
		if got := cfg.Transports.HTTP.Heartbeat(); got != want {
			t.Errorf("%s: heartbeat %s, want %s", yaml, got, want)
		}
	}
	if h := cfg.Transports.HTTP; h.ReadTimeout != Duration(2*time.Second) || h.MaxHeaderBytes != 8<<10 || h.MaxConnections != 20 || h.MaxStreamsPerSession != 1 {
		t.Errorf("values not kept: %+v", h)
	}
	// A principal's shares follow the totals: a quarter, at least 1.
	if h := cfg.Transports.HTTP; h.MaxSessionsPerPrincipal != 1 || h.MaxStreamsPerPrincipal != 1 {
		t.Errorf("shares of 5 sessions and 4 streams: %d, %d; want 1, 1", h.MaxSessionsPerPrincipal, h.MaxStreamsPerPrincipal)
	}

	for yaml, want := range map[string]string{
		"{read_header_timeout: 1ms}":                   "transports.http.read_header_timeout: 1ms is out of range",
		"{read_timeout: 2h}":                           "transports.http.read_timeout: 2h0m0s is out of range",
		"{read_header_timeout: 20s, read_timeout: 5s}": "transports.http.read_timeout: 5s is shorter than read_header_timeout",
		"{idle_timeout: -1s}":                          "transports.http.idle_timeout: -1s is out of range",
		"{max_header_bytes: 100}":                      "transports.http.max_header_bytes: 100B is out of range",
		"{max_sessions: -1}":                           "transports.http.max_sessions: -1 is out of range",
		"{max_streams_per_session: 5000}":              "transports.http.max_streams_per_session: 5000 is out of range",
		"{max_connections: 100, max_streams: 100}":     "transports.http.max_streams: 100 must be less than max_connections (100)",
		"{max_connections: 1.5}":                       "transports.http.max_connections",
		"{max_sessions_per_principal: -2}":             "transports.http.max_sessions_per_principal: -2 is out of range (1..max_sessions)",
		"{stream_heartbeat: 100ms}":                    "transports.http.stream_heartbeat: 100ms is out of range (0s, which sends none, or 1s..1h)",
		"{stream_heartbeat: 2h}":                       "transports.http.stream_heartbeat: 2h0m0s is out of range",
	} {
		_, err := Load(writeFiles(t, "transports: {http: "+yaml+"}\n"), nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want it to contain %q", yaml, err, want)
		}
	}
}

func TestAdminAuth(t *testing.T) {
	p := writeFiles(t, "admin: {listen: 0.0.0.0:9090, auth: {bearer_token_env: WASMGATE_ADMIN_TOKEN}}\n")
	cfg, err := Load(p, []string{"WASMGATE_ADMIN_TOKEN=s3cret-value"})
	if err != nil {
		t.Fatalf("the admin token variable was taken for an override: %v", err)
	}
	if cfg.Admin.Auth.BearerTokenEnv != "WASMGATE_ADMIN_TOKEN" {
		t.Errorf("admin.auth = %+v", cfg.Admin.Auth)
	}
	_, err = Load(writeFiles(t, "admin: {auth: {bearer_token_env: X, bearer_token_file: y}}\n"), nil)
	if err == nil || !strings.Contains(err.Error(), "admin.auth: set bearer_token_env or bearer_token_file, not both") {
		t.Errorf("both set: %v", err)
	}
	cfg, err = Load(writeFiles(t, "admin: {auth: {bearer_token_file: secret/token}}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if f := cfg.Admin.Auth.BearerTokenFile; !strings.HasSuffix(f, "/secret/token") || !strings.HasPrefix(f, "/") {
		t.Errorf("bearer_token_file = %q, want it resolved against the config's folder", f)
	}
}
