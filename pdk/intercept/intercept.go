// Package intercept is the Go PDK of wasmgate interceptors: what an
// interceptor module written in Go imports to read the call or result the
// gateway intercepted and answer continue, deny or modify
// (docs/interceptors.md).
//
// An interceptor exports intercept_request, intercept_response or both
// (one per phase); each takes the intercepted [Event] as its JSON input
// and returns an [Output] as its JSON output. Interceptors are built like
// plugins:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o deny-admin.wasm .
//
// A minimal one:
//
//	//go:wasmexport intercept_request
//	func interceptRequest() int32 {
//		ev, err := intercept.Input()
//		if err != nil {
//			return intercept.Fail(err)
//		}
//		if ev.Name == "drop_table" {
//			return intercept.Answer(intercept.Deny("drop_table is not for agents"))
//		}
//		return intercept.Answer(intercept.Continue())
//	}
//
// The types, the answers and the [Result] helpers have no build
// constraints (they are usable and tested on the host); [Input], [Config],
// [Answer] and [Fail] are built only for GOOS=wasip1.
package intercept

import (
	"encoding/json"
	"fmt"
)

// The exports of an interceptor module, one per phase.
const (
	ExportRequest  = "intercept_request"
	ExportResponse = "intercept_response"
)

// Phases, as in Event.Phase.
const (
	PhaseRequest  = "request"
	PhaseResponse = "response"
)

// Decisions, as in Output.Decision.
const (
	DecisionContinue = "continue"
	DecisionDeny     = "deny"
	DecisionModify   = "modify"
)

// ConfigKey is the Extism config key that holds the interceptor's config:
// section as JSON; [Config] decodes it.
const ConfigKey = "wasmgate.interceptor.config"

// Event is what an interceptor export gets as its input: the call or the
// result the gateway intercepted. Its JSON is the gateway's
// intercept.Input, member for member.
type Event struct {
	// Phase is "request" or "response".
	Phase string `json:"phase"`
	// Method is the MCP method: tools/call, resources/read, prompts/get,
	// tools/list, resources/list, resources/templates/list, prompts/list.
	Method string `json:"method"`
	// Endpoint is the endpoint the call came through.
	Endpoint string `json:"endpoint"`
	// Source is the name of the source that serves the call; empty for a
	// list.
	Source string `json:"source,omitempty"`
	// Name is the tool or prompt name, or the resource URI, as the client
	// sees it; empty for a list.
	Name string `json:"name,omitempty"`
	// Arguments are the call's arguments (a JSON object); absent for
	// lists.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Result is, in the response phase, the MCP result as the client
	// would get it: a CallToolResult, a ReadResourceResult, a
	// GetPromptResult or a list ({"tools": [...]}, ...). [ParseResult]
	// decodes it for the [Result] helpers.
	Result json.RawMessage `json:"result,omitempty"`
	// Principal is the caller.
	Principal Principal `json:"principal"`
	// Transport is "http" or "stdio".
	Transport string `json:"transport"`
	// Session is the caller's MCP session and the flow labels it has
	// touched; nil without either.
	Session *Session `json:"session,omitempty"`
	// TraceID is the call's trace, when it is recorded.
	TraceID string `json:"trace_id,omitempty"`
}

// Principal is who makes the call.
type Principal struct {
	Name   string   `json:"name"`
	Groups []string `json:"groups"`
}

// Session is the caller's session as interceptors see it.
type Session struct {
	ID     string   `json:"id,omitempty"`
	Labels []string `json:"labels"`
}

// DecodeArguments decodes the event's arguments into v with encoding/json.
// Absent arguments leave v unchanged.
func (e *Event) DecodeArguments(v any) error {
	if len(e.Arguments) == 0 {
		return nil
	}
	if err := json.Unmarshal(e.Arguments, v); err != nil {
		return fmt.Errorf("decode arguments: %w", err)
	}
	return nil
}

// Output is an interceptor's answer: build it with [Continue], [Deny],
// [ModifyArguments] or [ModifyResult] and return it with [Answer].
type Output struct {
	// Decision is "continue", "deny" or "modify".
	Decision string `json:"decision"`
	// Message is what the client is told of a deny (and is logged for a
	// modify).
	Message string `json:"message,omitempty"`
	// Arguments replace the call's arguments (modify, request phase of
	// tools/call and prompts/get); the gateway checks them against the
	// tool's input schema again.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Result replaces the result (modify, response phase), of the same
	// shape as Event.Result. A list may drop or rewrite entries, never
	// add or rename one.
	Result json.RawMessage `json:"result,omitempty"`
}

// Continue lets the call or result go on unchanged.
func Continue() Output { return Output{Decision: DecisionContinue} }

// Deny refuses the call or withholds the result; the client is told msg.
func Deny(msg string) Output { return Output{Decision: DecisionDeny, Message: msg} }

// ModifyArguments replaces the call's arguments with v encoded as JSON
// (an object: a map, a struct or a json.RawMessage).
func ModifyArguments(v any) (Output, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return Output{}, fmt.Errorf("encode modified arguments: %w", err)
	}
	return Output{Decision: DecisionModify, Arguments: b}, nil
}

// ModifyResult replaces the result with v encoded as JSON: a [Result], a
// struct of the result's shape or a json.RawMessage.
func ModifyResult(v any) (Output, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return Output{}, fmt.Errorf("encode modified result: %w", err)
	}
	return Output{Decision: DecisionModify, Result: b}, nil
}

// WithMessage returns o with Message set: the reason logged for a modify,
// or what the client is told of a deny.
func (o Output) WithMessage(msg string) Output {
	o.Message = msg
	return o
}
