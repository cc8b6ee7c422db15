package endpoint

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/wasmgate/wasmgate/gateway/envelope"
	"github.com/wasmgate/wasmgate/gateway/search"
	"github.com/wasmgate/wasmgate/gateway/search/rerank"
	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/gateway/tracing"
	"github.com/wasmgate/wasmgate/internal/glob"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/metrics"
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

// foundTool is one tool of find_tools' result.
type foundTool struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	InputSchema json.RawMessage  `json:"inputSchema"`
	Annotations *json.RawMessage `json:"annotations,omitempty"`
}

// findTools is find_tools' handler.
func (e *Endpoint) findTools(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	st, done, err := e.begin()
	if err != nil {
		return nil, err
	}
	defer done()
	p := st.(*published)
	call := &envelope.Call{Caller: envelope.CallerOf(ctx, p), Kind: kindSearch, Name: loader.FindTools, Key: loader.FindTools,
		Endpoint: e.name, Start: time.Now(), Args: req.GetArguments()}
	ctx, span := e.searchSpan(ctx)
	defer span.End()
	if sc := span.SpanContext(); sc.IsSampled() {
		call.TraceID = sc.TraceID().String()
	}
	var hits []foundTool
	res, outcome, msg := func() (*mcp.CallToolResult, string, string) {
		query, limit, msg := searchArgs(req, p.cfg.Discovery)
		if msg != "" {
			return mcp.NewToolResultError(msg), metrics.OutcomeInvalidArgs, msg
		}
		if p.find == nil {
			msg := fmt.Sprintf("the endpoint %q does not search (discovery.mode: %s)", e.name, p.cfg.Discovery.Mode)
			return mcp.NewToolResultError(msg), metrics.OutcomeError, msg
		}
		hits = e.search(ctx, p, call.Caller.Principal, query, limit)
		if span.IsRecording() {
			span.SetAttributes(attribute.Int("wasmgate.search.query_length", len(query)),
				attribute.Int("wasmgate.search.results", len(hits)))
			if p.config().Audit.Arguments {
				span.SetAttributes(attribute.String("wasmgate.search.query", query))
			}
		}
		body, err := json.Marshal(struct {
			Tools []foundTool `json:"tools"`
		}{Tools: append([]foundTool{}, hits...)})
		if err != nil {
			return mcp.NewToolResultError("the results could not be encoded"), metrics.OutcomeError, err.Error()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(string(body))}}, metrics.OutcomeOK, ""
	}()
	call.Took = time.Since(call.Start)
	call.Outcome, call.Err = outcome, msg
	if span.IsRecording() {
		span.SetAttributes(attribute.String("mcp.method.name", "tools/call"), attribute.String("gen_ai.tool.name", loader.FindTools),
			attribute.String("wasmgate.principal", call.Caller.Label()), attribute.String("wasmgate.endpoint", e.name),
			attribute.String("wasmgate.outcome", outcome))
		if outcome != metrics.OutcomeOK {
			tracing.Fail(span, msg)
		}
	}
	e.m.ToolSearches.WithLabelValues(e.name, outcome).Inc()
	if outcome == metrics.OutcomeOK {
		e.m.ToolSearchDuration.WithLabelValues(e.name).Observe(call.Took.Seconds())
		e.m.ToolSearchResults.WithLabelValues(e.name).Observe(float64(len(hits)))
		if len(hits) == 0 {
			e.m.ToolSearchEmpty.WithLabelValues(e.name).Inc()
		}
		e.addFound(ctx, hits)
	}
	e.o.Envelope.Observer.Observe(ctx, call)
	return res, nil
}

// searchSpan starts the span of a search, when tracing is on.
func (e *Endpoint) searchSpan(ctx context.Context) (context.Context, trace.Span) {
	if e.o.Envelope.Tracer == nil {
		return ctx, tracing.Off()
	}
	tr := e.o.Envelope.Tracer(ctx)
	if _, off := tr.(noop.Tracer); off {
		return ctx, tracing.Off()
	}
	return tr.Start(ctx, "tools/call "+loader.FindTools, trace.WithSpanKind(trace.SpanKindServer))
}

// searchArgs are find_tools' query and limit, or what is wrong with
// them.
func searchArgs(req mcp.CallToolRequest, d loader.Discovery) (query string, limit int, msg string) {
	args := req.GetArguments()
	q, ok := args["query"].(string)
	switch {
	case !ok:
		return "", 0, "find_tools needs a query: a string saying what you want to do"
	case strings.TrimSpace(q) == "":
		return "", 0, "find_tools' query is empty: say what you want to do, e.g. \"read a file\""
	case len(q) > maxQuery:
		return "", 0, fmt.Sprintf("find_tools' query is %d bytes; at most %d", len(q), maxQuery)
	}
	n := 0
	if v, ok := args["limit"]; ok && v != nil {
		f, ok := v.(float64)
		if !ok || f != float64(int(f)) || f < 1 || f > loader.MaxMaxResults {
			return "", 0, fmt.Sprintf("find_tools' limit must be a whole number from 1 to %d", loader.MaxMaxResults)
		}
		n = int(f)
	}
	return q, d.Limit(n), ""
}

