package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/wasmgate/wasmgate/flow"
	"github.com/wasmgate/wasmgate/gateway/component"
	"github.com/wasmgate/wasmgate/gateway/endpoint"
	"github.com/wasmgate/wasmgate/gateway/ops"
	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/gateway/trust"
	"github.com/wasmgate/wasmgate/internal/canon"
	"github.com/wasmgate/wasmgate/internal/plural"
	"github.com/wasmgate/wasmgate/internal/secretscan"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/metrics"
	"github.com/wasmgate/wasmgate/policy"
)

// Snapshot is one complete, immutable serving state built from a Config:
// its provisioned components and the index of what their sources
// provide. Calls hold a reference while they run; a retired snapshot
// releases its components once the last call has finished.
type Snapshot struct {
	Config *loader.Config

	parts    *parts              // shared with snapshots indexed again from this one
	index    *source.Index       // what the sources provide, by exposed name
	problems map[string][]string // by source: what a dynamic source could not publish
	srcs     []indexed           // the sources as indexed, in component order
	gate     *trust.Gate         // the lock file's, nil without one
	flows    *flow.Rules         // the flows section, nil without rules

	mu      sync.Mutex
	refs    int
	retired bool
	drained chan struct{}
}

var _ endpoint.Catalog = (*Snapshot)(nil)

func newSnapshot(cfg *loader.Config, p *parts) *Snapshot {
	return &Snapshot{Config: cfg, parts: p, problems: map[string][]string{}, drained: make(chan struct{}), flows: cfg.FlowRules()}
}

// Flows is the flows section's rules; nil without any.
func (s *Snapshot) Flows() *flow.Rules { return s.flows }

// Index is what the snapshot's sources provide.
func (s *Snapshot) Index() *source.Index { return s.index }

// Conf is the config s was built from.
func (s *Snapshot) Conf() *loader.Config { return s.Config }

// Sources are the sources s indexed, in component order.
func (s *Snapshot) Sources() []source.Source {
	out := make([]source.Source, len(s.srcs))
	for i, x := range s.srcs {
		out[i] = x.src
	}
	return out
}

// Overlay is session's view of s (a plugin of instances: session whose
// session's instance relisted), with what it refused; s.index when the
// session sees the shared lists.
func (s *Snapshot) Overlay(session string) (*source.Index, []error) {
	x := s.index
	var errs []error
	for src := range s.sources {
		if sl, ok := src.(source.SessionLister); ok {
			if d, ok := sl.SessionLists(session); ok {
				var e []error
				x, e = x.SessionView(s.Config.File, src, d)
				errs = append(errs, e...)
			}
		}
	}
	return x, errs
}

// Policy is the policy section compiled; nil allows everything.
func (s *Snapshot) Policy() *policy.Policy { return s.parts.id.pol }

// Stdio is the principal of the stdio client.
func (s *Snapshot) Stdio() policy.Principal { return s.parts.id.stdio }

// Summary describes a snapshot in one line: the plugins and what the
// sources provide, then every other section in force: "3 plugins
// (calculator, storage, greeter), 3 tools, 1 resource, 1 resource
// template, 1 prompt; auth: off; policy: off; audit: log".
func (s *Snapshot) Summary() string {
	x := s.index
	sources := s.parts.plugins.Summary()
	if names := s.upstreamNames(); len(names) > 0 { // relay sites are in ops.SectionsSummary's "relay: …"
		sources += fmt.Sprintf(", %s (%s)", plural.N(len(names), "upstream"), strings.Join(names, ", "))
	}
	if ic := s.parts.icpts.Summary(); ic != "" {
		sources += ", " + ic
	}
	if es := s.Config.Endpoints; len(es) > 0 {
		names := make([]string, len(es))
		for i, e := range es {
			names[i] = e.Name
		}
		sources += fmt.Sprintf(", %s (%s)", plural.N(len(es), "endpoint"), strings.Join(names, ", "))
	}
	return fmt.Sprintf("%s, %s, %s, %s, %s; %s", sources, plural.N(len(x.Tools), "tool"),
		plural.N(len(x.Resources), "resource"), plural.N(len(x.Templates), "resource template"),
		plural.N(len(x.Prompts), "prompt"), ops.SectionsSummary(s.Config))
}

