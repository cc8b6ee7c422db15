// Package relay lets web pages provide MCP tools, resources and prompts to
// the gateway through an authenticated WebSocket.
//
// Each entry of relay.sites in gateway.yaml is a site: pages connect to
// <relay.path>/<site> on the MCP HTTP listener, prove they know the site's
// token (a mutual HMAC challenge-response; see docs/relay-protocol.md), and
// register what they provide. One authenticated page serves a site at a
// time. A site is a tool source for the gateway (Site implements the same
// methods as gateway.Source): calls are forwarded to the page as frames
// with ids, and their results come back the same way.
//
// Relay owns the live state (connections, what each page registered);
// Prepare turns a relay section into a Plan (secrets read, nothing
// changed) and Apply makes a Plan current, so a reload that fails changes
// nothing. The package never imports the gateway: it tells it through
// Options.OnChange that a site's set of tools changed.
package relay

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/coder/websocket"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/internal/lograte"
	"github.com/wasmgate/wasmgate/internal/netutil"
	"github.com/wasmgate/wasmgate/metrics"
)

//go:embed bridge.js
var bridgeSource []byte

// Options are what a Relay is built from.
type Options struct {
	Logger  *slog.Logger
	Metrics *metrics.Metrics
	// OnChange is called when what a site provides changed (a page
	// registered, or left). It runs on the page's connection, never with
	// a lock of the relay held, and returns the problems of publishing
	// the site's set (a name another source already provides), which the
	// page is told.
	OnChange func(site string) []string
}

// Listener describes the listener the relay is served on.
type Listener struct {
	Addr string // host:port, as configured or bound
	TLS  bool
}

// Secure reports whether a token sent in clear is acceptable on l: it
// is TLS or bound to loopback.
func (l Listener) Secure() bool { return l.TLS || l.Loopback() }

// Loopback reports whether l is bound to a loopback address.
func (l Listener) Loopback() bool { return netutil.LoopbackListen(l.Addr) }

// Relay is the WebSocket endpoint and the live state of every site.
type Relay struct {
	opts Options
	log  *slog.Logger
	m    *metrics.Metrics

	// ctx ends every connection when Close gives up waiting.
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	path     string
	sites    map[string]*siteState // the applied sites, by name
	order    []string              // their names in configuration order
	live     map[*bridge]struct{}  // every connection, authenticated or not
	listener Listener
	closing  bool
	conns    sync.WaitGroup // ServeHTTP calls holding a WebSocket

	gen atomic.Uint64 // bumped whenever a site's registered set changes

	// The other replicas (SetMesh, mesh.go): nil with backend memory.
	meshMu sync.Mutex
	mesh   atomic.Pointer[meshState]
	meshWG sync.WaitGroup // the goroutines of every mesh set

	// Before the handshake (limits.go), under mu: the caps, the slots
	// taken in total and by site, the clients that failed handshakes.
	unauth      Unauthenticated
	unauthTotal int
	unauthSite  map[string]int
	clients     map[clientID]*client
	// refusals bounds the log lines of refused connections.
	refusals *lograte.Limiter
}

