// Package gateway is the running core of wasmgate: the serving Snapshot
// behind an atomic pointer, built from components (identity and policy,
// audit, plugins, relay sites) that each provision, reuse, apply and clean
// up their part of a config; swapped on reload, with list_changed told to
// the sessions whose view changed; the MCP server its transports serve;
// and Run, the one composition of the listeners and tasks.
//
// The call path is package envelope, the sources are packages plugin and
// relaysite, the HTTP transport is package transport, and the operator's
// surface (admin, status, audit, systemd) is package ops.
package gateway

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/gateway/envelope"
	"github.com/wasmgate/wasmgate/gateway/ops"
	"github.com/wasmgate/wasmgate/gateway/plugin"
	"github.com/wasmgate/wasmgate/gateway/relaysite"
	"github.com/wasmgate/wasmgate/gateway/roundtrip"
	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/gateway/tracing"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/host"
	"github.com/wasmgate/wasmgate/metrics"
	"github.com/wasmgate/wasmgate/policy"
	"github.com/wasmgate/wasmgate/state"
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

	ownCompiler bool // Open made Compiler: Close closes it
}

// Gateway serves the current Snapshot over MCP. Apply swaps in a new one.
type Gateway struct {
	opts Options
	log  *slog.Logger
	mcp  *server.MCPServer
	env  *envelope.Envelope

	cur atomic.Pointer[Snapshot]

	applyMu  sync.Mutex // serializes Apply and the registry updates
	reloadMu sync.Mutex // serializes Reload
	watcher  *loader.Watcher
	relay    *relaysite.Service // the browser relay's pages
	plugins  *plugin.Host       // what plugins use of the gateway

	slots chan struct{} // one per WebAssembly call running, gateway-wide
	own   []string      // bound listener addresses (set while starting)

	storesMu sync.Mutex
	stores   map[string]*host.Store

	// The state section's store while backend redis serves (stateComponent).
	state     atomic.Pointer[state.Store]
	replicaID string
	started   time.Time

	limiters *policy.Limiters // rate-limit state, kept across reloads
	views    *views           // each session's caller, for list_changed
	subs     *subscriptions   // each session's resources/subscribe
	audit    *ops.Audit
	notify   *ops.Notifier // systemd notifications
	status   *ops.Tracker  // for the status page
	tracer   *tracing.Holder
	signer   *roundtrip.Signer // requestState of input_required, across reloads

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
		notify:   &ops.Notifier{Log: opts.Logger},
		status:   ops.NewTracker(opts.Logger),
		subs:     &subscriptions{m: map[string]map[string]bool{}},
		audit:    ops.NewAudit(opts.Logger),
		tracer:   tracing.NewHolder(opts.Metrics.Registry(), opts.Version),
		signer:   roundtrip.NewSigner(0),

		replicaID: newReplicaID(),
		started:   time.Now(),
	}
	g.status.AddSection("state", g.stateStatus)
	g.status.AddSection("trust", g.trustStatus)
	g.env = envelope.New(envelope.Options{
		Begin:    g.begin,
		Limiters: g.limiters,
		Metrics:  opts.Metrics,
		Observer: envelope.Observers{envelope.NewMetrics(opts.Metrics), g.audit, g.status},
		Logger:   opts.Logger,
		Tracer:   g.tracer.TracerFor,
		Signer:   g.signer,
	})
	g.mcp = server.NewMCPServer(cmp.Or(opts.Name, "wasmgate"), opts.Version,
		server.WithToolCapabilities(true),
		server.WithResourceCapabilities(true, true),
		server.WithPromptCapabilities(true),
		server.WithLogging(),
		server.WithCompletions(),
		server.WithPromptCompletionProvider(envelope.Completer{E: g.env}),
		server.WithResourceCompletionProvider(envelope.Completer{E: g.env}),
		server.WithRecovery(),
		server.WithResourceRecovery(),
		server.WithHooks(g.hooks()),
		server.WithSubscribeFilter(g.subscribeFilter),
		// Tasks (tools of plugins with limits.task_timeout): each seen only
		// by the principal that started it, at most MaxRunningTasks running
		// and MaxKeptTasks kept, results dropped after TaskResultTTL (or
		// the client's ttl, up to MaxTaskTTL).
		server.WithTaskCapabilities(true, true, true),
		server.WithTaskOwner(g.taskOwner),
		server.WithTaskPolicy(g.taskPolicy),
		server.WithMaxConcurrentTasks(MaxRunningTasks),
		server.WithMaxTasks(MaxKeptTasks),
		server.WithTaskTTL(TaskResultTTL.Milliseconds(), MaxTaskTTL.Milliseconds()),
	)
	g.relay = relaysite.NewService(g.log, opts.Metrics, g.relayChanged)
	g.plugins = &plugin.Host{
		Logger: g.log, MCP: g.mcp, Compiler: opts.Compiler, Metrics: opts.Metrics, Slots: g.slots,
		Store:           g.store,
		ResourceUpdated: g.updated,
		Relisted:        g.relisted,
		SessionRelisted: g.sessionRelisted,
		Kept:            plugin.NewKept(plugin.KeptLimits{}, g.log),
		Approve:         g.approveModules,
	}
	return g
}

