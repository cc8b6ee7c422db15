// Package source is the contract every provider of tools, resources,
// templates, prompts and completions implements (a WASM plugin, a browser
// relay site, an upstream server), the failures a call through one can
// end in, and the index that publishes what each source provides under
// its prefix, every name claimed once.
package source

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/metrics"
)

// Source is anything that provides tools, resources and prompts. The call
// envelope (package envelope) does everything common to every source
// around these methods: the snapshot reference, policy, argument
// validation, the timeout, metrics, audit and the mapping of failures to
// MCP results; a source only runs the call.
//
// Names passed in are the source's own (before any prefix). A failed call
// returns a *Failure; any other error is reported as FailError.
//
// What only some sources can do is an optional interface: Completer,
// Kinded, StatusReporter.
type Source interface {
	// Name labels the source in metrics ("source") and messages.
	Name() string
	// Key says where the source is declared, e.g. "plugins[2]".
	Key() string
	// Prefix is prepended (with "_") to its tool and prompt names, and
	// after the scheme of its resource URIs.
	Prefix() string
	// Descriptor is what the source provides now.
	Descriptor() abi.Descriptor
	// Timeout bounds one call.
	Timeout() time.Duration

	CallTool(ctx context.Context, tool string, args json.RawMessage) (*mcp.CallToolResult, error)
	ReadResource(ctx context.Context, r abi.Resource, uri string, vars map[string]string) ([]mcp.ResourceContents, error)
	GetPrompt(ctx context.Context, prompt string, args map[string]string) ([]mcp.PromptMessage, error)
}

// Completer is a source that completes arguments of its prompts and
// resource templates (completion/complete). A source that is not one
// completes to nothing.
type Completer interface {
	// CanComplete reports whether completion is available now (a plugin's
	// ABI may have no completion export).
	CanComplete() bool
	Complete(ctx context.Context, req abi.CompleteRequest) (abi.Completion, error)
}

// Tasker is a source whose tools a client may run as tasks (the MCP tasks
// extension): TaskTimeout bounds such a call instead of Timeout; 0 offers
// no tasks.
type Tasker interface {
	TaskTimeout() time.Duration
}

// TaskTimeoutOf is src's task timeout, 0 when it offers no tasks.
func TaskTimeoutOf(src Source) time.Duration {
	if t, ok := src.(Tasker); ok {
		return t.TaskTimeout()
	}
	return 0
}

// SecretRedactor is a source whose tool arguments and results have
// credential-shaped strings replaced (redact_secrets: true).
type SecretRedactor interface {
	RedactSecrets() bool
}

// RedactsSecrets reports whether src has redact_secrets on.
func RedactsSecrets(src Source) bool {
	r, ok := src.(SecretRedactor)
	return ok && r.RedactSecrets()
}

// OutputLimited is a source whose results are bounded (a plugin's
// limits.max_output): what an interceptor makes of a result is bounded
// the same.
type OutputLimited interface {
	MaxOutput() int64
}

// SelfTraced is a source that starts its own spans under the call's (a
// plugin: its wait for an instance and the WASM call), so the envelope
// adds no span of its own around the source's work.
type SelfTraced interface {
	SelfTraced()
}

// Kinded names the kind of a source in messages and on the status page
// ("plugin", "relay site"). A source that is not one is a "source".
type Kinded interface {
	Kind() string
}

// KindOf is src's kind.
func KindOf(src Source) string {
	if k, ok := src.(Kinded); ok {
		return k.Kind()
	}
	return "source"
}

// Status is what the status page shows of a source beyond its lists.
type Status struct {
	ABI       string          `json:"abi,omitempty"`
	Module    string          `json:"module,omitempty"`
	SHA256    string          `json:"sha256,omitempty"`
	Instances *InstanceStatus `json:"instances,omitempty"`
	Upstream  *UpstreamStatus `json:"upstream,omitempty"`
}

