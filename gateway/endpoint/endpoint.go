// Package endpoint publishes the gateway's catalog as MCP servers. An
// Endpoint is one curated server (the endpoints section,
// docs/endpoints.md): its own mcp-go server, its selection over the
// serving snapshot's index, its sessions with their views,
// subscriptions and hooks, and its HTTP handler. The gateway keeps the
// list of endpoints and publishes each new snapshot to every one of
// them (Publish); how each endpoint's lists, sessions and list_changed
// follow is this package's alone.
//
// Without an endpoints section the gateway has one endpoint, "default",
// selecting everything: its index is the snapshot's own.
package endpoint

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/gateway/envelope"
	"github.com/wasmgate/wasmgate/gateway/search/rerank"
	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/internal/lograte"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/metrics"
)

// Catalog is the serving snapshot as an endpoint sees it (the gateway's
// Snapshot): every source's index, the policy and stdio principal, and
// a hold on it while a call runs.
type Catalog interface {
	envelope.State // Index is every source's
	envelope.FlowState
	envelope.InterceptorState
	// Acquire holds the catalog for a call (false: it was retired;
	// load the serving one again); Release ends the hold.
	Acquire() bool
	Release()
	// Overlay is the whole index as session sees it (a plugin of
	// instances: session whose session's instance relisted), with what
	// it refused; Index() when the session sees the shared lists.
	Overlay(session string) (*source.Index, []error)
	// Sources are the catalog's sources, in config order.
	Sources() []source.Source
	// Conf is the config the catalog was built from.
	Conf() *loader.Config
	// Ranker is the discovery.ranker of the endpoint named endpoint,
	// nil when it has none.
	Ranker(endpoint string) rerank.Ranker
}

// The bounds of tasks (docs/config.md, limits.task_timeout).
const (
	MaxRunningTasks = 256
	MaxKeptTasks    = 4096
	TaskResultTTL   = 10 * time.Minute
	MaxTaskTTL      = time.Hour
)

// Options are what an Endpoint is made of.
type Options struct {
	Config  loader.Endpoint
	Name    string // serverInfo.name (server.name)
	Version string
	// Custom is true for an endpoint of an endpoints section: its
	// capabilities follow its selection and its title and instructions
	// are served. False for the default endpoint, which answers as the
	// gateway did before endpoints.
	Custom  bool
	Logger  *slog.Logger
	Metrics *metrics.Metrics
	// Envelope are the envelope's shared parts (limiters, observers,
	// tracer, signer); New sets Begin and Endpoint.
	Envelope envelope.Options
	// Calls counts the gateway's running calls, for shutdown.
	Calls *atomic.Int64
}

// Endpoint is one published MCP server. Safe for concurrent use.
type Endpoint struct {
	name string
	o    Options
	log  *slog.Logger
	m    *metrics.Metrics
	mcp  *server.MCPServer
	env  *envelope.Envelope

	cfg atomic.Pointer[loader.Endpoint]
	cur atomic.Pointer[published] // nil once removed

	mu       sync.Mutex // serializes Publish and SessionChanged
	sessions sessions
	subs     subscriptions
	running  atomic.Int64 // its calls running now
	removed  atomic.Bool

	found     foundTools       // what each session's searches found (search mode)
	rankerLog *lograte.Limiter // a failing ranker's warnings
}

