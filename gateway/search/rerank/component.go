package rerank

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/wasmgate/wasmgate/gateway/component"
	"github.com/wasmgate/wasmgate/internal/refcount"
	"github.com/wasmgate/wasmgate/loader"
)

// Host is what rankers need of the gateway; it outlives every snapshot.
type Host struct {
	Logger   *slog.Logger
	Compiler *loader.Compiler
	// Slots are the gateway's WebAssembly call slots
	// (server.max_concurrent_calls), shared with the plugins; nil: none.
	Slots chan struct{}
}

// Component is the rankers of one snapshot: the discovery.ranker of
// each search endpoint, compiled with its pool, or reused from the
// serving snapshot when neither its settings nor its module's digest
// changed. A changed ranker is built whole while the serving one keeps
// serving; a ranker that fails to build fails the snapshot.
type Component struct {
	h       *Host
	prev    map[string]*shared // the serving snapshot's, by endpoint
	rankers map[string]*shared // by endpoint
}

var (
	_ component.Component          = (*Component)(nil)
	_ component.Reuser[*Component] = (*Component)(nil)
	_ component.Differ[*Component] = (*Component)(nil)
)

// NewComponent is an empty rankers component for h.
func NewComponent(h *Host) *Component { return &Component{h: h, rankers: map[string]*shared{}} }

func (c *Component) Name() string { return "rankers" }

// Reuse remembers what the serving snapshot built, for Provision.
func (c *Component) Reuse(p *Component) { c.prev = p.rankers }

// Provision fetches (pin and signature checked) the ranker of every
// search endpoint of cfg, takes over each one Reuse found unchanged and
// compiles the others. On error, Cleanup releases what it made.
func (c *Component) Provision(ctx context.Context, cfg *loader.Config) error {
	defer func() { c.prev = nil }()
	var errs []error
	for _, e := range cfg.Endpoints {
		if !e.Discovery.Search() || e.Discovery.Ranker == nil {
			continue
		}
		spec := *e.Discovery.Ranker
		mod, err := c.h.Compiler.Fetch(ctx, spec)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", cfg.File, err))
			continue
		}
		key := reuseKey(spec, mod.SHA256)
		if sh := c.prev[e.Name]; sh != nil && key != "" && sh.key == key && sh.refs.Retain() {
			c.rankers[e.Name] = sh
			continue
		}
		m, err := New(ctx, c.h.Compiler, spec, mod, c.h.Slots)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", cfg.File, err))
			continue
		}
		sh := &shared{key: key, m: m}
		sh.refs.Init()
		c.rankers[e.Name] = sh // held by c from here on: Cleanup releases it
		c.h.Logger.Debug("ranker compiled", "endpoint", e.Name, "ranker", spec.Name, "path", spec.Path, "sha256", mod.SHA256)
	}
	return errors.Join(errs...)
}

// Ranker is the ranker of the endpoint named endpoint, nil when it has
// none. It serves as long as c's snapshot is held.
func (c *Component) Ranker(endpoint string) Ranker {
	if sh := c.rankers[endpoint]; sh != nil {
		return sh.m
	}
	return nil
}

// Cleanup releases c's hold on every ranker; one no other snapshot
// serves is closed. Safe after a failed Provision.
func (c *Component) Cleanup(ctx context.Context) {
	for name, sh := range c.rankers {
		if sh.refs.Release() {
			if err := sh.m.Close(context.WithoutCancel(ctx)); err != nil {
				c.h.Logger.Warn("closing a ranker", "endpoint", name, "ranker", sh.m.Name(), "err", err)
			}
		}
	}
	c.rankers = nil
}

// Changes says which endpoints' rankers were added, rebuilt or removed
// since p, one line each, for the status page.
func (c *Component) Changes(p *Component) []string {
	old := map[string]*shared{}
	if p != nil {
		maps.Copy(old, p.rankers)
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(c.rankers)) {
		sh := c.rankers[name]
		switch q, ok := old[name]; {
		case !ok:
			out = append(out, fmt.Sprintf("endpoint %s: ranker %s added", name, sh.m.Name()))
		case q != sh:
			out = append(out, fmt.Sprintf("endpoint %s: ranker %s rebuilt (module or settings changed)", name, sh.m.Name()))
		}
		delete(old, name)
	}
	for _, name := range slices.Sorted(maps.Keys(old)) {
		out = append(out, fmt.Sprintf("endpoint %s: ranker removed", name))
	}
	return out
}

// Summary lists the endpoints with a ranker: "2 rankers (agents,
// support)", "" for none.
func (c *Component) Summary() string {
	if len(c.rankers) == 0 {
		return ""
	}
	names := slices.Sorted(maps.Keys(c.rankers))
	what := "ranker"
	if len(names) > 1 {
		what = "rankers"
	}
	return fmt.Sprintf("%d %s (%s)", len(names), what, strings.Join(names, ", "))
}

// shared is a ranker, held by every snapshot that serves it.
type shared struct {
	key  string
	m    *Module
	refs refcount.Count
}

// reuseKey identifies what a ranker was built from: its module's digest
// and every setting (where it is declared aside); "" (never reused)
// if they cannot be written.
func reuseKey(spec loader.PluginSpec, sha256 string) string {
	spec.Key = ""
	b, err := json.Marshal(struct {
		SHA256 string
		Spec   loader.PluginSpec
	}{sha256, spec})
	if err != nil {
		return ""
	}
	return string(b)
}
