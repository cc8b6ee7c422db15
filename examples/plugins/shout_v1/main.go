//go:build wasip1

// Command shout_v1 is a wasmgate example plugin in hyper-mcp's v1 ABI (the
// mcp.run servlet shape): describe lists its one tool, shout, and call
// runs it. It uses the raw go-pdk only.
package main

import (
	"encoding/json"
	"strings"

	"github.com/extism/go-pdk"
)

func main() {}

//go:wasmexport describe
func describe() int32 {
	pdk.OutputString(`{"tools":[{"name":"shout","description":"Upper-cases a text",` +
		`"inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}]}`)
	return 0
}

//go:wasmexport call
func call() int32 {
	var in struct {
		Params struct {
			Name      string `json:"name"`
			Arguments struct {
				Text string `json:"text"`
			} `json:"arguments"`
		} `json:"params"`
	}
	if err := json.Unmarshal(pdk.Input(), &in); err != nil {
		pdk.SetError(err)
		return 1
	}
	result := map[string]any{"content": []any{map[string]any{"type": "text", "text": strings.ToUpper(in.Params.Arguments.Text)}}}
	if in.Params.Name != "shout" {
		result = map[string]any{"content": []any{map[string]any{"type": "text", "text": "unknown tool " + in.Params.Name}}, "isError": true}
	}
	b, _ := json.Marshal(result)
	pdk.Output(b)
	return 0
}