// New returns an endpoint that serves nothing until Publish.
func New(o Options) *Endpoint {
	e := &Endpoint{name: o.Config.Name, o: o, log: o.Logger.With("endpoint", o.Config.Name), m: o.Metrics,
		sessions: sessions{m: map[string]viewer{}}, subs: subscriptions{m: map[string]map[string]bool{}},
		rankerLog: lograte.New(1, 10*time.Second, func() { o.Metrics.LogSuppressed.WithLabelValues("ranker").Inc() })}
	cfg := o.Config
	e.cfg.Store(&cfg)
	eo := o.Envelope
	eo.Begin, eo.Endpoint = e.begin, o.Config.Name
	e.env = envelope.New(eo)
	resources, prompts := true, true
	if o.Custom {
		resources, prompts = admits(cfg.Resources), admits(cfg.Prompts)
	}
	opts := []server.ServerOption{server.WithToolCapabilities(true)}
	if resources {
		opts = append(opts, server.WithResourceCapabilities(true, true))
		opts = append(opts, e.skillsOptions()...)
	}
	if prompts {
		opts = append(opts, server.WithPromptCapabilities(true))
	}
	opts = append(opts, server.WithLogging())
	if resources || prompts {
		opts = append(opts, server.WithCompletions(),
			server.WithPromptCompletionProvider(envelope.Completer{E: e.env}),
			server.WithResourceCompletionProvider(envelope.Completer{E: e.env}))
	}
	opts = append(opts,
		server.WithRecovery(),
		server.WithResourceRecovery(),
		server.WithHooks(e.hooks()),
		// The list hooks (lists.go) return new lists, never change the
		// tools of one in place.
		server.WithSharedToolList(),
		server.WithSubscribeFilter(e.subscribeFilter),
		// Tasks (tools of plugins with limits.task_timeout): each seen only
		// by the principal that started it, at most MaxRunningTasks running
		// and MaxKeptTasks kept, results dropped after TaskResultTTL (or
		// the client's ttl, up to MaxTaskTTL).
		server.WithTaskCapabilities(true, true, true),
		server.WithTaskOwner(e.taskOwner),
		server.WithTaskPolicy(e.taskPolicy),
		server.WithMaxConcurrentTasks(MaxRunningTasks),
		server.WithMaxTasks(MaxKeptTasks),
		server.WithTaskTTL(TaskResultTTL.Milliseconds(), MaxTaskTTL.Milliseconds()),
	)
	e.mcp = server.NewMCPServer(cmp.Or(o.Name, "wasmgate"), o.Version, opts...)
	if o.Custom {
		e.mcp.SetIdentity(cfg.Title, cfg.Instructions)
	}
	return e
}

// Name is the endpoint's name.
func (e *Endpoint) Name() string { return e.name }

// Config is the endpoint's configuration now.
func (e *Endpoint) Config() loader.Endpoint { return *e.cfg.Load() }

// MCPServer is the endpoint's MCP server (stdio serves one).
func (e *Endpoint) MCPServer() *server.MCPServer { return e.mcp }

// Envelope runs the endpoint's calls.
func (e *Endpoint) Envelope() *envelope.Envelope { return e.env }

// Replaces reports whether cfg cannot be applied to e in place: its
// path or the kinds it publishes (its capabilities, fixed for the life
// of its MCP server) differ. The gateway then removes e and adds a new
// endpoint.
func (e *Endpoint) Replaces(cfg loader.Endpoint) bool {
	old := e.cfg.Load()
	if !e.o.Custom {
		return false // the default endpoint follows transports.http.path in the listener
	}
	kinds := func(c *loader.Endpoint) [2]bool { return [2]bool{admits(c.Resources), admits(c.Prompts)} }
	return old.Path != cfg.Path || kinds(old) != kinds(&cfg)
}

// admits reports whether sel can select anything at all: an include,
// and no exclude of everything. An endpoint announces the resources or
// prompts capability only if its selection of them admits something.
func admits(sel loader.Selection) bool {
	return len(sel.Include) > 0 && !slices.Contains(sel.Exclude, "*")
}

// Current is what the endpoint serves now, as the envelope's state; nil
// before the first Publish and once removed.
func (e *Endpoint) Current() envelope.State {
	if p := e.cur.Load(); p != nil {
		return p
	}
	return nil
}

// Index is the endpoint's selection of the serving catalog (nil before
// the first Publish and once removed).
func (e *Endpoint) Index() *source.Index {
	if p := e.cur.Load(); p != nil {
		return p.index
	}
	return nil
}

