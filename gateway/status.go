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

	"github.com/wasmgate/wasmgate/gateway/envelope"
	"github.com/wasmgate/wasmgate/gateway/ops"
	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/internal/plural"
)

// AddStatusSection shows fn's value (anything that marshals to JSON) on
// the status page and in /api/status under "sections", headed name. fn is
// called on every request, so it must be cheap and safe for concurrent
// use.
func (g *Gateway) AddStatusSection(name string, fn func() any) { g.status.AddSection(name, fn) }

// Status describes the gateway now.
func (g *Gateway) Status() ops.Status {
	out := ops.Status{
		Version:      g.opts.Version,
		Revision:     g.opts.Revision,
		Ready:        g.ready.Load(),
		Sessions:     map[string]int{envelope.TransportHTTP: 0, envelope.TransportStdio: 0},
		CallsRunning: g.calls.Load(),
		Sources:      []ops.SourceStatus{},
		RelaySites:   g.relayStatus(),
	}
	g.status.Report(&out)
	for _, e := range g.eps.all() {
		h, st := e.Sessions()
		out.Sessions[envelope.TransportHTTP] += h
		out.Sessions[envelope.TransportStdio] += st
	}
	out.Endpoints = g.eps.status()
	if s := g.cur.Load(); s != nil {
		out.ConfigFile = s.Config.File
		out.Summary = s.Summary()
		out.Sources = s.sourceStatus()
		out.InForce = ops.InForceOf(s.Config)
	}
	return out
}

// sourceStatus lists every source of s with what it provides.
func (s *Snapshot) sourceStatus() []ops.SourceStatus {
	dynamic := map[string]bool{}
	for src, dyn := range s.sources {
		dynamic[src.Name()] = dyn
	}
	return ops.SourcesOf(s.Sources(), func(src source.Source) bool { return dynamic[src.Name()] }, s.index, s.problems)
}

// changes says what a reload from a to b changed, one line per change:
// what each component says (Differ), then what the sources provide.
func changes(a, b *Snapshot) []string {
	if a == nil || b == nil {
		return nil
	}
	var out []string
	prev := a.parts.byName()
	for _, c := range b.parts.list {
		out = append(out, c.Changes(prev[c.Name()])...)
	}
	xa, xb := a.index, b.index
	out = append(out, diffNames("tool", xa.Tools, xb.Tools)...)
	out = append(out, diffNames("resource", xa.Resources, xb.Resources)...)
	out = append(out, diffNames("resource template", xa.Templates, xb.Templates)...)
	out = append(out, diffNames("prompt", xa.Prompts, xb.Prompts)...)
	if len(out) == 0 {
		out = []string{"no change to plugins or what they provide"}
	}
	return out
}

// diffNames says which names of y x lacks (added) and which of x y
// lacks (removed), each in name order.
func diffNames[V any](kind string, x, y map[string]V) []string {
	var out []string
	for _, n := range slices.Sorted(maps.Keys(y)) {
		if _, ok := x[n]; !ok {
			out = append(out, fmt.Sprintf("%s %s added", kind, n))
		}
	}
	for _, n := range slices.Sorted(maps.Keys(x)) {
		if _, ok := y[n]; !ok {
			out = append(out, fmt.Sprintf("%s %s removed", kind, n))
		}
	}
	return out
}

// statusLine is systemd's STATUS=: what is served and how the last
// reload went.
func (g *Gateway) statusLine() string {
	var b strings.Builder
	if s := g.cur.Load(); s != nil {
		x := s.index
		fmt.Fprintf(&b, "serving %s, %s, %s, %s", plural.N(s.parts.plugins.Count(), "plugin"), plural.N(len(x.Tools), "tool"),
			plural.N(len(x.Resources)+len(x.Templates), "resource"), plural.N(len(x.Prompts), "prompt"))
	} else {
		b.WriteString("no configuration")
	}
	if last := g.status.LastReload(); last != nil && last.Trigger != "start" {
		if last.OK {
			fmt.Fprintf(&b, "; last reload ok at %s (%s)", last.At.Format(time.TimeOnly), last.Trigger)
		} else {
			fmt.Fprintf(&b, "; last reload FAILED at %s (%s), serving the previous configuration: %s", last.At.Format(time.TimeOnly), last.Trigger, ops.OneLine(last.Error))
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
		done <- g.MCPServer().HandleMessage(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":"watchdog","method":"ping"}`))
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

// relayStatus is every configured relay site, connected or not.
func (g *Gateway) relayStatus() []ops.RelaySiteStatus {
	out := []ops.RelaySiteStatus{}
	if g.relay == nil {
		return out
	}
	return append(out, g.relay.SiteStatus()...)
}
