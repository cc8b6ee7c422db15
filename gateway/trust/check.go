package trust

import (
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/wasmgate/wasmgate/gateway/plugin"
	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/gateway/upstream"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/lockfile"
	"github.com/wasmgate/wasmgate/metrics"
)

// Checker holds builds to their lock file, logging and counting what it
// refuses.
type Checker struct {
	Log     *slog.Logger
	Metrics *metrics.Metrics
}

// pinsOf is what the lock records of src beyond its lists (a
// source.Pinner says; another source is pinned by its kind and
// declaration alone).
func pinsOf(src source.Source) (*lockfile.Source, error) {
	if p, ok := src.(source.Pinner); ok {
		return p.Pins()
	}
	return &lockfile.Source{Kind: source.KindOf(src), Declared: src.Key()}, nil
}

// BeforeRun holds cfg to its lock file before anything of cfg's
// sources runs (Build calls it first): every upstream's command or URL,
// environment names, sandbox, cwd and session, and every plugin's grants
// (all but the host functions its module imports, which its module
// digest pins: Modules checks that once the module is fetched,
// before it is compiled). A source new to the lock, or whose pins
// differ, is refused as CheckPins refuses it, so no process of a
// changed command is started and no connection is made to a changed URL
// before `wasmgate lock` approves it. With trust.on_change warn (or no
// lock) it checks nothing: CheckPins logs what differs.
func (c *Checker) BeforeRun(cfg *loader.Config) error {
	t := cfg.Trust
	if t.Lock == nil || t.OnChange == loader.OnChangeWarn {
		return nil
	}
	var lines []string
	for _, u := range cfg.Upstreams {
		now, err := upstream.Pins(u)
		if err != nil {
			return fmt.Errorf("%s: %w", u.Key, err)
		}
		lines = append(lines, c.unapproved(t, u.Key, u.Name, now)...)
	}
	for _, p := range cfg.Plugins {
		now := &lockfile.Source{Kind: "plugin", Declared: p.Key}
		if err := now.GrantAll(plugin.SpecGrants(p)); err != nil {
			return fmt.Errorf("%s: %w", p.Key, err)
		}
		if old := t.Lock.Sources[p.Name]; old != nil { // checked once fetched
			now.Module = old.Module
			if hf, ok := old.Grants["host_functions"]; ok {
				now.Grants["host_functions"] = hf
			}
		}
		lines = append(lines, c.unapproved(t, p.Key, p.Name, now)...)
	}
	for _, ic := range cfg.Interceptors {
		module := ""
		if old := t.Lock.Sources[InterceptorKey(ic.Name)]; old != nil { // checked once fetched
			module = old.Module
		}
		now, err := InterceptorPins(ic, module)
		if err != nil {
			return fmt.Errorf("%s: %w", ic.Key, err)
		}
		lines = append(lines, c.unapproved(t, ic.Key, InterceptorKey(ic.Name), now)...)
	}
	return c.refuseUnapproved(t, lines)
}

// InterceptorKey is the lock file's key of the interceptor called name:
// interceptors are not sources, and may share a source's name.
func InterceptorKey(name string) string { return "interceptor:" + name }

// InterceptorPins is what the lock records of an interceptor: its
// module's digest (module, "" for an external server) or its server's
// URL, and its grants: the hosts and paths it may reach, and what it
// sees (on, phase, match), which an approval covers too.
func InterceptorPins(spec loader.InterceptorSpec, module string) (*lockfile.Source, error) {
	hosts := append([]string{}, spec.AllowedHosts...)
	slices.Sort(hosts)
	paths := map[string]string{}
	maps.Copy(paths, spec.AllowedPaths)
	match := map[string][]string{"endpoints": lockfile.List(spec.Match.Endpoints), "sources": lockfile.List(spec.Match.Sources), "tools": lockfile.List(spec.Match.Tools)}
	now := &lockfile.Source{Kind: "interceptor", Declared: spec.Key, Module: module, Upstream: spec.URL}
	err := now.GrantAll(map[string]any{"allowed_hosts": hosts, "allowed_paths": paths, "on": lockfile.List(spec.On), "phase": spec.Phase, "match": match})
	return now, err
}

// InterceptorModules is intercept.Host's Approve: each interceptor
// module's digest against the lock, once fetched and before it is
// compiled.
func (c *Checker) InterceptorModules(cfg *loader.Config, modules map[string]string) error {
	t := cfg.Trust
	if t.Lock == nil || t.OnChange == loader.OnChangeWarn {
		return nil
	}
	var lines []string
	for _, ic := range cfg.Interceptors {
		sum, ok := modules[ic.Name]
		if !ok {
			continue
		}
		now, err := InterceptorPins(ic, sum)
		if err != nil {
			return fmt.Errorf("%s: %w", ic.Key, err)
		}
		lines = append(lines, c.unapproved(t, ic.Key, InterceptorKey(ic.Name), now)...)
	}
	return c.refuseUnapproved(t, lines)
}

