package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/gateway/roundtrip"
	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/wire"
)

// Source is an upstream as one snapshot serves it: that snapshot's spec
// (prefix, curation, timeout) over a server shared by the snapshots that
// leave its connection settings unchanged.
type Source struct {
	spec loader.UpstreamSpec
	srv  *shared
}

var (
	_ source.Source         = (*Source)(nil)
	_ source.Completer      = (*Source)(nil)
	_ source.Kinded         = (*Source)(nil)
	_ source.StatusReporter = (*Source)(nil)
	_ source.SessionEnder   = (*Source)(nil)
)

func (u *Source) Name() string   { return u.spec.Name }
func (u *Source) Key() string    { return u.spec.Key }
func (u *Source) Prefix() string { return u.spec.Prefix }
func (u *Source) Kind() string   { return "upstream" }
func (u *Source) Descriptor() abi.Descriptor {
	if d := u.srv.desc.Load(); d != nil {
		return *d
	}
	return abi.Descriptor{} // start: background, not connected yet
}
func (u *Source) Timeout() time.Duration { return time.Duration(u.spec.Limits.Timeout) }

// Curation is the upstream's tools.include/exclude and overrides, which
// the index applies.
func (u *Source) Curation() *config.Curation { return &u.spec.Curation }

// RedactSecrets is redact_secrets (source.SecretRedactor).
func (u *Source) RedactSecrets() bool { return u.spec.RedactSecrets }

// Status is the upstream's health for the status page.
func (u *Source) Status() source.Status {
	s := u.srv
	st := &source.UpstreamStatus{Session: s.spec.Session, Restarts: int(s.restarts.Load())}
	if s.spec.Stdio() {
		st.Transport, st.Target = "stdio", strings.Join(s.spec.Command, " ")
	} else {
		st.Transport, st.Target = "streamable-http", s.spec.URL
	}
	c := s.main
	c.mu.Lock()
	st.Up, st.LastError = c.up, s.redact(c.lastErr)
	if c.kind != "" {
		st.Transport = c.kind
	}
	c.mu.Unlock()
	if le := s.listErr.Load(); le != nil {
		// Its lists were refused: that is what the operator must see.
		st.LastError = s.redact(*le)
	}
	st.NotificationsDropped = s.notes.dropped.Load()
	s.mu.Lock()
	st.Clients = len(s.clients)
	s.mu.Unlock()
	return source.Status{Upstream: st}
}

// EndSession closes the per-client upstream session of a downstream one.
func (u *Source) EndSession(_ context.Context, session string) { u.srv.endSession(session) }

// CanComplete reports whether the upstream declared completions.
func (u *Source) CanComplete() bool {
	cli := u.srv.main.current()
	return cli != nil && cli.GetServerCapabilities().Completions != nil
}

// call runs fn with the upstream client a call made with ctx goes to,
// within limits.concurrency; a failure becomes a source.Failure that names
// the upstream, without its credentials.
func (u *Source) call(ctx context.Context, fn func(ctx context.Context, cli *client.Client) error) (err error) {
	s := u.srv
	defer func() { err = s.redactFailure(err) }()
	c, cerr := s.connFor(ctx)
	if cerr != nil {
		return &source.Failure{Kind: source.FailError, Msg: cerr.Error()}
	}
	release, err := s.acquire(ctx)
	if err != nil {
		return u.ctxFailure(ctx, "waiting for one of its limits.concurrency slots")
	}
	defer release()
	cli, ended, err := c.wait(ctx)
	if err != nil {
		if ctx.Err() != nil && !errors.Is(context.Cause(ctx), context.Canceled) {
			return &source.Failure{Kind: source.FailTimeout, Msg: fmt.Sprintf("timed out after %s: %v", u.Timeout(), err)}
		}
		return &source.Failure{Kind: source.FailCrash, Msg: "failed: " + err.Error()}
	}
	end := c.begin(ctx)
	c.calls.Add(1)
	ctx, long := tooLongMark(withCallConn(ctx, c))
	err = fn(ctx, cli)
	c.calls.Add(-1)
	end()
	if err == nil {
		return nil
	}
	if long.Load() {
		err = fmt.Errorf("%w (%v)", errTooLong, err)
	}
	return u.failure(ctx, c, ended, err)
}

// failure is the source.Failure of a call on c that failed with err,
// without the upstream's credentials.
func (u *Source) failure(ctx context.Context, c *conn, ended <-chan struct{}, err error) error {
	return u.srv.redactFailure(u.failed(ctx, c, ended, err))
}