// PluginReport describes each plugin in a line: its name, where it is
// declared, the ABI it was detected as and what it provides, then its
// warnings, if any.
func (s *Snapshot) PluginReport() []string { return s.parts.plugins.Report() }

// SkillReport describes each skills folder in a line: its skills, then
// the skills it left out and why.
func (s *Snapshot) SkillReport() []string { return s.parts.skills.Report() }

func (s *Snapshot) upstreamNames() []string {
	var names []string
	for _, u := range s.Config.Upstreams {
		names = append(names, u.Name)
	}
	return names
}

// UpstreamReport describes each upstream in a line, as PluginReport does
// each plugin: its name, where it is declared, how it is reached (a
// remote one by its scheme and host alone: a URL may carry a secret) and
// what it publishes.
func (s *Snapshot) UpstreamReport() []string {
	var out []string
	for _, u := range s.Config.Upstreams {
		var how string
		if u.Stdio() {
			how = "stdio, command " + filepath.Base(u.Command[0])
		} else {
			how = "remote"
			if p, err := url.Parse(u.URL); err == nil {
				how += ", " + p.Scheme + "://" + p.Host
			}
		}
		if u.Sandbox != nil {
			how += ", sandboxed"
		}
		var tools, resources, templates, prompts int
		for _, t := range s.index.Tools {
			if t.Src.Key() == u.Key {
				tools++
			}
		}
		for _, r := range s.index.Resources {
			if r.Src.Key() == u.Key {
				resources++
			}
		}
		for _, r := range s.index.Templates {
			if r.Src.Key() == u.Key {
				templates++
			}
		}
		for _, p := range s.index.Prompts {
			if p.Src.Key() == u.Key {
				prompts++
			}
		}
		out = append(out, fmt.Sprintf("upstream %q (%s): %s; %s, %s, %s, %s", u.Name, u.Key, how, plural.N(tools, "tool"),
			plural.N(resources, "resource"), plural.N(templates, "resource template"), plural.N(prompts, "prompt")))
	}
	return out
}

// ToolNames lists the exposed tool names, sorted.
func (s *Snapshot) ToolNames() []string { return s.index.ToolNames() }

// indexed is a source as a snapshot indexed it.
type indexed struct {
	src     source.Source
	dynamic bool
}

// sources are the sources s indexed, in component order, and whether
// each is dynamic.
func (s *Snapshot) sources(yield func(src source.Source, dynamic bool) bool) {
	for _, x := range s.srcs {
		if !yield(x.src, x.dynamic) {
			return
		}
	}
}

// indexSources indexes what every source provides now. Given prev (the
// serving snapshot's index), prev's owners keep their names, URIs and
// templates (source.Index.Reserve); without (the first build) the first
// source in config order gets them. With strict (a build), what a static
// source cannot publish fails the build; else (indexed again after a
// relist or a page's registration) what a source cannot publish is
// refused for it alone: recorded for the status page and the page,
// counted and logged. What a dynamic source cannot publish is never an
// error: in a build it is recorded and logged, and counted once the
// snapshot serves (Apply).
func (s *Snapshot) indexSources(log *slog.Logger, m *metrics.Metrics, strict bool, prev *source.Index) error {
	s.srcs = nil
	for _, c := range s.parts.list {
		if sp, ok := c.Component.(component.SourceProvider); ok {
			_, dyn := c.Component.(component.Dynamic)
			for _, src := range sp.Sources() {
				s.srcs = append(s.srcs, indexed{src, dyn})
			}
		}
	}
	s.index = source.NewIndex()
	s.index.Redacted = func(src source.Source, k secretscan.Kind) {
		m.SecretsRedacted.WithLabelValues(src.Name(), string(k), source.WhereDefinition).Inc()
	}
	if s.gate = trust.NewGate(s.Config); s.gate != nil {
		s.index.Gate = s.gate
	}
	if prev != nil {
		s.index.Reserve(prev)
		for src := range s.sources {
			s.index.Add(s.Config.File, src) // the owners first; what is refused here is seen below
		}
		s.index.Release()
	}
	var errs []error
	for src, dyn := range s.sources {
		for _, err := range s.index.Add(s.Config.File, src) {
			countDuplicateKey(m, err)
			if strict && !dyn {
				errs = append(errs, err)
				continue
			}
			log.Warn(source.KindOf(src)+": not published", "source", src.Name(), "problem", err)
			s.problems[src.Name()] = append(s.problems[src.Name()], err.Error())
			if !strict {
				m.ClaimsRefused.WithLabelValues(src.Name()).Inc()
			}
		}
	}
	return errors.Join(errs...)
}

