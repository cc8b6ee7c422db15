package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

func TestResultBytes(t *testing.T) {
	want := `{"tools":[{"name":"a"}]}`
	for name, body := range map[string]string{
		"json": `{"jsonrpc":"2.0","id":2,"result":` + want + "}\n",
		"sse":  "event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":" + want + "}\r\n\r\n",
	} {
		got, err := resultBytes([]byte(body))
		if err != nil || string(got) != want {
			t.Errorf("%s: got %s, %v; want %s", name, got, err, want)
		}
	}
	if _, err := resultBytes([]byte(`{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"x"}}`)); err == nil {
		t.Error("an error answer gave a result")
	}
}

// TestCatalogServer replays a source of a catalog file: the tools it
// lists keep their schemas byte for byte (what mcp-go does not model
// included), the other sources' tools are not listed, and -catalog-bytes
// counts the file's tools as one compact result.
func TestCatalogServer(t *testing.T) {
	in := `{"type":"object","properties":{"x":{"type":"string","description":"X."}},"required":["x"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`
	out := `{"type":"object","properties":{"y":{"type":"number"}}}`
	tool := `{"name":"src_do","title":"Do","description":"Does it.","inputSchema":` + in + `,"outputSchema":` + out + `,"annotations":{"readOnlyHint":true}}`
	file := filepath.Join(t.TempDir(), "catalog.json")
	cat := `{"sources":[{"name":"src","tools":[` + tool + `]},{"name":"other","tools":[{"name":"other_x","inputSchema":{"type":"object"}}]}]}`
	if err := os.WriteFile(file, []byte(cat), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := catalogServer(file, "src")
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.NewInProcessClient(s)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = protocolVersion
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
	res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 1 {
		t.Fatalf("listed %d tools, want 1", len(res.Tools))
	}
	// What the server lists, before a client decodes it into mcp.Tool.
	got, err := json.Marshal(s.ListTools()["src_do"].Tool)
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{`"inputSchema":` + in, `"outputSchema":` + out, `"title":"Do"`, `"readOnlyHint":true`} {
		if !strings.Contains(string(got), part) {
			t.Errorf("the replayed tool %s lacks %s", got, part)
		}
	}
	call := mcp.CallToolRequest{}
	call.Params.Name = "src_do"
	r, err := c.CallTool(ctx, call)
	if err != nil || r.IsError || r.Content[0].(mcp.TextContent).Text != "ok src_do" {
		t.Errorf("calling the replayed tool: %+v, %v", r, err)
	}

	if _, err := catalogServer(file, "missing"); err == nil {
		t.Error("a source the file does not have was served")
	}
	var buf bytes.Buffer
	if err := printCatalogBytes(file, &buf); err != nil {
		t.Fatal(err)
	}
	var counts map[string]int
	if err := json.Unmarshal(buf.Bytes(), &counts); err != nil {
		t.Fatal(err)
	}
	wantBytes := len(`{"tools":[` + tool + `,{"name":"other_x","inputSchema":{"type":"object"}}]}`)
	if counts["tools"] != 2 || counts["sources"] != 2 || counts["bytes"] != wantBytes {
		t.Errorf("-catalog-bytes: %v, want 2 tools of 2 sources, %d bytes", counts, wantBytes)
	}
}

func TestSyntheticServer(t *testing.T) {
	s := syntheticServer(50, 1)
	if n := len(s.ListTools()); n != 50 {
		t.Errorf("%d tools, want 50", n)
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(c.in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestCheckLoopback(t *testing.T) {
	for url, ok := range map[string]bool{
		"http://127.0.0.1:8080/mcp":  true,
		"http://localhost:1/mcp":     true,
		"http://[::1]:1/mcp":         true,
		"http://10.0.0.1:8080/mcp":   false,
		"http://example.org/mcp":     false,
		"http://u:p@127.0.0.1:1/mcp": false,
	} {
		if err := checkLoopback(url); (err == nil) != ok {
			t.Errorf("checkLoopback(%s) = %v", url, err)
		}
	}
}
