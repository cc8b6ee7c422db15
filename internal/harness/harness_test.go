package harness

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

func TestMetrics(t *testing.T) {
	m := Metrics(`# HELP wasmgate_tool_calls_total Tool calls.
# TYPE wasmgate_tool_calls_total counter
wasmgate_tool_calls_total{endpoint="default",outcome="ok",source="calculator",tool="calculate"} 12
wasmgate_tool_calls_total{endpoint="default",outcome="timeout",source="hostile",tool="spin"} 1
wasmgate_plugin_instances{plugin="a"} 2
wasmgate_plugin_instances{plugin="b \"quoted\""} 3
go_goroutines 42
`)
	for _, tc := range []struct {
		name   string
		labels map[string]string
		want   float64
		ok     bool
	}{
		{"go_goroutines", nil, 42, true},
		{"wasmgate_tool_calls_total", map[string]string{"tool": "spin"}, 1, true},
		{"wasmgate_tool_calls_total", map[string]string{"tool": "calculate", "outcome": "ok"}, 12, true},
		{"wasmgate_tool_calls_total", map[string]string{"tool": "calculate", "outcome": "crash"}, 0, false},
		{"wasmgate_plugin_instances", map[string]string{"plugin": `b \"quoted\"`}, 3, true},
		{"wasmgate_tool_calls", nil, 0, false}, // a prefix is not a name
	} {
		if got, ok := m.Value(tc.name, tc.labels); got != tc.want || ok != tc.ok {
			t.Errorf("Value(%s, %v) = %v, %v; want %v, %v", tc.name, tc.labels, got, ok, tc.want, tc.ok)
		}
	}
	if got := m.Sum("wasmgate_plugin_instances", nil); got != 5 {
		t.Errorf("Sum(wasmgate_plugin_instances) = %v, want 5", got)
	}
	if got := m.ToolCalls("calculate", "ok"); got != 12 {
		t.Errorf("ToolCalls(calculate, ok) = %v, want 12", got)
	}
}

func TestReadBadConfig(t *testing.T) {
	p := filepath.Join(t.TempDir(), "case.yaml")
	data := "# Prose about the case.\n# want: a.b\n# want: \"x\" y\n# not: loader.Config\n# env: K=V=W\nplugins: []\n# want: ignored, after the header\n"
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	c := ReadBadConfig(t, p)
	if c.Name != "case" || c.Path != p || !slices.Equal(c.Want, []string{"a.b", `"x" y`}) ||
		!slices.Equal(c.Not, []string{"loader.Config"}) || !slices.Equal(c.Env, []string{"K=V=W"}) {
		t.Errorf("ReadBadConfig = %+v", c)
	}
}

// TestGoFixture: the hostile upstream fixture builds and serves MCP
// over stdio.
func TestGoFixture(t *testing.T) {
	bin := GoFixture(t, "testdata/upstreams/hostile")
	c, err := client.NewStdioMCPClient(bin, nil)
	if err != nil {
		t.Fatal(err)
	}
	Init(t, c, mcp.LATEST_PROTOCOL_VERSION) // closes it when the test ends
	tools := Tools(t.Context(), t, c)
	for _, want := range []string{"read_file", "write_file", "connect", "listen", "spawn_sleeper", "env", "pid"} {
		if !slices.Contains(tools, want) {
			t.Errorf("tools %v lack %s", tools, want)
		}
	}
	if text, isErr := CallTool(t.Context(), t, c, "pid", nil); isErr || text == "" {
		t.Errorf("pid: %q", text)
	}
}

func TestExpandTemplate(t *testing.T) {
	for _, tc := range []struct{ tmpl, v, want string }{
		{"calc_{op}", "add", "calc_add"},
		{"file:///{+path}/{name}", "x", "file:///x/x"},
		{"no expressions", "x", "no expressions"},
		{"open {brace", "x", "open {brace"}, // an unclosed '{' is literal
		{"{}", "x", "x"},
		{"", "x", ""},
	} {
		if got := ExpandTemplate(tc.tmpl, tc.v); got != tc.want {
			t.Errorf("ExpandTemplate(%q, %q) = %q, want %q", tc.tmpl, tc.v, got, tc.want)
		}
	}
}
