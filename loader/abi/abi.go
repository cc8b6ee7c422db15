// Package abi is what the loader knows of a plugin calling convention: the
// ABI interface an adapter implements, the Instance it drives, the
// Descriptor it returns, and the typed CallError every call fails with.
//
// Each adapter lives in a subpackage (seaflea, hypermcp) and is
// registered in one place, loader/registry.go; the loader uses the first
// registered ABI whose Detect accepts the module.
package abi

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/wasmgate/wasmgate/wire"
)

// Exports are the functions a module exports.
type Exports interface {
	// Has reports whether the module exports the function name.
	Has(export string) bool
}

// Instance is one instantiated module, as an ABI sees it. It runs one call
// at a time. A failed Call returns a *CallError.
type Instance interface {
	Exports
	// Call runs export with input; ctx's deadline stops a runaway call.
	Call(ctx context.Context, export string, input []byte) ([]byte, error)
}

// ABI adapts one plugin calling convention: sea-flea's, and hyper-mcp's
// v1 (mcp.run servlets) and v2.
type ABI interface {
	// Name names the convention in logs and errors, e.g. "sea-flea".
	Name() string
	// Detect reports whether the module speaks this ABI, judging by its
	// exports. It runs before the module is instantiated.
	Detect(m Exports) bool
	// Signature says in words what Detect looks for, for the error
	// refusing a module no ABI detects, e.g. "exports tools_information".
	Signature() string
	// Describe asks the module what it provides.
	Describe(ctx context.Context, inst Instance) (Descriptor, error)
	// CallTool calls a tool with its arguments object.
	CallTool(ctx context.Context, inst Instance, tool string, args json.RawMessage) (ToolResult, error)
	// ReadResource reads a resource: r itself, or the concrete uri of the
	// template r with its variables vars.
	ReadResource(ctx context.Context, inst Instance, r Resource, uri string, vars map[string]string) ([]wire.ResourceContent, error)
	// GetPrompt gets a prompt's messages for args.
	GetPrompt(ctx context.Context, inst Instance, prompt string, args map[string]string) ([]PromptMessage, error)
}

// Completer is an ABI whose plugins can complete the arguments of their
// prompts and resource templates (completion/complete). Names and URIs
// are the plugin's own.
type Completer interface {
	Complete(ctx context.Context, inst Instance, req CompleteRequest) (Completion, error)
}

// ToolResult is what a tool call returned: the plain output of a sea-flea
// tool, which becomes one text item, or a whole MCP CallToolResult.
type ToolResult struct {
	// Text is the output, as one text item (when Result is nil).
	Text []byte
	// Result is an MCP CallToolResult as JSON, as the plugin returned it.
	Result json.RawMessage
}

// Size is the number of bytes the plugin returned.
func (r ToolResult) Size() int { return len(r.Text) + len(r.Result) }

// PromptMessage is one message of a prompt: a role and an MCP content
// block of any type (text, image, audio, resource, resource_link), as
// JSON.
type PromptMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// CompleteRequest asks for completions of one argument of a prompt
// (Prompt set) or of a resource template (URI set).
type CompleteRequest struct {
	Prompt string
	URI    string
	// Argument is the name of the argument being completed and Value
	// what the user typed so far.
	Argument, Value string
	// Arguments are the values of the other arguments, when the client
	// sent them.
	Arguments map[string]string
}

// Completion is the answer to a CompleteRequest.
type Completion struct {
	Values  []string `json:"values"`
	Total   *int     `json:"total,omitempty"`
	HasMore bool     `json:"hasMore,omitempty"`
}

// Request is what the gateway knows of the client request a call serves:
// its JSON-RPC id and the _meta of its params (both JSON; "null" and "{}"
// when absent). ABIs that pass them to the plugin read them from the
// call's context.
type Request struct {
	ID   json.RawMessage
	Meta json.RawMessage
}

// ProgressToken is the progressToken of r's _meta, nil without one. Most
// requests carry no _meta (RequestOf's "{}"): nothing is decoded for them.
func (r Request) ProgressToken() any {
	if len(r.Meta) == 0 || string(r.Meta) == "{}" {
		return nil
	}
	var meta struct {
		ProgressToken any `json:"progressToken"`
	}
	if json.Unmarshal(r.Meta, &meta) != nil {
		return nil
	}
	return meta.ProgressToken
}

type requestKey struct{}

// WithRequest returns ctx carrying r.
func WithRequest(ctx context.Context, r Request) context.Context {
	return context.WithValue(ctx, requestKey{}, r)
}

// RequestOf returns the request ctx carries; outside a client request
// (describing a plugin at load) its id is 0 and its _meta empty.
func RequestOf(ctx context.Context) Request {
	r, _ := ctx.Value(requestKey{}).(Request)
	if len(r.ID) == 0 {
		r.ID = json.RawMessage("0")
	}
	if len(r.Meta) == 0 {
		r.Meta = json.RawMessage("{}")
	}
	return r
}

// Descriptor is what a plugin provides, as its ABI describes it.
type Descriptor struct {
	Tools     []wire.Tool
	Resources []Resource // static resources and templates (Template != nil)
	Prompts   []wire.Prompt
	// Skills are the skills it serves (an upstream server's, a skills
	// folder's); their files are among Resources.
	Skills []Skill

	// Warnings are problems that do not stop the plugin from loading,
	// each naming the item concerned (a resource with no export of its
	// name, say); the loader logs them.
	Warnings []string

	// Cache are the caching hints (SEP-2549) the source gave on its
	// lists, by list; a source that gave none leaves them zero.
	Cache ListHints
}

// ListHints are a source's caching hints on each of its lists.
type ListHints struct {
	Tools, Resources, Templates, Prompts CacheHint
}

// CacheHint is what a source said of one list's caching (SEP-2549): the
// smallest ttlMs of its pages, and whether any page was cacheScope
// "private". The zero CacheHint says nothing.
type CacheHint struct {
	TTL     time.Duration // when HasTTL: how long the list may be considered fresh
	HasTTL  bool
	Private bool
}

// Merge is h with other's hint taken in: the smaller ttl, private if
// either is. A negative ttlMs is 0, as the specification asks clients to
// read it.
func (h CacheHint) Merge(ttlMs *int64, scope string) CacheHint {
	if ttlMs != nil {
		d := time.Duration(min(max(*ttlMs, 0), math.MaxInt64/int64(time.Millisecond))) * time.Millisecond
		if !h.HasTTL || d < h.TTL {
			h.TTL, h.HasTTL = d, true
		}
	}
	if scope == "private" {
		h.Private = true
	}
	return h
}

// Resource is a static resource or, when its URI holds {var} segments, a
// resource template.
type Resource struct {
	wire.Resource

	// Template matches concrete URIs of a template; nil for a static
	// resource.
	Template *URITemplate `json:"-"`
}

// MaxInfoBytes bounds what a listing export (tools_information, describe,
// list_tools, ...) may return.
const MaxInfoBytes = 4 << 20

// Describe runs a listing export with input at load and decodes its JSON
// output into v, refusing an output over MaxInfoBytes. Errors name the
// export.
func Describe(ctx context.Context, inst Instance, export string, input []byte, v any) error {
	out, err := inst.Call(ctx, export, input)
	if err != nil {
		return fmt.Errorf("%s: %w", export, err)
	}
	if len(out) > MaxInfoBytes {
		return fmt.Errorf("%s: output of %d bytes exceeds %d", export, len(out), MaxInfoBytes)
	}
	if err := json.Unmarshal(out, v); err != nil {
		return fmt.Errorf("%s: invalid JSON: %w", export, err)
	}
	return nil
}
