package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/metrics"
	"github.com/wasmgate/wasmgate/policy"
)

// The call path, written once for every Source: a handler finds what the
// serving snapshot maps the name to, holds the snapshot while the call
// runs (begin/done), and invoke applies the source's timeout and maps a
// failure to a metrics outcome and a message a person can act on.

// begin marks a call as running (for shutdown) on the serving snapshot
// (for draining on reload); done ends it.
func (g *Gateway) begin() (s *Snapshot, done func(), err error) {
	g.calls.Add(1)
	if s, err = g.acquire(); err != nil {
		g.calls.Add(-1)
		return nil, nil, err
	}
	return s, func() { s.release(); g.calls.Add(-1) }, nil
}

// invoke runs fn under src's timeout. On failure it returns the outcome
// and message for a call of kind ("tool", "resource", "prompt") named name.
func invoke[T any](ctx context.Context, src Source, fn func(context.Context) (T, error)) (T, *Failure) {
	ctx, cancel := context.WithTimeout(ctx, src.Timeout())
	defer cancel()
	v, err := fn(ctx)
	if err == nil {
		return v, nil
	}
	var f *Failure
	if !errors.As(err, &f) {
		f = &Failure{Kind: FailError, Msg: err.Error()}
	}
	return v, f
}

// toolHandler dispatches a tool call to whatever provides name in the
// snapshot serving when the call starts.
func (g *Gateway) toolHandler(name string) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		s, done, err := g.begin()
		if err != nil {
			return nil, err
		}
		defer done()
		t, ok := s.tools[name]
		if !ok {
			return nil, fmt.Errorf("tool %q not found: %w", name, server.ErrToolNotFound)
		}
		return g.callTool(ctx, s, t, req), nil
	}
}

func (g *Gateway) callTool(ctx context.Context, s *Snapshot, t *toolEntry, req mcp.CallToolRequest) (res *mcp.CallToolResult) {
	m := g.opts.Metrics
	src := t.src.Name()
	start := time.Now()
	inflight := m.ToolsInFlight.WithLabelValues(src)
	inflight.Inc()
	outcome := metrics.OutcomeOK
	argMap := argsOf(req.Params.Arguments)
	c, denied := g.authorize(ctx, s, policy.Tool, t.name, argMap)
	defer func() {
		inflight.Dec()
		m.ToolCalls.WithLabelValues(t.name, src, outcome).Inc()
		m.ToolDuration.WithLabelValues(t.name, src).Observe(time.Since(start).Seconds())
		g.audit.record(ctx, c, "tool", t.name, outcome, start, argMap)
		g.observe(c, "tool", t.name, src, outcome, start, resultError(res))
	}()
	if denied != nil {
		outcome = denied.Kind.outcome()
		return mcp.NewToolResultError(failureMessage("tool", t.name, denied))
	}

	// The arguments as the client sent them, when they came over a
	// transport (mcp-go keeps them), else encoded again.
	args := []byte(req.Params.RawArguments)
	if len(args) == 0 || string(args) == "null" {
		var err error
		args, err = json.Marshal(req.Params.Arguments)
		if err != nil || req.Params.Arguments == nil {
			args = []byte("{}")
		}
	}
	if msg := validateArgs(t.schema, args); msg != "" {
		outcome = metrics.OutcomeInvalidArgs
		return mcp.NewToolResultError(fmt.Sprintf("invalid arguments for tool %q: %s", t.name, msg))
	}
	ctx = withRequest(ctx, req.Params.Meta)
	res, f := invoke(ctx, t.src, func(ctx context.Context) (*mcp.CallToolResult, error) {
		return t.src.CallTool(ctx, t.export, args)
	})
	if f != nil {
		outcome = f.Kind.outcome()
		if f.Kind == FailCrash || f.Kind == FailTimeout {
			g.log.Warn("tool call failed", "tool", t.name, "plugin", src, "outcome", outcome, "error", f.Msg)
		}
		return mcp.NewToolResultError(failureMessage("tool", t.name, f))
	}
	if res.IsError {
		outcome = metrics.OutcomeError
	}
	return res
}

var printer = message.NewPrinter(language.English)

// validateArgs checks args against the tool's input schema and returns
// what is wrong, naming each field, or "".
func validateArgs(sch *jsonschema.Schema, args []byte) string {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return "arguments are not valid JSON"
	}
	err = sch.Validate(inst)
	if err == nil {
		return ""
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var msgs []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			where := "arguments"
			if len(e.InstanceLocation) > 0 {
				where = strings.Join(e.InstanceLocation, ".")
			}
			msgs = append(msgs, where+": "+e.ErrorKind.LocalizedString(printer))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return strings.Join(msgs, "; ")
}

