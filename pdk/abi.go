//go:build wasip1

package pdk

import (
	"encoding/json"

	"github.com/wasmgate/wasmgate/wire"
)

// The JSON shapes of the sea-flea ABI are declared once, in package wire,
// which the gateway uses too; these aliases give them their pdk names.

// Tool is one element of the JSON array that the tools_information export
// returns. A call of the tool invokes the export named Name with the call's
// arguments object as JSON input; the export's output becomes the text of the
// tool result. InputSchema is a JSON Schema object; see [Schema].
type Tool = wire.Tool

// Schema returns a JSON Schema given as text, for Tool.InputSchema. It
// panics if s is not valid JSON, which shows at the first call of
// tools_information.
func Schema(s string) json.RawMessage {
	if !json.Valid([]byte(s)) {
		panic("wasmgate: Schema: invalid JSON: " + s)
	}
	return json.RawMessage(s)
}

// Resource is one element of the JSON array that the resources_information
// export returns.
//
// Reading a resource invokes the export named Name. For a static resource
// the input is empty and the export returns a [ResourceContent].
//
// A Resource whose URI contains {variable} segments (RFC 6570 level 1, for
// example "storage://{key}") is a resource template, a wasmgate extension:
// reading a concrete URI that matches it invokes the export named Name with
// a [ResourceRequest] as input, and the export returns a [ResourceContent].
//
// Text or Blob (base64) may carry the content inline in the listing.
type Resource = wire.Resource

// ResourceContent is what a resource export returns: the content of the
// resource at URI, as Text or as base64 Blob.
type ResourceContent = wire.ResourceContent

// ResourceRequest is the input of a resource template's export: the
// concrete URI being read and the values of the template's variables, by
// name. For uri "storage://{key}", reading "storage://theme" gives
// {"uri":"storage://theme","arguments":{"key":"theme"}}.
type ResourceRequest = wire.ResourceRequest

// Prompt is one element of the JSON array that the prompts_information
// export returns. Getting the prompt invokes the export named Name with the
// prompt's arguments as a JSON object of strings; the export returns a JSON
// array of [PromptMessage].
type Prompt = wire.Prompt

// PromptArgument describes one argument of a [Prompt].
type PromptArgument = wire.PromptArgument

// PromptMessage is one message of a prompt export's output. Role is "user"
// or "assistant".
type PromptMessage = wire.PromptMessage

// TextContent is the content of a [PromptMessage]. Type is always "text".
type TextContent = wire.TextContent

// UserText returns a user message with the given text.
func UserText(text string) PromptMessage {
	return PromptMessage{Role: "user", Content: TextContent{Type: "text", Text: text}}
}
