package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/wasmgate/wasmgate/auth/upstreamauth"
	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/internal/lograte"
	"github.com/wasmgate/wasmgate/internal/refcount"
	"github.com/wasmgate/wasmgate/internal/toolresult"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/abi"
)

// Backoff between two starts of an upstream session.
const (
	minBackoff = 100 * time.Millisecond
	maxBackoff = 30 * time.Second
	// pingEvery is how often a remote upstream's shared session is
	// pinged, to notice one that stopped answering.
	pingEvery = 15 * time.Second
)

// secrets are what an upstream authenticates with.
type secrets struct {
	bearer       config.Secret
	clientSecret config.Secret
	// The per-user modes' client secret, or private key (PEM).
	idSecret config.Secret
	idKey    config.Secret
}

func readSecrets(file string, spec loader.UpstreamSpec) (secrets, error) {
	var s secrets
	var err error
	if s.bearer, err = spec.Auth.BearerRef().Read(file, nil); err != nil {
		return s, err
	}
	if o := spec.Auth.OAuth; o != nil {
		if s.clientSecret, err = o.SecretRef().Read(file, nil); err != nil {
			return s, err
		}
	}
	var ca *loader.ClientAuth
	var key string
	switch a := spec.Auth; {
	case a.TokenExchange != nil:
		ca, key = &a.TokenExchange.ClientAuth, a.TokenExchange.Key
	case a.IdentityAssertion != nil:
		ca, key = &a.IdentityAssertion.ClientAuth, a.IdentityAssertion.Key
	case a.UserOAuth != nil:
		s.idSecret, err = a.UserOAuth.SecretRef().Read(file, nil)
		return s, err
	}
	if ca == nil {
		return s, nil
	}
	if s.idSecret, err = ca.SecretRef(key).Read(file, nil); err != nil {
		return s, err
	}
	if p := ca.PrivateKeyJWT; p != nil {
		b, rerr := os.ReadFile(p.KeyFile)
		if rerr != nil {
			return s, &config.Error{File: file, Key: key + ".private_key_jwt.key_file", Msg: rerr.Error()}
		}
		s.idKey = config.NewSecret(string(b))
	}
	return s, nil
}

// shared is one upstream server as the snapshots that serve it share it:
// its shared session (the one that lists, and runs every call with
// session: shared), the per-client sessions, the concurrency limit, the
// lists as last read.
type shared struct {
	h       *Host
	file    string
	spec    loader.UpstreamSpec // as started; prefix and timeout come from each snapshot's Source
	key     string
	secrets secrets
	refs    refcount.Count

	ctx    context.Context // ends when the server stops
	cancel context.CancelFunc
	wg     sync.WaitGroup

	sem  chan struct{}
	main *conn

	desc          atomic.Pointer[abi.Descriptor]
	gen           atomic.Uint64 // bumped when desc changes
	prefix        atomic.Pointer[string]
	redactSecrets atomic.Bool // redact_secrets, from each snapshot's spec

	mu      sync.Mutex
	clients map[string]*conn // per_client: by downstream session id

	restarts atomic.Int64
	subs     sync.Map // own resource URIs subscribed on the shared session

	progress sync.Map // upstream progress token -> progressTarget (progress.go)

	stderrLog *lograte.Limiter
	refusals  *lograte.Limiter // log lines of what an upstream or a client was refused
	relistMu  sync.Mutex
	notes     *notifier
	// listErr is why the lists last read were refused (limits.max_tools),
	// for the status page; nil when they were not.
	listErr atomic.Pointer[string]

	parkedMu sync.Mutex
	parked   map[string]*parkedCall // calls of 2026-07-28 clients waiting for their answer, by id

	// What its shared session's server sends outside a call's stream is
	// attributed to the one call running (attribute.go).
	running  inflight
	logLevel atomic.Int32 // 1 + levelRank of the most verbose level a client asked for; 0: none
	levelMu  sync.Mutex

	hcMu   sync.Mutex
	hc     *http.Client // a remote upstream's, made at its first connection
	hcIdle func()       // closes its idle connections

	// ident gets each caller's token for an upstream with a per-user
	// mode of auth (identity.go); nil for the others.
	ident upstreamauth.Source
	// tokens is wasmgate_upstream_identity_tokens_total of its mode.
	tokens prometheus.Counter
	// The calls that got no caller's token, and the newest one's error,
	// for the status page.
	idFailures atomic.Int64
	idLastErr  atomic.Pointer[string]

	credsOnce sync.Once
	creds     *credentials // what its errors never show (outbound.go)

	// catalog is the file its lists are kept in between runs
	// (catalog.go); "" without a cache directory.
	catalog string
	// cached: desc is the catalog kept by an earlier run, not yet
	// confirmed by the upstream (the status page says stale).
	cached atomic.Bool
	// A lazy upstream's (start: lazy): demand wakes its shared session
	// when a call needs it; idle is set while it is stopped for want of
	// calls; idleTimeout is idle_timeout, from each snapshot's spec.
	demand      chan struct{}
	idle        atomic.Bool
	idleTimeout atomic.Int64
}