// Modules is plugin.Host's Approve: each plugin's module digest
// against the lock, once fetched and before it is compiled, so a changed
// module never runs (its start functions, its lists) before `wasmgate
// lock` approves it.
func (c *Checker) Modules(cfg *loader.Config, modules map[string]string) error {
	t := cfg.Trust
	if t.Lock == nil || t.OnChange == loader.OnChangeWarn {
		return nil
	}
	var lines []string
	for _, p := range cfg.Plugins {
		sum, ok := modules[p.Name]
		if !ok {
			continue // not fetched: its error says why
		}
		now := &lockfile.Source{Kind: "plugin", Declared: p.Key, Module: sum}
		if old := t.Lock.Sources[p.Name]; old != nil {
			now.Grants = old.Grants // BeforeRun checked them
		}
		lines = append(lines, c.unapproved(t, p.Key, p.Name, now)...)
	}
	return c.refuseUnapproved(t, lines)
}

// unapproved lists what differs between the lock's pins of the source
// declared at key as name and now, one line each; each source that
// differs is counted and logged.
func (c *Checker) unapproved(t loader.Trust, key, name string, now *lockfile.Source) []string {
	var lines []string
	if old := t.Lock.Sources[name]; old == nil {
		lines = []string{fmt.Sprintf("%s (%s %q): new, not in the lock", key, now.Kind, lockfile.Display(now.Kind, name))}
	} else {
		for _, d := range lockfile.PinDiff(name, old, now) {
			lines = append(lines, fmt.Sprintf("%s: %s", key, d))
		}
	}
	if len(lines) > 0 && t.OnChange != loader.OnChangeWarn {
		c.Metrics.TrustRefused.WithLabelValues(metrics.TrustRefusedUnapproved).Inc()
		c.Log.Warn("trust: source refused: it differs from the lock file; nothing of it runs until `wasmgate lock` approves it",
			"lock_file", t.LockFile, "source", name, "change", strings.Join(lines, "; "))
	}
	return lines
}

// refuseUnapproved is the error of a build whose sources differ from
// the lock in lines (nil: none).
func (c *Checker) refuseUnapproved(t loader.Trust, lines []string) error {
	if len(lines) == 0 {
		return nil
	}
	return fmt.Errorf("%s: the sources differ from the lock file (trust.on_change: %s): %s; review the change, then run `wasmgate lock` to approve it",
		t.LockFile, t.OnChange, strings.Join(lines, "; "))
}

// recorder is a Gate that admits everything and records it.
type recorder struct {
	ls  map[string]*lockfile.Source
	err error
}

func (r *recorder) Admit(src source.Source, kind, name string, def any) bool {
	if ls := r.ls[src.Name()]; ls != nil {
		if err := ls.Add(kind, name, def); err != nil && r.err == nil {
			r.err = fmt.Errorf("%s: %w", source.Where(src), err)
		}
	}
	return true
}

// published is what src publishes now, as the lock records it (its
// entries curated and prefixed as clients see them), with its pins.
func published(cfg *loader.Config, src source.Source) (*lockfile.Source, error) {
	ls, err := pinsOf(src)
	if err != nil {
		return nil, err
	}
	r := &recorder{ls: map[string]*lockfile.Source{src.Name(): ls}}
	x := source.NewIndex()
	x.Gate = r
	x.Add(cfg.File, src) // what it cannot publish is not published, nor locked
	return ls, r.err
}

// LockOf is the lock of what srcs, built from cfg, publish now. A relay
// site whose page publishes nothing (none connected) keeps what prev
// holds for it.
//
// interceptors are the digests of cfg's interceptor modules, by name.
func LockOf(cfg *loader.Config, srcs []source.Source, interceptors map[string]string, prev *lockfile.Lock) (*lockfile.Lock, error) {
	l := lockfile.New()
	for _, ic := range cfg.Interceptors {
		ls, err := InterceptorPins(ic, interceptors[ic.Name])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ic.Key, err)
		}
		l.Sources[InterceptorKey(ic.Name)] = ls
	}
	for _, src := range srcs {
		ls, err := published(cfg, src)
		if err != nil {
			return nil, err
		}
		if prev != nil && ls.Kind == "relay site" && len(ls.Tools)+len(ls.Prompts)+len(ls.Resources) == 0 {
			if p := prev.Sources[src.Name()]; p != nil {
				ls.Tools, ls.Prompts, ls.Resources = p.Tools, p.Prompts, p.Resources
			}
		}
		l.Sources[src.Name()] = ls
	}
	return l, nil
}

// CheckPins compares the module digests, upstream targets and grants of
// srcs, built from cfg, with cfg's lock: a source new to the lock, or whose pins
// differ, is refused (the error names each source and change) unless
// trust.on_change is warn, which logs them. No lock: nothing to check.
func (c *Checker) CheckPins(cfg *loader.Config, srcs []source.Source) error {
	t := cfg.Trust
	if t.Lock == nil {
		return nil
	}
	var lines []string
	for _, src := range srcs {
		now, err := pinsOf(src)
		if err != nil {
			return err
		}
		lines = append(lines, c.unapproved(t, src.Key(), src.Name(), now)...)
	}
	if t.OnChange == loader.OnChangeWarn {
		for _, l := range lines {
			c.Log.Warn("trust: differs from the lock file; serving it (trust.on_change: warn)", "lock_file", t.LockFile, "change", l)
		}
		return nil
	}
	return c.refuseUnapproved(t, lines)
}