func (u *Source) failed(ctx context.Context, c *conn, ended <-chan struct{}, err error) error {
	s := u.srv
	stdin, stalled := stdinFailure(s.name(), err)
	if ctx.Err() != nil {
		if stdin != "" {
			stdin = "while its request waited to be written: " + stdin
		}
		return u.ctxFailure(ctx, stdin)
	}
	if stalled {
		return &source.Failure{Kind: source.FailCrash, Msg: "failed: " + stdin}
	}
	var rr *redirectRefused
	if errors.As(err, &rr) {
		// A redirect the gateway did not follow: the session is fine.
		return &source.Failure{Kind: source.FailError, Msg: rr.Error()}
	}
	if !s.spec.Stdio() && (malformed(err) || errors.Is(err, errTooLong)) {
		// One bad answer over HTTP: the session itself is fine.
		if errors.Is(err, errTooLong) {
			return &source.Failure{Kind: source.FailError, Msg: fmt.Sprintf("upstream %q answered with a message longer than limits.max_message (%d bytes)", s.name(), int64(s.spec.Limits.MaxMessage))}
		}
		return &source.Failure{Kind: source.FailError, Msg: fmt.Sprintf("upstream %q answered with malformed JSON: %v", s.name(), err)}
	}
	if transportError(err) {
		if c.s.spec.Stdio() {
			// The process is gone or going: wait a moment for its exit
			// status, to say why.
			select {
			case <-ended:
			case <-time.After(time.Second):
			}
		} else {
			c.down(fmt.Errorf("connection failed: %w", err))
		}
		why := c.exitReason()
		if why == nil {
			why = err
		}
		return &source.Failure{Kind: source.FailCrash, Msg: fmt.Sprintf("failed: upstream %q %v", s.name(), why)}
	}
	return &source.Failure{Kind: source.FailError, Msg: fmt.Sprintf("upstream %q: %v", s.name(), rpcMessage(err))}
}

func (u *Source) ctxFailure(ctx context.Context, while string) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		msg := fmt.Sprintf("timed out after %s (upstream %q, limits.timeout)", u.Timeout(), u.srv.name())
		if while != "" {
			msg += " " + while
		}
		return &source.Failure{Kind: source.FailTimeout, Msg: msg}
	}
	return &source.Failure{Kind: source.FailCancelled, Msg: "was cancelled"}
}

// redactFailure is err (a *source.Failure) without the upstream's
// credentials in its message.
func (s *shared) redactFailure(err error) error {
	var f *source.Failure
	if !errors.As(err, &f) {
		if err != nil {
			return errors.New(s.redact(err.Error()))
		}
		return nil
	}
	if m := s.redact(f.Msg); m != f.Msg {
		g := *f
		g.Msg = m
		return &g
	}
	return err
}

// rpcMessage is the message of an error the upstream answered with.
func rpcMessage(err error) string {
	return err.Error()
}

// CallTool forwards the call; the result (content, structuredContent,
// _meta, isError) is passed on as the upstream returned it.
func (u *Source) CallTool(ctx context.Context, tool string, args json.RawMessage) (*mcp.CallToolResult, error) {
	if rp := roundtrip.From(ctx); rp != nil && u.srv.parkable(ctx) {
		return u.callParkable(ctx, rp, tool, args)
	}
	var res *mcp.CallToolResult
	err := u.call(ctx, func(ctx context.Context, cli *client.Client) error {
		req := mcp.CallToolRequest{}
		req.Params.Name = tool
		req.Params.Arguments = args
		tok, done := u.srv.progressToken(ctx, callConn(ctx))
		defer done()
		if tok != nil {
			req.Params.Meta = &mcp.Meta{ProgressToken: tok}
		}
		req.Params.Meta = withTrace(ctx, req.Params.Meta)
		var err error
		res, err = cli.CallTool(ctx, req)
		return err
	})
	if err != nil {
		return nil, err
	}
	if res.Content == nil {
		res.Content = []mcp.Content{}
	}
	return res, nil
}

// ReadResource reads the upstream's own URI.
func (u *Source) ReadResource(ctx context.Context, _ abi.Resource, uri string, _ map[string]string) ([]mcp.ResourceContents, error) {
	var out []mcp.ResourceContents
	err := u.call(ctx, func(ctx context.Context, cli *client.Client) error {
		req := mcp.ReadResourceRequest{}
		req.Params.URI = uri
		req.Params.Meta = withTrace(ctx, nil)
		res, err := cli.ReadResource(ctx, req)
		if err == nil {
			out = res.Contents
		}
		return err
	})
	return out, err
}