// New returns a Relay with no sites; Apply a Plan to serve some.
func New(opts Options) *Relay {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Metrics == nil {
		opts.Metrics = metrics.New("", "")
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := opts.Metrics
	return &Relay{
		opts:   opts,
		log:    opts.Logger.With("component", "relay"),
		m:      m,
		ctx:    ctx,
		cancel: cancel,
		path:   DefaultPath,
		sites:  map[string]*siteState{},
		live:   map[*bridge]struct{}{},
		unauth: Unauthenticated{MaxUnauthenticated: DefaultMaxUnauthenticated, FailedAuthBurst: DefaultFailedAuthBurst,
			FailedAuthEvery: config.Duration(DefaultFailedAuthEvery)},
		unauthSite: map[string]int{},
		clients:    map[clientID]*client{},
		refusals: lograte.New(lograte.DefaultBurst, lograte.DefaultEvery, func() {
			m.LogSuppressed.WithLabelValues("relay").Inc()
		}),
	}
}

// Generation changes whenever a site's registered set changes; the
// gateway compares it to know whether what it indexed is current.
func (r *Relay) Generation() uint64 { return r.gen.Load() }

// SetListener records the address the relay is served on (wu_conexion
// reports it).
func (r *Relay) SetListener(l Listener) {
	r.mu.Lock()
	r.listener = l
	r.mu.Unlock()
}

func (r *Relay) listenerInfo() Listener {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.listener
}

// Plan is a relay section ready to apply: every site with its token read.
type Plan struct {
	cfg    Config
	states []*siteState
	tokens [][]byte
	sites  []*Site
}

// Sites are the plan's sites as tool sources, in configuration order.
func (p *Plan) Sites() []*Site { return p.sites }

// Path is relay.path of the plan.
func (p *Plan) Path() string { return p.cfg.Path }

// Prepare reads the secrets of cfg (a normalized relay section of the
// config file at file) and checks what depends on the listener ln. It
// changes nothing that serves; errors are *config.Error naming the key.
func (r *Relay) Prepare(file string, cfg Config, ln Listener) (*Plan, error) {
	p := &Plan{cfg: cfg}
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, &config.Error{File: file, Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	r.mu.Lock()
	current := r.sites
	r.mu.Unlock()
	for _, sc := range cfg.Sites {
		token, err := readToken(file, sc)
		if err != nil {
			errs = append(errs, err)
		}
		if sc.Protocol == ProtocolWULegacy && !ln.Secure() {
			bad(sc.Key+".protocol", "wu-legacy pages send the token in clear: the MCP HTTP listener must be loopback or TLS (transports.http.listen is %s)", ln.Addr)
		}
		if sc.Insecure && !ln.Loopback() {
			bad(sc.Key+".insecure", "pages without a token are allowed only on a loopback listener (transports.http.listen is %s)", ln.Addr)
		}
		st := current[sc.Name]
		if st == nil {
			st = newSiteState(r, sc.Name)
		}
		p.states = append(p.states, st)
		p.tokens = append(p.tokens, token)
		p.sites = append(p.sites, &Site{st: st, conf: sc})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return p, nil
}

// readToken reads a site's token from where its config points (none:
// wu-legacy with insecure: true) and checks its length. Messages name the
// variable or file, never the token.
func readToken(file string, sc SiteConfig) ([]byte, error) {
	ref := sc.TokenRef()
	v, err := ref.Read(file, nil)
	if err != nil || !v.IsSet() {
		return nil, err
	}
	key := ref.Key + "." + ref.FileKey
	if ref.Env != "" {
		key = ref.Key + "." + ref.EnvKey
	}
	switch n := len(v.Value()); {
	case n < MinTokenBytes:
		return nil, &config.Error{File: file, Key: key, Msg: fmt.Sprintf("the token in %s is %d bytes; use at least %d (e.g. openssl rand -hex 32)", ref.From(), n, MinTokenBytes)}
	case n > 4096:
		return nil, &config.Error{File: file, Key: key, Msg: fmt.Sprintf("the token in %s is longer than 4096 bytes", ref.From())}
	}
	return []byte(v.Value()), nil
}

// Apply makes p current: new sites accept pages, a removed site's page
// is disconnected, a changed token applies to the next handshake, a page
// whose origin or protocol is no longer allowed is disconnected.
func (r *Relay) Apply(p *Plan) {
	r.mu.Lock()
	r.path = p.cfg.Path
	if u := p.cfg.Unauthenticated; u.MaxUnauthenticated > 0 && u.FailedAuthBurst > 0 && u.FailedAuthEvery > 0 {
		r.unauth = u
	}
	old := r.sites
	r.sites = make(map[string]*siteState, len(p.states))
	r.order = r.order[:0]
	for _, st := range p.states {
		r.sites[st.name] = st
		r.order = append(r.order, st.name)
	}
	r.mu.Unlock()
	for i, st := range p.states {
		st.apply(p.cfg.Sites[i], p.tokens[i])
		r.m.RelayBridges.WithLabelValues(st.name)
		r.m.RelayHandshakes.WithLabelValues(st.name, "ok")
	}
	for name, st := range old {
		if r.sites[name] != st {
			st.shutdown(closeSiteRemoved, "site removed from the gateway configuration")
		}
	}
}

// Close disconnects every page (going away) and waits until their
// connections have ended or ctx ends, then cuts what is left.
func (r *Relay) Close(ctx context.Context) {
	r.mu.Lock()
	r.closing = true
	live := make([]*bridge, 0, len(r.live))
	for b := range r.live {
		live = append(live, b)
	}
	r.mu.Unlock()
	for _, b := range live {
		b.shutdown(websocket.StatusGoingAway, "gateway shutting down")
	}
	done := make(chan struct{})
	go func() {
		r.conns.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		r.cancel()
		<-done
	}
	r.stopMesh()
	r.cancel()
}

func (r *Relay) site(name string) *siteState {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sites[name]
}

// track records a new connection; false when the relay is closing.
func (r *Relay) track(b *bridge) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closing {
		return false
	}
	r.live[b] = struct{}{}
	r.conns.Add(1)
	return true
}

func (r *Relay) untrack(b *bridge) {
	r.mu.Lock()
	delete(r.live, b)
	r.mu.Unlock()
	r.conns.Done()
}

// changed records that site's registered set changed and tells the
// gateway; it returns what the gateway reported about the site.
func (r *Relay) changed(site string) []string {
	r.gen.Add(1)
	if r.opts.OnChange == nil {
		return nil
	}
	return r.opts.OnChange(site)
}

// handshake counts one connection attempt's outcome.
func (r *Relay) handshake(site, outcome string) {
	r.m.RelayHandshakes.WithLabelValues(site, outcome).Inc()
}
