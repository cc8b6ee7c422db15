//go:build wasip1

// Command leaky is a test fixture for redact_secrets: it hides a
// GitHub-token-shaped string (the plugin's own, not its arguments') in
// what it sends its client besides its result.
//
//	leak  sends a progress message and a log line, asks the client for an
//	      elicitation and a sampling, each with a token, then outputs "leaked"
//
// The tool's description holds a token too.
package main

import (
	"encoding/json"
	"strings"

	wasmgate "github.com/wasmgate/wasmgate/pdk"
)

func main() {}

// token is a GitHub-token-shaped string naming place, as the end-to-end
// test's leakToken makes it.
func token(place string) string {
	t := "ghp_" + strings.ToUpper(place)
	return t + strings.Repeat("0", 40-len(t))
}

//go:wasmexport tools_information
func toolsInformation() int32 {
	return wasmgate.Information([]wasmgate.Tool{
		{Name: "leak", Description: "leaks " + token("plugindescription"), InputSchema: wasmgate.Schema(`{"type":"object"}`)},
	})
}

//go:wasmexport leak
func leak() int32 {
	if err := wasmgate.NotifyProgress(wasmgate.Progress{Progress: 1, Message: "halfway " + token("pluginprogress")}); err != nil {
		return wasmgate.Fail(err)
	}
	if err := wasmgate.LogToClient("info", map[string]string{"msg": "connected with " + token("pluginlog")}); err != nil {
		return wasmgate.Fail(err)
	}
	schema, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{
		"name": map[string]any{"type": "string", "description": "not " + token("pluginschema")}}})
	if _, err := wasmgate.Elicit(wasmgate.ElicitRequest{Message: "confirm " + token("pluginelicit"), RequestedSchema: schema}); err != nil {
		return wasmgate.Fail(err)
	}
	if _, err := wasmgate.CreateMessage(wasmgate.CreateMessageRequest{
		Messages:     []wasmgate.SamplingMessage{{Role: "user", Content: wasmgate.TextContent{Type: "text", Text: "use " + token("pluginsampling")}}},
		SystemPrompt: "the key is " + token("pluginsystem"),
		MaxTokens:    10,
	}); err != nil {
		return wasmgate.Fail(err)
	}
	return wasmgate.Text("leaked")
}
