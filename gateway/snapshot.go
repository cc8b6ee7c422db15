package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wasmgate/wasmgate/auth"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/loader/host"
	"github.com/wasmgate/wasmgate/policy"
)

// Snapshot is one complete, immutable serving state built from a Config:
// compiled plugins with their pools and the tools, resources and prompts
// they expose. Calls hold a reference while they run; a retired snapshot
// closes its instances once the last call has finished.
type Snapshot struct {
	Config *loader.Config

	plugins   []*pluginRT
	tools     map[string]*toolEntry
	resources map[string]*resourceEntry // static, by URI
	templates map[string]*resourceEntry // by raw URI template
	prompts   map[string]*promptEntry
	owner     map[string]string // "tool NAME", "resource URI", ... -> who provides it

	// Identity and policy (identity.go).
	authn *auth.Authenticator // nil: HTTP callers are anonymous
	// authnRefs counts the snapshots sharing authn (a snapshot derived
	// from another when a plugin's lists change shares it); the last
	// one closed closes it.
	authnRefs *atomic.Int32
	pol       *policy.Policy   // nil: no policy section, everything allowed
	stdio     policy.Principal // the stdio client

	token      string
	adminToken string
	origins    map[string]bool
	relay      *relayState // the relay sites (gateway/relay.go)

	mu      sync.Mutex
	refs    int
	retired bool
	drained chan struct{}
}

type toolEntry struct {
	name   string // exposed name
	export string // the source's own name
	src    Source
	def    mcp.Tool
	schema *jsonschema.Schema
}

type resourceEntry struct {
	src      Source
	res      abi.Resource         // as the source describes it, with its own URI
	uri      string               // exposed URI or URI template
	match    *abi.URITemplate     // template: the exposed template, matching requested URIs
	resource mcp.Resource         // static
	template mcp.ResourceTemplate // template
}

type promptEntry struct {
	name   string
	export string
	src    Source
	def    mcp.Prompt
}

// Summary describes a snapshot in one line.
func (s *Snapshot) Summary() string {
	names := make([]string, 0, len(s.plugins))
	for _, p := range s.plugins {
		names = append(names, p.name)
	}
	return fmt.Sprintf("%d plugins (%s), %d tools, %d resources, %d resource templates, %d prompts",
		len(s.plugins), strings.Join(names, ", "), len(s.tools), len(s.resources), len(s.templates), len(s.prompts))
}

// PluginReport describes each plugin in a line: its name, where it is
// declared, the ABI it was detected as and what it provides, then its
// warnings, if any.
func (s *Snapshot) PluginReport() []string {
	var out []string
	for _, p := range s.plugins {
		d := p.Descriptor()
		var res, tpl int
		for _, r := range d.Resources {
			if r.Template != nil {
				tpl++
			} else {
				res++
			}
		}
		line := fmt.Sprintf("plugin %s (%s): %s ABI; %d tools, %d resources, %d resource templates, %d prompts",
			p.name, p.spec.Key, p.plugin.ABI.Name(), len(d.Tools), res, tpl, len(d.Prompts))
		for _, w := range d.Warnings {
			line += "; warning: " + w
		}
		out = append(out, line)
	}
	return out
}

