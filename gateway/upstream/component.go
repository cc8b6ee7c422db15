// Package upstream serves the MCP servers of the upstreams section as
// tool sources: a local server started as a command (stdio, in its own
// process group, with exactly the environment the config gives it) or a
// remote one (Streamable HTTP, falling back to HTTP+SSE). Each upstream
// is supervised: a process that exits, or a connection that breaks, is
// started again with exponential backoff; its calls in flight fail with
// an isError that names the upstream, and its tools stay listed while it
// restarts. What the upstream lists changes at run time (list_changed):
// the gateway indexes the serving snapshot again, as for relay sites.
//
// A server is shared by the snapshots whose config leaves it unchanged
// (reference-counted, like a plugin's pool): a reload that does not touch
// an upstream keeps its process and sessions; one that changes it starts
// a new one, and the old one stops once the calls of the snapshot that
// served it have finished.
package upstream

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wasmgate/wasmgate/auth/vault"
	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/gateway/component"
	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/egress"
	"github.com/wasmgate/wasmgate/metrics"
)

// Host is what upstream servers need of the gateway; it holds no state of
// its own, so a new one may be made for every snapshot.
type Host struct {
	Logger  *slog.Logger
	MCP     source.Clients // notifications and requests to downstream clients
	Metrics *metrics.Metrics
	// Lists is told that an upstream's lists changed (it said
	// list_changed, or came back with other lists).
	Lists source.Lists
	// ResourceUpdated tells the subscribers of an exposed URI it changed.
	ResourceUpdated func(uri string)
	// Own are the gateway's listeners, which no upstream's HTTP client
	// connects to (nil: none known).
	Own *egress.Listeners
	// ParkTTL is how long a call of a 2026-07-28 client waits for the
	// client's answer to its upstream's request (server.request_state.ttl);
	// nil: roundtrip.DefaultTTL.
	ParkTTL func() time.Duration
	// Principal is the name of the principal making the call of ctx,
	// which bounds its parked calls; nil: every call is one principal's.
	Principal func(ctx context.Context) string
	// Grants is the credentials vault serving now (nil: none), where the
	// upstreams with auth.user_oauth keep each user's grant.
	Grants func() *vault.Vault
	// CatalogDir is where each upstream's lists are kept for the next
	// start (catalog.go); "": nowhere.
	CatalogDir string
}

// Component is the upstreams section of one snapshot.
type Component struct {
	h       *Host
	prev    map[string]*shared // the serving snapshot's, by name
	sources []*Source
	seen    []uint64 // each source's list generation when Sources indexed it
	gens    atomic.Pointer[[]uint64]
}

// New is an empty upstreams component.
func New(h *Host) *Component { return &Component{h: h} }

func (c *Component) Name() string { return "upstreams" }

var (
	_ component.Component           = (*Component)(nil)
	_ component.Reuser[*Component]  = (*Component)(nil)
	_ component.Retirer[*Component] = (*Component)(nil)
	_ component.Differ[*Component]  = (*Component)(nil)
	_ component.SourceProvider      = (*Component)(nil)
	_ component.Dynamic             = (*Component)(nil)
	_ component.Staler              = (*Component)(nil)
	_ component.Applier             = (*Component)(nil)
)

// Reuse remembers the serving snapshot's servers, for Provision.
func (c *Component) Reuse(p *Component) {
	c.prev = map[string]*shared{}
	for _, s := range p.sources {
		c.prev[s.spec.Name] = s.srv
	}
}

// Provision starts every upstream whose config changed (or is new), and
// takes over the serving snapshot's unchanged ones. The new ones start
// together, so a load waits for the slowest eager upstream rather than
// for all of them in turn. An eager upstream that cannot be started and
// initialized fails the build, naming it.
func (c *Component) Provision(ctx context.Context, cfg *loader.Config) error {
	errs := make([]error, len(cfg.Upstreams))
	srvs := make([]*shared, len(cfg.Upstreams))
	var wg sync.WaitGroup
	for i, spec := range cfg.Upstreams {
		key, secrets, err := connKey(cfg.File, spec)
		if err != nil {
			errs[i] = err
			continue
		}
		if s := c.prev[spec.Name]; s != nil && s.key == key && s.refs.Retain() { // else it is stopping: start it anew
			c.h.Logger.Debug("upstream unchanged: its process and sessions are kept", "upstream", spec.Name)
			srvs[i] = s
			s.setView(spec)
			continue
		}
		wg.Go(func() { srvs[i], errs[i] = startServer(ctx, c.h, cfg.File, spec, key, secrets) })
	}
	wg.Wait()
	for i, spec := range cfg.Upstreams {
		if srvs[i] != nil {
			c.sources = append(c.sources, &Source{spec: spec, srv: srvs[i]})
		}
	}
	c.prev = nil
	return errors.Join(errs...)
}

