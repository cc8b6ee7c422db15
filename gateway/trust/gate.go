package trust

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/lockfile"
)

// Gate is a snapshot's index Gate while a lock file exists: it compares
// every definition with the lock and withholds, per trust.on_change,
// what differs, remembering it for the status page and the metrics.
type Gate struct {
	cfg  *loader.Config
	lock *lockfile.Lock
	mode string

	mu       sync.Mutex
	verdicts map[string][]string // source -> what differs in it (refuse)
	held     map[string]Held
}

// Held is a definition that differs from the lock.
type Held struct {
	Source   string   `json:"source"`
	Kind     string   `json:"kind"`
	Name     string   `json:"name"`
	Withheld bool     `json:"withheld"` // false: served (warn)
	Diff     []string `json:"diff"`
}

// NewGate is cfg's gate; nil without a lock file.
func NewGate(cfg *loader.Config) *Gate {
	if cfg.Trust.Lock == nil {
		return nil
	}
	return &Gate{cfg: cfg, lock: cfg.Trust.Lock, mode: cfg.Trust.OnChange, verdicts: map[string][]string{}, held: map[string]Held{}}
}

func (t *Gate) Admit(src source.Source, kind, name string, def any) bool {
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
	diff = lockfile.EntriesDiff(src.Name(), source.KindOf(src), kind, filterEntry(old, name), map[string]lockfile.Entry{name: e})
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
func (t *Gate) verdict(src source.Source) []string {
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

func (t *Gate) hold(src source.Source, kind, name string, withheld bool, diff []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.held[src.Name()+"\x00"+kind+"\x00"+name] = Held{Source: src.Name(), Kind: kind, Name: name, Withheld: withheld, Diff: diff}
}

// Entries are what the gate held, sorted.
func (t *Gate) Entries() []Held {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Held, 0, len(t.held))
	for _, k := range slices.Sorted(maps.Keys(t.held)) {
		out = append(out, t.held[k])
	}
	return out
}

// SetMetrics sets wasmgate_trust_unapproved for gate: per source, the
// definitions withheld or (warn) served that differ from the lock.
func (c *Checker) SetMetrics(gate *Gate) {
	m := c.Metrics.TrustUnapproved
	m.Reset()
	for _, e := range gate.Entries() {
		action := "withheld"
		if !e.Withheld {
			action = "served"
		}
		m.WithLabelValues(e.Source, action).Inc()
	}
}

// LogHeld logs what next held that prev did not (one line for a
// source withheld whole).
func (c *Checker) LogHeld(prev, next *Gate) {
	key := func(e Held) string {
		return fmt.Sprintf("%s\x00%s\x00%s\x00%v\x00%s", e.Source, e.Kind, e.Name, e.Withheld, strings.Join(e.Diff, "\n"))
	}
	seen := map[string]bool{}
	for _, e := range prev.Entries() {
		seen[key(e)] = true
	}
	whole := map[string]bool{}
	for _, e := range next.Entries() {
		if seen[key(e)] {
			continue
		}
		if len(e.Diff) == 1 && strings.HasPrefix(e.Diff[0], withheldWithSource) {
			if !whole[e.Source] {
				whole[e.Source] = true
				c.Log.Warn("trust: source withheld: it differs from the lock file until `wasmgate lock` approves it", "source", e.Source,
					"diff", strings.TrimPrefix(e.Diff[0], withheldWithSource))
			}
			continue
		}
		msg := "trust: withheld: differs from the lock file until `wasmgate lock` approves it"
		if !e.Withheld {
			msg = "trust: differs from the lock file; serving it (trust.on_change: warn)"
		}
		c.Log.Warn(msg, "source", e.Source, e.Kind, e.Name, "diff", strings.Join(e.Diff, "; "))
	}
}

// Status is the status page's trust section.
type Status struct {
	LockFile string `json:"lock_file"`
	Locked   bool   `json:"locked"` // the lock file exists
	OnChange string `json:"on_change"`
	Held     []Held `json:"held"`
}

// Lines are the section as the status page shows it: the lock file,
// then each held definition's diff.
func (t Status) Lines() []string {
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

func OrEmpty(h []Held) []Held {
	if h == nil {
		return []Held{}
	}
	return h
}