// ToolNames lists the exposed tool names, sorted.
func (s *Snapshot) ToolNames() []string {
	out := make([]string, 0, len(s.tools))
	for n := range s.tools {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func (s *Snapshot) acquire() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.retired {
		return false
	}
	s.refs++
	return true
}

func (s *Snapshot) release() {
	s.mu.Lock()
	s.refs--
	done := s.retired && s.refs == 0
	s.mu.Unlock()
	if done {
		close(s.drained)
	}
}

// retire stops new calls; drained closes when running ones have finished.
func (s *Snapshot) retire() {
	s.mu.Lock()
	s.retired = true
	done := s.refs == 0
	s.mu.Unlock()
	if done {
		close(s.drained)
	}
}

// close releases the snapshot's hold on every plugin; a plugin no other
// snapshot serves is closed. Only after drained.
func (s *Snapshot) close(ctx context.Context) {
	for _, p := range s.plugins {
		p.sh.release(ctx)
	}
	if s.authn != nil && s.authnRefs.Add(-1) == 0 {
		s.authn.Close()
	}
}

// Build compiles every plugin of cfg and indexes what they provide,
// without touching what is serving. It fails whole: on error everything it created is released.
func (g *Gateway) Build(ctx context.Context, cfg *loader.Config) (_ *Snapshot, err error) {
	s := &Snapshot{
		Config:    cfg,
		tools:     map[string]*toolEntry{},
		resources: map[string]*resourceEntry{},
		templates: map[string]*resourceEntry{},
		prompts:   map[string]*promptEntry{},
		owner:     map[string]string{},
		origins:   map[string]bool{},
		drained:   make(chan struct{}),
	}
	defer func() {
		if err != nil {
			s.close(context.WithoutCancel(ctx))
		}
	}()
	if s.token, err = readToken(cfg, "transports.http.auth", cfg.Transports.HTTP.Auth); err != nil {
		return nil, err
	}
	if s.adminToken, err = readToken(cfg, "admin.auth", cfg.Admin.Auth); err != nil {
		return nil, err
	}
	if err = s.buildIdentity(ctx, cfg, g.opts); err != nil {
		return nil, err
	}
	for _, o := range cfg.Transports.HTTP.AllowedOrigins {
		s.origins[normalizeOrigin(o)] = true
	}

	// Reuse what the serving snapshot already compiled when the module
	// and its settings are unchanged; compile the rest in parallel.
	prev := map[string]*shared{}
	if cur := g.cur.Load(); cur != nil {
		for _, rt := range cur.plugins {
			prev[rt.name] = rt.sh
		}
	}
	type result struct {
		sh  *shared
		err error
	}
	results := make([]result, len(cfg.Plugins))
	sem := make(chan struct{}, runtime.NumCPU())
	var wg sync.WaitGroup
	for i, spec := range cfg.Plugins {
		mod, err := g.opts.Compiler.Fetch(ctx, spec)
		if err != nil {
			results[i].err = err
			continue
		}
		key := reuseKey(spec, mod.SHA256)
		store := g.store(spec.Name, int64(spec.Limits.KVQuota)) // its quota follows in Apply
		if sh := prev[spec.Name]; sh != nil && sh.key == key && sh.refs.Add(1) > 1 {
			results[i].sh = sh
			continue
		} else if sh != nil && sh.key == key {
			sh.refs.Add(-1) // it was closing; compile afresh
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			p, first, err := g.opts.Compiler.Compile(ctx, spec, mod, host.Env{Store: store})
			if err != nil {
				results[i].err = err
				return
			}
			sh := &shared{key: key, plugin: p, pool: newPool(p, first, g.opts.Metrics.PluginInstances.WithLabelValues(spec.Name), g.slots)}
			sh.refs.Store(1)
			sh.info.Store(&p.Info)
			results[i].sh = sh
		}()
	}
	wg.Wait()
	var errs []error
	for i, r := range results {
		if r.err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", cfg.File, r.err))
			continue
		}
		// Held by s from here on: on any error below, s.close releases it.
		spec := cfg.Plugins[i]
		s.plugins = append(s.plugins, &pluginRT{name: spec.Name, spec: spec, plugin: r.sh.plugin, pool: r.sh.pool, sh: r.sh, g: g})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}

	for _, src := range s.sources() {
		errs = append(errs, s.index(src)...)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	// Relay sites come after: what a page registers never fails a build.
	if err := g.buildRelay(s); err != nil {
		return nil, err
	}
	return s, nil
}

// sources are every tool source of s, indexed the same way whatever
// their kind: a new kind (a relay site) appends its sources here.
func (s *Snapshot) sources() []Source {
	sources := make([]Source, 0, len(s.plugins))
	for _, rt := range s.plugins {
		sources = append(sources, rt)
	}
	return sources
}

// index adds what src provides to the snapshot's tools, resources and
// prompts, refusing a name or URI another source already provides.
func (s *Snapshot) index(src Source) []error {
	var errs []error
	file := s.Config.File
	where := fmt.Sprintf("%s (%s %q)", src.Key(), sourceKind(src), src.Name())
	claim := func(kind, id string) error {
		key := kind + " " + id
		if prev, ok := s.owner[key]; ok {
			return fmt.Errorf("%s: %s: %s %q is also provided by %s", file, where, kind, id, prev)
		}
		s.owner[key] = where
		return nil
	}
	d := src.Descriptor()
	for _, t := range d.Tools {
		name := exposedName(src.Prefix(), t.Name)
		if err := claim("tool", name); err != nil {
			errs = append(errs, err)
			continue
		}
		sch, err := compileSchema(name, t.InputSchema)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: tool %q: invalid inputSchema: %w", file, where, t.Name, err))
			continue
		}
		def, err := toolDef(name, t)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: tool %q: %w", file, where, t.Name, err))
			continue
		}
		s.tools[name] = &toolEntry{name: name, export: t.Name, src: src, schema: sch, def: def}
	}
	for _, r := range d.Resources {
		uri := exposedURI(src.Prefix(), r.URI)
		if err := claim("resource", uri); err != nil {
			errs = append(errs, err)
			continue
		}
		e := &resourceEntry{src: src, res: r, uri: uri}
		var err error
		if r.Template != nil {
			if e.match, err = abi.ParseURITemplate(uri); err == nil {
				e.template, err = templateDef(uri, r.Resource)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %s: resource template %q: %w", file, where, r.URI, err))
				continue
			}
			s.templates[uri] = e
			continue
		}
		if _, err := url.Parse(uri); err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: resource %q: invalid uri %q", file, where, r.Name, uri))
			continue
		}
		if e.resource, err = resourceDef(uri, r.Resource); err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: resource %q: %w", file, where, r.URI, err))
			continue
		}
		s.resources[uri] = e
	}
	for _, p := range d.Prompts {
		name := exposedName(src.Prefix(), p.Name)
		if err := claim("prompt", name); err != nil {
			errs = append(errs, err)
			continue
		}
		def, err := promptDef(name, p)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: prompt %q: %w", file, where, p.Name, err))
			continue
		}
		s.prompts[name] = &promptEntry{name: name, export: p.Name, src: src, def: def}
	}
	return errs
}