// Publish makes the endpoint serve cat, selected by cfg: its lists
// follow (mcp-go tells every session of a list that changed), each
// session's own view is routed again, and a session whose policy-
// filtered view changed while the lists did not is told alone. The
// gateway calls it for every snapshot it serves, before it retires the
// previous one.
func (e *Endpoint) Publish(cat Catalog, cfg loader.Endpoint) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.removed.Load() {
		return
	}
	prevCfg := e.cfg.Swap(&cfg)
	if e.o.Custom && (prevCfg.Title != cfg.Title || prevCfg.Instructions != cfg.Instructions) {
		e.mcp.SetIdentity(cfg.Title, cfg.Instructions)
	}
	sel := newSelector(cfg, e.o.Custom)
	p := &published{cat: cat, cfg: &cfg, sel: sel, index: cat.Index().Select(sel)}
	old := e.cur.Load()
	tools := toolsDiffer(old, p)
	p.find = searchTools(old, p, tools)
	if p.find != nil {
		e.m.ToolSearchIndexSize.WithLabelValues(e.name).Set(float64(p.find.idx.Len()))
	} else if old != nil && old.find != nil {
		e.m.ToolSearchIndexSize.DeleteLabelValues(e.name)
	}
	e.cur.Store(p)
	// A change of what is pinned changes every session's list too.
	relist := tools || (old != nil && !slices.Equal(old.cfg.Discovery.Pinned, cfg.Discovery.Pinned))
	sent := e.syncRegistry(old, p, relist)
	e.routeSessions(p)
	e.notifyViews(old, p, sent)
}

// Remove stops the endpoint: new calls are refused at once; once the
// running ones have finished (or ctx ends), its sessions end, so that
// their next request gets 404 as an expired session's does. The gateway
// has taken its path off the listener first. sh is its HTTP server, nil
// when it has none.
func (e *Endpoint) Remove(ctx context.Context, sh *server.StreamableHTTPServer) {
	e.mu.Lock()
	e.removed.Store(true)
	e.cur.Store(nil)
	e.m.ToolSearchIndexSize.DeleteLabelValues(e.name)
	e.mu.Unlock()
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
wait:
	for e.running.Load() > 0 {
		select {
		case <-t.C:
		case <-ctx.Done():
			e.log.Warn("endpoint removed with calls still running; ending its sessions", "running", e.running.Load())
			break wait
		}
	}
	if sh != nil {
		sh.CloseSessions(ctx)
	}
	if e.running.Load() == 0 {
		e.env.Close()
	}
	e.log.Info("endpoint removed; its sessions ended")
}

// Close stops the envelope's timer; call it when no call is running.
func (e *Endpoint) Close() { e.env.Close() }

// begin holds the catalog the endpoint serves for one call; it is the
// envelope's Begin.
func (e *Endpoint) begin() (envelope.State, func(), error) {
	e.o.Calls.Add(1)
	e.running.Add(1)
	for {
		p := e.cur.Load()
		if p == nil {
			e.running.Add(-1)
			e.o.Calls.Add(-1)
			if e.removed.Load() {
				return nil, nil, fmt.Errorf("the endpoint %q was removed", e.name)
			}
			return nil, nil, errors.New("gateway has no configuration yet")
		}
		if p.cat.Acquire() {
			return p, func() { p.cat.Release(); e.running.Add(-1); e.o.Calls.Add(-1) }, nil
		}
	}
}

// Allowed reports whether caller c may use the endpoint: its access
// section names c's principal or one of its groups, or is empty.
func (e *Endpoint) Allowed(c envelope.Caller) bool {
	return e.cfg.Load().Access.Allows(c.Principal.Name, c.Principal.Groups)
}

// Sessions counts the endpoint's live sessions by transport.
func (e *Endpoint) Sessions() (http, stdio int) {
	e.sessions.mu.Lock()
	defer e.sessions.mu.Unlock()
	for _, v := range e.sessions.m {
		if v.stdio {
			stdio++
		} else {
			http++
		}
	}
	return http, stdio
}

// Has reports whether session is one of the endpoint's.
func (e *Endpoint) Has(session string) bool {
	e.sessions.mu.Lock()
	defer e.sessions.mu.Unlock()
	_, ok := e.sessions.m[session]
	return ok
}
