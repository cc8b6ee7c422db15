package intercept

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/wasmgate/wasmgate/gateway/component"
	"github.com/wasmgate/wasmgate/internal/refcount"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/fetch"
)

// Host is what interceptors need of the gateway; it outlives every
// snapshot.
type Host struct {
	Logger   *slog.Logger
	Compiler *loader.Compiler
	// Slots are the gateway's WebAssembly call slots
	// (server.max_concurrent_calls), shared with the plugins; nil: none.
	Slots chan struct{}
	// Remote connects to an external interceptor server (url:); nil:
	// such interceptors are a config error.
	Remote func(ctx context.Context, spec loader.InterceptorSpec) (RemoteInterceptor, error)
	// Approve, if set, is asked whether the modules fetched for cfg
	// (their SHA-256 digests, by interceptor name) may run, before any
	// of them is compiled (the lock file). An error fails the Provision.
	Approve func(cfg *loader.Config, modules map[string]string) error
}

// RemoteInterceptor is an external interceptor server's client.
type RemoteInterceptor interface {
	Interceptor
	io.Closer
}

// Component is the interceptors of one snapshot, in config order: each
// module compiled with its pool, or reused from the serving snapshot
// when neither its settings nor its module's digest changed (a changed
// one is built whole while the serving one keeps serving; one that fails
// to build fails the snapshot), and each external server connected.
type Component struct {
	h     *Host
	prev  map[string]*shared // the serving snapshot's, by name
	all   map[string]*shared // by name
	chain *Chain
}

var (
	_ component.Component          = (*Component)(nil)
	_ component.Reuser[*Component] = (*Component)(nil)
	_ component.Differ[*Component] = (*Component)(nil)
)

// NewComponent is an empty interceptors component for h.
func NewComponent(h *Host) *Component { return &Component{h: h, all: map[string]*shared{}} }

func (c *Component) Name() string { return "interceptors" }

// Reuse remembers what the serving snapshot built, for Provision.
func (c *Component) Reuse(p *Component) { c.prev = p.all }

// Provision fetches (pin and signature checked) and compiles every
// interceptor module of cfg, takes over each one Reuse found unchanged,
// and connects to each external server. On error, Cleanup releases what
// it made.
func (c *Component) Provision(ctx context.Context, cfg *loader.Config) error {
	defer func() { c.prev = nil }()
	var errs []error
	mods := map[string]fetch.Module{}
	digests := map[string]string{}
	for _, spec := range cfg.Interceptors {
		if spec.Remote() {
			continue
		}
		mod, err := c.h.Compiler.Fetch(ctx, spec.Plugin())
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", cfg.File, err))
			continue
		}
		mods[spec.Name], digests[spec.Name] = mod, mod.SHA256
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if c.h.Approve != nil {
		if err := c.h.Approve(cfg, digests); err != nil {
			return err
		}
	}
	var entries []*entry
	for _, spec := range cfg.Interceptors {
		sh, err := c.build(ctx, spec, mods[spec.Name])
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", cfg.File, err))
			continue
		}
		c.all[spec.Name] = sh // held by c from here on: Cleanup releases it
		entries = append(entries, &entry{spec: spec, ic: sh.ic, stats: &sh.stats})
	}
	c.chain = &Chain{list: entries}
	return errors.Join(errs...)
}

func (c *Component) build(ctx context.Context, spec loader.InterceptorSpec, mod fetch.Module) (*shared, error) {
	if spec.Remote() {
		if c.h.Remote == nil {
			return nil, fmt.Errorf("interceptor %q (%s.url): external interceptor servers are not supported by this build", spec.Name, spec.Key)
		}
		key := reuseKey(spec, "")
		if sh := c.prev[spec.Name]; sh != nil && key != "" && sh.key == key && sh.refs.Retain() {
			return sh, nil
		}
		r, err := c.h.Remote(ctx, spec)
		if err != nil {
			return nil, fmt.Errorf("interceptor %q (%s.url): %w", spec.Name, spec.Key, err)
		}
		sh := &shared{key: key, ic: r, close: func(context.Context) error { return r.Close() }}
		sh.refs.Init()
		return sh, nil
	}
	key := reuseKey(spec, mod.SHA256)
	if sh := c.prev[spec.Name]; sh != nil && key != "" && sh.key == key && sh.refs.Retain() {
		return sh, nil
	}
	m, err := NewModule(ctx, c.h.Compiler, spec, mod, c.h.Slots)
	if err != nil {
		return nil, err
	}
	sh := &shared{key: key, ic: m, close: m.Close, sha256: mod.SHA256}
	sh.refs.Init()
	c.h.Logger.Debug("interceptor compiled", "interceptor", spec.Name, "path", spec.Path, "sha256", mod.SHA256)
	return sh, nil
}

// Chain is the interceptors in config order; empty (never nil) after a
// Provision.
func (c *Component) Chain() *Chain {
	if c == nil {
		return nil
	}
	return c.chain
}

// Cleanup releases c's hold on every interceptor; one no other snapshot
// serves is closed. Safe after a failed Provision.
func (c *Component) Cleanup(ctx context.Context) {
	for name, sh := range c.all {
		if sh.refs.Release() {
			if err := sh.close(context.WithoutCancel(ctx)); err != nil {
				c.h.Logger.Warn("closing an interceptor", "interceptor", name, "err", err)
			}
		}
	}
	c.all = nil
}

// Changes says which interceptors were added, rebuilt or removed since
// p, one line each, for the status page.
func (c *Component) Changes(p *Component) []string {
	old := map[string]*shared{}
	if p != nil {
		maps.Copy(old, p.all)
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(c.all)) {
		sh := c.all[name]
		switch q, ok := old[name]; {
		case !ok:
			out = append(out, fmt.Sprintf("interceptor %s added", name))
		case q != sh:
			out = append(out, fmt.Sprintf("interceptor %s rebuilt (module or settings changed)", name))
		}
		delete(old, name)
	}
	for _, name := range slices.Sorted(maps.Keys(old)) {
		out = append(out, fmt.Sprintf("interceptor %s removed", name))
	}
	return out
}

// Summary lists the interceptors: "2 interceptors (redact, guard)", ""
// for none.
func (c *Component) Summary() string {
	if c == nil || c.chain == nil || len(c.chain.list) == 0 {
		return ""
	}
	var names []string
	for _, e := range c.chain.list {
		names = append(names, e.spec.Name)
	}
	what := "interceptor"
	if len(names) > 1 {
		what = "interceptors"
	}
	return fmt.Sprintf("%d %s (%s)", len(names), what, strings.Join(names, ", "))
}

// Digests are the modules' SHA-256 digests, by interceptor name (not
// external servers).
func (c *Component) Digests() map[string]string {
	out := map[string]string{}
	if c == nil {
		return out
	}
	for name, sh := range c.all {
		if sh.sha256 != "" {
			out[name] = sh.sha256
		}
	}
	return out
}

// shared is an interceptor, held by every snapshot that serves it.
type shared struct {
	key    string
	ic     Interceptor
	close  func(context.Context) error
	sha256 string
	refs   refcount.Count
	stats  stats
}

// reuseKey identifies what an interceptor was built from: its module's
// digest and every setting (where it is declared aside); "" (never
// reused) if they cannot be written.
func reuseKey(spec loader.InterceptorSpec, sha256 string) string {
	spec.Key = ""
	b, err := json.Marshal(struct {
		SHA256 string
		Spec   loader.InterceptorSpec
		Plugin loader.PluginSpec
	}{sha256, spec, spec.Plugin()})
	if err != nil {
		return ""
	}
	return string(b)
}
