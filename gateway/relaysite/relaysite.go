// Package relaysite serves the browser relay (package relay) as tool
// sources: each site of relay.sites is a source indexed with the others.
// What a site provides changes while the gateway runs (a page registers,
// or leaves); the relay says so, and the gateway indexes the serving
// snapshot again, so that sessions get list_changed as on a reload.
package relaysite

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/gateway/component"
	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/loader/lockfile"
	"github.com/wasmgate/wasmgate/metrics"
	"github.com/wasmgate/wasmgate/relay"
	"github.com/wasmgate/wasmgate/relay/relayconfig"
	"github.com/wasmgate/wasmgate/state"
)

// Service is the relay of one gateway: its WebSocket endpoint and pages,
// across snapshots.
type Service struct {
	r *relay.Relay

	meshMu sync.Mutex
	store  *state.Store // the store the relay shares its pages through
	mesh   *state.RelayMesh
}

// Share makes the relay share its pages with the other replicas through
// st (state.backend redis) as replica; nil: this replica alone. The
// state component calls it on Apply; the same store keeps its mesh.
func (sv *Service) Share(st *state.Store, replica string) {
	sv.meshMu.Lock()
	defer sv.meshMu.Unlock()
	if st == nil {
		sv.store, sv.mesh = nil, nil
		sv.r.SetMesh(nil)
		return
	}
	if st != sv.store {
		sv.store, sv.mesh = st, st.RelayMesh(replica)
	}
	sv.r.SetMesh(sv.mesh)
}

// NewService returns the relay; lists is told when a site's set
// changes (Changed, which returns what of that site could not be
// published).
func NewService(logger *slog.Logger, m *metrics.Metrics, lists source.Lists) *Service {
	return &Service{r: relay.New(relay.Options{Logger: logger, Metrics: m, OnChange: lists.Changed})}
}

// Handler is the relay's WebSocket endpoint and bridge.js; it checks its
// own origins and tokens.
func (sv *Service) Handler() http.Handler { return sv.r }

// SetListener records where the relay is served (the MCP HTTP listener).
func (sv *Service) SetListener(l relay.Listener) { sv.r.SetListener(l) }

// Close disconnects every page (going away), waiting until ctx ends.
func (sv *Service) Close(ctx context.Context) { sv.r.Close(ctx) }

// Component is a new relay component of a snapshot being built.
func (sv *Service) Component() *Component { return &Component{sv: sv} }

// Component is the relay section of one snapshot: the plan its sites come
// from (tokens read, nothing changed until Apply).
type Component struct {
	sv    *Service
	plan  *relay.Plan
	specs map[string]relayconfig.SiteConfig // by site name, for Pins
	gen   atomic.Uint64                     // the relay generation Sources last saw
}

func (c *Component) Name() string { return "relay" }

var (
	_ component.Component      = (*Component)(nil)
	_ component.SourceProvider = (*Component)(nil)
	_ component.Dynamic        = (*Component)(nil)
	_ component.Staler         = (*Component)(nil)
	_ component.Applier        = (*Component)(nil)
)

// Provision plans cfg's relay section; what serves changes in Apply.
func (c *Component) Provision(_ context.Context, cfg *loader.Config) error {
	h := cfg.Transports.HTTP
	plan, err := c.sv.r.Prepare(cfg.File, cfg.Relay, relay.Listener{Addr: h.Listen})
	if err != nil {
		return err
	}
	c.plan = plan
	c.specs = map[string]relayconfig.SiteConfig{}
	for _, sc := range cfg.Relay.Sites {
		c.specs[sc.Name] = sc
	}
	return nil
}

// Sources are the sites, each as what its page registers now; the
// snapshot calls it when it indexes (only then). What a
// page registered never fails a build: the gateway reports a name that
// another source provides to the page instead (Dynamic).
func (c *Component) Sources() []source.Source {
	c.gen.Store(c.sv.r.Generation())
	sites := c.plan.Sites()
	out := make([]source.Source, len(sites))
	for i, s := range sites {
		out[i] = site{s, c.specs[s.Name()]}
	}
	return out
}

// Dynamic says that what the sites provide changes while they serve.
func (c *Component) Dynamic() bool { return true }

// Apply makes the plan current: removed sites' pages closed, new tokens
// for the next handshake.
func (c *Component) Apply(context.Context) { c.sv.r.Apply(c.plan) }

// Stale reports whether a page registered or left since Sources: the
// snapshot must be indexed again.
func (c *Component) Stale() bool { return c.sv.r.Generation() != c.gen.Load() }

// Cleanup has nothing to release: a plan holds no resources.
func (c *Component) Cleanup(context.Context) {}

// site is a relay site as a Source: its failures become source.Failures.
type site struct {
	*relay.Site
	spec relayconfig.SiteConfig
}

var (
	_ source.Kinded  = site{}
	_ source.Curated = site{}
	_ source.Pinner  = site{}
)

// Pins is what the lock file pins of the site: its grants, from its
// config (what its pages publish is in the lock's lists).
func (s site) Pins() (*lockfile.Source, error) {
	ls := &lockfile.Source{Kind: s.Kind(), Declared: s.Key()}
	return ls, ls.GrantAll(map[string]any{
		"allowed_origins":  lockfile.List(s.spec.AllowedOrigins),
		"resource_schemes": lockfile.List(s.spec.ResourceSchemes),
		"protocol":         s.spec.Protocol,
		"insecure":         s.spec.Insecure,
	})
}

func (s site) Kind() string { return "relay site" }

func (s site) CallTool(ctx context.Context, tool string, args json.RawMessage) (*mcp.CallToolResult, error) {
	res, err := s.Site.CallTool(ctx, tool, args)
	return res, failure(err)
}

func (s site) ReadResource(ctx context.Context, res abi.Resource, uri string, vars map[string]string) ([]mcp.ResourceContents, error) {
	c, err := s.Site.ReadResource(ctx, res, uri, vars)
	return c, failure(err)
}

func (s site) GetPrompt(ctx context.Context, prompt string, args map[string]string) ([]mcp.PromptMessage, error) {
	m, err := s.Site.GetPrompt(ctx, prompt, args)
	return m, failure(err)
}

// failure maps a relay.CallError's kind to a source.Failure.
func failure(err error) error {
	var fk interface{ FailureKind() string }
	if err == nil || !errors.As(err, &fk) {
		return err
	}
	kind := source.FailCrash
	switch fk.FailureKind() {
	case relay.KindError:
		kind = source.FailError
	case relay.KindTimeout:
		kind = source.FailTimeout
	case relay.KindCancelled:
		kind = source.FailCancelled
	}
	return &source.Failure{Kind: kind, Msg: err.Error()}
}

// SiteStatus is every applied site's live state (relay.SiteStatus), in
// configuration order, connected or not.
func (sv *Service) SiteStatus() []relay.SiteStatus { return sv.r.SiteStatus() }
