package gateway

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/wasmgate/wasmgate/gateway/ops"
	"github.com/wasmgate/wasmgate/gateway/plugin"
	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/lockfile"
	"github.com/wasmgate/wasmgate/metrics"
)

// Trust (issue 20, docs/trust.md): gateway.lock holds what an operator
// approved of every source. A build whose sources differ from it in a
// module digest, an upstream's command or URL, or a grant is refused
// (trust.on_change refuse or withhold; warn logs it); what a source
// publishes (tools, prompts, resources) that differs from the lock, or
// is not in it, is withheld by the index's Gate (withhold: that entry;
// refuse: the whole source; warn: served and logged), counted, and
// shown on the status page, until `wasmgate lock` approves it.

// TriggerLock is the reload `wasmgate lock` asks for.
const TriggerLock = "wasmgate lock"

// lockKind is src's kind in the lock file: source.KindOf's "plugin",
// "relay site" or "upstream".
func lockKind(src source.Source) string { return source.KindOf(src) }

// pinsOf is what the lock records of src beyond its lists: its module
// digest or upstream command/URL and its grants, read from cfg.
func pinsOf(cfg *loader.Config, src source.Source) (*lockfile.Source, error) {
	ls := &lockfile.Source{Kind: lockKind(src), Declared: src.Key()}
	var err error
	grant := func(k string, v any) {
		if e := ls.Grant(k, v); e != nil && err == nil {
			err = e
		}
	}
	name := src.Name()
	switch ls.Kind {
	case "plugin":
		if r, ok := src.(source.StatusReporter); ok {
			ls.Module = r.Status().SHA256
		}
		if gr, ok := src.(interface{ Grants() map[string]any }); ok {
			for _, k := range slices.Sorted(maps.Keys(gr.Grants())) {
				grant(k, gr.Grants()[k])
			}
		}
	case "upstream":
		for _, u := range cfg.Upstreams {
			if u.Name == name {
				return upstreamPins(u)
			}
		}
	case "relay site":
		for _, sc := range cfg.Relay.Sites {
			if sc.Name != name {
				continue
			}
			grant("allowed_origins", orEmpty(sc.AllowedOrigins))
			grant("resource_schemes", orEmpty(sc.ResourceSchemes))
			grant("protocol", sc.Protocol)
			grant("insecure", sc.Insecure)
		}
	}
	return ls, err
}

// upstreamPins is what the lock records of the upstream u: its command
// or URL and its grants, all read from the config.
func upstreamPins(u loader.UpstreamSpec) (*lockfile.Source, error) {
	ls := &lockfile.Source{Kind: "upstream", Declared: u.Key}
	if len(u.Command) > 0 {
		ls.Upstream = fmt.Sprintf("%q", u.Command)
	} else {
		ls.Upstream = u.URL
	}
	var sandbox any // none: null
	if sb := u.Sandbox; sb != nil {
		sandbox = map[string]any{"read": orEmpty(sb.Read), "write": orEmpty(sb.Write), "network": sb.Network}
	}
	grants := []struct {
		k string
		v any
	}{
		{"sandbox", sandbox},
		{"env", orEmpty(slices.Sorted(maps.Keys(u.Env)))}, // names only: values may be secrets
		{"env_from", orEmpty(u.EnvFrom)},
		{"cwd", u.Cwd},
		{"session", u.Session},
	}
	for _, g := range grants {
		if err := ls.Grant(g.k, g.v); err != nil {
			return nil, err
		}
	}
	return ls, nil
}

