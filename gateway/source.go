package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/metrics"
)

// Source is anything that provides tools, resources and prompts: a WASM
// plugin (pluginRT) today, a relay site tomorrow. The gateway's dispatch
// (call.go) does everything common to every source around these methods:
// the snapshot reference, argument validation, the timeout, metrics and
// the mapping of failures to MCP results; a source only runs the call.
//
// Names passed in are the source's own (before any prefix). A failed call
// returns a *Failure; any other error is reported as FailError.
type Source interface {
	// Name labels the source in metrics ("plugin") and messages.
	Name() string
	// Key says where the source is declared, e.g. "plugins[2]".
	Key() string
	// Prefix is prepended (with "_") to its tool and prompt names.
	Prefix() string
	// Descriptor is what the source provides.
	Descriptor() abi.Descriptor
	// Timeout bounds one call.
	Timeout() time.Duration

	CallTool(ctx context.Context, tool string, args json.RawMessage) (*mcp.CallToolResult, error)
	ReadResource(ctx context.Context, r abi.Resource, uri string, vars map[string]string) ([]mcp.ResourceContents, error)
	GetPrompt(ctx context.Context, prompt string, args map[string]string) ([]mcp.PromptMessage, error)
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

func (k FailureKind) outcome() string {
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

// failureMessage is what a person reads about a failed call of the kind
// ("tool", "resource", "prompt") named name.
func failureMessage(kind, name string, f *Failure) string {
	if f.Kind == FailError {
		return f.Msg
	}
	return fmt.Sprintf("%s %q %s", kind, name, f.Msg)
}