// UpstreamStatus is an upstream server's health.
type UpstreamStatus struct {
	Transport string `json:"transport"` // stdio, streamable-http, sse
	Target    string `json:"target"`    // the command or URL
	Session   string `json:"session"`   // shared or per_client
	Up        bool   `json:"up"`
	// Stale: what it lists is the catalog an earlier run kept, served
	// until the upstream answers and lists its own.
	Stale bool `json:"stale,omitempty"`
	// Idle: a start: lazy upstream stopped until a call needs it.
	Idle      bool   `json:"idle,omitempty"`
	Restarts  int    `json:"restarts"`
	LastError string `json:"last_error,omitempty"`
	Clients   int    `json:"clients,omitempty"` // per_client sessions open
	// Identity is the mode of auth that reaches the upstream as each
	// caller (token_exchange, user_oauth, identity_assertion); Users
	// counts the principals' sessions open.
	Identity string `json:"identity,omitempty"`
	Users    int    `json:"users,omitempty"`
	// IdentityFailures counts the calls that got no caller's token
	// (not connected, an exchange refused); LastIdentityError is the
	// newest's message (never a token).
	IdentityFailures  int    `json:"identity_failures,omitempty"`
	LastIdentityError string `json:"last_identity_error,omitempty"`
	// NotificationsDropped counts the notifications its rate limits left
	// out (a server that floods).
	NotificationsDropped int64 `json:"notifications_dropped,omitempty"`
}

// InstanceStatus counts a plugin's instances.
type InstanceStatus struct {
	Live  int64 `json:"live"`
	InUse int   `json:"in_use"`
	Max   int   `json:"max"`
}

// StatusReporter is a source with more to show on the status page.
type StatusReporter interface {
	Status() Status
}

// ProblemReporter is a source that refused part of what it was given
// itself (a relay page's resource outside its site's namespace): the
// status page lists it with the index's refusals.
type ProblemReporter interface {
	Problems() []string
}

// SessionEnder is a source that keeps state per MCP session (a plugin
// with instances: session) and frees it when the session ends.
type SessionEnder interface {
	EndSession(ctx context.Context, session string)
}

// FailureKind says how a call failed; each maps to a metrics outcome.
type FailureKind int

const (
	// FailError: the source reported an error itself (a tool's own
	// message); Msg is shown as it is.
	FailError FailureKind = iota
	// FailTimeout: the call ran out of time.
	FailTimeout
	// FailCancelled: the client cancelled the call.
	FailCancelled
	// FailCrash: the source broke (a plugin trapped, panicked or exited).
	FailCrash
	// FailRejected: the result broke a limit (too large, say).
	FailRejected
	// FailDenied: policy does not let the caller make the call.
	FailDenied
	// FailRateLimited: a policy rate limit refused the call.
	FailRateLimited
)

// Failure is a failed call. Except for FailError, Msg continues a
// sentence that starts with what was called: `tool "x" ` + Msg.
type Failure struct {
	Kind FailureKind
	Msg  string
}

func (f *Failure) Error() string { return f.Msg }

// Outcome is the metrics outcome of a failure of kind k.
func (k FailureKind) Outcome() string {
	switch k {
	case FailTimeout, FailCancelled:
		return metrics.OutcomeTimeout
	case FailCrash:
		return metrics.OutcomeCrash
	case FailRejected:
		return metrics.OutcomeRejected
	case FailDenied:
		return metrics.OutcomeDenied
	case FailRateLimited:
		return metrics.OutcomeRateLimited
	}
	return metrics.OutcomeError
}

// Message is what a person reads about a failed call of the kind
// ("tool", "resource", "prompt") named name.
func Message(kind, name string, f *Failure) string {
	if f.Kind == FailError {
		return f.Msg
	}
	return fmt.Sprintf("%s %q %s", kind, name, f.Msg)
}

// ClientDeclares reports whether the MCP client of session told its
// capabilities at initialize (known) and, if so, whether they include
// what: "sampling", "elicitation" or "roots". Sources that pass a
// request on to their client (a plugin's host functions, an upstream's
// requests) check it first.
func ClientDeclares(session server.ClientSession, what string) (known, has bool) {
	ci, ok := session.(server.SessionWithClientInfo)
	if !ok {
		return false, false
	}
	caps := ci.GetClientCapabilities()
	switch what {
	case "sampling":
		return true, caps.Sampling != nil
	case "elicitation":
		return true, caps.Elicitation != nil
	case "roots":
		return true, caps.Roots != nil
	}
	return true, false
}
