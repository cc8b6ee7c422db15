package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

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
	LastReload   *ReloadStatus     `json:"last_reload"`
	LastApplied  time.Time         `json:"last_applied"`
	Sessions     map[string]int    `json:"sessions"`
	CallsRunning int64             `json:"calls_running"`
	RecentS      float64           `json:"recent_window_s"`
	Calls        []callStats       `json:"calls"`
	Sections     []SectionStatus   `json:"sections"`
}

// SourceStatus is one source of tools: a plugin, with its ABI and
// instances; other kinds (relay sites) show what they provide.
type SourceStatus struct {
	Name      string          `json:"name"`
	Kind      string          `json:"kind"`
	Declared  string          `json:"declared"`
	ABI       string          `json:"abi,omitempty"`
	Module    string          `json:"module,omitempty"`
	SHA256    string          `json:"sha256,omitempty"`
	Instances *InstanceStatus `json:"instances,omitempty"`
	Tools     []string        `json:"tools"`
	Resources []string        `json:"resources"`
	Templates []string        `json:"resource_templates"`
	Prompts   []string        `json:"prompts"`
}

// InstanceStatus counts a plugin's instances.
type InstanceStatus struct {
	Live  int64 `json:"live"`
	InUse int   `json:"in_use"`
	Max   int   `json:"max"`
}

// SectionStatus is a section added with AddStatusSection.
type SectionStatus struct {
	Name string `json:"name"`
	Data any    `json:"data"`
}

// Status describes the gateway now.
func (g *Gateway) Status() Status {
	now := time.Now()
	st := g.status
	out := Status{
		Version:      g.opts.Version,
		Revision:     g.opts.Revision,
		Started:      st.started,
		UptimeS:      now.Sub(st.started).Seconds(),
		Generated:    now,
		Ready:        g.ready.Load(),
		Sessions:     map[string]int{transportHTTP: 0, transportStdio: 0},
		CallsRunning: g.calls.Load(),
		RecentS:      recentWindow.Seconds(),
		Calls:        st.snapshotCalls(now),
		Sources:      []SourceStatus{},
		Sections:     []SectionStatus{},
	}
	st.mu.Lock()
	out.Listeners = maps.Clone(st.listeners)
	if st.last != nil {
		r := *st.last
		out.LastReload = &r
	}
	out.LastApplied = st.lastOK
	sections := slices.Clone(st.sections)
	st.mu.Unlock()
	for _, sec := range sections {
		out.Sections = append(out.Sections, SectionStatus{Name: sec.name, Data: sec.fn()})
	}
	g.views.mu.Lock()
	for _, v := range g.views.sessions {
		if v.stdio {
			out.Sessions[transportStdio]++
		} else {
			out.Sessions[transportHTTP]++
		}
	}
	g.views.mu.Unlock()
	if s := g.cur.Load(); s != nil {
		out.ConfigFile = s.Config.File
		out.Summary = s.Summary()
		out.Sources = s.sourceStatus()
	}
	return out
}

// sourceStatus lists every source of s with what it provides.
func (s *Snapshot) sourceStatus() []SourceStatus {
	byName := map[string]*SourceStatus{}
	var order []string
	get := func(src Source) *SourceStatus {
		if ss, ok := byName[src.Name()]; ok {
			return ss
		}
		ss := &SourceStatus{Name: src.Name(), Kind: "source", Declared: src.Key(), Tools: []string{}, Resources: []string{}, Templates: []string{}, Prompts: []string{}}
		if p, ok := src.(*pluginRT); ok {
			ss.Kind = "plugin"
			ss.ABI = p.plugin.ABI.Name()
			ss.Module = p.spec.Path
			ss.SHA256 = p.plugin.SHA256
			ss.Instances = &InstanceStatus{Live: p.pool.live.Load(), InUse: len(p.pool.sem), Max: cap(p.pool.sem)}
		}
		byName[src.Name()] = ss
		order = append(order, src.Name())
		return ss
	}
	for _, p := range s.plugins { // plugins in config order, even those providing nothing
		get(p)
	}
	for _, n := range slices.Sorted(maps.Keys(s.tools)) {
		ss := get(s.tools[n].src)
		ss.Tools = append(ss.Tools, n)
	}
	for _, n := range slices.Sorted(maps.Keys(s.resources)) {
		ss := get(s.resources[n].src)
		ss.Resources = append(ss.Resources, n)
	}
	for _, n := range slices.Sorted(maps.Keys(s.templates)) {
		ss := get(s.templates[n].src)
		ss.Templates = append(ss.Templates, n)
	}
	for _, n := range slices.Sorted(maps.Keys(s.prompts)) {
		ss := get(s.prompts[n].src)
		ss.Prompts = append(ss.Prompts, n)
	}
	out := make([]SourceStatus, 0, len(order))
	for _, n := range order {
		out = append(out, *byName[n])
	}
	return out
}

// statusLine is systemd's STATUS=: what is served and how the last
// reload went.
func (g *Gateway) statusLine() string {
	var b strings.Builder
	if s := g.cur.Load(); s != nil {
		fmt.Fprintf(&b, "serving %d plugins, %d tools, %d resources, %d prompts", len(s.plugins), len(s.tools), len(s.resources)+len(s.templates), len(s.prompts))
	} else {
		b.WriteString("no configuration")
	}
	g.status.mu.Lock()
	last := g.status.last
	g.status.mu.Unlock()
	if last != nil && last.Trigger != "start" {
		if last.OK {
			fmt.Fprintf(&b, "; last reload ok at %s (%s)", last.At.Format(time.TimeOnly), last.Trigger)
		} else {
			fmt.Fprintf(&b, "; last reload FAILED at %s (%s), serving the previous configuration: %s", last.At.Format(time.TimeOnly), last.Trigger, oneLine(last.Error))
		}
	}
	return b.String()
}

// healthy checks what the watchdog vouches for: the gateway is ready,
// serves a snapshot, and the MCP server answers a ping within d.
func (g *Gateway) healthy(ctx context.Context, d time.Duration) error {
	if !g.ready.Load() {
		return fmt.Errorf("not ready")
	}
	if g.cur.Load() == nil {
		return fmt.Errorf("no configuration is served")
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	done := make(chan mcp.JSONRPCMessage, 1)
	go func() {
		done <- g.mcp.HandleMessage(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":"watchdog","method":"ping"}`))
	}()
	select {
	case msg := <-done:
		if _, ok := msg.(mcp.JSONRPCResponse); !ok {
			return fmt.Errorf("the MCP server answered a ping with %T", msg)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("the MCP server did not answer a ping within %s", d)
	}
}
