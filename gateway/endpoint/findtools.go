package endpoint

// find_tools and call_tool, the meta-tools of a search endpoint
// (discovery.go has its index and lists).

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/wasmgate/wasmgate/gateway/envelope"
	"github.com/wasmgate/wasmgate/gateway/search"
	"github.com/wasmgate/wasmgate/gateway/search/rerank"
	"github.com/wasmgate/wasmgate/gateway/tracing"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/metrics"
	"github.com/wasmgate/wasmgate/policy"
)

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
