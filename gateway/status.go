package gateway

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// What the gateway is doing, for the status page (GET / on the admin
// listener), its JSON twin (GET /api/status) and systemd's STATUS= line:
// what is loaded, the last reload, sessions by transport, recent calls.

// recentWindow is how far back "recent" call counts reach.
const recentWindow = 5 * time.Minute

// statusState is what the snapshot does not hold: listeners, the history
// of reloads and call counts. Safe for concurrent use.
type statusState struct {
	started time.Time

	mu        sync.Mutex
	listeners map[string]string // "http", "admin", "stdio" -> where
	last      *ReloadStatus     // the last reload, nil before any
	lastOK    time.Time         // when a configuration was last applied
	calls     map[string]*callStats
	sections  []statusSection
}

func newStatusState() *statusState {
	return &statusState{started: time.Now(), listeners: map[string]string{}, calls: map[string]*callStats{}}
}

// statusSection is more state shown on the page, registered by a part of
// the gateway that is not a plugin (relay sites and bridges, say).
type statusSection struct {
	name string
	fn   func() any
}

// AddStatusSection shows fn's value (anything that marshals to JSON) on
// the status page and in /api/status under "sections", headed name. fn is
// called on every request, so it must be cheap and safe for concurrent
// use.
func (g *Gateway) AddStatusSection(name string, fn func() any) {
	g.status.mu.Lock()
	defer g.status.mu.Unlock()
	g.status.sections = append(g.status.sections, statusSection{name, fn})
}

// ReloadStatus is how the last reload went.
type ReloadStatus struct {
	At      time.Time `json:"at"`
	Trigger string    `json:"trigger"`
	OK      bool      `json:"ok"`
	TookMS  float64   `json:"took_ms"`
	Changes []string  `json:"changes"`
	Error   string    `json:"error,omitempty"`
}

func (s *statusState) listening(name, where string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listeners[name] = where
}

// loaded records the configuration the gateway started with.
func (s *statusState) loaded(start time.Time, snap *Snapshot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastOK = time.Now()
	s.last = &ReloadStatus{At: s.lastOK, Trigger: "start", OK: true, TookMS: ms(time.Since(start)),
		Changes: []string{"loaded " + snap.Summary()}}
}

