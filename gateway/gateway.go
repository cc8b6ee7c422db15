// Package gateway is the running core of wasmgate: the serving Snapshot
// (the catalog) behind an atomic pointer, built from components
// (identity and policy, audit, plugins, relay sites, upstreams, state,
// tracing, the request-state signer) that each provision, reuse, apply and clean up their part of
// a config; swapped on reload and published to every endpoint; and Run,
// the one composition of the listeners and tasks.
//
// The endpoints (the MCP servers, their lists, sessions and list_changed)
// are package endpoint, the call path is package envelope, the sources
// are packages plugin, upstream and relaysite, the HTTP transport is
// package transport, and the operator's surface (admin, status, audit,
// systemd) is package ops.
package gateway

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/auth/vault"
	"github.com/wasmgate/wasmgate/flow"
	"github.com/wasmgate/wasmgate/gateway/component"
	"github.com/wasmgate/wasmgate/gateway/endpoint"
	"github.com/wasmgate/wasmgate/gateway/ops"
	"github.com/wasmgate/wasmgate/gateway/plugin"
	"github.com/wasmgate/wasmgate/gateway/relaysite"
	"github.com/wasmgate/wasmgate/gateway/roundtrip"
	"github.com/wasmgate/wasmgate/gateway/tracing"
	"github.com/wasmgate/wasmgate/gateway/trust"
	"github.com/wasmgate/wasmgate/internal/procs"
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
	// Procs, when not nil, is told of every MCP HTTP request but GETs,
	// and of reloads (RunOptions.Procs).
	Procs *procs.Governor

	ownCompiler bool // Open made Compiler: Close closes it
}

// Gateway serves the current Snapshot on its endpoints. Apply swaps in a
// new one.
type Gateway struct {
	opts Options
	log  *slog.Logger
	eps  *endpoints

	cur atomic.Pointer[Snapshot]

	applyMu  sync.Mutex // serializes Apply and the endpoints' updates
	reloadMu sync.Mutex // serializes Reload, and Close with it
	// closing ends when Close starts: a reload still building stops
	// waiting for what it can, Close waits for it to return before it
	// closes the compiler the build uses, and none builds after.
	closing    context.Context
	stopReload context.CancelFunc
	watcher    *loader.Watcher
	relay      *relaysite.Service // the browser relay's pages
	plugins    *plugin.Host       // what plugins use of the gateway

	slots chan struct{} // one per WebAssembly call running, gateway-wide
	own   []string      // bound listener addresses (set while starting)

	storesMu sync.Mutex
	stores   map[string]*host.Store

	// The state section's store while backend redis serves (stateComponent).
	state atomic.Pointer[state.Store]
	// The credentials vault serving now (credentialsComponent), and the
	// memory backend it uses without Redis, kept across reloads.
	vault    atomic.Pointer[vault.Vault]
	memVault *vault.Memory
	// The flow taints without Redis, kept across reloads.
	flowMem   *flow.Memory
	replicaID string
	started   time.Time

	limiters *policy.Limiters // rate-limit state, kept across reloads
	audit    *ops.Audit
	notify   *ops.Notifier // systemd notifications
	status   *ops.Tracker  // for the status page
	tracer   *tracing.Holder
	trust    *trust.Checker
	signer   *roundtrip.Signer // requestState of input_required, across reloads

	calls atomic.Int64 // calls running now, for shutdown
	// stdioEndpoint names the endpoint the stdio transport serves, once
	// it runs (it cannot change while the process lives).
	stdioEndpoint atomic.Pointer[string]
	retiring      sync.WaitGroup // goroutines closing retired snapshots
	ready         atomic.Bool
}