func (g *Gateway) resourceHandler(key string, template bool) server.ResourceHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		s, done, err := g.begin()
		if err != nil {
			return nil, err
		}
		defer done()
		uri := req.Params.URI
		var e *resourceEntry
		var vars map[string]string
		own := uri // the source's own URI
		if template {
			e = s.templates[key]
			if e != nil {
				var ok bool
				if vars, ok = e.match.Match(uri); !ok {
					return nil, fmt.Errorf("resource %q does not match template %q", uri, key)
				}
				own = expand(e.res.Template, vars)
			}
		} else {
			e = s.resources[key]
			if e != nil {
				own = e.res.URI
			}
		}
		if e == nil {
			return nil, fmt.Errorf("resource %q not found: %w", uri, server.ErrResourceNotFound)
		}
		start := time.Now()
		outcome := metrics.OutcomeOK
		// A template's variables are what a `when` sees as args.
		var args map[string]any
		if vars != nil {
			args = argsOf(vars)
		}
		c, denied := g.authorize(ctx, s, policy.Resource, uri, args)
		var failMsg string
		defer func() {
			g.opts.Metrics.ResourceReads.WithLabelValues(e.src.Name(), outcome).Inc()
			g.audit.record(ctx, c, "resource", uri, outcome, start, nil)
			g.observe(c, "resource", key, e.src.Name(), outcome, start, failMsg)
		}()
		if denied != nil {
			outcome = denied.Kind.outcome()
			failMsg = failureMessage("resource", uri, denied)
			return nil, errors.New(failMsg)
		}
		ctx = withRequest(ctx, req.Params.Meta)
		contents, f := invoke(ctx, e.src, func(ctx context.Context) ([]mcp.ResourceContents, error) {
			return e.src.ReadResource(ctx, e.res, own, vars)
		})
		if f != nil {
			outcome = f.Kind.outcome()
			failMsg = failureMessage("resource", uri, f)
			return nil, errors.New(failMsg)
		}
		return exposeContents(contents, own, uri), nil
	}
}

func (g *Gateway) promptHandler(name string) server.PromptHandlerFunc {
	return func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		s, done, err := g.begin()
		if err != nil {
			return nil, err
		}
		defer done()
		p, ok := s.prompts[name]
		if !ok {
			return nil, fmt.Errorf("prompt %q not found", name)
		}
		start := time.Now()
		outcome := metrics.OutcomeOK
		argMap := argsOf(req.Params.Arguments)
		c, denied := g.authorize(ctx, s, policy.Prompt, name, argMap)
		var failMsg string
		defer func() {
			g.opts.Metrics.PromptGets.WithLabelValues(p.src.Name(), outcome).Inc()
			g.audit.record(ctx, c, "prompt", name, outcome, start, argMap)
			g.observe(c, "prompt", name, p.src.Name(), outcome, start, failMsg)
		}()
		if denied != nil {
			outcome = denied.Kind.outcome()
			failMsg = failureMessage("prompt", name, denied)
			return nil, errors.New(failMsg)
		}
		for _, a := range p.def.Arguments {
			if a.Required && req.Params.Arguments[a.Name] == "" {
				outcome = metrics.OutcomeInvalidArgs
				return nil, invalidParams(fmt.Sprintf("prompt %q: missing required argument %q", name, a.Name))
			}
		}
		ctx = withRequest(ctx, req.Params.Meta)
		msgs, f := invoke(ctx, p.src, func(ctx context.Context) ([]mcp.PromptMessage, error) {
			return p.src.GetPrompt(ctx, p.export, req.Params.Arguments)
		})
		if f != nil {
			outcome = f.Kind.outcome()
			failMsg = failureMessage("prompt", name, f)
			return nil, errors.New(failMsg)
		}
		return mcp.NewGetPromptResult(p.def.Description, msgs), nil
	}
}

// exposeContents gives contents at the source's own URI the URI the
// client asked for (they differ when the source has a prefix).
func exposeContents(contents []mcp.ResourceContents, own, uri string) []mcp.ResourceContents {
	if own == uri {
		return contents
	}
	for i, c := range contents {
		switch c := c.(type) {
		case mcp.TextResourceContents:
			if c.URI == own {
				c.URI = uri
				contents[i] = c
			}
		case mcp.BlobResourceContents:
			if c.URI == own {
				c.URI = uri
				contents[i] = c
			}
		}
	}
	return contents
}

// invalidParams is an error a handler returns for params the method does
// not accept; mcp-go answers it with -32602 (see third_party/mcp-go).
type invalidParams string

func (e invalidParams) Error() string        { return string(e) }
func (e invalidParams) Is(target error) bool { return target == mcp.ErrInvalidParams }

// withRequest gives a call's context what ABIs pass on to plugins of the
// client request: its JSON-RPC id and the _meta of its params.
func withRequest(ctx context.Context, meta *mcp.Meta) context.Context {
	var r abi.Request
	if id, ok := server.RequestIDFromContext(ctx); ok {
		r.ID, _ = json.Marshal(id)
	}
	if meta != nil {
		r.Meta, _ = json.Marshal(meta)
	}
	return abi.WithRequest(ctx, r)
}
