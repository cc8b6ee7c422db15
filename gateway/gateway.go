// Package gateway is the running core of wasmgate: the serving Snapshot
// behind an atomic pointer, the MCP server and its transports, instance
// pools and the call path.
package gateway

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/host"
	"github.com/wasmgate/wasmgate/metrics"
	"github.com/wasmgate/wasmgate/policy"
	"github.com/wasmgate/wasmgate/relay"
)

// Options are what a Gateway is built from.
type Options struct {
	Logger   *slog.Logger
	Metrics  *metrics.Metrics
	Compiler *loader.Compiler
	Name     string // serverInfo.name; default "wasmgate"
	Version  string
	Revision string // the VCS revision, for the status page

	// ConfigPath and Environ are where Reload reads the config from.
	ConfigPath string
	Environ    []string
	// LogLevel, when set, follows server.log.level on reload.
	LogLevel *slog.LevelVar
	// MaxConcurrentCalls bounds the WebAssembly calls running at once
	// (server.max_concurrent_calls); 0 means the number of CPUs.
	MaxConcurrentCalls int
}

// Gateway serves the current Snapshot over MCP. Apply swaps in a new one.
type Gateway struct {
	opts Options
	log  *slog.Logger
	mcp  *server.MCPServer

	cur atomic.Pointer[Snapshot]

	applyMu  sync.Mutex // serializes Apply and the registry updates
	reloadMu sync.Mutex // serializes Reload
	watcher  *loader.Watcher
	relay    *relay.Relay // the browser relay's pages (gateway/relay.go)

	slots chan struct{} // one per WebAssembly call running, gateway-wide
	own   []string      // bound listener addresses (set while starting)

	storesMu sync.Mutex
	stores   map[string]*host.Store

	limiters *policy.Limiters // rate-limit state, kept across reloads
	views    *views           // each session's caller, for list_changed
	subs     *subscriptions   // each session's resources/subscribe
	audit    *auditLog

	notify *notifier    // systemd notifications
	status *statusState // for the status page (status.go)

	calls    atomic.Int64   // calls running now, for shutdown
	retiring sync.WaitGroup // goroutines closing retired snapshots
	ready    atomic.Bool
}

// New returns a Gateway with no snapshot; Apply one before serving.
func New(opts Options) *Gateway {
	g := &Gateway{
		opts:   opts,
		log:    opts.Logger,
		stores: map[string]*host.Store{},
		slots:  make(chan struct{}, cmp.Or(opts.MaxConcurrentCalls, runtime.NumCPU())),

		limiters: policy.NewLimiters(0),
		views:    &views{sessions: map[string]viewer{}},
		notify:   &notifier{log: opts.Logger},
		status:   newStatusState(),
		subs:     &subscriptions{m: map[string]map[string]bool{}},
	}
	g.audit = newAuditLog(opts.Logger)
	name := opts.Name
	if name == "" {
		name = "wasmgate"
	}
	g.mcp = server.NewMCPServer(name, opts.Version,
		server.WithToolCapabilities(true),
		server.WithResourceCapabilities(true, true),
		server.WithPromptCapabilities(true),
		server.WithLogging(),
		server.WithCompletions(),
		server.WithPromptCompletionProvider(completer{g}),
		server.WithResourceCompletionProvider(completer{g}),
		server.WithRecovery(),
		server.WithResourceRecovery(),
		server.WithHooks(g.hooks()),
	)
	g.relay = g.newRelay()
	return g
}

// MCPServer is the MCP server every transport serves.
func (g *Gateway) MCPServer() *server.MCPServer { return g.mcp }

// Current returns the serving snapshot, or nil before the first Apply.
func (g *Gateway) Current() *Snapshot { return g.cur.Load() }

// store returns the plugin's key-value store, creating it with quota if
// the plugin is new. An existing store's quota changes only when a
// snapshot is applied, so a reload that fails changes nothing.
func (g *Gateway) store(plugin string, quota int64) *host.Store {
	g.storesMu.Lock()
	defer g.storesMu.Unlock()
	s, ok := g.stores[plugin]
	if !ok {
		s = host.NewStore(quota)
		g.stores[plugin] = s
	}
	return s
}

// Apply makes s the serving snapshot. Calls that start after Apply use s;
// calls running on the previous snapshot finish there, then its instances
// close. Sessions are told list_changed only for lists that changed.
func (g *Gateway) Apply(s *Snapshot) {
	g.applyMu.Lock()
	defer g.applyMu.Unlock()
	for _, p := range s.plugins {
		g.store(p.name, int64(p.spec.Limits.KVQuota)).SetQuota(int64(p.spec.Limits.KVQuota))
	}
	g.limiters.Retain(s.pol)
	g.audit.apply(s.Config.Audit)
	g.swap(s)
	g.applyRelay(s)
}

