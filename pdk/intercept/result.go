package intercept

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// Result is an MCP result decoded as generic JSON values, to be read and
// changed in place and returned with [ModifyResult]: objects are
// map[string]any, arrays []any, numbers json.Number (so that they encode
// again exactly as they came). Every member is kept, those the helpers
// know nothing of too.
type Result map[string]any

// ParseResult decodes raw, a JSON object (Event.Result).
func ParseResult(raw json.RawMessage) (Result, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var r Result
	if err := d.Decode(&r); err != nil {
		return nil, fmt.Errorf("decode result: %w", err)
	}
	if r == nil {
		return nil, fmt.Errorf("decode result: not a JSON object")
	}
	return r, nil
}

// EachText calls f with each text the result carries for a model to read,
// in order, and replaces the text with what f returns. It reports whether
// any text changed. The texts are
//
//   - of a CallToolResult: the text of every content item of type "text",
//     the text of every embedded resource (type "resource"), and every
//     string in structuredContent, at any depth (not the member names;
//     members in name order);
//   - of a ReadResourceResult: the text of every element of contents;
//   - of a GetPromptResult: the text of every message's content, as for
//     content items.
//
// Blobs, images, audio, links and list entries are not visited.
func (r Result) EachText(f func(text string) string) bool {
	changed := false
	if content, ok := r["content"].([]any); ok {
		for _, item := range content {
			changed = eachItemText(item, f) || changed
		}
	}
	if sc, ok := r["structuredContent"]; ok {
		var c bool
		r["structuredContent"], c = eachString(sc, f)
		changed = c || changed
	}
	if contents, ok := r["contents"].([]any); ok {
		for _, rc := range contents {
			changed = rewriteMember(rc, "text", f) || changed
		}
	}
	if messages, ok := r["messages"].([]any); ok {
		for _, m := range messages {
			m, ok := m.(map[string]any)
			if !ok {
				continue
			}
			switch c := m["content"].(type) {
			case map[string]any:
				changed = eachItemText(c, f) || changed
			case []any:
				for _, item := range c {
					changed = eachItemText(item, f) || changed
				}
			}
		}
	}
	return changed
}

// Texts returns the texts [Result.EachText] visits, in its order.
func (r Result) Texts() []string {
	var texts []string
	r.EachText(func(s string) string {
		texts = append(texts, s)
		return s
	})
	return texts
}

// PrependText puts text before everything else the result says: a text
// content item first in a CallToolResult's content, or a user message
// first in a GetPromptResult's messages. It reports false, changing
// nothing, for a result that has neither (a ReadResourceResult, a list).
func (r Result) PrependText(text string) bool {
	item := map[string]any{"type": "text", "text": text}
	if content, ok := r["content"].([]any); ok {
		r["content"] = append([]any{item}, content...)
		return true
	}
	if messages, ok := r["messages"].([]any); ok {
		r["messages"] = append([]any{map[string]any{"role": "user", "content": item}}, messages...)
		return true
	}
	return false
}

// The members that hold a list result's entries.
var listKeys = []string{"tools", "resources", "resourceTemplates", "prompts"}

func (r Result) listKey() string {
	for _, k := range listKeys {
		if _, ok := r[k].([]any); ok {
			return k
		}
	}
	return ""
}

// Entries returns the entries of a list result (the member tools,
// resources, resourceTemplates or prompts) and that member's name, or ""
// and nil for a result that is not a list. Changes to an entry's members
// change the result; to drop entries, pass the ones to keep to
// [Result.SetEntries]. An element that is not an object is left out.
func (r Result) Entries() (key string, entries []map[string]any) {
	key = r.listKey()
	if key == "" {
		return "", nil
	}
	for _, e := range r[key].([]any) {
		if e, ok := e.(map[string]any); ok {
			entries = append(entries, e)
		}
	}
	return key, entries
}

// SetEntries sets the entries of the list member key, as returned by
// [Result.Entries].
func (r Result) SetEntries(key string, entries []map[string]any) {
	list := make([]any, len(entries))
	for i, e := range entries {
		list[i] = e
	}
	r[key] = list
}

// eachItemText visits the text of a content item: a text item's text, an
// embedded resource's text.
func eachItemText(item any, f func(string) string) bool {
	m, ok := item.(map[string]any)
	if !ok {
		return false
	}
	switch m["type"] {
	case "text":
		return rewriteMember(m, "text", f)
	case "resource":
		return rewriteMember(m["resource"], "text", f)
	}
	return false
}

// rewriteMember replaces obj's string member name with f of it.
func rewriteMember(obj any, name string, f func(string) string) bool {
	m, ok := obj.(map[string]any)
	if !ok {
		return false
	}
	s, ok := m[name].(string)
	if !ok {
		return false
	}
	t := f(s)
	if t == s {
		return false
	}
	m[name] = t
	return true
}

// eachString replaces every string in v, at any depth, with f of it.
func eachString(v any, f func(string) string) (any, bool) {
	switch v := v.(type) {
	case string:
		t := f(v)
		return t, t != v
	case []any:
		changed := false
		for i, e := range v {
			var c bool
			v[i], c = eachString(e, f)
			changed = c || changed
		}
		return v, changed
	case map[string]any:
		changed := false
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			var c bool
			v[k], c = eachString(v[k], f)
			changed = c || changed
		}
		return v, changed
	}
	return v, false
}