// GetPrompt gets the upstream's prompt.
func (u *Source) GetPrompt(ctx context.Context, prompt string, args map[string]string) ([]mcp.PromptMessage, error) {
	var out []mcp.PromptMessage
	err := u.call(ctx, func(ctx context.Context, cli *client.Client) error {
		req := mcp.GetPromptRequest{}
		req.Params.Name = prompt
		req.Params.Arguments = args
		req.Params.Meta = withTrace(ctx, nil)
		res, err := cli.GetPrompt(ctx, req)
		if err == nil {
			out = res.Messages
		}
		return err
	})
	return out, err
}

// Complete forwards completion/complete.
func (u *Source) Complete(ctx context.Context, r abi.CompleteRequest) (abi.Completion, error) {
	var out abi.Completion
	err := u.call(ctx, func(ctx context.Context, cli *client.Client) error {
		req := mcp.CompleteRequest{}
		if r.Prompt != "" {
			req.Params.Ref = mcp.PromptReference{Type: "ref/prompt", Name: r.Prompt}
		} else {
			req.Params.Ref = mcp.ResourceReference{Type: "ref/resource", URI: r.URI}
		}
		req.Params.Argument = mcp.CompleteArgument{Name: r.Argument, Value: r.Value}
		req.Params.Context = mcp.CompleteContext{Arguments: r.Arguments}
		res, err := cli.Complete(ctx, req)
		if err != nil {
			return err
		}
		out = abi.Completion{Values: res.Completion.Values, HasMore: res.Completion.HasMore}
		if res.Completion.Total > 0 {
			t := res.Completion.Total
			out.Total = &t
		}
		return nil
	})
	return out, err
}

// Subscribe subscribes the shared session to the upstream's own URI, once
// (and again after each reconnect); its updates reach the downstream
// sessions subscribed to the exposed URI.
func (u *Source) Subscribe(ctx context.Context, own string) error {
	s := u.srv
	if _, loaded := s.subs.LoadOrStore(own, true); loaded {
		return nil
	}
	cli := s.main.current()
	if cli == nil {
		return nil // subscribed when it connects
	}
	if cli.GetServerCapabilities().Resources == nil || !cli.GetServerCapabilities().Resources.Subscribe {
		return nil
	}
	req := mcp.SubscribeRequest{}
	req.Params.URI = own
	ctx, cancel := context.WithTimeout(ctx, u.Timeout())
	defer cancel()
	if err := cli.Subscribe(ctx, req); err != nil {
		s.subs.Delete(own)
		return fmt.Errorf("upstream %q: resources/subscribe: %v", s.name(), err)
	}
	return nil
}

// resubscribe subscribes a new shared session to what the last one was.
func (s *shared) resubscribe(cli *client.Client) {
	caps := cli.GetServerCapabilities().Resources
	if caps == nil || !caps.Subscribe {
		return
	}
	s.subs.Range(func(k, _ any) bool {
		req := mcp.SubscribeRequest{}
		req.Params.URI = k.(string)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			ctx, cancel := context.WithTimeout(s.ctx, time.Duration(s.spec.Limits.Timeout))
			defer cancel()
			if err := cli.Subscribe(ctx, req); err != nil && s.ctx.Err() == nil {
				s.h.Logger.Warn("upstream: subscribing again after a reconnect failed", "upstream", s.name(), "uri", req.Params.URI, "error", err)
			}
		}()
		return true
	})
}

// downstream is the downstream MCP session of a call's context.
func downstream(ctx context.Context) mcpserver.ClientSession {
	return mcpserver.ClientSessionFromContext(ctx)
}

func exposedURI(prefix, uri string) string { return source.ExposedURI(prefix, uri) }

// maxPages bounds the pages of one list (a server that answers every
// page with another cursor).
const maxPages = 1000

// listed reads a paginated list page by page, refusing more than max
// entries (what: the method, for the error).
func listed[T any](ctx context.Context, what, noun string, max int, limitKey string, page func(ctx context.Context, cursor mcp.Cursor) ([]T, mcp.Cursor, error)) ([]T, error) {
	var out []T
	var cursor mcp.Cursor
	seen := map[mcp.Cursor]bool{}
	for n := 0; ; n++ {
		items, next, err := page(ctx, cursor)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, items...)
		if len(out) > max {
			count := fmt.Sprintf("%d %s", len(out), noun)
			if next != "" {
				count = "at least " + count
			}
			if limitKey != "" {
				return nil, fmt.Errorf("%s: it lists %s, more than %s (%d); raise %s (at most %d) if that many are meant", what, count, limitKey, max, limitKey, loader.MaxUpstreamListed)
			}
			return nil, fmt.Errorf("%s: it lists %s, more than the %d the gateway takes", what, count, max)
		}
		if next == "" {
			return out, nil
		}
		if seen[next] || n >= maxPages {
			return nil, fmt.Errorf("%s: the server's pages do not end (cursor %.40q again, or more than %d pages)", what, next, maxPages)
		}
		seen[next] = true
		cursor = next
	}
}

