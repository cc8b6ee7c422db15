package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	extism "github.com/extism/go-sdk"
	"go.opentelemetry.io/otel/codes"
)

// The MCP host functions: what a plugin asks of the client whose request
// it is serving (notifications, progress, logging, sampling, elicitation,
// roots), with hyper-mcp's names and JSON shapes, offered to every ABI.
// docs/plugins.md has the contract.

// List names one of a plugin's lists.
type List int

const (
	Tools List = iota
	Prompts
	Resources // resources and resource templates
)

// Call is the client request a plugin call serves, as the host functions
// act on it. The gateway puts one in the context of every call it makes
// for a client (WithCall); outside one (describing a plugin at load) the
// notify functions do nothing and the requests fail.
//
// Every method is called on the goroutine running the call, and returns
// when the call's context ends at the latest.
//
// A method's error wrapping ErrStop ends the plugin's call: the notify
// functions, which return nothing to the plugin, trap with it, so the
// call fails with its message (a call past limits.max_notifications).
type Call interface {
	// ListChanged records that the plugin's list changed; the gateway
	// reads the plugin's lists again once the call has finished.
	ListChanged(l List)
	// ResourceUpdated tells the sessions subscribed to the plugin's
	// resource uri (the plugin's own URI) that it changed.
	ResourceUpdated(uri string) error
	// Progress sends notifications/progress for the request, with the
	// client's progress token; nothing when the client sent none.
	Progress(ctx context.Context, p ProgressParams) error
	// Log sends notifications/message to the client, if the session's
	// logging level lets it through.
	Log(ctx context.Context, m LogParams) error
	// CreateMessage asks the client to sample (sampling/createMessage).
	CreateMessage(ctx context.Context, params json.RawMessage) (json.RawMessage, error)
	// Elicit asks the client for input (elicitation/create).
	Elicit(ctx context.Context, params json.RawMessage) (json.RawMessage, error)
	// ListRoots asks the client for its roots (roots/list).
	ListRoots(ctx context.Context) (json.RawMessage, error)
}

// requestSpan names the span of a request host function: the MCP method
// it asks the client for.
func requestSpan(name string) string {
	switch name {
	case "create_message":
		return "sampling/createMessage"
	case "create_elicitation":
		return "elicitation/create"
	case "list_roots":
		return "roots/list"
	}
	return name
}

// ErrStop, wrapped in the error of a Call's method, ends the plugin's
// call with that error.
var ErrStop = errors.New("the gateway stopped the call")

// stop traps the running call with err when err wraps ErrStop; other
// errors of a notification are not the plugin's to see.
func stop(err error) {
	if errors.Is(err, ErrStop) {
		panic(err)
	}
}

// ProgressParams is the input of notify_progress. ProgressToken, when a
// plugin sends one, is not used: the gateway uses the client's.
type ProgressParams struct {
	ProgressToken json.RawMessage `json:"progressToken,omitempty"`
	Progress      float64         `json:"progress"`
	Total         *float64        `json:"total,omitempty"`
	Message       string          `json:"message,omitempty"`
}

// LogParams is the input of notify_logging_message.
type LogParams struct {
	Level  string          `json:"level"`
	Data   json.RawMessage `json:"data"`
	Logger string          `json:"logger,omitempty"`
}

type callKey struct{}