// reloaded records a reload that started at start, from prev to cur (cur
// is prev when it failed).
func (s *statusState) reloaded(trigger string, start time.Time, prev, cur *Snapshot, err error) {
	r := &ReloadStatus{At: time.Now(), Trigger: trigger, OK: err == nil, TookMS: ms(time.Since(start))}
	if err != nil {
		r.Error = err.Error()
	} else {
		r.Changes = changes(prev, cur)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last = r
	if err == nil {
		s.lastOK = r.At
	}
}

// changes says what a reload from a to b changed, one line per change.
func changes(a, b *Snapshot) []string {
	if a == nil || b == nil {
		return nil
	}
	var out []string
	old := map[string]*pluginRT{}
	for _, p := range a.plugins {
		old[p.name] = p
	}
	for _, p := range b.plugins {
		switch q, ok := old[p.name]; {
		case !ok:
			out = append(out, fmt.Sprintf("plugin %s added", p.name))
		case q.sh != p.sh:
			out = append(out, fmt.Sprintf("plugin %s rebuilt (module or settings changed)", p.name))
		case !sameLimits(q, p):
			out = append(out, fmt.Sprintf("plugin %s: limits changed", p.name))
		}
		delete(old, p.name)
	}
	for _, name := range slices.Sorted(maps.Keys(old)) {
		out = append(out, fmt.Sprintf("plugin %s removed", name))
	}
	diffNames := func(kind string, x, y []string) {
		for _, n := range y {
			if !slices.Contains(x, n) {
				out = append(out, fmt.Sprintf("%s %s added", kind, n))
			}
		}
		for _, n := range x {
			if !slices.Contains(y, n) {
				out = append(out, fmt.Sprintf("%s %s removed", kind, n))
			}
		}
	}
	diffNames("tool", slices.Sorted(maps.Keys(a.tools)), slices.Sorted(maps.Keys(b.tools)))
	diffNames("resource", slices.Sorted(maps.Keys(a.resources)), slices.Sorted(maps.Keys(b.resources)))
	diffNames("resource template", slices.Sorted(maps.Keys(a.templates)), slices.Sorted(maps.Keys(b.templates)))
	diffNames("prompt", slices.Sorted(maps.Keys(a.prompts)), slices.Sorted(maps.Keys(b.prompts)))
	if len(out) == 0 {
		out = []string{"no change to plugins or what they provide"}
	}
	return out
}

func sameLimits(a, b *pluginRT) bool {
	ja, _ := json.Marshal(a.spec.Limits)
	jb, _ := json.Marshal(b.spec.Limits)
	return string(ja) == string(jb)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// callStats counts the calls of one tool, resource or prompt.
type callStats struct {
	Kind        string           `json:"kind"`
	Name        string           `json:"name"`
	Source      string           `json:"source"`
	Total       int64            `json:"total"`
	Errors      int64            `json:"errors"`
	Outcomes    map[string]int64 `json:"outcomes"`
	Recent      int64            `json:"recent"`
	RecentErrs  int64            `json:"recent_errors"`
	AvgMS       float64          `json:"avg_ms"`
	LastError   string           `json:"last_error,omitempty"`
	LastErrorAt *time.Time       `json:"last_error_at,omitempty"`

	sumMS   float64
	minutes [6]minuteCount // a ring by minute, for Recent
}

type minuteCount struct {
	minute        int64 // unix minute
	calls, errors int64
}

// record counts one call.
func (s *statusState) record(kind, name, source, outcome string, took time.Duration, errMsg string, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := kind + " " + name
	c := s.calls[key]
	if c == nil {
		c = &callStats{Kind: kind, Name: name, Outcomes: map[string]int64{}}
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
			c.LastError = oneLine(errMsg)
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
	if failed {
		b.errors++
	}
}

// snapshotCalls copies every callStats with Recent filled in, busiest
// first.
func (s *statusState) snapshotCalls(now time.Time) []callStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	from := now.Add(-recentWindow).Unix() / 60
	out := make([]callStats, 0, len(s.calls))
	for _, c := range s.calls {
		cp := *c
		cp.Outcomes = maps.Clone(c.Outcomes)
		cp.AvgMS = c.sumMS / float64(c.Total)
		for _, b := range c.minutes {
			if b.minute > from {
				cp.Recent += b.calls
				cp.RecentErrs += b.errors
			}
		}
		out = append(out, cp)
	}
	slices.SortFunc(out, func(a, b callStats) int {
		return cmp.Or(cmp.Compare(b.Recent, a.Recent), cmp.Compare(b.Total, a.Total), cmp.Compare(a.Kind+a.Name, b.Kind+b.Name))
	})
	return out
}

// observe records a finished call for the status page and logs it at
// debug level: who called what, the outcome and how long it took.
func (g *Gateway) observe(c caller, kind, name, source, outcome string, start time.Time, errMsg string) {
	now := time.Now()
	took := now.Sub(start)
	g.status.record(kind, name, source, outcome, took, errMsg, now)
	if g.log.Enabled(context.Background(), slog.LevelDebug) {
		attrs := []any{"principal", c.principal.Name, "transport", c.transport, kind, name, "plugin", source, "outcome", outcome, "duration", took}
		if errMsg != "" && outcome != "ok" {
			attrs = append(attrs, "error", oneLine(errMsg))
		}
		g.log.Debug("call finished", attrs...)
	}
}

// resultError is the text of an isError tool result.
func resultError(res *mcp.CallToolResult) string {
	if res == nil || !res.IsError {
		return ""
	}
	var parts []string
	for _, c := range res.Content {
		if t, ok := mcp.AsTextContent(c); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, " ")
}