// describe reads everything an upstream lists, as an abi.Descriptor: at
// most maxTools tools (limits.max_tools) and loader.MaxUpstreamListed of
// each other list.
func describe(ctx context.Context, cli *client.Client, maxTools int) (abi.Descriptor, error) {
	var d abi.Descriptor
	caps := cli.GetServerCapabilities()
	if caps.Tools != nil {
		tools, err := listed(ctx, "tools/list", "tools", maxTools, "limits.max_tools", func(ctx context.Context, c mcp.Cursor) ([]mcp.Tool, mcp.Cursor, error) {
			req := mcp.ListToolsRequest{}
			req.Params.Cursor = c
			r, err := cli.ListToolsByPage(ctx, req)
			if err != nil {
				return nil, "", err
			}
			return r.Tools, r.NextCursor, nil
		})
		if err != nil {
			return d, err
		}
		for _, t := range tools {
			var w wire.Tool
			if err := recode(t, &w); err != nil {
				d.Warnings = append(d.Warnings, fmt.Sprintf("tool %q left out: %v", t.Name, err))
				continue
			}
			if len(w.InputSchema) == 0 || string(w.InputSchema) == "null" {
				w.InputSchema = json.RawMessage(`{"type":"object"}`)
			}
			d.Tools = append(d.Tools, w)
		}
	}
	if caps.Resources != nil {
		res, err := listed(ctx, "resources/list", "resources", loader.MaxUpstreamListed, "", func(ctx context.Context, c mcp.Cursor) ([]mcp.Resource, mcp.Cursor, error) {
			req := mcp.ListResourcesRequest{}
			req.Params.Cursor = c
			r, err := cli.ListResourcesByPage(ctx, req)
			if err != nil {
				return nil, "", err
			}
			return r.Resources, r.NextCursor, nil
		})
		if err != nil {
			return d, err
		}
		for _, r := range res {
			var w wire.Resource
			if err := recode(r, &w); err != nil {
				d.Warnings = append(d.Warnings, fmt.Sprintf("resource %q left out: %v", r.URI, err))
				continue
			}
			d.Resources = append(d.Resources, abi.Resource{Resource: w})
		}
		tpls, err := listed(ctx, "resources/templates/list", "resource templates", loader.MaxUpstreamListed, "", func(ctx context.Context, c mcp.Cursor) ([]mcp.ResourceTemplate, mcp.Cursor, error) {
			req := mcp.ListResourceTemplatesRequest{}
			req.Params.Cursor = c
			r, err := cli.ListResourceTemplatesByPage(ctx, req)
			if err != nil {
				return nil, "", err
			}
			return r.ResourceTemplates, r.NextCursor, nil
		})
		if err != nil {
			return d, err
		}
		for _, t := range tpls {
			var w wire.Resource
			if err := recode(t, &w); err != nil {
				continue
			}
			raw := ""
			if t.URITemplate != nil {
				raw = t.URITemplate.Raw()
			}
			tpl, err := abi.ParseURITemplate(raw)
			if err != nil {
				d.Warnings = append(d.Warnings, fmt.Sprintf("resource template %q left out: %v", raw, err))
				continue
			}
			w.URI = raw
			d.Resources = append(d.Resources, abi.Resource{Resource: w, Template: tpl})
		}
	}
	if caps.Prompts != nil {
		ps, err := listed(ctx, "prompts/list", "prompts", loader.MaxUpstreamListed, "", func(ctx context.Context, c mcp.Cursor) ([]mcp.Prompt, mcp.Cursor, error) {
			req := mcp.ListPromptsRequest{}
			req.Params.Cursor = c
			r, err := cli.ListPromptsByPage(ctx, req)
			if err != nil {
				return nil, "", err
			}
			return r.Prompts, r.NextCursor, nil
		})
		if err != nil {
			return d, err
		}
		for _, p := range ps {
			var w wire.Prompt
			if err := recode(p, &w); err != nil {
				d.Warnings = append(d.Warnings, fmt.Sprintf("prompt %q left out: %v", p.Name, err))
				continue
			}
			d.Prompts = append(d.Prompts, w)
		}
	}
	return d, nil
}