// approveBeforeRun holds cfg to its lock file before anything of cfg's
// sources runs (Build calls it first): every upstream's command or URL,
// environment names, sandbox, cwd and session, and every plugin's grants
// (all but the host functions its module imports, which its module
// digest pins: approveModules checks that once the module is fetched,
// before it is compiled). A source new to the lock, or whose pins
// differ, is refused as checkPins refuses it, so no process of a
// changed command is started and no connection is made to a changed URL
// before `wasmgate lock` approves it. With trust.on_change warn (or no
// lock) it checks nothing: checkPins logs what differs.
func (g *Gateway) approveBeforeRun(cfg *loader.Config) error {
	t := cfg.Trust
	if t.Lock == nil || t.OnChange == loader.OnChangeWarn {
		return nil
	}
	var lines []string
	for _, u := range cfg.Upstreams {
		now, err := upstreamPins(u)
		if err != nil {
			return fmt.Errorf("%s: %w", u.Key, err)
		}
		lines = append(lines, g.unapproved(t, u.Key, u.Name, now)...)
	}
	for _, p := range cfg.Plugins {
		now := &lockfile.Source{Kind: "plugin", Declared: p.Key}
		for k, v := range plugin.SpecGrants(p) {
			if err := now.Grant(k, v); err != nil {
				return fmt.Errorf("%s: %w", p.Key, err)
			}
		}
		if old := t.Lock.Sources[p.Name]; old != nil { // checked once fetched
			now.Module = old.Module
			if hf, ok := old.Grants["host_functions"]; ok {
				now.Grants["host_functions"] = hf
			}
		}
		lines = append(lines, g.unapproved(t, p.Key, p.Name, now)...)
	}
	return g.refuseUnapproved(t, lines)
}

// approveModules is plugin.Host's Approve: each plugin's module digest
// against the lock, once fetched and before it is compiled, so a changed
// module never runs (its start functions, its lists) before `wasmgate
// lock` approves it.
func (g *Gateway) approveModules(cfg *loader.Config, modules map[string]string) error {
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
			now.Grants = old.Grants // approveBeforeRun checked them
		}
		lines = append(lines, g.unapproved(t, p.Key, p.Name, now)...)
	}
	return g.refuseUnapproved(t, lines)
}

// unapproved lists what differs between the lock's pins of the source
// declared at key as name and now, one line each; each source that
// differs is counted and logged.
func (g *Gateway) unapproved(t loader.Trust, key, name string, now *lockfile.Source) []string {
	var lines []string
	if old := t.Lock.Sources[name]; old == nil {
		lines = []string{fmt.Sprintf("%s (%s %q): new, not in the lock", key, now.Kind, name)}
	} else {
		for _, d := range lockfile.PinDiff(name, old, now) {
			lines = append(lines, fmt.Sprintf("%s: %s", key, d))
		}
	}
	if len(lines) > 0 && t.OnChange != loader.OnChangeWarn {
		g.opts.Metrics.TrustRefused.WithLabelValues(metrics.TrustRefusedUnapproved).Inc()
		g.log.Warn("trust: source refused: it differs from the lock file; nothing of it runs until `wasmgate lock` approves it",
			"lock_file", t.LockFile, "source", name, "change", strings.Join(lines, "; "))
	}
	return lines
}

// refuseUnapproved is the error of a build whose sources differ from
// the lock in lines (nil: none).
func (g *Gateway) refuseUnapproved(t loader.Trust, lines []string) error {
	if len(lines) == 0 {
		return nil
	}
	return fmt.Errorf("%s: the sources differ from the lock file (trust.on_change: %s): %s; review the change, then run `wasmgate lock` to approve it",
		t.LockFile, t.OnChange, strings.Join(lines, "; "))
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
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
	ls, err := pinsOf(cfg, src)
	if err != nil {
		return nil, err
	}
	r := &recorder{ls: map[string]*lockfile.Source{src.Name(): ls}}
	x := source.NewIndex()
	x.Gate = r
	x.Add(cfg.File, src) // what it cannot publish is not published, nor locked
	return ls, r.err
}

