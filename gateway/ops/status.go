package ops

import (
	"cmp"
	"context"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/wasmgate/wasmgate/gateway/envelope"
	"github.com/wasmgate/wasmgate/gateway/source"
)

// What the gateway is doing, for the status page (GET / on the admin
// listener), its JSON twin (GET /api/status) and systemd's STATUS= line:
// what is loaded, the last reload, sessions by transport, recent calls.

// recentWindow is how far back "recent" call counts reach.
const recentWindow = 5 * time.Minute

// Tracker is what the snapshot does not hold: listeners, the history of
// reloads and call counts. It is an envelope.Observer. Safe for
// concurrent use.
type Tracker struct {
	log     *slog.Logger
	started time.Time

	mu        sync.Mutex
	listeners map[string]string // "http", "admin", "stdio" -> where
	last      *ReloadStatus     // the last reload, nil before any
	lastOK    time.Time         // when a configuration was last applied
	calls     map[callKey]*CallStats
	sections  []statusSection
}

// NewTracker is a tracker that logs each finished call at debug level.
func NewTracker(log *slog.Logger) *Tracker {
	return &Tracker{log: log, started: time.Now(), listeners: map[string]string{}, calls: map[callKey]*CallStats{}}
}

// statusSection is more state shown on the page, registered by a part of
// the gateway that is not a source (relay sites and bridges, say).
type statusSection struct {
	name string
	fn   func() any
}

// AddSection shows fn's value (anything that marshals to JSON) on the
// status page and in /api/status under "sections", headed name. fn is
// called on every request, so it must be cheap and safe for concurrent
// use.
func (s *Tracker) AddSection(name string, fn func() any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sections = append(s.sections, statusSection{name, fn})
}

// Listening records where a listener serves.
func (s *Tracker) Listening(name, where string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listeners[name] = where
}

// Listener is where listener name listens ("" if it does not).
func (s *Tracker) Listener(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.listeners[name]
}

// Loaded records the configuration the gateway started with.
func (s *Tracker) Loaded(start time.Time, summary string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastOK = time.Now()
	s.last = &ReloadStatus{At: s.lastOK, Trigger: "start", OK: true, TookMS: ms(time.Since(start)),
		Changes: []string{"loaded " + summary}}
}

// Reloaded records a reload that trigger started at start (files: the
// files whose save triggered it, as shown) and made changes, or failed
// with err.
func (s *Tracker) Reloaded(trigger string, files []string, start time.Time, changes []string, err error) {
	r := &ReloadStatus{At: time.Now(), Trigger: trigger, Files: files, OK: err == nil, TookMS: ms(time.Since(start))}
	if err != nil {
		r.Error = err.Error()
	} else {
		r.Changes = changes
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last = r
	if err == nil {
		s.lastOK = r.At
	}
}

// LastReload is how the last reload went, nil before any.
func (s *Tracker) LastReload() *ReloadStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.last == nil {
		return nil
	}
	r := *s.last
	return &r
}

// Report fills out with what the tracker knows: uptime, listeners, the
// last reload, call counts and sections.
func (s *Tracker) Report(out *Status) {
	now := time.Now()
	out.Started = s.started
	out.UptimeS = now.Sub(s.started).Seconds()
	out.Generated = now
	out.RecentS = recentWindow.Seconds()
	out.Calls = s.snapshotCalls(now)
	out.LastReload = s.LastReload()
	s.mu.Lock()
	out.Listeners = maps.Clone(s.listeners)
	out.LastApplied = s.lastOK
	sections := slices.Clone(s.sections)
	s.mu.Unlock()
	out.Sections = []SectionStatus{}
	for _, sec := range sections {
		out.Sections = append(out.Sections, SectionStatus{Name: sec.name, Data: sec.fn()})
	}
}

