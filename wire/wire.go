// Package wire declares the JSON shapes of the sea-flea plugin ABI, shared
// by the host (the gateway's loader) and the guest (the pdk plugins
// import). It has no build tags and imports only the standard library, so
// both sides compile the same declarations. docs/plugins.md describes the
// ABI in full.
package wire

import "encoding/json"

// Tool is one element of the JSON array that the tools_information export
// returns. Calling the tool invokes the export named Name with the call's
// arguments object as input; the export's output is the text of the tool
// result.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"` // a JSON Schema object

	// Optional MCP Tool fields, passed to clients as they are.
	Title        string          `json:"title,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"` // a JSON Schema object
	Annotations  json.RawMessage `json:"annotations,omitempty"`  // MCP ToolAnnotations
	Icons        json.RawMessage `json:"icons,omitempty"`        // MCP Icon array
	Meta         json.RawMessage `json:"_meta,omitempty"`
}

// Resource is one element of the JSON array that the resources_information
// export returns. Reading it invokes the export named Name: with an empty
// input for a static resource; with a [ResourceRequest] for a resource
// template, a Resource whose URI holds {variable} segments (RFC 6570 level
// 1, e.g. "storage://{key}"). The export returns a [ResourceContent].
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
	Text        string `json:"text,omitempty"`
	Blob        string `json:"blob,omitempty"` // base64

	// Optional MCP Resource fields, passed to clients as they are.
	Title       string          `json:"title,omitempty"`
	Size        *int64          `json:"size,omitempty"`
	Annotations json.RawMessage `json:"annotations,omitempty"` // MCP Annotations
	Icons       json.RawMessage `json:"icons,omitempty"`       // MCP Icon array
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// ResourceContent is what a resource export returns: the content of the
// resource at URI, as Text or as base64 Blob.
type ResourceContent struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     string `json:"blob,omitempty"` // base64
}

// ResourceRequest is the input of a resource template's export: the
// concrete URI being read and the values of the template's variables, by
// name. For uri "storage://{key}", reading "storage://theme" gives
// {"uri":"storage://theme","arguments":{"key":"theme"}}.
type ResourceRequest struct {
	URI       string            `json:"uri"`
	Arguments map[string]string `json:"arguments,omitempty"`
}

// Prompt is one element of the JSON array that the prompts_information
// export returns. Getting the prompt invokes the export named Name with the
// prompt's arguments as a JSON object of strings; the export returns a JSON
// array of [PromptMessage].
type Prompt struct {
	Name        string           `json:"name"`
	Description string           `json:"description"`
	Arguments   []PromptArgument `json:"arguments"`

	// Optional MCP Prompt fields, passed to clients as they are.
	Title string          `json:"title,omitempty"`
	Icons json.RawMessage `json:"icons,omitempty"` // MCP Icon array
	Meta  json.RawMessage `json:"_meta,omitempty"`
}

// PromptArgument describes one argument of a [Prompt].
type PromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Required    bool   `json:"required,omitempty"`
	Title       string `json:"title,omitempty"`
}

// PromptMessage is one message of a prompt export's output.
type PromptMessage struct {
	Role    string      `json:"role"` // "user" or "assistant"
	Content TextContent `json:"content"`
}

// TextContent is the content of a [PromptMessage]. Type is always "text".
type TextContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}