// search finds at most limit tools for query that who may use in the
// session of ctx: the lexical order, re-ranked by the endpoint's ranker
// when it has one.
func (e *Endpoint) search(ctx context.Context, p *published, who policy.Principal, query string, limit int) []foundTool {
	x := p.SessionIndex(ctx)
	pol := p.Policy()
	allow := func(doc int) bool {
		name := p.find.names[doc]
		_, ok := x.Tools[name]
		return ok && pol.Visible(who, policy.Tool, name)
	}
	r := p.cat.Ranker(e.name)
	n := limit
	if r != nil {
		n = max(rankerPool, 3*limit)
	}
	hits := p.find.idx.Search(query, n, allow)
	if r != nil && len(hits) > 1 {
		hits = e.rerank(ctx, r, p.find, query, hits)
	}
	if len(hits) > limit {
		hits = hits[:limit]
	}
	out := make([]foundTool, 0, len(hits))
	for _, h := range hits {
		t := x.Tools[p.find.names[h.Doc]]
		out = append(out, toolOf(t.Def))
	}
	return out
}

// rerank orders hits by r's scores; on any failure it keeps the lexical
// order, counted and logged.
func (e *Endpoint) rerank(ctx context.Context, r rerank.Ranker, f *finder, query string, hits []search.Hit) []search.Hit {
	cands := make([]rerank.Candidate, len(hits))
	for i, h := range hits {
		d := f.idx.Doc(h.Doc)
		cands[i] = rerank.Candidate{Name: d.Name, Title: d.Title, Description: d.Description, Source: d.Source, Score: h.Score}
	}
	scores, err := r.Rank(ctx, query, cands)
	if err == nil && len(scores) != len(hits) {
		err = fmt.Errorf("%w: %d scores for %d candidates", rerank.ErrInvalid, len(scores), len(hits))
	}
	if err != nil {
		outcome := rerank.Outcome(err)
		e.m.ToolSearchRanker.WithLabelValues(e.name, outcome).Inc()
		e.rankerLog.Warn(e.log, "discovery.ranker failed; the lexical order stands", "outcome", outcome, "error", err)
		return hits
	}
	e.m.ToolSearchRanker.WithLabelValues(e.name, "ok").Inc()
	order := make([]int, len(hits))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
	out := make([]search.Hit, len(hits))
	for i, j := range order {
		out[i] = hits[j]
	}
	return out
}

// toolOf is what find_tools says of a tool.
func toolOf(t mcp.Tool) foundTool {
	ft := foundTool{Name: t.Name, Title: t.Title, Description: t.Description}
	if ft.Title == "" {
		ft.Title = t.Annotations.Title
	}
	if len(t.RawInputSchema) > 0 {
		ft.InputSchema = t.RawInputSchema
	} else if b, err := json.Marshal(t.InputSchema); err == nil {
		ft.InputSchema = b
	}
	if b, err := json.Marshal(t.Annotations); err == nil && string(b) != "{}" {
		raw := json.RawMessage(b)
		ft.Annotations = &raw
	}
	return ft
}

// addFound adds what a search found to the session of ctx's list, when
// it is a 2025-11-25 session (one the endpoint registered), and tells
// it alone list_changed when the list grew.
func (e *Endpoint) addFound(ctx context.Context, hits []foundTool) {
	cs := server.ClientSessionFromContext(ctx)
	if cs == nil || len(hits) == 0 {
		return
	}
	id := cs.SessionID()
	if _, ok := e.sessions.get(id); !ok {
		return // a 2026-07-28 request: no session, no list of its own
	}
	names := make([]string, len(hits))
	for i, h := range hits {
		names[i] = h.Name
	}
	if e.found.add(id, names) {
		e.send(id, mcp.MethodNotificationToolsListChanged, nil)
	}
}

// callTool is call_tool's handler: the named tool's call, through the
// envelope as if the client had called it by name.
func (e *Endpoint) callTool(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	args := req.GetArguments()
	name, _ := args["name"].(string)
	if name == "" {
		return mcp.NewToolResultError("call_tool needs name: the name of the tool to call, as find_tools returned it"), nil
	}
	if isMeta(name) {
		return mcp.NewToolResultError(fmt.Sprintf("call_tool calls the server's tools, not %s", name)), nil
	}
	inner := req
	inner.Params.Name = name
	inner.Params.Arguments = args["arguments"]
	inner.Params.RawArguments = nil
	if raw, err := json.Marshal(rawArguments(req)); err == nil && len(raw) > 0 && string(raw) != "null" {
		inner.Params.RawArguments = raw
	}
	return e.env.ToolHandler(name)(ctx, inner)
}

// rawArguments is call_tool's own arguments member as the client sent
// it, so that the tool's arguments keep their bytes.
func rawArguments(req mcp.CallToolRequest) json.RawMessage {
	var outer struct {
		Arguments json.RawMessage `json:"arguments"`
	}
	if len(req.Params.RawArguments) > 0 && json.Unmarshal(req.Params.RawArguments, &outer) == nil {
		return outer.Arguments
	}
	return nil
}