// startServer starts the upstream's shared session: at once, with its
// initialize awaited (start: eager, a failure is the error returned), or
// in the background (start: background).
func startServer(ctx context.Context, h *Host, file string, spec loader.UpstreamSpec, key string, sec secrets) (*shared, error) {
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s := &shared{h: h, file: file, spec: spec, key: key, secrets: sec, ctx: sctx, cancel: cancel,
		sem: make(chan struct{}, spec.Limits.Concurrency), clients: map[string]*conn{}, parked: map[string]*parkedCall{},
		stderrLog: lograte.New(lograte.DefaultBurst, lograte.DefaultEvery, nil), notes: newNotifier(),
		refusals: lograte.New(lograte.DefaultBurst, lograte.DefaultEvery, nil)}
	s.refs.Init()
	s.setView(spec)
	h.Metrics.UpstreamUp.WithLabelValues(spec.Name).Set(0)
	if spec.Start == loader.StartLazy {
		s.demand = make(chan struct{}, 1)
	}
	s.loadCatalog(catalogPath(h.CatalogDir, file, spec.Name, key))
	var err error
	if s.ident, err = s.newIdentity(); err != nil {
		cancel()
		return nil, err
	}
	if s.ident != nil {
		s.tokens = h.Metrics.UpstreamIdentityTokens.WithLabelValues(spec.Name, spec.Auth.UserMode())
	}
	s.main = s.newConn("", nil)
	// An eager upstream whose catalog an earlier run kept is not waited
	// for either: its tools are served from the catalog meanwhile, and
	// a call waits for it (bounded by its timeout).
	if spec.Start == loader.StartEager && !s.cached.Load() {
		ictx, icancel := context.WithTimeout(ctx, time.Duration(spec.Limits.StartTimeout))
		err := s.main.connect(ictx)
		icancel()
		if err == nil {
			err = s.relist(ctx, false) // no snapshot serves s yet: the build reads its lists
		}
		if err != nil {
			s.stop(context.WithoutCancel(ctx))
			return nil, &config.Error{File: file, Key: spec.Key, Msg: fmt.Sprintf("upstream %q: %v", spec.Name, err)}
		}
	}
	s.wg.Add(1)
	go s.main.supervise()
	return s, nil
}

// setView records what the snapshot being built serves s as.
func (s *shared) setView(spec loader.UpstreamSpec) {
	if s.prefix.Load() == nil {
		s.applyView(spec)
	}
}

func (s *shared) applyView(spec loader.UpstreamSpec) {
	p := spec.Prefix
	s.prefix.Store(&p)
	s.redactSecrets.Store(spec.RedactSecrets)
	s.idleTimeout.Store(int64(spec.IdleTimeout))
}

// loadCatalog serves the catalog an earlier run kept at path, if any,
// until the upstream lists its own.
func (s *shared) loadCatalog(path string) {
	s.catalog = path
	if path == "" {
		return
	}
	d, saved, ok, err := readCatalog(path, s.name())
	if err != nil {
		s.h.Logger.Warn("upstream: the catalog kept by an earlier run is not used; the upstream's lists are read when it starts", "upstream", s.name(), "error", err)
		return
	}
	if !ok {
		return
	}
	s.desc.Store(&d)
	s.gen.Add(1)
	s.cached.Store(true)
	s.h.Logger.Info("upstream: serving the catalog kept by an earlier run until it answers", "upstream", s.name(),
		"tools", len(d.Tools), "saved", saved.Format(time.RFC3339))
}

// keepCatalog writes d as the catalog of s for the next run.
func (s *shared) keepCatalog(d abi.Descriptor) {
	if s.catalog == "" {
		return
	}
	if err := writeCatalog(s.catalog, s.name(), d, time.Now()); err != nil {
		s.refusals.Warn(s.h.Logger, "upstream: its catalog could not be kept for the next start", "upstream", s.name(), "error", err)
	}
}

func (s *shared) name() string { return s.spec.Name }

// release drops one snapshot's hold; the last one stops the server.
func (s *shared) release(ctx context.Context) {
	if s.refs.Release() {
		s.stop(ctx)
	}
}

// stop ends every session and process of s, and waits for its goroutines.
func (s *shared) stop(ctx context.Context) {
	s.cancel()
	s.mu.Lock()
	clients := s.clients
	s.clients = map[string]*conn{}
	s.mu.Unlock()
	for _, c := range clients {
		c.close()
	}
	s.main.close()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
	s.closeIdle()
	s.h.Logger.Debug("upstream stopped", "upstream", s.name())
}

