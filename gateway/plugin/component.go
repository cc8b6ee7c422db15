package plugin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/wasmgate/wasmgate/gateway/component"
	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/internal/plural"
	"github.com/wasmgate/wasmgate/internal/refcount"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/loader/fetch"
	"github.com/wasmgate/wasmgate/loader/host"
	"github.com/wasmgate/wasmgate/metrics"
)

// Host is what plugins need of the gateway that serves them; it outlives
// every snapshot.
type Host struct {
	Logger   *slog.Logger
	MCP      source.Clients // notifications and requests to the calling client
	Compiler *loader.Compiler
	Metrics  *metrics.Metrics
	Slots    chan struct{} // one per WebAssembly call running, gateway-wide
	// Store is a plugin's key-value store, kept across reloads; a new
	// one has quota.
	Store func(plugin string, quota int64) *host.Store
	// ResourceUpdated tells the subscribers of an exposed URI it changed.
	ResourceUpdated func(uri string)
	// Lists is told that a plugin's lists changed (it said so during a
	// call): for everyone, or for one session (instances: session, whose
	// instance relisted), whose view alone changes.
	Lists source.Lists
	// Kept holds the compiled modules of plugins no snapshot serves, for
	// a reload that restores one; nil keeps none.
	Kept *Kept
	// Approve, if set, is asked whether the modules fetched for cfg (their
	// SHA-256 digests, by plugin name) may run, before any of them is
	// compiled or instantiated (the lock file: docs/trust.md). An error
	// fails the Provision as it is.
	Approve func(cfg *loader.Config, modules map[string]string) error
}

// Component is the plugins section of one snapshot: every plugin compiled
// (or reused from the serving snapshot when its module and the settings
// baked into it did not change) with its pool. It implements the
// gateway's component lifecycle.
type Component struct {
	h       *Host
	prev    map[string]*shared // the serving snapshot's, by plugin name
	plugins []*Source
}

// New is an empty plugins component for h.
func New(h *Host) *Component { return &Component{h: h} }

func (c *Component) Name() string { return "plugins" }

var (
	_ component.Component           = (*Component)(nil)
	_ component.Reuser[*Component]  = (*Component)(nil)
	_ component.Retirer[*Component] = (*Component)(nil)
	_ component.Differ[*Component]  = (*Component)(nil)
	_ component.SourceProvider      = (*Component)(nil)
	_ component.Applier             = (*Component)(nil)
)

// Reuse remembers what the serving snapshot compiled, for Provision.
func (c *Component) Reuse(p *Component) {
	c.prev = map[string]*shared{}
	for _, rt := range p.plugins {
		c.prev[rt.name] = rt.sh
	}
}

// Provision fetches every plugin of cfg, shares what Reuse found unchanged
// and compiles the rest in parallel. On error, Cleanup releases what it
// made.
func (c *Component) Provision(ctx context.Context, cfg *loader.Config) error {
	type result struct {
		sh  *shared
		err error
	}
	results := make([]result, len(cfg.Plugins))
	sem := make(chan struct{}, runtime.NumCPU())
	var wg sync.WaitGroup
	mods := make([]fetch.Module, len(cfg.Plugins))
	digests := map[string]string{}
	for i, spec := range cfg.Plugins {
		mod, err := c.h.Compiler.Fetch(ctx, spec)
		if err != nil {
			results[i].err = err
			continue
		}
		mods[i] = mod
		digests[spec.Name] = mod.SHA256
	}
	if c.h.Approve != nil {
		if err := c.h.Approve(cfg, digests); err != nil {
			return err
		}
	}
	for i, spec := range cfg.Plugins {
		if results[i].err != nil {
			continue
		}
		mod := mods[i]
		key := reuseKey(spec, mod.SHA256)
		store := c.h.Store(spec.Name, int64(spec.Limits.KVQuota))                    // its quota follows in Apply
		if sh := c.prev[spec.Name]; sh != nil && sh.key == key && sh.refs.Retain() { // else it is closing: take it back from Kept or compile afresh
			results[i].sh = sh
			continue
		}
		if p, info, ok := c.h.Kept.take(keepKey(spec.Name, key)); ok {
			c.h.Logger.Debug("plugin restored from memory, not compiled", "plugin", spec.Name)
			results[i].sh = c.share(spec.Name, key, p, nil, info)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			p, first, err := c.h.Compiler.Compile(ctx, spec, mod, host.Env{Store: store})
			if err != nil {
				results[i].err = err
				return
			}
			results[i].sh = c.share(spec.Name, key, p, first, &p.Info)
		}()
	}
	wg.Wait()
	var errs []error
	for i, r := range results {
		if r.err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", cfg.File, r.err))
			continue
		}
		// Held by c from here on: Cleanup releases it.
		spec := cfg.Plugins[i]
		c.plugins = append(c.plugins, &Source{name: spec.Name, spec: spec, plugin: r.sh.plugin, pool: r.sh.pool, sh: r.sh, h: c.h})
	}
	c.prev = nil
	return errors.Join(errs...)
}

// share starts a pool of p, held once.
func (c *Component) share(name, key string, p *loader.Plugin, first *loader.Instance, info *abi.Descriptor) *shared {
	sh := &shared{key: key, name: name, kept: c.h.Kept, plugin: p,
		pool: newPool(p, first, c.h.Metrics.PluginInstances.WithLabelValues(name), c.h.Slots)}
	sh.refs.Init()
	sh.info.Store(info)
	return sh
}

// Sources are the plugins, in config order.
func (c *Component) Sources() []source.Source {
	out := make([]source.Source, len(c.plugins))
	for i, p := range c.plugins {
		out[i] = p
	}
	return out
}

