// Package intercept runs the operators' interceptors (the interceptors
// section, docs/interceptors.md): WebAssembly modules, sandboxed like
// plugins, and external interceptor servers, that see a call before its
// source runs (request phase) or its result before the client does
// (response phase), and a list before it is sent, and answer continue,
// deny or modify.
package intercept

import (
	"context"
	"encoding/json"

	"github.com/wasmgate/wasmgate/internal/canon"
)

// The exports of an interceptor module, one per phase.
const (
	ExportRequest  = "intercept_request"
	ExportResponse = "intercept_response"
)

// Phases.
const (
	PhaseRequest  = "request"
	PhaseResponse = "response"
)

// Decisions.
const (
	Continue = "continue"
	Deny     = "deny"
	Modify   = "modify"
)

// ConfigKey is the Extism config key that holds the interceptor's config:
// section as JSON (the PDK's intercept.Config reads it).
const ConfigKey = "wasmgate.interceptor.config"

// Input is what an interceptor gets: the JSON input of its export, the
// same for every language.
type Input struct {
	// Phase is "request" or "response".
	Phase string `json:"phase"`
	// Method is the MCP method: tools/call, resources/read, prompts/get,
	// tools/list, resources/list, resources/templates/list, prompts/list.
	Method string `json:"method"`
	// Endpoint is the endpoint the call came through.
	Endpoint string `json:"endpoint"`
	// Source is the name of the source that serves the call (a plugin,
	// relay site or upstream); empty for a list.
	Source string `json:"source,omitempty"`
	// Name is the tool or prompt name, or the resource URI, as the client
	// sees it; empty for a list.
	Name string `json:"name,omitempty"`
	// Arguments are the call's arguments, canonical (a tool's), the
	// prompt's, or a resource template's variables; absent for lists.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Result is, in the response phase, the MCP result as the client
	// would get it: a CallToolResult ({"content": [...],
	// "structuredContent": ..., "isError": ...}), a ReadResourceResult
	// ({"contents": [...]}), a GetPromptResult ({"description": ...,
	// "messages": [...]}), or a list ({"tools": [...]}, {"resources":
	// [...]}, {"resourceTemplates": [...]}, {"prompts": [...]}).
	Result json.RawMessage `json:"result,omitempty"`
	// Principal is the caller.
	Principal Principal `json:"principal"`
	// Transport is "http" or "stdio".
	Transport string `json:"transport"`
	// Session is the caller's MCP session and the flow labels it has
	// touched (flows:); nil without either.
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

// Output is an interceptor's answer.
type Output struct {
	// Decision is "continue", "deny" or "modify".
	Decision string `json:"decision"`
	// Message is what the client is told of a deny (and is logged for a
	// modify).
	Message string `json:"message,omitempty"`
	// Arguments replace the call's arguments (modify, request phase of
	// tools/call and prompts/get): checked against the tool's input
	// schema again.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Result replaces the result (modify, response phase): of the same
	// shape as Input.Result. A list may drop or rewrite entries, never
	// add one or rename one.
	Result json.RawMessage `json:"result,omitempty"`

	// answer is the whole answer Arguments or Result was sliced from
	// unread (sliceOutput): nil when it was decoded.
	answer []byte
}

// Interceptor is one interceptor, in-process or remote.
type Interceptor interface {
	// Intercept runs the interceptor on in. An error is the
	// interceptor's failure (a trap, a timeout, garbage, a server that
	// is down): the call fails or goes on as its failure setting says.
	Intercept(ctx context.Context, in *Input) (*Output, error)
}

// AppendJSON appends in as JSON, member for member what encoding/json
// writes for it, except that Arguments and Result, which the gateway
// wrote itself, are copied as they are rather than validated and
// compacted again: a result of 10 KiB was scanned twice more for each
// interceptor.
func (in *Input) AppendJSON(b []byte) []byte {
	str := func(name, v string, omitEmpty bool) {
		if omitEmpty && v == "" {
			return
		}
		b = append(b, ',', '"')
		b = append(b, name...)
		b = append(b, '"', ':')
		b = canon.AppendString(b, v)
	}
	b = append(b, `{"phase":`...)
	b = canon.AppendString(b, in.Phase)
	str("method", in.Method, false)
	str("endpoint", in.Endpoint, false)
	str("source", in.Source, true)
	str("name", in.Name, true)
	if len(in.Arguments) > 0 {
		b = append(append(b, `,"arguments":`...), in.Arguments...)
	}
	if len(in.Result) > 0 {
		b = append(append(b, `,"result":`...), in.Result...)
	}
	b = append(b, `,"principal":{"name":`...)
	b = canon.AppendString(b, in.Principal.Name)
	b = appendStrings(append(b, `,"groups":`...), in.Principal.Groups)
	b = append(b, '}')
	str("transport", in.Transport, false)
	if s := in.Session; s != nil {
		b = append(b, `,"session":{`...)
		if s.ID != "" {
			b = append(b, `"id":`...)
			b = canon.AppendString(b, s.ID)
			b = append(b, ',')
		}
		b = appendStrings(append(b, `"labels":`...), s.Labels)
		b = append(b, '}')
	}
	str("trace_id", in.TraceID, true)
	return append(b, '}')
}

// appendStrings appends ss as a JSON array, null when nil as
// encoding/json writes it.
func appendStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = canon.AppendString(b, s)
	}
	return append(b, ']')
}
