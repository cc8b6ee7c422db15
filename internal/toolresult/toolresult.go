// Package toolresult decodes and encodes MCP tool results (the result of
// tools/call) the way mcp-go does, in one pass where the result is text
// content, which is what almost every tool answers.
//
// mcp.ParseCallToolResult scans a result eight times (the result, its
// content array, and each item twice: once for its type, once for the
// rest); json.Marshal of a CallToolResult builds a map and compacts the
// encoding again. Over a 10 KiB result that was most of what a
// result-rewriting interceptor cost the gateway. Parse and Append give
// the same values and bytes (FuzzParse and FuzzAppend compare them) and
// fall back to mcp-go for anything but plain text content.
package toolresult

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
)

// textResult is a CallToolResult whose content items are all decoded as
// text (mcp-go's own unmarshal, with its content typed).
type textResult struct {
	Meta              *mcp.Meta         `json:"_meta,omitempty"`
	ResultType        mcp.ResultType    `json:"resultType,omitempty"`
	Content           []mcp.TextContent `json:"content"`
	StructuredContent json.RawMessage   `json:"structuredContent,omitempty"`
	IsError           bool              `json:"isError,omitempty"`
	InputRequests     mcp.InputRequests `json:"inputRequests,omitempty"`
	RequestState      string            `json:"requestState,omitempty"`
}

// Parse is mcp.ParseCallToolResult(&raw): the same result, or an error
// where it has one (its own, from the fallback).
func Parse(raw json.RawMessage) (*mcp.CallToolResult, error) {
	if r, ok := parseText(raw); ok {
		return r, nil
	}
	return mcp.ParseCallToolResult(&raw)
}

// parseText decodes raw in one pass when every member of it is one
// CallToolResult knows and every content item is text with no member a
// TextContent lacks; ok is false for anything else (another content
// type, an unknown member, a missing or null content, invalid JSON),
// which mcp-go then decodes.
func parseText(raw json.RawMessage) (*mcp.CallToolResult, bool) {
	var t textResult
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil || t.Content == nil {
		return nil, false
	}
	if len(bytes.TrimLeft(raw[dec.InputOffset():], " \t\r\n")) > 0 {
		return nil, false // trailing data: mcp-go's error
	}
	r := &mcp.CallToolResult{IsError: t.IsError}
	r.Meta, r.ResultType = t.Meta, t.ResultType
	r.InputRequests, r.RequestState = t.InputRequests, t.RequestState
	if len(t.Content) > 0 {
		r.Content = make([]mcp.Content, len(t.Content))
		for i, c := range t.Content {
			if c.Type != mcp.ContentTypeText {
				return nil, false
			}
			r.Content[i] = c
		}
	}
	if len(t.StructuredContent) > 0 {
		r.RawStructuredContent = t.StructuredContent
		if err := json.Unmarshal(t.StructuredContent, &r.StructuredContent); err != nil {
			return nil, false
		}
	}
	return r, true
}

// Append appends the JSON of res as json.Marshal writes it, when res is
// text content with nothing else but isError (no _meta, annotations,
// structured content or round-trip fields); ok is false, and b as it
// was, for any other result.
func Append(b []byte, res *mcp.CallToolResult) (_ []byte, ok bool) {
	if res == nil || res.Meta != nil || res.ResultType != "" || res.StructuredContent != nil ||
		len(res.RawStructuredContent) > 0 || len(res.InputRequests) > 0 || res.RequestState != "" {
		return b, false
	}
	start := len(b)
	b = append(b, `{"content":[`...)
	for i, c := range res.Content {
		t, ok := c.(mcp.TextContent)
		if !ok {
			p, isPtr := c.(*mcp.TextContent)
			if !isPtr || p == nil {
				return b[:start], false
			}
			t = *p
		}
		if t.Annotations != nil || t.Meta != nil {
			return b[:start], false
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":`...)
		b = AppendString(b, t.Type)
		b = append(b, `,"text":`...)
		b = AppendString(b, t.Text)
		b = append(b, '}')
	}
	b = append(b, ']')
	if res.IsError {
		b = append(b, `,"isError":true`...)
	}
	return append(b, '}'), true
}

// AppendString appends s as a JSON string exactly as encoding/json
// writes it (HTML characters escaped, invalid UTF-8 replaced).
func AppendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string cannot fail
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
