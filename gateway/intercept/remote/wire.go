package remote

import (
	"encoding/json"
	"fmt"
)

// The methods of the interceptors draft.
const (
	MethodList   = "interceptors/list"
	MethodInvoke = "interceptor/invoke"
	// NotificationListChanged is reserved by the draft (future work); a
	// server that sends it makes the client list again before the next
	// call.
	NotificationListChanged = "notifications/interceptors/list_changed"
	// ExtensionKey is the key of the interceptors extension in a server's
	// capabilities.extensions.
	ExtensionKey = "io.modelcontextprotocol/interceptors"
)

// Interceptor types, modes and severities of the draft.
const (
	TypeValidation = "validation"
	TypeMutation   = "mutation"

	ModeActive = "active"
	ModeAudit  = "audit"
	// modeEnforce is SEP-1763's name for active.
	modeEnforce = "enforce"

	SeverityInfo  = "info"
	SeverityWarn  = "warn"
	SeverityError = "error"
)

// Descriptor is one interceptor as interceptors/list describes it.
type Descriptor struct {
	Name        string `json:"name"`
	Version     string `json:"version,omitempty"`
	Description string `json:"description,omitempty"`
	// Type is "validation" or "mutation".
	Type string `json:"type"`
	// Hooks are the events and phase each entry applies to.
	Hooks []Hook `json:"hooks,omitempty"`
	// Hook is SEP-1763's single hook, whose phase may be "both"; read
	// when Hooks is absent.
	Hook *Hook `json:"hook,omitempty"`
	// Mode is "active" (the default) or "audit".
	Mode string `json:"mode,omitempty"`
	// FailOpen lets a call go on when the interceptor fails.
	FailOpen bool `json:"failOpen,omitempty"`
	// PriorityHint orders mutators, lower first.
	PriorityHint *Priority `json:"priorityHint,omitempty"`
}

// Hook is a set of events in one phase ("both" in SEP-1763's hook).
type Hook struct {
	Events []string `json:"events"`
	Phase  string   `json:"phase"`
}

// Priority is a priorityHint: one number for both phases, or one per
// phase.
type Priority struct {
	Request  int64
	Response int64
}

// UnmarshalJSON reads a number or {"request": n, "response": m}.
func (p *Priority) UnmarshalJSON(b []byte) error {
	var n int64
	if err := json.Unmarshal(b, &n); err == nil {
		p.Request, p.Response = n, n
		return nil
	}
	var o struct {
		Request  *int64 `json:"request"`
		Response *int64 `json:"response"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return fmt.Errorf("priorityHint is neither a number nor {request, response}: %w", err)
	}
	*p = Priority{}
	if o.Request != nil {
		p.Request = *o.Request
	}
	if o.Response != nil {
		p.Response = *o.Response
	}
	return nil
}

// MarshalJSON writes the per-phase form.
func (p Priority) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]int64{"request": p.Request, "response": p.Response})
}

// ListParams are the params of interceptors/list.
type ListParams struct {
	Event  string `json:"event,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

// ListResult is the result of interceptors/list.
type ListResult struct {
	Interceptors []json.RawMessage `json:"interceptors"`
	NextCursor   string            `json:"nextCursor,omitempty"`
}

// InvokeParams are the params of interceptor/invoke.
type InvokeParams struct {
	Name      string          `json:"name"`
	Event     string          `json:"event"`
	Phase     string          `json:"phase"`
	Payload   json.RawMessage `json:"payload"`
	Config    json.RawMessage `json:"config,omitempty"`
	TimeoutMs int64           `json:"timeoutMs,omitempty"`
	Context   *InvokeContext  `json:"context,omitempty"`
}

// InvokeContext is the optional context of an invocation.
type InvokeContext struct {
	Principal *InvokePrincipal `json:"principal,omitempty"`
	TraceID   string           `json:"traceId,omitempty"`
	Timestamp string           `json:"timestamp"`
	SessionID string           `json:"sessionId,omitempty"`
	// Labels are the flow labels the caller's session has touched
	// (flows:, docs/flows.md): wasmgate's own member of the context,
	// under its reverse-DNS name as the draft's extensions are.
	Labels []string `json:"io.wasmgate/labels,omitempty"`
}

// InvokePrincipal is who makes the call.
type InvokePrincipal struct {
	// Type is "user", "service" or "anonymous".
	Type   string         `json:"type"`
	ID     string         `json:"id,omitempty"`
	Claims map[string]any `json:"claims,omitempty"`
}

// Result is an interceptor/invoke result: a ValidationResult or a
// MutationResult, told apart by Type.
type Result struct {
	Interceptor string `json:"interceptor,omitempty"`
	Type        string `json:"type"`
	Phase       string `json:"phase"`
	DurationMs  int64  `json:"durationMs,omitempty"`

	// ValidationResult.
	Valid    *bool     `json:"valid,omitempty"`
	Severity string    `json:"severity,omitempty"`
	Messages []Message `json:"messages,omitempty"`

	// MutationResult.
	Modified *bool           `json:"modified,omitempty"`
	Payload  json.RawMessage `json:"payload,omitempty"`
}

// Message is one finding of a validator.
type Message struct {
	Path     string `json:"path,omitempty"`
	Message  string `json:"message"`
	Severity string `json:"severity,omitempty"`
}
