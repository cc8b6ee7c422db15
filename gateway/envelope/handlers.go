package envelope

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/gateway/intercept"
	"github.com/wasmgate/wasmgate/gateway/roundtrip"
	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/internal/canon"
	"github.com/wasmgate/wasmgate/internal/toolresult"
	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/metrics"
	"github.com/wasmgate/wasmgate/policy"
)

// ToolHandler dispatches a call of tool name to whatever provides it in
// the state serving when the call starts.
func (e *Envelope) ToolHandler(name string) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		st, done, err := e.o.Begin()
		if err != nil {
			return nil, err
		}
		defer done()
		t, ok := indexOf(ctx, st).Tools[name]
		if !ok {
			return nil, fmt.Errorf("tool %q not found: %w", name, server.ErrToolNotFound)
		}
		return e.callTool(ctx, st, t, req)
	}
}

func (e *Envelope) callTool(ctx context.Context, st State, t *source.Tool, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	inflight := e.o.Metrics.ToolsInFlight.WithLabelValues(t.Src.Name(), e.o.Endpoint)
	inflight.Inc()
	defer inflight.Dec()
	// The arguments as the client sent them, when they came over a
	// transport (mcp-go keeps them), else encoded again; then in their one
	// canonical form, which policy sees (decoded) and the source gets
	// (bytes): an object whose keys collide (repeated, or equal but for
	// case or escapes) is refused, so no decoder can read other arguments
	// than the ones policy allowed.
	raw := []byte(req.Params.RawArguments)
	if len(raw) == 0 || string(raw) == "null" {
		var err error
		raw, err = json.Marshal(req.Params.Arguments)
		if err != nil || req.Params.Arguments == nil {
			raw = []byte("{}")
		}
	}
	c := &Call{Kind: kindTool, Name: t.Name, Key: t.Name, labels: t.Labels}
	if app := source.AppRef(req.Params.Meta); app != "" {
		// An MCP App's own call, proxied by its host: the App must be
		// one this endpoint publishes and the tool its own server's.
		c.App = app
		if at, err := indexOf(ctx, st).AppTool(app, t.Name); err != nil || at != t {
			if err == nil {
				err = fmt.Errorf("the App %q may call only the tools of its own server, not %q", app, t.Name)
			}
			c.malformed = &refusal{outcome: metrics.OutcomeDenied, msg: fmt.Sprintf("tool %q: %v", t.Name, err)}
		}
	}
	if req.Params.Task != nil { // mcp-go runs this in the background of a task
		c.timeout = source.TaskTimeoutOf(t.Src)
	}
	args, err := canon.Args(raw)
	if err != nil {
		c.malformed = &refusal{outcome: metrics.OutcomeInvalidArgs, msg: fmt.Sprintf("invalid arguments for tool %q: %v", t.Name, err)}
	} else {
		// Without repeated or colliding keys, the map mcp-go decoded is
		// the canonical object decoded.
		c.Args = ArgsOf(req.Params.Arguments)
	}
	validate := func() *refusal {
		// A flat schema accepts the common call without the validator;
		// what it does not accept, the validator judges and words.
		if t.Flat != nil && t.Flat.Accepts(args) {
			return nil
		}
		// The common flat object is decoded for the schema without a
		// decoder (canon.FlatValue), as the decoder would.
		var msg string
		if inst, ok := canon.FlatValue(args); ok {
			msg = source.ValidateValue(t.Schema, inst)
		} else {
			msg = source.ValidateArgs(t.Schema, args)
		}
		if msg != "" {
			return &refusal{outcome: metrics.OutcomeInvalidArgs, msg: fmt.Sprintf("invalid arguments for tool %q: %s", t.Name, msg)}
		}
		return nil
	}
	// A 2026-07-28 client takes no server-initiated requests: what the
	// source asks it (sampling, elicitation, roots) goes back as
	// input_required, and its retry runs the call again with the answers
	// (package roundtrip).
	var rp *roundtrip.Replay
	var bind roundtrip.Binding
	if e.o.Signer != nil && c.malformed == nil && mcp.IsModernProtocol(server.RequestProtocolVersion(ctx)) {
		bind = roundtrip.Binding{Principal: CallerOf(ctx, st).Principal.Name, Tool: t.Name, Args: args}
		rp = roundtrip.First()
		if req.Params.RequestState != "" {
			var err error
			if rp, err = e.o.Signer.Open(ctx, req.Params.RequestState, bind, req.Params.InputResponses); err != nil {
				c.malformed = &refusal{outcome: metrics.OutcomeInvalidArgs, params: true, msg: fmt.Sprintf("tool %q: %v", t.Name, err)}
			}
		}
	}
	// redact_secrets: credential-shaped strings are replaced in what the
	// source gets and in everything it returns (redact.go).
	var redact *redactor
	if c.malformed == nil {
		redact = e.redactorFor(t.Src)
	}
	if redact != nil {
		if b, m, changed := redact.args(args); changed {
			args, c.Args = b, m
		}
	}
	c.rp = rp
	// Interceptors see the canonical arguments; new ones are canonical
	// again and match the tool's input schema, or are refused.
	c.raw = args
	c.checkArgs = func(mod json.RawMessage) error {
		b, err := canon.Args(mod)
		if err != nil {
			return err
		}
		if msg := source.ValidateArgs(t.Schema, b); msg != "" {
			return fmt.Errorf("the arguments do not match the tool's input schema: %s", msg)
		}
		return nil
	}
	c.setArgs = func(mod json.RawMessage) *refusal {
		b, err := canon.Args(mod)
		if err != nil {
			return &refusal{outcome: metrics.OutcomeInvalidArgs, msg: fmt.Sprintf("invalid arguments for tool %q from an interceptor: %v", t.Name, err)}
		}
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		args, c.Args, c.raw = b, m, b
		return nil
	}
	call := func(ctx context.Context) (*mcp.CallToolResult, error) {
		if rp == nil {
			return appResult(t.Src)(redact.tool(t.Src.CallTool(ctx, t.Export, args)))
		}
		res, err := appResult(t.Src)(redact.tool(t.Src.CallTool(roundtrip.With(ctx, rp), t.Export, args)))
		askConnect(ctx, rp, err)
		if rerr := rp.Err(); rerr != nil {
			return nil, &source.Failure{Kind: source.FailError, Msg: fmt.Sprintf("tool %q: %v", t.Name, rerr)}
		}
		if rp.Pending() == nil {
			return res, err
		}
		token, serr := e.o.Signer.Seal(bind, rp)
		if serr != nil {
			return nil, &source.Failure{Kind: source.FailRejected, Msg: "was refused: " + serr.Error()}
		}
		return roundtrip.InputRequired(rp, token), nil
	}
	invoke := func(ctx context.Context) (*mcp.CallToolResult, error) {
		res, err := call(ctx)
		if err != nil || res == nil || res.ResultType == mcp.ResultTypeInputRequired ||
			!interceptorsOf(st).Sees("tools/call", c.Endpoint, intercept.PhaseResponse) {
			return res, err
		}
		return interceptResult(ctx, e, st, c, res, toolresult.Parse)
	}
	res, r := run(withRequest(ctx, req.Params.Meta), e, st, c, policy.Tool, t.Src, validate, invoke,
		func(res *mcp.CallToolResult) (string, string) {
			switch {
			case res != nil && res.IsError:
				return metrics.OutcomeError, resultError(res)
			case res != nil && res.ResultType == mcp.ResultTypeInputRequired:
				return metrics.OutcomeInputRequired, ""
			}
			return "", ""
		})
	if r != nil {
		if r.hidden != nil {
			return nil, r.hidden
		}
		if r.input { // a flow rule asks the client to approve the call
			token, err := e.o.Signer.Seal(bind, rp)
			if err != nil {
				return mcp.NewToolResultError(fmt.Sprintf("%s (asking to approve it failed: %v)", r.msg, err)), nil
			}
			return roundtrip.InputRequired(rp, token), nil
		}
		if r.connect != nil && rp == nil && source.DeclaresURLElicitation(ctx) {
			// 2025-11-25: the error that asks the client to open the
			// connect page (-32042), then retry.
			return nil, r.connect.Elicitation()
		}
		return mcp.NewToolResultError(r.msg), nil
	}
	return res, nil
}

