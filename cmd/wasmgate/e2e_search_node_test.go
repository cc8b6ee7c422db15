package main

// Tool search (issue 41) with the official TypeScript SDK
// (tests/node/search.mjs): a client we did not write finds a tool it
// was not listed, is told its list changed, lists it natively, and calls
// it by name and through call_tool. The SDK here speaks up to
// 2025-11-25; the 2026-07-28 era is mcp-go's (e2e_search_test.go).

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// searchRun is the JSON line search.mjs prints.
type searchRun struct {
	Listed      []string `json:"listed"`
	Found       []string `json:"found"`
	ListChanged bool     `json:"listChanged"`
	Relisted    []string `json:"relisted"`
	ByName      nodeCall `json:"byName"`
	ViaCallTool nodeCall `json:"viaCallTool"`
}

// runSearchClient runs tests/node/search.mjs against url.
func runSearchClient(t *testing.T, url, query string, args map[string]any) searchRun {
	t.Helper()
	node, client := nodeClient(t)
	raw, _ := json.Marshal(args)
	var r searchRun
	runNodeJSON(t, &r, node, filepath.Join(filepath.Dir(client), "search.mjs"), url, query, string(raw))
	return r
}

// checkSearchRun checks what a search.mjs run saw: the search
// endpoint's short list, want found first, list_changed and want in the
// list after it, and both calls answering with a text holding answer.
func checkSearchRun(t *testing.T, r searchRun, listed []string, want, answer string) {
	t.Helper()
	if !slices.Equal(r.Listed, listed) {
		t.Errorf("TypeScript SDK: tools/list %v, want %v", r.Listed, listed)
	}
	if len(r.Found) == 0 || r.Found[0] != want {
		t.Fatalf("TypeScript SDK: find_tools found %v, want %s first", r.Found, want)
	}
	if !r.ListChanged || !slices.Contains(r.Relisted, want) {
		t.Errorf("TypeScript SDK: list_changed %v, list after the search %v; want it told and %s listed", r.ListChanged, r.Relisted, want)
	}
	for what, c := range map[string]nodeCall{"by name": r.ByName, "through call_tool": r.ViaCallTool} {
		if c.IsError || !strings.Contains(c.text(), answer) {
			t.Errorf("TypeScript SDK: %s %s: %q (isError %v), want %q in it", want, what, c.text(), c.IsError, answer)
		}
	}
}

// TestSearchNodeClient: the example plugins behind a search endpoint.
func TestSearchNodeClient(t *testing.T) {
	t.Parallel()
	g := bins.Start(t, harness.Options{Config: harness.WriteConfig(t, epYAML(t, "", searchEndpoints))})
	r := runSearchClient(t, epURL(t, g, "/mcp/agents"), "greet someone by their name", map[string]any{"name": "Ada"})
	checkSearchRun(t, r, []string{"calculate", "call_tool", "find_tools"}, "say_hello", "Ada")
}