// New returns a Gateway with no snapshot; Apply one before serving.
func New(opts Options) *Gateway {
	g := &Gateway{
		opts:   opts,
		log:    opts.Logger,
		stores: map[string]*host.Store{},
		slots:  make(chan struct{}, cmp.Or(opts.MaxConcurrentCalls, runtime.NumCPU())),

		limiters: policy.NewLimiters(0),
		notify:   &ops.Notifier{Log: opts.Logger},
		status:   ops.NewTracker(opts.Logger),
		audit:    ops.NewAudit(opts.Logger),
		tracer:   tracing.NewHolder(opts.Metrics.Registry(), opts.Version),
		signer:   roundtrip.NewSigner(0),

		memVault:  vault.NewMemory(),
		flowMem:   flow.NewMemory(),
		replicaID: newReplicaID(),
		started:   time.Now(),
	}
	g.closing, g.stopReload = context.WithCancel(context.Background())
	g.eps = newEndpoints(g)
	g.trust = &trust.Checker{Log: g.log, Metrics: opts.Metrics}
	g.status.AddSection("state", g.stateStatus)
	g.status.AddSection("trust", g.trustStatus)
	g.status.AddSection("credentials", g.credentialsStatus)
	g.status.AddSection("flows", g.flowsStatus)
	g.status.AddSection("interceptors", g.interceptorsStatus)
	g.relay = relaysite.NewService(g.log, opts.Metrics, g)
	g.plugins = &plugin.Host{
		Logger: g.log, MCP: endpoint.Clients{Endpoints: g.eps}, Compiler: opts.Compiler, Metrics: opts.Metrics, Slots: g.slots,
		Store:           g.store,
		ResourceUpdated: g.updated,
		Lists:           g,
		Kept:            plugin.NewKept(plugin.KeptLimits{}, g.log),
		Approve:         g.trust.Modules,
	}
	return g
}

// MCPServer is the MCP server of the endpoint stdio serves (the default
// endpoint without an endpoints section); nil before the first Apply.
func (g *Gateway) MCPServer() *server.MCPServer {
	if len(g.eps.all()) == 0 {
		return nil
	}
	return g.eps.Stdio().MCPServer()
}

// Endpoint is the endpoint called name, nil if none serves.
func (g *Gateway) Endpoint(name string) *endpoint.Endpoint {
	g.eps.mu.RLock()
	defer g.eps.mu.RUnlock()
	return g.eps.byName[name]
}

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
		if a, ok := c.Component.(component.Applier); ok {
			a.Apply(ctx)
		}
		if st, ok := c.Component.(component.Staler); ok && st.Stale() {
			stale = true
		}
	}
	if stale {
		g.swap(g.reindex(s))
	}
}

// swap makes s serve and publishes it to every endpoint, which tells
// its sessions what changed for them, then retires the previous
// snapshot, which it returns. Call with applyMu.
func (g *Gateway) swap(s *Snapshot) *Snapshot {
	old := g.cur.Swap(s)
	g.eps.publish(s)

	m := g.opts.Metrics
	m.Plugins.Set(float64(s.parts.plugins.Count()))
	m.Tools.Set(float64(len(s.index.Tools)))
	g.trust.SetMetrics(s.gate)
	var was *trust.Gate
	if old != nil {
		was = old.gate
	}
	g.trust.LogHeld(was, s.gate)
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

// Close waits (until ctx ends) for running calls, then releases the
// serving snapshot and every retired one.
func (g *Gateway) Close(ctx context.Context) error {
	defer g.audit.Close()
	// A reload still building compiles with the compiler closed below:
	// it is told to stop and waited for, and none starts after.
	g.stopReload()
	g.reloadMu.Lock() // the reload in flight has returned
	g.reloadMu.Unlock()
	if g.opts.ownCompiler {
		defer g.opts.Compiler.Close(context.WithoutCancel(ctx))
	}
	err := g.Drain(ctx)
	if err == nil {
		for _, e := range g.eps.all() {
			e.Close() // no call left to time out
		}
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
	g.eps.removing.Wait()
	return err
}

// errClosed is what a reload asked for after Close answers.
var errClosed = errors.New("the gateway is shutting down")

// lockReload serializes a reload (or a lock's build) with the others and
// with Close: it returns ctx, ended too when Close starts, and the
// function that ends the hold; or errClosed once Close ran.
func (g *Gateway) lockReload(ctx context.Context) (context.Context, func(), error) {
	g.reloadMu.Lock()
	if g.closing.Err() != nil {
		g.reloadMu.Unlock()
		return nil, nil, errClosed
	}
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(g.closing, cancel)
	return ctx, func() {
		stop()
		cancel()
		g.reloadMu.Unlock()
	}, nil
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