// lockOf is the lock of what s's sources publish now. A relay site
// whose page publishes nothing (none connected) keeps what prev holds
// for it.
func lockOf(s *Snapshot, prev *lockfile.Lock) (*lockfile.Lock, error) {
	l := lockfile.New()
	for src := range s.sources {
		ls, err := published(s.Config, src)
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

// checkPins compares the module digests, upstream targets and grants of
// s's sources with its lock: a source new to the lock, or whose pins
// differ, is refused (the error names each source and change) unless
// trust.on_change is warn, which logs them. No lock: nothing to check.
func (g *Gateway) checkPins(s *Snapshot) error {
	t := s.Config.Trust
	if t.Lock == nil {
		return nil
	}
	var lines []string
	for src := range s.sources {
		now, err := pinsOf(s.Config, src)
		if err != nil {
			return err
		}
		lines = append(lines, g.unapproved(t, src.Key(), src.Name(), now)...)
	}
	if t.OnChange == loader.OnChangeWarn {
		for _, l := range lines {
			g.log.Warn("trust: differs from the lock file; serving it (trust.on_change: warn)", "lock_file", t.LockFile, "change", l)
		}
		return nil
	}
	return g.refuseUnapproved(t, lines)
}

// trustGate is a snapshot's Gate while a lock file exists: it compares
// every definition with the lock and withholds, per trust.on_change,
// what differs, remembering it for the status page and the metrics.
type trustGate struct {
	cfg  *loader.Config
	lock *lockfile.Lock
	mode string

	mu       sync.Mutex
	verdicts map[string][]string // source -> what differs in it (refuse)
	held     map[string]heldEntry
}

// heldEntry is a definition that differs from the lock.
type heldEntry struct {
	Source   string   `json:"source"`
	Kind     string   `json:"kind"`
	Name     string   `json:"name"`
	Withheld bool     `json:"withheld"` // false: served (warn)
	Diff     []string `json:"diff"`
}

func newTrustGate(cfg *loader.Config) *trustGate {
	if cfg.Trust.Lock == nil {
		return nil
	}
	return &trustGate{cfg: cfg, lock: cfg.Trust.Lock, mode: cfg.Trust.OnChange, verdicts: map[string][]string{}, held: map[string]heldEntry{}}
}

func (t *trustGate) Admit(src source.Source, kind, name string, def any) bool {
	e, err := lockfile.NewEntry(def)
	if err != nil {
		return t.mode == loader.OnChangeWarn
	}
	ls := t.lock.Sources[src.Name()]
	var diff []string
	var old map[string]lockfile.Entry
	if ls != nil {
		old = ls.Entries(kind)
	}
	diff = lockfile.EntriesDiff(src.Name(), lockKind(src), kind, filterEntry(old, name), map[string]lockfile.Entry{name: e})
	if t.mode == loader.OnChangeRefuse {
		if whole := t.verdict(src); len(whole) > 0 {
			if len(diff) == 0 {
				diff = []string{withheldWithSource + strings.Join(whole, "; ")}
			}
			t.hold(src, kind, name, true, diff)
			return false
		}
		return true
	}
	if len(diff) == 0 {
		return true
	}
	t.hold(src, kind, name, t.mode != loader.OnChangeWarn, diff)
	return t.mode == loader.OnChangeWarn
}

func filterEntry(m map[string]lockfile.Entry, name string) map[string]lockfile.Entry {
	if e, ok := m[name]; ok {
		return map[string]lockfile.Entry{name: e}
	}
	return nil
}

// withheldWithSource starts the diff of an entry withheld (refuse)
// because something else of its source differs.
const withheldWithSource = "withheld with its source (trust.on_change: refuse): "

// verdict is what differs between what src publishes and the lock.
func (t *trustGate) verdict(src source.Source) []string {
	t.mu.Lock()
	v, ok := t.verdicts[src.Name()]
	t.mu.Unlock()
	if ok {
		return v
	}
	now, err := published(t.cfg, src)
	if err != nil {
		v = []string{err.Error()}
	} else {
		l := lockfile.New()
		l.Sources[src.Name()] = now
		prev := lockfile.New()
		if p := t.lock.Sources[src.Name()]; p != nil {
			prev.Sources[src.Name()] = p
		}
		v = lockfile.Diff(prev, l)
	}
	t.mu.Lock()
	t.verdicts[src.Name()] = v
	t.mu.Unlock()
	return v
}

func (t *trustGate) hold(src source.Source, kind, name string, withheld bool, diff []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.held[src.Name()+"\x00"+kind+"\x00"+name] = heldEntry{Source: src.Name(), Kind: kind, Name: name, Withheld: withheld, Diff: diff}
}

// entries are what the gate held, sorted.
func (t *trustGate) entries() []heldEntry {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]heldEntry, 0, len(t.held))
	for _, k := range slices.Sorted(maps.Keys(t.held)) {
		out = append(out, t.held[k])
	}
	return out
}