// askConnect asks a 2026-07-28 client that declared URL elicitation to
// open the connect page of a call that failed with err, a ConnectFailure
// (the result is input_required; the client's retry runs the call
// again). A retry that answered it and is still not connected gets the
// link in the call's error.
func askConnect(ctx context.Context, rp *roundtrip.Replay, err error) {
	cf, ok := err.(*source.ConnectFailure)
	if !ok || rp.Pending() != nil || rp.Rounds() > 0 || !source.DeclaresURLElicitation(ctx) {
		return
	}
	el := cf.Elicitation().Elicitations[0]
	_, _ = rp.Ask(mcp.NewElicitationInputRequest(el))
}

// resultError is the text of an isError tool result.
func resultError(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := mcp.AsTextContent(c); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, " ")
}

// ResourceHandler reads the static resource at key, or (template) a URI
// matching a resource template: mcp-go calls the handler of whichever of
// its templates it matched first (in map order), so the read goes to the
// index's template for the URI (source.Index.TemplateFor), whatever key
// is.
func (e *Envelope) ResourceHandler(key string, template bool) server.ResourceHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		st, done, err := e.o.Begin()
		if err != nil {
			return nil, err
		}
		defer done()
		uri := req.Params.URI
		x := indexOf(ctx, st)
		at := key
		r := x.Resources[key]
		if template {
			if r = x.TemplateFor(uri); r != nil {
				at = r.URI
			}
		}
		if r == nil {
			return nil, fmt.Errorf("resource %q not found: %w", uri, server.ErrResourceNotFound)
		}
		own, vars, ok := r.Own(uri)
		if !ok {
			return nil, fmt.Errorf("resource %q does not match template %q", uri, at)
		}
		// A template's variables are what a `when` sees as args.
		c := &Call{Kind: kindResource, Name: uri, Key: at, Args: ArgsOf(vars), labels: r.Labels}
		redact := e.redactorFor(r.Src)
		c.raw, _ = json.Marshal(vars)
		contents, f := run(withRequest(ctx, req.Params.Meta), e, st, c, policy.Resource, r.Src, nil,
			func(ctx context.Context) ([]mcp.ResourceContents, error) {
				contents, err := redact.contents(r.Src.ReadResource(ctx, r.Res, own, vars))
				contents = appContents(r.Src, own, contents)
				if err != nil || !interceptorsOf(st).Sees("resources/read", c.Endpoint, intercept.PhaseResponse) {
					return contents, err
				}
				res, err := interceptResult(ctx, e, st, c, &mcp.ReadResourceResult{Contents: exposeContents(contents, own, uri)},
					func(raw json.RawMessage) (*mcp.ReadResourceResult, error) { return mcp.ParseReadResourceResult(&raw) })
				if err != nil {
					return nil, err
				}
				return res.Contents, nil
			}, nil)
		c.Args = nil // the audit line of a read has no arguments
		if f != nil {
			return nil, f.err()
		}
		return exposeContents(contents, own, uri), nil
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

