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

	"github.com/wasmgate/wasmgate/internal/canon"
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
// where it has one (its own, from the fallback). It tries, in order, a
// scan of the commonest shape (scanText), one decode with encoding/json
// (parseText), and mcp-go.
func Parse(raw json.RawMessage) (*mcp.CallToolResult, error) {
	if r, ok := scanText(raw); ok {
		return r, nil
	}
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
		b = canon.AppendJSONString(b, t.Type)
		b = append(b, `,"text":`...)
		b = canon.AppendJSONString(b, t.Text)
		b = append(b, '}')
	}
	b = append(b, ']')
	if res.IsError {
		b = append(b, `,"isError":true`...)
	}
	return append(b, '}'), true
}

// scanText reads, in one pass over raw and without a copy of it, the
// commonest result: an object with only "content" (a non-empty array of
// {"type":"text","text":…} items) and "isError" (true or false), each
// member once, whose strings have no escapes, control characters or
// invalid UTF-8. ok is false for anything else, which parseText or
// mcp-go then decodes. encoding/json's decoder copies its input into a
// buffer of its own, scans it once to find the value's end and again to
// decode it: for a 10 KiB text that was most of what a result-rewriting
// interceptor cost the gateway after its module had run.
func scanText(raw []byte) (_ *mcp.CallToolResult, ok bool) {
	sc := scanner{b: raw}
	var content []mcp.Content
	var isError, seenContent, seenIsError bool
	if !sc.byte('{') {
		return nil, false
	}
	for first := true; ; first = false {
		if sc.byte('}') {
			if first {
				return nil, false // {}: content missing
			}
			break
		}
		if !first && !sc.byte(',') {
			return nil, false
		}
		key, ok := sc.str()
		if !ok || !sc.byte(':') {
			return nil, false
		}
		switch {
		case key == "content" && !seenContent:
			seenContent = true
			if content, ok = sc.textItems(); !ok {
				return nil, false
			}
		case key == "isError" && !seenIsError:
			seenIsError = true
			if isError, ok = sc.boolean(); !ok {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	if !seenContent || sc.ws() != len(sc.b) {
		return nil, false
	}
	return &mcp.CallToolResult{Content: content, IsError: isError}, true
}

// scanner reads JSON tokens from b at i, skipping whitespace before each.
type scanner struct {
	b []byte
	i int
}

// ws skips whitespace and returns the offset of what follows.
func (s *scanner) ws() int {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return s.i
		}
	}
	return s.i
}

// byte reads c if it comes next.
func (s *scanner) byte(c byte) bool {
	if s.ws() < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// str reads a string with no escapes, control characters or invalid UTF-8.
func (s *scanner) str() (string, bool) {
	if !s.byte('"') {
		return "", false
	}
	start := s.i
	for ; s.i < len(s.b); s.i++ {
		switch c := s.b[s.i]; {
		case c == '"':
			v := s.b[start:s.i]
			s.i++
			if !utf8.Valid(v) {
				return "", false
			}
			return string(v), true
		case c == '\\' || c < 0x20:
			return "", false
		}
	}
	return "", false
}

// boolean reads true or false.
func (s *scanner) boolean() (v, ok bool) {
	s.ws()
	switch rest := s.b[s.i:]; {
	case bytes.HasPrefix(rest, []byte("true")):
		s.i += 4
		return true, true
	case bytes.HasPrefix(rest, []byte("false")):
		s.i += 5
		return false, true
	}
	return false, false
}

// textItems reads a non-empty array of {"type":"text","text":…} objects,
// each with those two members once and no other.
func (s *scanner) textItems() ([]mcp.Content, bool) {
	if !s.byte('[') || s.byte(']') {
		return nil, false
	}
	var items []mcp.Content
	for {
		if !s.byte('{') {
			return nil, false
		}
		var text string
		var seenType, seenText bool
		for first := true; ; first = false {
			if !first && s.byte('}') {
				break
			}
			if !first && !s.byte(',') {
				return nil, false
			}
			key, ok := s.str()
			if !ok || !s.byte(':') {
				return nil, false
			}
			v, ok := s.str()
			if !ok {
				return nil, false
			}
			switch {
			case key == "type" && !seenType && v == mcp.ContentTypeText:
				seenType = true
			case key == "text" && !seenText:
				seenText, text = true, v
			default:
				return nil, false
			}
		}
		if !seenType || !seenText {
			return nil, false
		}
		items = append(items, mcp.TextContent{Type: mcp.ContentTypeText, Text: text})
		if s.byte(']') {
			return items, true
		}
		if !s.byte(',') {
			return nil, false
		}
	}
}