// trustMetrics sets wasmgate_trust_unapproved for s: per source, the
// definitions withheld or (warn) served that differ from the lock.
func (g *Gateway) trustMetrics(s *Snapshot) {
	m := g.opts.Metrics.TrustUnapproved
	m.Reset()
	for _, e := range s.gate.entries() {
		action := "withheld"
		if !e.Withheld {
			action = "served"
		}
		m.WithLabelValues(e.Source, action).Inc()
	}
}

// logHeld logs what s's gate held that prev's did not (one line for a
// source withheld whole).
func (g *Gateway) logHeld(prev, s *Snapshot) {
	key := func(e heldEntry) string {
		return fmt.Sprintf("%s\x00%s\x00%s\x00%v\x00%s", e.Source, e.Kind, e.Name, e.Withheld, strings.Join(e.Diff, "\n"))
	}
	seen := map[string]bool{}
	if prev != nil {
		for _, e := range prev.gate.entries() {
			seen[key(e)] = true
		}
	}
	whole := map[string]bool{}
	for _, e := range s.gate.entries() {
		if seen[key(e)] {
			continue
		}
		if len(e.Diff) == 1 && strings.HasPrefix(e.Diff[0], withheldWithSource) {
			if !whole[e.Source] {
				whole[e.Source] = true
				g.log.Warn("trust: source withheld: it differs from the lock file until `wasmgate lock` approves it", "source", e.Source,
					"diff", strings.TrimPrefix(e.Diff[0], withheldWithSource))
			}
			continue
		}
		msg := "trust: withheld: differs from the lock file until `wasmgate lock` approves it"
		if !e.Withheld {
			msg = "trust: differs from the lock file; serving it (trust.on_change: warn)"
		}
		g.log.Warn(msg, "source", e.Source, e.Kind, e.Name, "diff", strings.Join(e.Diff, "; "))
	}
}

// TrustStatus is the status page's trust section.
type TrustStatus struct {
	LockFile string      `json:"lock_file"`
	Locked   bool        `json:"locked"` // the lock file exists
	OnChange string      `json:"on_change"`
	Held     []heldEntry `json:"held"`
}

// Lines are the section as the status page shows it: the lock file,
// then each held definition's diff.
func (t TrustStatus) Lines() []string {
	head := fmt.Sprintf("lock file %s: none, nothing enforced (run `wasmgate lock`)", t.LockFile)
	if t.Locked {
		head = fmt.Sprintf("lock file %s, trust.on_change: %s; %d held", t.LockFile, t.OnChange, len(t.Held))
	}
	out := []string{head}
	for _, h := range t.Held {
		what := "withheld"
		if !h.Withheld {
			what = "served (warn)"
		}
		for _, d := range h.Diff {
			out = append(out, what+": "+d)
		}
	}
	return out
}

func (g *Gateway) trustStatus() any {
	s := g.cur.Load()
	if s == nil {
		return nil
	}
	t := s.Config.Trust
	return TrustStatus{LockFile: t.LockFile, Locked: t.Lock != nil, OnChange: t.OnChange, Held: orEmptyHeld(s.gate.entries())}
}

func orEmptyHeld(h []heldEntry) []heldEntry {
	if h == nil {
		return []heldEntry{}
	}
	return h
}

// LockResult is what Lock did: the lock file, and what differed between
// it and what the sources publish (before it was written, with write).
type LockResult struct {
	File string   `json:"file"`
	Diff []string `json:"diff"`
	// Digest is the SHA-256 of the lock file that writing would write
	// now: `wasmgate lock` shows Diff, then asks to write with it, and
	// the gateway refuses if the sources changed in between.
	Digest  string `json:"digest"`
	Written bool   `json:"written"`
	Summary string `json:"summary,omitempty"`
}