// The bounds of tasks (docs/config.md, limits.task_timeout).
const (
	MaxRunningTasks = 256
	MaxKeptTasks    = 4096
	TaskResultTTL   = 10 * time.Minute
	MaxTaskTTL      = time.Hour
)

// taskOwner is who may see a task started with ctx: its caller's
// principal and transport (a stateless client has no session to bind it
// to; an anonymous loopback caller is one principal).
func (g *Gateway) taskOwner(ctx context.Context) string {
	s := g.cur.Load()
	if s == nil { // nothing is served before the first snapshot
		return ""
	}
	c := envelope.CallerOf(ctx, s)
	return c.Transport + "\x00" + c.Principal.Name
}

// taskPolicy is the serving policy applied to a tasks/get, tasks/result
// or tasks/cancel of a task of tool (and, listing, to what tasks/list
// shows): its owner may go on only while the policy could still let them
// call the tool (the call's own arguments were checked when it started),
// so a reload that takes a tool away from a principal takes its tasks'
// results too. A refused request counts as a policy denial; a task left
// out of a list does not, as a tool left out of tools/list does not.
func (g *Gateway) taskPolicy(ctx context.Context, tool string, listing bool) error {
	s := g.cur.Load()
	if s == nil {
		return errors.New("the gateway is not serving yet")
	}
	pol := s.Policy()
	if pol == nil {
		return nil
	}
	c := envelope.CallerOf(ctx, s)
	if !pol.Visible(c.Principal, policy.Tool, tool) {
		if m := g.opts.Metrics; m != nil && !listing {
			m.PolicyDenials.WithLabelValues(c.Label(), policy.Tool.String()).Inc()
		}
		return fmt.Errorf("the task's tool %q is denied by policy", tool)
	}
	return nil
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
		s.Share(plugin, g.sharedKV)
		g.stores[plugin] = s
	}
	return s
}

// Apply makes s the serving snapshot. Calls that start after Apply use s;
// calls running on the previous snapshot finish there, then its
// components are cleaned up. Sessions are told list_changed only for
// lists that changed. Then each component of s that is an Applier
// applies; one that went stale meanwhile (a page registered while s was
// built) has s indexed again.
func (g *Gateway) Apply(s *Snapshot) {
	g.applyMu.Lock()
	defer g.applyMu.Unlock()
	for name, refused := range s.problems { // what the build refused a dynamic source
		g.opts.Metrics.ClaimsRefused.WithLabelValues(name).Add(float64(len(refused)))
	}
	old := g.swap(s)
	if old != nil && old.parts != s.parts {
		old.parts.retire(s.parts)
	}
	ctx := context.Background()
	stale := false
	for _, c := range s.parts.list {
		if a, ok := c.(Applier); ok {
			a.Apply(ctx)
		}
		if st, ok := c.(Staler); ok && st.Stale() {
			stale = true
		}
	}
	if stale {
		g.swap(g.reindex(s))
	}
}