// Sources are the upstreams, in config order, each as what it lists now.
func (c *Component) Sources() []source.Source {
	out := make([]source.Source, len(c.sources))
	gens := make([]uint64, len(c.sources))
	for i, s := range c.sources {
		gens[i] = s.srv.gen.Load()
		out[i] = s
	}
	c.gens.Store(&gens)
	return out
}

// Dynamic says that what upstreams list changes while they serve
// (list_changed): what one cannot publish is reported, never a build
// error of a reindex.
func (c *Component) Dynamic() bool { return true }

// Stale reports whether an upstream's lists changed since Sources.
func (c *Component) Stale() bool {
	g := c.gens.Load()
	if g == nil {
		return false
	}
	for i, s := range c.sources {
		if s.srv.gen.Load() != (*g)[i] {
			return true
		}
	}
	return false
}

// Apply makes the sources' prefixes current for resource updates, and
// their redact_secrets for what their servers send clients.
func (c *Component) Apply(context.Context) {
	for _, s := range c.sources {
		s.srv.applyView(s.spec)
	}
}

// Retire forgets the metrics of upstreams that next does not serve.
func (c *Component) Retire(n *Component) {
	for _, s := range c.sources {
		if n == nil || !slices.ContainsFunc(n.sources, func(q *Source) bool { return q.spec.Name == s.spec.Name }) {
			c.h.Metrics.UpstreamUp.DeleteLabelValues(s.spec.Name)
			c.h.Metrics.UpstreamNotificationsDropped.DeletePartialMatch(map[string]string{"upstream": s.spec.Name})
			c.h.Metrics.UpstreamRequestsRefused.DeletePartialMatch(map[string]string{"upstream": s.spec.Name})
			c.h.Metrics.UpstreamCallsRefused.DeletePartialMatch(map[string]string{"upstream": s.spec.Name})
			c.h.Metrics.UpstreamIdentityTokens.DeletePartialMatch(map[string]string{"upstream": s.spec.Name})
			c.h.Metrics.UpstreamIdentityFailures.DeletePartialMatch(map[string]string{"upstream": s.spec.Name})
		}
	}
}

// Cleanup releases c's hold on every upstream; one no snapshot serves is
// stopped (its processes killed, its sessions closed).
func (c *Component) Cleanup(ctx context.Context) {
	for _, s := range c.sources {
		s.srv.release(ctx)
	}
}

// Changes says what changed from prev's upstreams, for the status page.
func (c *Component) Changes(p *Component) []string {
	old := map[string]*Source{}
	if p != nil {
		for _, s := range p.sources {
			old[s.spec.Name] = s
		}
	}
	var out []string
	for _, s := range c.sources {
		switch q, ok := old[s.spec.Name]; {
		case !ok:
			out = append(out, fmt.Sprintf("upstream %s added", s.spec.Name))
		case q.srv != s.srv:
			out = append(out, fmt.Sprintf("upstream %s restarted (its connection settings changed)", s.spec.Name))
		}
		delete(old, s.spec.Name)
	}
	for _, name := range slices.Sorted(maps.Keys(old)) {
		out = append(out, fmt.Sprintf("upstream %s removed", name))
	}
	return out
}

// connKey identifies what an upstream's processes and sessions were
// started from: everything but its prefix, curation and timeout (which
// each snapshot applies itself), with the secrets it reads hashed in, so
// a rotated token file reconnects. It returns the secrets read.
func connKey(file string, spec loader.UpstreamSpec) (string, secrets, error) {
	sec, err := readSecrets(file, spec)
	if err != nil {
		return "", sec, err
	}
	var ca []byte
	if f := spec.TLS.CAFile; f != "" {
		// Its contents are part of the key: a saved CA file reconnects.
		if ca, err = os.ReadFile(f); err != nil {
			return "", sec, &config.Error{File: file, Key: spec.Key + ".tls.ca_file", Msg: err.Error()}
		}
	}
	h := sha256.Sum256([]byte(sec.bearer.Value() + "\x00" + sec.clientSecret.Value() + "\x00" + string(ca) +
		"\x00" + sec.idSecret.Value() + "\x00" + sec.idKey.Value()))
	b, _ := json.Marshal(struct {
		Command     []string
		Env         []string
		Cwd         string
		Sandbox     *loader.UpstreamSandbox
		URL         string
		Headers     map[string]string
		Auth        loader.UpstreamAuth
		TLS         loader.UpstreamTLS
		Follow      bool
		Session     string
		Start       string
		Concurrency int
		MaxMessage  loader.ByteSize
		MaxTools    int
		Secrets     string
	}{spec.Command, spec.ChildEnv, spec.Cwd, spec.Sandbox, spec.URL, spec.Headers, spec.Auth, spec.TLS, spec.FollowRedirects, spec.Session, spec.Start,
		spec.Limits.Concurrency, spec.Limits.MaxMessage, spec.Limits.MaxTools, hex.EncodeToString(h[:])})
	return string(b), sec, nil
}
