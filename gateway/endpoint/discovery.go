package endpoint

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/gateway/envelope"
	"github.com/wasmgate/wasmgate/gateway/search"
	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/internal/glob"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/policy"
)

// Tool search (endpoints[].discovery.mode: search, docs/endpoints.md
// "Large catalogs"): the endpoint lists its pinned tools and two
// meta-tools, find_tools and call_tool; every tool it selects stays
// registered with mcp-go, so any tool the caller may see is called by
// its own name whether it was listed or not. The search index is built
// once per change of the endpoint's tools (Publish), never per session
// or caller: what a caller may see is decided at query time.

// The bounds of a search.
const (
	// maxQuery bounds find_tools' query (in bytes).
	maxQuery = 1024
	// maxFound bounds the tools a 2025-11-25 session's searches add to
	// its own list; beyond it the oldest leave it.
	maxFound = 64
	// rankerPool is how many lexical candidates a ranker sees: at least
	// this many, or three times the results asked for.
	rankerPool = 20
)

// kindSearch is the kind audit lines and the status page give a search.
const kindSearch = "search"

// finder is a search endpoint's index of its tools.
type finder struct {
	idx   *search.Index
	names []string // doc -> tool name
	// descs caches find_tools' description per caller (principal and
	// groups): its per-source counts of the tools the caller may see; at
	// most maxDescs callers (access tokens bring any number of names).
	descs  sync.Map
	ndescs atomic.Int32
}

// maxDescs bounds the callers whose description a finder caches.
const maxDescs = 1024

// newFinder indexes the tools of x.
func newFinder(x *source.Index) *finder {
	names := x.ToolNames()
	docs := make([]search.Doc, len(names))
	for i, n := range names {
		t := x.Tools[n]
		docs[i] = search.DocOf(t.Src.Name(), t.Def)
	}
	return &finder{idx: search.Build(docs), names: names}
}

// searchTools is the finder for p's config: the previous one when the
// endpoint's tools did not change (toolsChanged false), else built anew.
func searchTools(old, p *published, toolsChanged bool) *finder {
	if !p.cfg.Discovery.Search() {
		return nil
	}
	if old != nil && old.find != nil && !toolsChanged {
		return old.find
	}
	return newFinder(p.index)
}

// metaTools are the two tools of a search endpoint, with find_tools'
// generic description (the list a caller gets has its own: describe).
func (e *Endpoint) metaTools() []server.ServerTool {
	return []server.ServerTool{
		{Tool: findToolsDef(""), Handler: e.findTools},
		{Tool: callToolDef(), Handler: e.callTool},
	}
}

func findToolsDef(holds string) mcp.Tool {
	d := "Search this server's tools by what you want to do, in a few words. " +
		"Returns the best matching tools with their names, descriptions and input schemas; " +
		"call one by its name (or with call_tool)."
	if holds != "" {
		d += " " + holds
	}
	t := mcp.NewTool(loader.FindTools,
		mcp.WithDescription(d),
		mcp.WithString("query", mcp.Required(), mcp.Description("What you want to do, e.g. \"read a file\" or \"open a ticket\".")),
		mcp.WithNumber("limit", mcp.Description(fmt.Sprintf("How many tools to return (1-%d).", loader.MaxMaxResults))),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithIdempotentHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(false),
	)
	t.Title = "Find tools"
	return t
}

func callToolDef() mcp.Tool {
	t := mcp.NewTool(loader.CallTool,
		mcp.WithDescription("Call a tool of this server by its name, as find_tools returned it, with its arguments. "+
			"The same as calling the tool itself."),
		mcp.WithString("name", mcp.Required(), mcp.Description("The tool's name.")),
		mcp.WithObject("arguments", mcp.Description("The tool's arguments, as its input schema asks.")),
		mcp.WithOpenWorldHintAnnotation(true),
	)
	t.Title = "Call a tool"
	return t
}

// isMeta reports whether name is a meta-tool's.
func isMeta(name string) bool { return name == loader.FindTools || name == loader.CallTool }

// CheckReserved reports a tool cfg (a search endpoint) selects of x
// whose name is a meta-tool's: a config error naming both.
func CheckReserved(x *source.Index, cfg loader.Endpoint) error {
	if !cfg.Discovery.Search() {
		return nil
	}
	for _, name := range []string{loader.FindTools, loader.CallTool} {
		t, ok := x.Tools[name]
		if !ok || !cfg.SourceMatch(t.Src.Name()) || !cfg.Tools.Match(name) {
			continue
		}
		return fmt.Errorf("%s.discovery: the tool %q of the source %q takes the name of the endpoint's meta-tool %s "+
			"(%s and %s are reserved on an endpoint in mode: search); rename it (the source's prefix or overrides) or leave it out (%s.tools.exclude)",
			cfg.Key, name, t.Src.Name(), name, loader.FindTools, loader.CallTool, cfg.Key)
	}
	return nil
}