// swap makes s serve, tells sessions what changed and retires the
// previous snapshot. Call with applyMu.
func (g *Gateway) swap(s *Snapshot) {
	old := g.cur.Swap(s)
	sent := g.syncRegistry(old, s)
	g.notifyViews(old, s, sent)

	m := g.opts.Metrics
	m.Plugins.Set(float64(len(s.plugins)))
	m.Tools.Set(float64(len(s.tools)))
	if old == nil {
		return
	}
	for _, p := range old.plugins {
		if !slices.ContainsFunc(s.plugins, func(q *pluginRT) bool { return q.name == p.name }) {
			m.PluginInstances.DeleteLabelValues(p.name)
		}
	}
	old.retire()
	g.retiring.Add(1)
	go func() {
		defer g.retiring.Done()
		<-old.drained
		old.close(context.Background())
	}()
}

// syncRegistry updates mcp-go's lists where they differ; each Set* call
// notifies every session of that list's change. It reports which lists
// (tools, resources, templates, prompts) it set.
func (g *Gateway) syncRegistry(old, s *Snapshot) (set [4]bool) {
	var prev *Snapshot
	if old != nil {
		prev = old
	} else {
		prev = &Snapshot{}
	}
	if set[0] = changed(prev.tools, s.tools, func(t *toolEntry) any { return t.def }); set[0] {
		tools := make([]server.ServerTool, 0, len(s.tools))
		for _, name := range s.ToolNames() {
			tools = append(tools, server.ServerTool{Tool: s.tools[name].def, Handler: g.toolHandler(name)})
		}
		g.mcp.SetTools(tools...)
	}
	if set[1] = changed(prev.resources, s.resources, func(r *resourceEntry) any { return r.resource }); set[1] {
		var rs []server.ServerResource
		for _, uri := range slices.Sorted(maps.Keys(s.resources)) {
			rs = append(rs, server.ServerResource{Resource: s.resources[uri].resource, Handler: g.resourceHandler(uri, false)})
		}
		g.mcp.SetResources(rs...)
	}
	if set[2] = changed(prev.templates, s.templates, func(r *resourceEntry) any { return r.template }); set[2] {
		var ts []server.ServerResourceTemplate
		for _, raw := range slices.Sorted(maps.Keys(s.templates)) {
			ts = append(ts, server.ServerResourceTemplate{Template: s.templates[raw].template, Handler: server.ResourceTemplateHandlerFunc(g.resourceHandler(raw, true))})
		}
		g.mcp.SetResourceTemplates(ts...)
	}
	if set[3] = changed(prev.prompts, s.prompts, func(p *promptEntry) any { return p.def }); set[3] {
		var ps []server.ServerPrompt
		for _, name := range slices.Sorted(maps.Keys(s.prompts)) {
			ps = append(ps, server.ServerPrompt{Prompt: s.prompts[name].def, Handler: g.promptHandler(name)})
		}
		g.mcp.SetPrompts(ps...)
	}
	return set
}

// hooks are the mcp-go hooks the gateway needs: session bookkeeping for
// per-caller list_changed, and policy's filter on every list.
func (g *Gateway) hooks() *server.Hooks {
	h := g.views.hooks()
	g.subs.hooks(h)
	h.AddOnUnregisterSession(g.sessionEnded)
	h.AddAfterListTools(g.filterTools)
	h.AddAfterListPrompts(g.filterPrompts)
	h.AddAfterListResources(g.filterResources)
	h.AddAfterListResourceTemplates(g.filterTemplates)
	return h
}

// changed reports whether two name->entry maps differ in what clients see:
// the JSON form of each entry's definition.
func changed[E any](a, b map[string]E, def func(E) any) bool {
	if len(a) != len(b) {
		return true
	}
	da := make(map[string]any, len(a))
	for n, e := range a {
		da[n] = def(e)
	}
	db := make(map[string]any, len(b))
	for n, e := range b {
		db[n] = def(e)
	}
	ja, err1 := json.Marshal(da)
	jb, err2 := json.Marshal(db)
	return err1 != nil || err2 != nil || string(ja) != string(jb)
}

// acquire returns the serving snapshot with a reference held.
func (g *Gateway) acquire() (*Snapshot, error) {
	for {
		s := g.cur.Load()
		if s == nil {
			return nil, fmt.Errorf("gateway has no configuration yet")
		}
		if s.acquire() {
			return s, nil
		}
	}
}

// Close waits (until ctx ends) for running calls, then releases the
// serving snapshot and every retired one.
func (g *Gateway) Close(ctx context.Context) error {
	defer g.audit.close()
	err := g.Drain(ctx)
	g.applyMu.Lock()
	s := g.cur.Swap(nil)
	g.applyMu.Unlock()
	if s != nil {
		s.retire()
		select {
		case <-s.drained:
			s.close(context.Background())
		case <-ctx.Done():
		}
	}
	retired := make(chan struct{})
	go func() {
		g.retiring.Wait()
		close(retired)
	}()
	select {
	case <-retired:
	case <-ctx.Done():
	}
	return err
}

// Drain waits until no call is running or ctx ends.
func (g *Gateway) Drain(ctx context.Context) error {
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for g.calls.Load() > 0 {
		select {
		case <-t.C:
		case <-ctx.Done():
			return fmt.Errorf("waiting for %d running calls: %w", g.calls.Load(), ctx.Err())
		}
	}
	return nil
}