// PromptHandler gets prompt name from whatever provides it.
func (e *Envelope) PromptHandler(name string) server.PromptHandlerFunc {
	return func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		st, done, err := e.o.Begin()
		if err != nil {
			return nil, err
		}
		defer done()
		p, ok := indexOf(ctx, st).Prompts[name]
		if !ok {
			return nil, fmt.Errorf("prompt %q not found", name)
		}
		c := &Call{Kind: kindPrompt, Name: name, Key: name, Args: ArgsOf(req.Params.Arguments), labels: p.Labels}
		validate := func() *refusal {
			for _, a := range p.Def.Arguments {
				if a.Required && req.Params.Arguments[a.Name] == "" {
					return &refusal{outcome: metrics.OutcomeInvalidArgs, params: true,
						msg: fmt.Sprintf("prompt %q: missing required argument %q", name, a.Name)}
				}
			}
			return nil
		}
		redact := e.redactorFor(p.Src)
		pargs := req.Params.Arguments
		c.raw, _ = json.Marshal(pargs)
		c.checkArgs = func(mod json.RawMessage) error {
			var m map[string]string
			if err := json.Unmarshal(mod, &m); err != nil {
				return fmt.Errorf("a prompt's arguments are strings: %v", err)
			}
			return nil
		}
		c.setArgs = func(mod json.RawMessage) *refusal {
			var m map[string]string
			_ = json.Unmarshal(mod, &m) // checked by checkArgs
			pargs, c.Args = m, ArgsOf(m)
			return nil
		}
		msgs, f := run(withRequest(ctx, req.Params.Meta), e, st, c, policy.Prompt, p.Src, validate,
			func(ctx context.Context) ([]mcp.PromptMessage, error) {
				msgs, err := redact.messages(p.Src.GetPrompt(ctx, p.Export, pargs))
				if err != nil || !interceptorsOf(st).Sees("prompts/get", c.Endpoint, intercept.PhaseResponse) {
					return msgs, err
				}
				res, err := interceptResult(ctx, e, st, c, mcp.NewGetPromptResult(p.Def.Description, msgs),
					func(raw json.RawMessage) (*mcp.GetPromptResult, error) { return mcp.ParseGetPromptResult(&raw) })
				if err != nil {
					return nil, err
				}
				return res.Messages, nil
			}, nil)
		if f != nil {
			return nil, f.err()
		}
		return mcp.NewGetPromptResult(p.Def.Description, msgs), nil
	}
}