// PinnedUnmatched are the entries of cfg's discovery.pinned that match
// no tool of the endpoint (a warning: a pinned tool may come later).
func (e *Endpoint) PinnedUnmatched() []string {
	p := e.cur.Load()
	if p == nil || !p.cfg.Discovery.Search() {
		return nil
	}
	var out []string
	for i, pat := range p.cfg.Discovery.Pinned {
		g, err := glob.Compile(pat) // each pattern once, not once per tool
		if err != nil {
			continue // a config error, reported by Load
		}
		matched := false
		for name := range p.index.Tools {
			if matched = g.Match(name); matched {
				break
			}
		}
		if !matched {
			out = append(out, fmt.Sprintf("%s.discovery.pinned[%d] %q", p.cfg.Key, i, pat))
		}
	}
	return out
}

// Discovery is what the status page shows of the endpoint's discovery:
// its mode and, in search mode, the tools its index holds.
func (e *Endpoint) Discovery() (mode string, indexed int) {
	p := e.cur.Load()
	if p == nil {
		return e.Config().Discovery.Mode, 0
	}
	if p.find != nil {
		return loader.DiscoverySearch, p.find.idx.Len()
	}
	return cmp.Or(p.cfg.Discovery.Mode, loader.DiscoveryAll), 0
}

// searchList is the tools/list of a search endpoint for the caller of
// ctx: the meta-tools, then the pinned tools and the tools the
// session's searches found, that the caller may see.
func (e *Endpoint) searchList(ctx context.Context, p *published) []mcp.Tool {
	c := envelope.CallerOf(ctx, p)
	x := p.SessionIndex(ctx)
	var found map[string]bool
	if cs := server.ClientSessionFromContext(ctx); cs != nil {
		found = e.found.names(cs.SessionID())
	}
	pol := p.Policy()
	out := []mcp.Tool{findToolsDef(p.describe(c.Principal, x)), callToolDef()}
	for _, name := range x.ToolNames() {
		if (!p.cfg.Discovery.PinnedMatch(name) && !found[name]) || !pol.Visible(c.Principal, policy.Tool, name) {
			continue
		}
		out = append(out, x.Tools[name].Def)
	}
	slices.SortFunc(out, func(a, b mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// describe says what the endpoint holds for principal who, in x: its
// sources and how many tools of each who may see (nothing of what it
// may not), for find_tools' description.
func (p *published) describe(who policy.Principal, x *source.Index) string {
	key := who.Name + "\x00" + strings.Join(who.Groups, "\x00")
	if x == p.index {
		if d, ok := p.find.descs.Load(key); ok {
			return d.(string)
		}
	}
	pol := p.Policy()
	counts := map[string]int{}
	total := 0
	for name, t := range x.Tools {
		if pol.Visible(who, policy.Tool, name) {
			counts[t.Src.Name()]++
			total++
		}
	}
	var parts []string
	for _, src := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%s (%d)", src, counts[src]))
	}
	d := "It holds no tools you may use."
	if total > 0 {
		d = fmt.Sprintf("It holds %d tools you may use, from %s.", total, strings.Join(parts, ", "))
	}
	if x == p.index && p.find.ndescs.Add(1) <= maxDescs {
		p.find.descs.Store(key, d)
	}
	return d
}

// foundTools remembers what each 2025-11-25 session's searches found:
// those tools join the session's own tools/list.
type foundTools struct {
	mu sync.Mutex
	m  map[string][]string // session -> tool names, oldest first
}

// add adds names to session's found tools (at most maxFound, the oldest
// leave first) and reports whether the list gained one.
func (f *foundTools) add(session string, names []string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = map[string][]string{}
	}
	cur, grew := f.m[session], false
	for _, n := range names {
		if i := slices.Index(cur, n); i >= 0 {
			cur = append(slices.Delete(cur, i, i+1), n) // found again: the newest
			continue
		}
		cur, grew = append(cur, n), true
	}
	if len(cur) > maxFound {
		cur = slices.Clone(cur[len(cur)-maxFound:])
	}
	f.m[session] = cur
	return grew
}

func (f *foundTools) names(session string) map[string]bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]bool, len(f.m[session]))
	for _, n := range f.m[session] {
		out[n] = true
	}
	return out
}

func (f *foundTools) forget(session string) {
	f.mu.Lock()
	delete(f.m, session)
	f.mu.Unlock()
}