// countDuplicateKey counts err in wasmgate_trust_refused_total if it
// refused a definition whose schema repeats a key.
func countDuplicateKey(m *metrics.Metrics, err error) {
	if errors.Is(err, canon.ErrDuplicate) {
		m.TrustRefused.WithLabelValues(metrics.TrustRefusedDuplicateKey).Inc()
	}
}

// Acquire holds s for a call: false once it was retired.
func (s *Snapshot) Acquire() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.retired {
		return false
	}
	s.refs++
	return true
}

// Release ends a hold of Acquire.
func (s *Snapshot) Release() {
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

// close releases the snapshot's hold on its components; the last
// snapshot holding them cleans them up. Only after drained.
func (s *Snapshot) close(ctx context.Context) { s.parts.release(ctx) }

// Build holds cfg to its lock file before anything of it runs
// (trust.Checker.BeforeRun), provisions every component of cfg (reusing what
// the serving snapshot has where cfg leaves it unchanged) and indexes
// what their sources provide, without touching what is serving. It
// fails whole: on error everything it provisioned is cleaned up.
func (g *Gateway) Build(ctx context.Context, cfg *loader.Config) (*Snapshot, error) {
	s, err := g.build(ctx, cfg)
	return s, cfg.Locate(err)
}

func (g *Gateway) build(ctx context.Context, cfg *loader.Config) (*Snapshot, error) {
	if err := g.trust.BeforeRun(cfg); err != nil {
		return nil, err
	}
	var prev *parts
	var owners *source.Index // the serving snapshot's: its owners keep what they publish
	if cur := g.cur.Load(); cur != nil {
		prev, owners = cur.parts, cur.index
	}
	p, err := g.provision(ctx, cfg, prev)
	if err != nil {
		return nil, err
	}
	s := newSnapshot(cfg, p)
	if err := s.indexSources(g.log, g.opts.Metrics, true, owners); err != nil {
		s.close(context.WithoutCancel(ctx))
		return nil, err
	}
	if err := g.trust.CheckPins(s.Config, s.Sources()); err != nil {
		s.close(context.WithoutCancel(ctx))
		return nil, err
	}
	for _, e := range cfg.EndpointList() {
		if err := endpoint.CheckReserved(s.index, e); err != nil {
			s.close(context.WithoutCancel(ctx))
			return nil, err
		}
	}
	return s, nil
}

// reindex is a snapshot serving cur's components with every source
// indexed afresh: after a page registered or left, or a plugin's lists
// changed. Call with applyMu.
func (g *Gateway) reindex(cur *Snapshot) *Snapshot {
	s := newSnapshot(cur.Config, cur.parts.retain())
	_ = s.indexSources(g.log, g.opts.Metrics, false, cur.index) // never strict: it refuses newcomers, logs and counts
	return s
}

// Changed is the sources' word that the lists of the source named name
// changed (source.Lists): if it serves, the serving snapshot is indexed
// again and published (under applyMu only: a reload's build may wait
// for the source that calls it). It returns what of the source could not
// be published.
func (g *Gateway) Changed(name string) []string {
	g.applyMu.Lock()
	defer g.applyMu.Unlock()
	cur := g.cur.Load()
	if cur == nil || !slices.ContainsFunc(cur.srcs, func(x indexed) bool { return x.src.Name() == name }) {
		return nil
	}
	s := g.reindex(cur)
	g.swap(s)
	return s.problems[name]
}

// SessionChanged is the word that one session's lists of the source
// named name changed (source.Lists): the endpoint holding the session
// tells it alone. It reports whether the session is live.
func (g *Gateway) SessionChanged(name, session string) bool {
	g.applyMu.Lock()
	defer g.applyMu.Unlock()
	e := g.eps.Holding(session)
	return e != nil && e.SessionChanged(name, session)
}