// Lock builds the config file as saved, with nothing withheld, and
// compares what its sources publish (the pages connected now, the
// upstreams as they answer) with the lock file; with write, it writes
// the lock file and reloads (TriggerLock), so what it approved serves.
// With digest (a LockResult's Digest, as shown), it writes only that
// state: if what it would write now differs, nothing is written and the
// error wraps ops.ErrLockChanged. A lock file that cannot be parsed is
// replaced.
func (g *Gateway) Lock(ctx context.Context, write bool, digest string) (LockResult, error) {
	res, l, err := g.lockBuild(ctx)
	if err != nil {
		return res, err
	}
	data, err := l.Encode()
	if err != nil {
		return res, fmt.Errorf("encode the lock file: %w", err)
	}
	res.Digest = lockfile.Digest(data)
	if !write {
		return res, nil
	}
	if digest != "" && digest != res.Digest {
		g.opts.Metrics.TrustRefused.WithLabelValues(metrics.TrustRefusedLockChanged).Inc()
		g.log.Warn("trust: wasmgate lock refused: what the sources publish changed after it was shown; nothing written",
			"lock_file", res.File, "shown", digest, "now", res.Digest)
		return res, fmt.Errorf("%w: %s not written: what the sources publish changed after it was shown (sha256 %s, now %s); review it again (`wasmgate lock --check`), then run `wasmgate lock`; it differs from the lock file in:\n%s",
			ops.ErrLockChanged, res.File, digest, res.Digest, strings.Join(res.Diff, "\n"))
	}
	if g.watcher != nil {
		g.watcher.Expect(res.File, data) // the reload below applies it: the watcher's would be a second
	}
	if err := writeFileAtomic(res.File, data); err != nil {
		return res, err
	}
	res.Written = true
	if err := g.ReloadFrom(ctx, TriggerLock); err != nil {
		return res, fmt.Errorf("%s written; the reload that applies it failed: %w", res.File, err)
	}
	res.Summary = g.cur.Load().Summary()
	return res, nil
}

func (g *Gateway) lockBuild(ctx context.Context) (LockResult, *lockfile.Lock, error) {
	g.reloadMu.Lock()
	defer g.reloadMu.Unlock()
	cfg, err := loader.LoadUnlocked(g.opts.ConfigPath, g.opts.Environ)
	if err != nil {
		return LockResult{}, nil, err
	}
	res := LockResult{File: cfg.Trust.LockFile}
	if cur := g.cur.Load(); cur != nil {
		if err := cfg.RestartOnly(cur.Config, RestartHint(g.opts.Environ)); err != nil {
			return res, nil, err
		}
	}
	s, err := g.Build(ctx, cfg)
	if err != nil {
		return res, nil, err
	}
	defer func() {
		s.retire()
		s.close(context.WithoutCancel(ctx))
	}()
	old, _ := ReadLock(res.File) // unreadable or garbage: everything differs
	l, err := lockOf(s, old)
	if err != nil {
		return res, nil, err
	}
	res.Diff = lockfile.Diff(old, l)
	if res.Diff == nil {
		res.Diff = []string{}
	}
	return res, l, nil
}

// ReadLock reads and parses the lock file at path; nil, nil when there
// is none.
func ReadLock(path string) (*lockfile.Lock, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return lockfile.Parse(data)
}

// LockOf is the lock of what the serving snapshot's sources publish
// (`wasmgate lock` without a running gateway opens one to ask).
func (g *Gateway) LockOf(prev *lockfile.Lock) (*lockfile.Lock, error) {
	s := g.cur.Load()
	if s == nil {
		return nil, errors.New("no configuration is serving")
	}
	return lockOf(s, prev)
}

// writeFileAtomic writes data to path through a temporary file in the
// same folder, renamed over it (a watcher sees one complete file).
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write the lock file: %w", err)
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr, os.Chmod(f.Name(), 0o644)); err != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("write the lock file %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("write the lock file %s: %w", path, err)
	}
	return nil
}