// WithCall returns ctx carrying c, for the host functions of the plugin
// call made with it.
func WithCall(ctx context.Context, c Call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// CallOf returns the Call ctx carries, or nil.
func CallOf(ctx context.Context) Call {
	c, _ := ctx.Value(callKey{}).(Call)
	return c
}

// ErrNoClient is the failure of a request made outside a client's call.
var ErrNoClient = errors.New("no client request is running (the plugin is being loaded or listed)")

// mcpFunctions are the nine MCP host functions.
func mcpFunctions() []extism.HostFunction {
	i64 := []extism.ValueType{extism.ValueTypeI64}
	none := []extism.ValueType{}
	notify := func(name string, l List) extism.HostFunction {
		return extism.NewHostFunctionWithStack(name, func(ctx context.Context, _ *extism.CurrentPlugin, _ []uint64) {
			if c := CallOf(ctx); c != nil {
				c.ListChanged(l)
			}
		}, none, none)
	}
	// input reads the JSON argument at stack[0] into v; a plugin that
	// passes something else gets nothing done (a notification) or an
	// error (a request).
	input := func(p *extism.CurrentPlugin, off uint64, v any) error {
		b, err := p.ReadBytes(off)
		if err != nil {
			return fmt.Errorf("reading the argument: %w", err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			return fmt.Errorf("the argument is not the expected JSON: %w", err)
		}
		return nil
	}
	// reply writes v as the function's result; memory the plugin cannot
	// give traps the call, as any allocation failure does.
	reply := func(p *extism.CurrentPlugin, stack []uint64, v any) {
		b, err := json.Marshal(v)
		if err != nil {
			b = []byte(`{"error":"encoding the result failed"}`)
		}
		off, err := p.WriteBytes(b)
		if err != nil {
			panic(fmt.Errorf("writing a host function's result into plugin memory: %w", err))
		}
		stack[0] = off
	}
	// request runs a request to the client: its answer, or on failure
	// the plugin's fallback object with "error" set.
	request := func(name string, params bool, do func(context.Context, Call, json.RawMessage) (json.RawMessage, error), fallback func(msg string) any) extism.HostFunction {
		in := none
		if params {
			in = i64
		}
		return extism.NewHostFunctionWithStack(name, func(ctx context.Context, p *extism.CurrentPlugin, stack []uint64) {
			var raw json.RawMessage
			if params {
				if err := input(p, stack[0], &raw); err != nil {
					reply(p, stack, fallback(name+": "+err.Error()))
					return
				}
			}
			c := CallOf(ctx)
			if c == nil {
				reply(p, stack, fallback(name+": "+ErrNoClient.Error()))
				return
			}
			sctx, span := Span(ctx, requestSpan(name))
			out, err := do(sctx, c, raw)
			if err != nil {
				span.SetStatus(codes.Error, err.Error())
			}
			span.End()
			if err != nil {
				stop(err) // the gateway ends the run (its client answers by retrying)
				reply(p, stack, fallback(name+": "+err.Error()))
				return
			}
			reply(p, stack, out)
		}, in, i64)
	}
	errorOnly := func(msg string) any { return map[string]string{"error": msg} }
	return []extism.HostFunction{
		notify("notify_tool_list_changed", Tools),
		notify("notify_prompt_list_changed", Prompts),
		notify("notify_resource_list_changed", Resources),
		extism.NewHostFunctionWithStack("notify_resource_updated", func(ctx context.Context, p *extism.CurrentPlugin, stack []uint64) {
			var in struct {
				URI string `json:"uri"`
			}
			if c := CallOf(ctx); c != nil && input(p, stack[0], &in) == nil && in.URI != "" {
				stop(c.ResourceUpdated(in.URI))
			}
		}, i64, none),
		extism.NewHostFunctionWithStack("notify_progress", func(ctx context.Context, p *extism.CurrentPlugin, stack []uint64) {
			var in ProgressParams
			if c := CallOf(ctx); c != nil && input(p, stack[0], &in) == nil {
				stop(c.Progress(ctx, in))
			}
		}, i64, none),
		extism.NewHostFunctionWithStack("notify_logging_message", func(ctx context.Context, p *extism.CurrentPlugin, stack []uint64) {
			var in LogParams
			if c := CallOf(ctx); c != nil && input(p, stack[0], &in) == nil {
				stop(c.Log(ctx, in))
			}
		}, i64, none),
		request("create_message", true, func(ctx context.Context, c Call, in json.RawMessage) (json.RawMessage, error) {
			return c.CreateMessage(ctx, in)
		}, errorOnly),
		request("create_elicitation", true, func(ctx context.Context, c Call, in json.RawMessage) (json.RawMessage, error) {
			return c.Elicit(ctx, in)
		}, func(msg string) any { return map[string]string{"action": "decline", "error": msg} }),
		request("list_roots", false, func(ctx context.Context, c Call, _ json.RawMessage) (json.RawMessage, error) {
			return c.ListRoots(ctx)
		}, func(msg string) any { return map[string]any{"roots": []any{}, "error": msg} }),
	}
}
