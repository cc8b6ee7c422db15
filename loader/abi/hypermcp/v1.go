package hypermcp

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/wire"
)

// V1 is hyper-mcp's v1 ABI, the mcp.run servlet shape:
//
//	describe  (empty input)                               -> {"tools":[MCP Tool...]}
//	call      {"params":{"name":"t","arguments":{...}}}    -> MCP CallToolResult
//
// A v1 plugin provides tools only.
type V1 struct{}

var _ abi.ABI = V1{}

// Name returns "hyper-mcp v1".
func (V1) Name() string { return "hyper-mcp v1" }

// Detect accepts a module exporting both call and describe.
func (V1) Detect(m abi.Exports) bool { return m.Has("call") && m.Has("describe") }

// Signature says what Detect looks for.
func (V1) Signature() string { return "exports call and describe" }

// Describe calls describe and checks the tools it lists.
func (V1) Describe(ctx context.Context, inst abi.Instance) (abi.Descriptor, error) {
	var out struct {
		Tools *[]wire.Tool `json:"tools"`
	}
	if err := describeCall(ctx, inst, "describe", nil, &out); err != nil {
		return abi.Descriptor{}, err
	}
	if out.Tools == nil {
		return abi.Descriptor{}, errors.New(`describe: the output has no "tools" array`)
	}
	if err := checkTools("describe", *out.Tools); err != nil {
		return abi.Descriptor{}, err
	}
	return abi.Descriptor{Tools: *out.Tools}, nil
}

// v1Call is the input of call.
type v1Call struct {
	Params struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments,omitempty"`
	} `json:"params"`
}

// CallTool calls call with the tool's name and arguments.
func (V1) CallTool(ctx context.Context, inst abi.Instance, tool string, args json.RawMessage) (abi.ToolResult, error) {
	var in v1Call
	in.Params.Name = tool
	in.Params.Arguments = args
	b, err := json.Marshal(in)
	if err != nil {
		return abi.ToolResult{}, err
	}
	out, err := inst.Call(ctx, "call", b)
	if err != nil {
		return abi.ToolResult{}, err
	}
	return toolResult("call", out)
}

// ReadResource fails: a v1 plugin lists no resources.
func (V1) ReadResource(context.Context, abi.Instance, abi.Resource, string, map[string]string) ([]wire.ResourceContent, error) {
	return nil, &abi.CallError{Kind: abi.KindError, Msg: "a hyper-mcp v1 plugin has no resources"}
}

// GetPrompt fails: a v1 plugin lists no prompts.
func (V1) GetPrompt(context.Context, abi.Instance, string, map[string]string) ([]abi.PromptMessage, error) {
	return nil, &abi.CallError{Kind: abi.KindError, Msg: "a hyper-mcp v1 plugin has no prompts"}
}