// Observe records a finished call for the status page and logs it at
// debug level: who called what, the outcome and how long it took.
func (s *Tracker) Observe(ctx context.Context, c *envelope.Call) {
	now := time.Now()
	s.record(c.Endpoint, c.Kind, c.Key, c.Source, c.Outcome, c.Took, c.Err, now)
	if s.log.Enabled(ctx, slog.LevelDebug) {
		attrs := []any{"principal", c.Caller.Principal.Name, "transport", c.Caller.Transport, "endpoint", c.Endpoint, c.Kind, c.Key, "source", c.Source, "outcome", c.Outcome, "duration", c.Took}
		if c.Err != "" && c.Outcome != "ok" {
			attrs = append(attrs, "error", OneLine(c.Err))
		}
		s.log.Debug("call finished", attrs...)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Status is what GET /api/status returns and the status page shows.
type Status struct {
	Version      string            `json:"version"`
	Revision     string            `json:"revision"`
	ConfigFile   string            `json:"config_file"`
	Started      time.Time         `json:"started"`
	UptimeS      float64           `json:"uptime_s"`
	Generated    time.Time         `json:"generated"`
	Ready        bool              `json:"ready"`
	Listeners    map[string]string `json:"listeners"`
	Summary      string            `json:"summary"`
	Sources      []SourceStatus    `json:"sources"`
	Endpoints    []EndpointStatus  `json:"endpoints"`
	InForce      InForce           `json:"in_force"`
	RelaySites   []RelaySiteStatus `json:"relay_sites"`
	LastReload   *ReloadStatus     `json:"last_reload"`
	LastApplied  time.Time         `json:"last_applied"`
	Sessions     map[string]int    `json:"sessions"`
	CallsRunning int64             `json:"calls_running"`
	RecentS      float64           `json:"recent_window_s"`
	Calls        []CallStats       `json:"calls"`
	Sections     []SectionStatus   `json:"sections"`
}

// SourceStatus is one source of tools: what it provides and, for a
// plugin, its ABI and instances.
type SourceStatus struct {
	Name     string `json:"name"`
	Kind     string `json:"kind"`
	Declared string `json:"declared"`
	source.Status
	Tools     []string `json:"tools"`
	Resources []string `json:"resources"`
	Templates []string `json:"resource_templates"`
	Prompts   []string `json:"prompts"`
	// Problems are what the source listed and could not publish (a
	// name or URI another source owns).
	Problems []string `json:"problems,omitempty"`
}

// SectionStatus is a section added with AddStatusSection.
type SectionStatus struct {
	Name string `json:"name"`
	Data any    `json:"data"`
}

// CallStats counts the calls of one tool, resource or prompt through one
// endpoint.
type CallStats struct {
	Endpoint   string           `json:"endpoint"`
	Kind       string           `json:"kind"`
	Name       string           `json:"name"`
	Source     string           `json:"source"`
	Total      int64            `json:"total"`
	Errors     int64            `json:"errors"`
	Outcomes   map[string]int64 `json:"outcomes"`
	Recent     int64            `json:"recent"`
	RecentErrs int64            `json:"recent_errors"`
	AvgMS      float64          `json:"avg_ms"`
	// P50MS, P95MS and P99MS are quantiles of the durations of the
	// recent calls (latency.go); 0 without any.
	P50MS       float64    `json:"p50_ms"`
	P95MS       float64    `json:"p95_ms"`
	P99MS       float64    `json:"p99_ms"`
	LastError   string     `json:"last_error,omitempty"`
	LastErrorAt *time.Time `json:"last_error_at,omitempty"`

	sumMS   float64
	minutes [6]minuteCount // a ring by minute, for Recent
}

// callKey is what the tracker counts calls by.
type callKey struct{ endpoint, kind, name string }

type minuteCount struct {
	minute        int64 // unix minute
	calls, errors int64
	lat           latencyHist
}

// record counts one call.
func (s *Tracker) record(endpoint, kind, name, source, outcome string, took time.Duration, errMsg string, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := callKey{endpoint, kind, name}
	c := s.calls[key]
	if c == nil {
		c = &CallStats{Endpoint: endpoint, Kind: kind, Name: name, Outcomes: map[string]int64{}}
		s.calls[key] = c
	}
	c.Source = source
	c.Total++
	c.Outcomes[outcome]++
	c.sumMS += ms(took)
	failed := outcome != "ok"
	if failed {
		c.Errors++
		if errMsg != "" {
			c.LastError = OneLine(errMsg)
		} else {
			c.LastError = outcome
		}
		at := now
		c.LastErrorAt = &at
	}
	minute := now.Unix() / 60
	b := &c.minutes[minute%int64(len(c.minutes))]
	if b.minute != minute {
		*b = minuteCount{minute: minute}
	}
	b.calls++
	b.lat[latBucket(took)]++
	if failed {
		b.errors++
	}
}

// snapshotCalls copies every CallStats with Recent filled in, busiest
// first.
func (s *Tracker) snapshotCalls(now time.Time) []CallStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	from := now.Add(-recentWindow).Unix() / 60
	out := make([]CallStats, 0, len(s.calls))
	for _, c := range s.calls {
		cp := *c
		cp.Outcomes = maps.Clone(c.Outcomes)
		cp.AvgMS = c.sumMS / float64(c.Total)
		var lat latencyHist
		for i := range c.minutes {
			if b := &c.minutes[i]; b.minute > from {
				cp.Recent += b.calls
				cp.RecentErrs += b.errors
				lat.add(&b.lat)
			}
		}
		cp.P50MS, cp.P95MS, cp.P99MS = lat.quantile(.5), lat.quantile(.95), lat.quantile(.99)
		out = append(out, cp)
	}
	slices.SortFunc(out, func(a, b CallStats) int {
		return cmp.Or(cmp.Compare(b.Recent, a.Recent), cmp.Compare(b.Total, a.Total), cmp.Compare(a.Kind+a.Name, b.Kind+b.Name), cmp.Compare(a.Endpoint, b.Endpoint))
	})
	return out
}

// ReloadStatus is how the last reload went.
type ReloadStatus struct {
	At      time.Time `json:"at"`
	Trigger string    `json:"trigger"`
	Files   []string  `json:"files,omitempty"` // the saved files of a file save
	OK      bool      `json:"ok"`
	TookMS  float64   `json:"took_ms"`
	Changes []string  `json:"changes"`
	Error   string    `json:"error,omitempty"`
}
