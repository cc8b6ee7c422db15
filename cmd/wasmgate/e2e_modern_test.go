package main

// What of the 2026-07-28 revision a gateway must get right beyond calls
// (issue 19, item 3): Mcp-Method and Mcp-Name headers that disagree with
// the body are refused; list and read results carry ttlMs and
// cacheScope: "public" for lists nothing filters per caller (no policy
// here: docs/config.md, "lists"; e2e_list_cache_test.go has the rest),
// "private" for a read.

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmgate/wasmgate/internal/harness"
)

func TestModernEraDetails(t *testing.T) {
	t.Parallel()
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{Plugins: harness.ExamplePlugins(t)}))
	g := bins.Start(t, harness.Options{Config: cfg})
	call := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": "calculate", "arguments": map[string]any{"operation": "add", "a": 1, "b": 2}}}
	for _, tc := range []struct{ name, method, tool string }{
		{"Mcp-Method disagrees", "tools/list", "calculate"},
		{"Mcp-Name disagrees", "tools/call", "say_hello"},
	} {
		// The specified refusal: HTTP 400 with JSON-RPC error -32020
		// (HEADER_MISMATCH), never a result.
		code, body := harness.PostStateless(t, g.MCPURL, call, tc.method, tc.tool)
		var resp struct {
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if code != 400 || json.Unmarshal([]byte(body), &resp) != nil || resp.Result != nil || resp.Error == nil || resp.Error.Code != -32020 {
			t.Errorf("%s: %d %s, want 400 with JSON-RPC error -32020 (header mismatch)", tc.name, code, body)
		}
	}
	if code, body := harness.PostStateless(t, g.MCPURL, call, "tools/call", "calculate"); code != 200 || !strings.Contains(body, `"text":"3"`) {
		t.Fatalf("headers that agree: %d %s", code, body)
	}
	for _, m := range []struct{ method, name string }{{"tools/list", ""}, {"resources/list", ""}, {"prompts/list", ""}, {"resources/read", "greeter://about"}} {
		params := map[string]any{}
		if m.name != "" {
			params["uri"] = m.name
		}
		code, body := harness.PostStateless(t, g.MCPURL, map[string]any{"jsonrpc": "2.0", "id": 2, "method": m.method, "params": params}, m.method, m.name)
		var resp struct {
			Result map[string]json.RawMessage `json:"result"`
		}
		if code != 200 || json.Unmarshal([]byte(body), &resp) != nil || resp.Result == nil {
			t.Errorf("%s: %d %.300s", m.method, code, body)
			continue
		}
		scope := `"public"`
		if m.method == "resources/read" {
			scope = `"private"`
		}
		if string(resp.Result["cacheScope"]) != scope || resp.Result["ttlMs"] == nil {
			t.Errorf("%s: cacheScope %s ttlMs %s, want %s and a ttlMs", m.method, resp.Result["cacheScope"], resp.Result["ttlMs"], scope)
		}
	}
}
