// Package hypermcp adapts the two plugin ABIs of hyper-mcp, so that its
// plugins run unchanged:
//
//   - V1, the mcp.run "servlet" shape: a describe export listing the tools
//     and a call export running them.
//   - V2, MCP-shaped: list_tools, call_tool, list_prompts, get_prompt,
//     list_resources, list_resource_templates, read_resource and complete
//     exports, each taking and returning the JSON of the MCP method, with
//     the client request's id and _meta as a context object.
//
// Every export takes no parameters and returns an i32; input and output
// are Extism buffers of JSON. docs/plugins.md describes both ABIs.
package hypermcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/wire"
)

// call runs export and decodes its JSON output into v (when v is not nil).
func call(ctx context.Context, inst abi.Instance, export string, input any, v any) error {
	var in []byte
	if input != nil {
		b, err := json.Marshal(input)
		if err != nil {
			return fmt.Errorf("%s: encode input: %w", export, err)
		}
		in = b
	}
	out, err := inst.Call(ctx, export, in)
	if err != nil || v == nil {
		return err
	}
	if err := json.Unmarshal(out, v); err != nil {
		return &abi.CallError{Export: export, Kind: abi.KindError, Msg: fmt.Sprintf("export %s returned invalid JSON: %v", export, err)}
	}
	return nil
}

// describeCall runs a listing export at load, bounding its output.
func describeCall(ctx context.Context, inst abi.Instance, export string, input any, v any) error {
	var in []byte
	if input != nil {
		b, err := json.Marshal(input)
		if err != nil {
			return err
		}
		in = b
	}
	return abi.Describe(ctx, inst, export, in, v)
}

// checkTools checks the tools of a listing: each has a name, used once,
// and an object inputSchema.
func checkTools(export string, tools []wire.Tool) error {
	seen := map[string]bool{}
	for _, t := range tools {
		if t.Name == "" {
			return fmt.Errorf("%s: a tool has an empty name", export)
		}
		if seen[t.Name] {
			return fmt.Errorf("%s: tool %q is listed twice", export, t.Name)
		}
		seen[t.Name] = true
		if !isObject(t.InputSchema) {
			return fmt.Errorf("%s: tool %q: inputSchema must be a JSON object", export, t.Name)
		}
	}
	return nil
}

func isObject(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return strings.HasPrefix(s, "{") && json.Valid(raw)
}

// toolResult checks a CallToolResult a plugin returned: content may be
// empty (or absent) only with structuredContent.
func toolResult(export string, out []byte) (abi.ToolResult, error) {
	var probe struct {
		Content    []json.RawMessage `json:"content"`
		Structured json.RawMessage   `json:"structuredContent"`
	}
	if err := json.Unmarshal(out, &probe); err != nil {
		return abi.ToolResult{}, &abi.CallError{Export: export, Kind: abi.KindError, Msg: fmt.Sprintf("export %s returned a result that is not an MCP CallToolResult: %v", export, err)}
	}
	if len(probe.Content) == 0 && (len(probe.Structured) == 0 || string(probe.Structured) == "null") {
		return abi.ToolResult{}, &abi.CallError{Export: export, Kind: abi.KindError, Msg: fmt.Sprintf("export %s returned a CallToolResult with no content and no structuredContent", export)}
	}
	return abi.ToolResult{Result: out}, nil
}