// swap makes s serve, tells sessions what changed and retires the
// previous snapshot, which it returns. Call with applyMu.
func (g *Gateway) swap(s *Snapshot) *Snapshot {
	old := g.cur.Swap(s)
	sent := g.syncRegistry(old, s)
	g.routeSessions(s)
	g.notifyViews(old, s, sent)

	m := g.opts.Metrics
	m.Plugins.Set(float64(s.parts.plugins.Count()))
	m.Tools.Set(float64(len(s.index.Tools)))
	g.trustMetrics(s)
	g.logHeld(old, s)
	if old == nil {
		return nil
	}
	old.retire()
	g.retiring.Add(1)
	go func() {
		defer g.retiring.Done()
		<-old.drained
		old.close(context.Background())
	}()
	return old
}

// syncRegistry updates mcp-go's lists where they differ; each Set* call
// notifies every session of that list's change. It reports which lists
// (tools, resources, templates, prompts) it set.
func (g *Gateway) syncRegistry(old, s *Snapshot) (set [4]bool) {
	prev := source.NewIndex()
	if old != nil {
		prev = old.index
	}
	x := s.index
	if set[0] = changed(prev.Tools, x.Tools, func(t *source.Tool) any { return t.Def }); set[0] {
		tools := make([]server.ServerTool, 0, len(x.Tools))
		for _, name := range x.ToolNames() {
			tools = append(tools, server.ServerTool{Tool: x.Tools[name].Def, Handler: g.env.ToolHandler(name)})
		}
		g.mcp.SetTools(tools...)
	}
	if set[1] = changed(prev.Resources, x.Resources, func(r *source.Resource) any { return r.Resource }); set[1] {
		var rs []server.ServerResource
		for _, uri := range slices.Sorted(maps.Keys(x.Resources)) {
			rs = append(rs, server.ServerResource{Resource: x.Resources[uri].Resource, Handler: g.env.ResourceHandler(uri, false)})
		}
		g.mcp.SetResources(rs...)
	}
	if set[2] = changed(prev.Templates, x.Templates, func(r *source.Resource) any { return r.Template }); set[2] {
		var ts []server.ServerResourceTemplate
		for _, raw := range slices.Sorted(maps.Keys(x.Templates)) {
			ts = append(ts, server.ServerResourceTemplate{Template: x.Templates[raw].Template, Handler: server.ResourceTemplateHandlerFunc(g.env.ResourceHandler(raw, true))})
		}
		g.mcp.SetResourceTemplates(ts...)
	}
	if set[3] = changed(prev.Prompts, x.Prompts, func(p *source.Prompt) any { return p.Def }); set[3] {
		var ps []server.ServerPrompt
		for _, name := range slices.Sorted(maps.Keys(x.Prompts)) {
			ps = append(ps, server.ServerPrompt{Prompt: x.Prompts[name].Def, Handler: g.env.PromptHandler(name)})
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
	g.upstreamHooks(h)
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

// begin marks a call as running (for shutdown) on the serving snapshot
// (for draining on reload); done ends it. It is the envelope's Begin.
func (g *Gateway) begin() (envelope.State, func(), error) {
	g.calls.Add(1)
	for {
		s := g.cur.Load()
		if s == nil {
			g.calls.Add(-1)
			return nil, nil, fmt.Errorf("gateway has no configuration yet")
		}
		if s.acquire() {
			return s, func() { s.release(); g.calls.Add(-1) }, nil
		}
	}
}

// Close waits (until ctx ends) for running calls, then releases the
// serving snapshot and every retired one.
func (g *Gateway) Close(ctx context.Context) error {
	defer g.audit.Close()
	if g.opts.ownCompiler {
		defer g.opts.Compiler.Close(context.WithoutCancel(ctx))
	}
	err := g.Drain(ctx)
	if err == nil {
		g.env.Close() // no call left to time out
	}
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
	g.plugins.Kept.Close(ctx) // a snapshot retired later releases its modules itself
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