// relist reads the upstream's lists through the shared session; when they
// differ from what s had, the gateway hears of it if publish (not while a
// build is starting s: the build reads them, under the lock a reindex
// takes).
func (s *shared) relist(ctx context.Context, publish bool) error {
	s.relistMu.Lock()
	defer s.relistMu.Unlock()
	cli := s.main.current()
	if cli == nil {
		return errors.New("not connected")
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(s.spec.Limits.StartTimeout))
	defer cancel()
	d, err := describe(ctx, cli, s.spec.Limits.MaxTools)
	if err != nil {
		msg := err.Error()
		s.listErr.Store(&msg)
		return err
	}
	s.listErr.Store(nil)
	old := s.desc.Load()
	// Whether or not they differ, its lists are now its own.
	defer s.cached.Store(false)
	if sameLists(old, &d) {
		if s.cached.Load() {
			s.h.Logger.Info("upstream: its lists are the catalog kept by the earlier run", "upstream", s.name())
		}
		return nil
	}
	for _, w := range d.Warnings { // once each time the lists change
		s.h.Logger.Warn("upstream lists: "+w, "upstream", s.name())
	}
	s.desc.Store(&d)
	s.gen.Add(1)
	if publish && s.h.Lists != nil {
		s.h.Lists.Changed(s.spec.Name)
	}
	s.keepCatalog(d)
	return nil
}

// sameLists reports whether a and b list the same (their warnings,
// which a kept catalog does not have, aside).
func sameLists(a, b *abi.Descriptor) bool {
	if a == nil || b == nil {
		return a == b
	}
	x, y := *a, *b
	x.Warnings, y.Warnings = nil, nil
	j, _ := json.Marshal(x)
	k, _ := json.Marshal(y)
	return string(j) == string(k)
}

// clientFor is the session a call made with ctx goes to: the shared one,
// or (session: per_client) the downstream session's own, opened now if
// this is its first call.
func (s *shared) connFor(ctx context.Context) (*conn, error) {
	if s.spec.Session != loader.SessionPerClient {
		return s.main, nil
	}
	ds := downstream(ctx)
	if ds == nil || ds.SessionID() == "" {
		// No session to own one (a 2026-07-28 stateless request, an
		// in-process call): the gateway's own session serves the call,
		// and refuses what the upstream asks of a client.
		return s.main, nil
	}
	id := ds.SessionID()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx.Err() != nil {
		return nil, fmt.Errorf("upstream %q is stopping", s.name())
	}
	if c, ok := s.clients[id]; ok {
		return c, nil
	}
	c := s.newConn(id, ds)
	s.clients[id] = c
	s.wg.Add(1)
	go c.supervise()
	return c, nil
}

// endSession closes the per-client session of a downstream session.
func (s *shared) endSession(id string) {
	s.mu.Lock()
	var ended []*conn
	if c, ok := s.clients[id]; ok {
		ended = append(ended, c)
		delete(s.clients, id)
	}
	if s.ident != nil && s.spec.Session == loader.SessionPerClient {
		for k, c := range s.clients { // a principal's session per downstream session (userConn)
			if strings.HasSuffix(k, "\x00"+id) {
				ended = append(ended, c)
				delete(s.clients, k)
			}
		}
	}
	s.mu.Unlock()
	for _, c := range ended {
		c.close()
	}
}

// acquire takes one of limits.concurrency slots.
func (s *shared) acquire(ctx context.Context) (func(), error) {
	select {
	case s.sem <- struct{}{}:
		return func() { <-s.sem }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// clientOptions are the options of an upstream client for conn c. The
// server-to-client requests of a per_client session go to its owner; the
// shared session of a per_client upstream declares the same capabilities
// (so the upstream lists the tools that need them): a request during a
// 2026-07-28 client's call there parks the call (park.go), others are
// refused, having no owner. A session: shared upstream over HTTP declares
// them too: a request on the stream of a call goes to that call's client
// (or parks a 2026-07-28 client's call), one on no call's stream (the
// session's GET stream, the old HTTP+SSE transport) to the one call in
// flight on the session, refused when there is not exactly one
// (attribute.go). Over stdio
// a shared session declares none of them, so the upstream does not ask: a
// stdio server's request does not say whose call it is.
func (s *shared) clientOptions(c *conn) []client.ClientOption {
	// Results are read by toolresult.Parse: mcp-go's own reading, a scan
	// for the commonest shape first (FuzzParse holds the two together).
	opts := []client.ClientOption{client.WithLegacyProtocolOnly(), client.WithToolResultParser(parseToolResult)}
	if s.spec.Session != loader.SessionPerClient && s.spec.Stdio() {
		return opts
	}
	f := &forwarder{s: s, c: c, byCall: s.spec.Session != loader.SessionPerClient}
	if f.byCall {
		a := attributing{f}
		return append(opts, client.WithSamplingHandler(a), client.WithElicitationHandler(a), client.WithRootsHandler(a))
	}
	return append(opts, client.WithSamplingHandler(f), client.WithElicitationHandler(f), client.WithRootsHandler(f))
}

// parseToolResult is mcp.ParseCallToolResult by toolresult.Parse.
func parseToolResult(raw *json.RawMessage) (*mcp.CallToolResult, error) {
	if raw == nil {
		return mcp.ParseCallToolResult(raw) // its error
	}
	return toolresult.Parse(*raw)
}
