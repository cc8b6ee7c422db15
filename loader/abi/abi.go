// Package abi is what the loader knows of a plugin calling convention: the
// ABI interface an adapter implements, the Instance it drives, the
// Descriptor it returns, and the typed CallError every call fails with.
//
// Each adapter lives in a subpackage (seaflea is the first) and is
// registered in one place, loader/registry.go; the loader uses the first
// registered ABI whose Detect accepts the module.
package abi

import (
	"context"
	"encoding/json"

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

// ABI adapts one plugin calling convention. sea-flea's is the only one
// today; mcp.run servlets and hyper-mcp plugins would each be another.
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
	// CallTool calls a tool with its arguments object; the output is the
	// text of the tool result.
	CallTool(ctx context.Context, inst Instance, tool string, args json.RawMessage) ([]byte, error)
	// ReadResource reads a resource: r itself, or the concrete uri of the
	// template r with its variables vars.
	ReadResource(ctx context.Context, inst Instance, r Resource, uri string, vars map[string]string) (wire.ResourceContent, error)
	// GetPrompt gets a prompt's messages for args.
	GetPrompt(ctx context.Context, inst Instance, prompt string, args map[string]string) ([]wire.PromptMessage, error)
}

// Descriptor is what a plugin provides, as its ABI describes it.
type Descriptor struct {
	Tools     []wire.Tool
	Resources []Resource // static resources and templates (Template != nil)
	Prompts   []wire.Prompt

	// Warnings are problems that do not stop the plugin from loading,
	// each naming the item concerned (a resource with no export of its
	// name, say); the loader logs them.
	Warnings []string
}

// Resource is a static resource or, when its URI holds {var} segments, a
// resource template.
type Resource struct {
	wire.Resource

	// Template matches concrete URIs of a template; nil for a static
	// resource.
	Template *URITemplate `json:"-"`
}