// Apply gives each plugin's key-value store its quota, once c serves.
func (c *Component) Apply(context.Context) {
	for _, p := range c.plugins {
		c.h.Store(p.name, int64(p.spec.Limits.KVQuota)).SetQuota(int64(p.spec.Limits.KVQuota))
	}
}

// Retire forgets the metrics of plugins that c serves and next does not.
func (c *Component) Retire(n *Component) {
	for _, p := range c.plugins {
		if n == nil || !slices.ContainsFunc(n.plugins, func(q *Source) bool { return q.name == p.name }) {
			c.h.Metrics.PluginInstances.DeleteLabelValues(p.name)
		}
	}
}

// Cleanup releases c's hold on every plugin; a plugin no other snapshot
// serves has its instances closed and its compiled module kept by the
// Host's Kept (or closed). Safe after a failed Provision.
func (c *Component) Cleanup(ctx context.Context) {
	for _, p := range c.plugins {
		p.sh.release(ctx)
	}
}

// Serves reports whether p is one of c's plugins (the same compiled
// module, not a copy of the same name).
func (c *Component) Serves(p *Source) bool {
	return slices.ContainsFunc(c.plugins, func(q *Source) bool { return q.sh == p.sh })
}

// Summary lists the plugins: "3 plugins (calculator, storage, greeter)".
func (c *Component) Summary() string {
	names := make([]string, len(c.plugins))
	for i, p := range c.plugins {
		names[i] = p.name
	}
	if len(names) == 0 {
		return "0 plugins"
	}
	return fmt.Sprintf("%s (%s)", plural.N(len(names), "plugin"), strings.Join(names, ", "))
}

// Count is how many plugins c serves.
func (c *Component) Count() int { return len(c.plugins) }

// Report describes each plugin in a line: its name, where it is
// declared, the ABI it was detected as and what it provides, then its
// warnings, if any.
func (c *Component) Report() []string {
	var out []string
	for _, p := range c.plugins {
		d := p.Descriptor()
		var res, tpl int
		for _, r := range d.Resources {
			if r.Template != nil {
				tpl++
			} else {
				res++
			}
		}
		line := fmt.Sprintf("plugin %s (%s): %s ABI; %s, %s, %s, %s", p.name, p.spec.Key, p.plugin.ABI.Name(),
			plural.N(len(d.Tools), "tool"), plural.N(res, "resource"), plural.N(tpl, "resource template"), plural.N(len(d.Prompts), "prompt"))
		for _, w := range d.Warnings {
			line += "; warning: " + w
		}
		out = append(out, line)
	}
	return out
}

// Changes says what changed from the plugins of prev to c's, one line
// per change, for the status page.
func (c *Component) Changes(p *Component) []string {
	old := map[string]*Source{}
	if p != nil {
		for _, rt := range p.plugins {
			old[rt.name] = rt
		}
	}
	var out []string
	for _, p := range c.plugins {
		switch q, ok := old[p.name]; {
		case !ok:
			out = append(out, fmt.Sprintf("plugin %s added", p.name))
		case q.sh != p.sh:
			out = append(out, fmt.Sprintf("plugin %s rebuilt (module or settings changed)", p.name))
		case !sameLimits(q, p):
			out = append(out, fmt.Sprintf("plugin %s: limits changed", p.name))
		}
		delete(old, p.name)
	}
	for _, name := range slices.Sorted(maps.Keys(old)) {
		out = append(out, fmt.Sprintf("plugin %s removed", name))
	}
	return out
}

func sameLimits(a, b *Source) bool {
	ja, _ := json.Marshal(a.spec.Limits)
	jb, _ := json.Marshal(b.spec.Limits)
	return string(ja) == string(jb)
}

// shared is a compiled plugin and its pool, reference-counted by the
// snapshots that serve it.
type shared struct {
	key    string
	name   string
	kept   *Kept // where the compiled module goes once no snapshot holds it
	plugin *loader.Plugin
	pool   *pool
	refs   refcount.Count
	// info is what the plugin provides: plugin.Info, until the plugin
	// says a list changed and is read again (hostcalls.go).
	info atomic.Pointer[abi.Descriptor]

	sessMu   sync.Mutex
	sessions map[string]abi.Descriptor // instances: session: what a session's instance relisted
}

// setSession records what session's instance lists.
func (sh *shared) setSession(session string, d abi.Descriptor) {
	sh.sessMu.Lock()
	defer sh.sessMu.Unlock()
	if sh.sessions == nil {
		sh.sessions = map[string]abi.Descriptor{}
	}
	sh.sessions[session] = d
}

func (sh *shared) sessionLists(session string) (abi.Descriptor, bool) {
	sh.sessMu.Lock()
	defer sh.sessMu.Unlock()
	t, ok := sh.sessions[session]
	return t, ok
}

func (sh *shared) forgetSession(session string) {
	sh.sessMu.Lock()
	defer sh.sessMu.Unlock()
	delete(sh.sessions, session)
}

func (sh *shared) release(ctx context.Context) {
	if sh.refs.Release() {
		sh.pool.close(ctx)
		sh.kept.put(ctx, keepKey(sh.name, sh.key), sh.plugin, sh.info.Load())
	}
}

// reuseKey identifies what a compiled plugin and its pool were built
// from: the module bytes and every setting baked into them.
func reuseKey(spec loader.PluginSpec, hash string) string {
	b, _ := json.Marshal(struct {
		Hash         string
		Config       map[string]string
		Memory       loader.ByteSize
		Concurrency  int
		AllowedHosts []string
		AllowedPaths map[string]string
		HTTPResponse loader.ByteSize
		Instances    string
	}{hash, spec.Config, spec.Limits.Memory, spec.Limits.Concurrency, spec.AllowedHosts, spec.AllowedPaths, spec.Limits.HTTPResponse, spec.Instances})
	return string(b)
}