// recode converts between two JSON shapes of the same thing.
func recode(from, to any) error {
	b, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, to)
}

// forwarder answers an upstream session's requests to its client
// (sampling, elicitation, roots) by asking a downstream client: the one
// that owns the session (session: per_client), or, byCall (a shared
// session over HTTP), the one whose call's stream the request came on.
type forwarder struct {
	s      *shared
	c      *conn
	byCall bool
}

func (f *forwarder) ctx(ctx context.Context, what string) (context.Context, error) {
	ds := f.c.ds
	if f.byCall {
		// ctx is the upstream request's, made on the HTTP stream of one
		// downstream call: that call's context, its client's session.
		if ds = downstream(ctx); ds == nil {
			return nil, fmt.Errorf("refused: %s from upstream %q outside any call (session: shared cannot tell whose client to ask)", what, f.s.name())
		}
	} else if ds == nil {
		return nil, fmt.Errorf("refused: %s from upstream %q on the gateway's own session, which no downstream client owns", what, f.s.name())
	}
	if !ds.Initialized() {
		return nil, fmt.Errorf("the downstream client is gone")
	}
	known, has := source.ClientDeclares(ds, what)
	if !known {
		return nil, fmt.Errorf("the downstream client's capabilities are unknown, so it cannot be asked for %s", what)
	}
	if !has {
		return nil, fmt.Errorf("the downstream client does not support %s (it did not declare the capability)", what)
	}
	if f.byCall {
		return ctx, nil // on the stream of the call that caused it
	}
	if call := f.c.callContext(); call != nil {
		// On the stream of the call that caused it, which the client
		// reads; it ends with that call.
		return call, nil
	}
	return f.s.h.MCP.WithContext(ctx, ds), nil
}

func (f *forwarder) CreateMessage(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	in, err := f.s.redactRequest(mcp.NewSamplingInputRequest(req.CreateMessageParams))
	if err != nil {
		return nil, err
	}
	req.CreateMessageParams = *in.Sampling
	if p, err := f.parkedFor(ctx); err != nil {
		return nil, err
	} else if p != nil {
		raw, err := p.ask(ctx, in)
		if err != nil {
			return nil, err
		}
		return decodeAnswer[mcp.CreateMessageResult]("sampling/createMessage", raw)
	}
	ctx, err = f.ctx(ctx, "sampling")
	if err != nil {
		return nil, err
	}
	return f.s.h.MCP.RequestSampling(ctx, req)
}

func (f *forwarder) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	in, err := f.s.redactRequest(mcp.NewElicitationInputRequest(req.Params))
	if err != nil {
		return nil, err
	}
	req.Params = *in.Elicitation
	if p, err := f.parkedFor(ctx); err != nil {
		return nil, err
	} else if p != nil {
		raw, err := p.ask(ctx, in)
		if err != nil {
			return nil, err
		}
		return decodeAnswer[mcp.ElicitationResult]("elicitation/create", raw)
	}
	ctx, err = f.ctx(ctx, "elicitation")
	if err != nil {
		return nil, err
	}
	return f.s.h.MCP.RequestElicitation(ctx, req)
}

func (f *forwarder) ListRoots(ctx context.Context, req mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	if p, err := f.parkedFor(ctx); err != nil {
		return nil, err
	} else if p != nil {
		raw, err := p.ask(ctx, mcp.NewRootsInputRequest())
		if err != nil {
			return nil, err
		}
		return decodeAnswer[mcp.ListRootsResult]("roots/list", raw)
	}
	ctx, err := f.ctx(ctx, "roots")
	if err != nil {
		return nil, err
	}
	return f.s.h.MCP.RequestRoots(ctx, req)
}

// withTrace is m with the call's trace context as _meta.traceparent (and
// tracestate), the 2026-07-28 revision's way to carry it, which works
// over stdio too (HTTP upstreams also get it as a header, traceHeaders).
// Without a trace in ctx it is m.
func withTrace(ctx context.Context, m *mcp.Meta) *mcp.Meta {
	carrier := traceHeaders(ctx)
	if carrier == nil {
		return m
	}
	if m == nil {
		m = &mcp.Meta{}
	}
	if m.AdditionalFields == nil {
		m.AdditionalFields = make(map[string]any, len(carrier))
	}
	for k, v := range carrier {
		m.AdditionalFields[k] = v
	}
	return m
}

// traceHeaders are the W3C trace context headers of the call in ctx, for
// each HTTP request to an upstream (nil without a trace).
func traceHeaders(ctx context.Context) map[string]string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return nil
	}
	carrier := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, carrier)
	return carrier
}