// maxCompletions is how many values completion/complete may return.
const maxCompletions = 100

// Completer answers completion/complete through the envelope: a prompt's
// or a resource template's argument is completed by the source that
// provides it, if it can (source.Completer), authorized and rate limited
// like a get of that prompt or a read under that template, and observed.
// What the caller may not see, or no source can complete, completes to
// nothing.
type Completer struct{ E *Envelope }

var (
	_ server.PromptCompletionProvider   = Completer{}
	_ server.ResourceCompletionProvider = Completer{}
)

func (c Completer) CompletePromptArgument(ctx context.Context, name string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	st, done, err := c.E.o.Begin()
	if err != nil {
		return nil, err
	}
	defer done()
	p, ok := indexOf(ctx, st).Prompts[name]
	if !ok || !visible(ctx, st, policy.Prompt, name) {
		return &mcp.Completion{Values: []string{}}, nil
	}
	return c.E.complete(ctx, st, policy.Prompt, name, p.Src, abi.CompleteRequest{Prompt: p.Export, Argument: arg.Name, Value: arg.Value, Arguments: cc.Arguments})
}

func (c Completer) CompleteResourceArgument(ctx context.Context, uri string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	st, done, err := c.E.o.Begin()
	if err != nil {
		return nil, err
	}
	defer done()
	x := indexOf(ctx, st)
	r, ok := x.Templates[uri]
	vis := ok && visibleTemplate(ctx, st, uri)
	if !ok {
		r, ok = x.Resources[uri]
		vis = ok && visible(ctx, st, policy.Resource, uri)
	}
	if !vis {
		return &mcp.Completion{Values: []string{}}, nil
	}
	return c.E.complete(ctx, st, policy.Resource, uri, r.Src, abi.CompleteRequest{URI: r.Res.URI, Argument: arg.Name, Value: arg.Value, Arguments: cc.Arguments})
}

func visible(ctx context.Context, st State, kind policy.Kind, name string) bool {
	pol := st.Policy()
	return pol == nil || pol.Visible(CallerOf(ctx, st).Principal, kind, name)
}

func visibleTemplate(ctx context.Context, st State, raw string) bool {
	pol := st.Policy()
	return pol == nil || pol.VisibleTemplate(CallerOf(ctx, st).Principal, raw)
}

// complete runs one completion of what (a prompt or a resource URI or
// template) named name through the envelope.
func (e *Envelope) complete(ctx context.Context, st State, kind policy.Kind, name string, src source.Source, req abi.CompleteRequest) (*mcp.Completion, error) {
	comp, ok := src.(source.Completer)
	if !ok || !comp.CanComplete() {
		return &mcp.Completion{Values: []string{}}, nil
	}
	c := &Call{Kind: kindCompletion, Name: name, Key: kind.String() + " " + name, Args: ArgsOf(req.Arguments), noun: "completion for " + kind.String()}
	redact := e.redactorFor(src)
	out, f := run(withRequest(ctx, nil), e, st, c, kind, src, nil,
		func(ctx context.Context) (abi.Completion, error) { return redact.completion(comp.Complete(ctx, req)) }, nil)
	if f != nil {
		return nil, f.err()
	}
	res := &mcp.Completion{Values: out.Values, HasMore: out.HasMore}
	if out.Total != nil {
		res.Total = *out.Total
	}
	if len(res.Values) > maxCompletions {
		res.Values, res.HasMore = res.Values[:maxCompletions], true
	}
	return res, nil
}
