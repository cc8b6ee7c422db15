package gateway

import (
	"bytes"
	"context"
	"encoding/base64"
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

	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/metrics"
)

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
		return g.callTool(ctx, t, req), nil
	}
}

func (g *Gateway) callTool(ctx context.Context, t *toolEntry, req mcp.CallToolRequest) *mcp.CallToolResult {
	m := g.opts.Metrics
	plugin := t.rt.name
	start := time.Now()
	inflight := m.ToolsInFlight.WithLabelValues(plugin)
	inflight.Inc()
	outcome := metrics.OutcomeOK
	defer func() {
		inflight.Dec()
		m.ToolCalls.WithLabelValues(t.name, plugin, outcome).Inc()
		m.ToolDuration.WithLabelValues(t.name, plugin).Observe(time.Since(start).Seconds())
	}()

	args, err := json.Marshal(req.Params.Arguments)
	if err != nil || req.Params.Arguments == nil {
		args = []byte("{}")
	}
	if msg := validateArgs(t.schema, args); msg != "" {
		outcome = metrics.OutcomeInvalidArgs
		return mcp.NewToolResultError(fmt.Sprintf("invalid arguments for tool %q: %s", t.name, msg))
	}
	limits := t.rt.spec.Limits
	out, err := g.run(ctx, t.rt, time.Duration(limits.Timeout), func(ctx context.Context, inst *loader.Instance) ([]byte, error) {
		return t.rt.plugin.ABI.CallTool(ctx, inst, t.export, args)
	})
	if err == nil && int64(len(out)) > int64(limits.MaxOutput) {
		outcome = metrics.OutcomeRejected
		return mcp.NewToolResultError(fmt.Sprintf("tool %q returned %d bytes, more than its plugin's limits.max_output (%s)", t.name, len(out), limits.MaxOutput))
	}
	if err != nil {
		var msg string
		outcome, msg = describeFailure("tool", t.name, plugin, limits, err)
		if outcome == metrics.OutcomeCrash || outcome == metrics.OutcomeTimeout {
			g.log.Warn("tool call failed", "tool", t.name, "plugin", plugin, "outcome", outcome, "error", err)
		}
		return mcp.NewToolResultError(msg)
	}
	return mcp.NewToolResultText(string(out))
}

// run borrows an instance of rt for one export call bounded by timeout.
func (g *Gateway) run(ctx context.Context, rt *pluginRT, timeout time.Duration, fn func(context.Context, *loader.Instance) ([]byte, error)) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	inst, err := rt.pool.get(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, &abi.CallError{Kind: abi.KindTimeout, Msg: "timed out waiting for a free instance"}
		}
		return nil, &abi.CallError{Kind: abi.KindTrap, Msg: fmt.Sprintf("could not start an instance: %v", err)}
	}
	defer rt.pool.put(ctx, inst)
	return fn(ctx, inst)
}

// describeFailure turns a failed call into a metrics outcome and a message
// a person can act on.
func describeFailure(kind, name, plugin string, limits loader.Limits, err error) (string, string) {
	var ce *abi.CallError
	if !errors.As(err, &ce) {
		return metrics.OutcomeError, err.Error()
	}
	switch ce.Kind {
	case abi.KindError:
		return metrics.OutcomeError, ce.Msg
	case abi.KindCancelled:
		return metrics.OutcomeTimeout, fmt.Sprintf("%s %q was cancelled", kind, name)
	case abi.KindTimeout:
		msg := fmt.Sprintf("%s %q timed out after %s (plugin %q, limits.timeout)", kind, name, limits.Timeout, plugin)
		if ce.Msg != "timed out" {
			msg += ": " + ce.Msg
		}
		return metrics.OutcomeTimeout, msg
	default:
		msg := ce.Msg
		if strings.Contains(msg, "out of memory") {
			msg += fmt.Sprintf(" (limits.memory is %s)", limits.Memory)
		}
		return metrics.OutcomeCrash, fmt.Sprintf("%s %q failed: plugin %q crashed: %s", kind, name, plugin, msg)
	}
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
		if template {
			e = s.templates[key]
			if e != nil {
				var ok bool
				if vars, ok = e.res.Template.Match(uri); !ok {
					return nil, fmt.Errorf("resource %q does not match template %q", uri, key)
				}
			}
		} else {
			e = s.resources[key]
		}
		if e == nil {
			return nil, fmt.Errorf("resource %q not found: %w", uri, server.ErrResourceNotFound)
		}
		limits := e.rt.spec.Limits
		outcome := metrics.OutcomeOK
		defer func() { g.opts.Metrics.ResourceReads.WithLabelValues(e.rt.name, outcome).Inc() }()
		var c loader.ResourceContent
		_, err = g.run(ctx, e.rt, time.Duration(limits.Timeout), func(ctx context.Context, inst *loader.Instance) ([]byte, error) {
			var err error
			c, err = e.rt.plugin.ABI.ReadResource(ctx, inst, e.res, uri, vars)
			return nil, err
		})
		if err != nil {
			var msg string
			outcome, msg = describeFailure("resource", uri, e.rt.name, limits, err)
			return nil, errors.New(msg)
		}
		if c.Blob != "" {
			if _, err := base64.StdEncoding.DecodeString(c.Blob); err != nil {
				outcome = metrics.OutcomeError
				return nil, fmt.Errorf("resource %q: plugin %q returned a blob that is not base64", uri, e.rt.name)
			}
			return []mcp.ResourceContents{mcp.BlobResourceContents{URI: c.URI, MIMEType: c.MimeType, Blob: c.Blob}}, nil
		}
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: c.URI, MIMEType: c.MimeType, Text: c.Text}}, nil
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
		for _, a := range p.def.Arguments {
			if a.Required && req.Params.Arguments[a.Name] == "" {
				return nil, fmt.Errorf("prompt %q: missing required argument %q", name, a.Name)
			}
		}
		limits := p.rt.spec.Limits
		outcome := metrics.OutcomeOK
		defer func() { g.opts.Metrics.PromptGets.WithLabelValues(p.rt.name, outcome).Inc() }()
		var msgs []loader.PromptMessage
		_, err = g.run(ctx, p.rt, time.Duration(limits.Timeout), func(ctx context.Context, inst *loader.Instance) ([]byte, error) {
			var err error
			msgs, err = p.rt.plugin.ABI.GetPrompt(ctx, inst, p.export, req.Params.Arguments)
			return nil, err
		})
		if err != nil {
			var msg string
			outcome, msg = describeFailure("prompt", name, p.rt.name, limits, err)
			return nil, errors.New(msg)
		}
		out := make([]mcp.PromptMessage, 0, len(msgs))
		for _, m := range msgs {
			role := mcp.Role(m.Role)
			if role != mcp.RoleUser && role != mcp.RoleAssistant {
				outcome = metrics.OutcomeError
				return nil, fmt.Errorf("prompt %q: plugin %q returned role %q (want user or assistant)", name, p.rt.name, m.Role)
			}
			out = append(out, mcp.NewPromptMessage(role, mcp.NewTextContent(m.Content.Text)))
		}
		return mcp.NewGetPromptResult(p.def.Description, out), nil
	}
}
