//go:build wasip1

// Command shout_v2 is a wasmgate example plugin in hyper-mcp's v2 ABI: one
// tool (shout), which reports its progress to the client, and one prompt
// (shout_prompt). Each export gets the params of its MCP method as
// "request" and the client request's id and _meta as "context".
package main

import (
	"encoding/json"
	"strings"

	"github.com/extism/go-pdk"

	wasmgate "github.com/wasmgate/wasmgate/pdk"
)

func main() {}

// input decodes an export's input: request into req (nil for a list).
func input(req any) error {
	var in struct {
		Request json.RawMessage `json:"request"`
		Context struct {
			ID   json.RawMessage `json:"id"`
			Meta json.RawMessage `json:"_meta"`
		} `json:"context"`
	}
	if err := json.Unmarshal(pdk.Input(), &in); err != nil {
		return err
	}
	if req == nil {
		return nil
	}
	return json.Unmarshal(in.Request, req)
}

func output(v any) int32 {
	b, err := json.Marshal(v)
	if err != nil {
		pdk.SetError(err)
		return 1
	}
	pdk.Output(b)
	return 0
}

//go:wasmexport list_tools
func listTools() int32 {
	return output(map[string]any{"tools": []any{map[string]any{
		"name": "shout", "description": "Upper-cases a text",
		"inputSchema": json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
	}}})
}

//go:wasmexport call_tool
func callTool() int32 {
	var req struct {
		Name      string `json:"name"`
		Arguments struct {
			Text string `json:"text"`
		} `json:"arguments"`
	}
	if err := input(&req); err != nil {
		pdk.SetError(err)
		return 1
	}
	// Sent only if the client asked for progress with a token.
	wasmgate.NotifyProgress(wasmgate.Progress{Progress: 1, Message: "shouting"})
	return output(map[string]any{"content": []any{map[string]any{"type": "text", "text": strings.ToUpper(req.Arguments.Text)}}})
}

//go:wasmexport list_prompts
func listPrompts() int32 {
	return output(map[string]any{"prompts": []any{map[string]any{
		"name": "shout_prompt", "description": "Asks to shout a text",
		"arguments": []any{map[string]any{"name": "text", "required": true}},
	}}})
}

//go:wasmexport get_prompt
func getPrompt() int32 {
	var req struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments"`
	}
	if err := input(&req); err != nil {
		pdk.SetError(err)
		return 1
	}
	return output(map[string]any{"messages": []any{map[string]any{"role": "user",
		"content": map[string]any{"type": "text", "text": "Shout this: " + req.Arguments["text"]}}}})
}
