package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/loader"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// scaleUpstreams serves n MCP servers over Streamable HTTP in process,
// each with perSource tools (a string and a number argument, a sentence
// of description, as real tools have), and returns their URLs.
func scaleUpstreams(tb testing.TB, n, perSource int, desc string) []string {
	tb.Helper()
	urls := make([]string, n)
	for i := range n {
		s := server.NewMCPServer(fmt.Sprintf("scale-%02d", i), "1.0.0", server.WithToolCapabilities(true))
		for j := range perSource {
			name := fmt.Sprintf("op_%03d", j)
			s.AddTool(mcp.NewTool(name,
				mcp.WithDescription(fmt.Sprintf("Operation %d of source %d: reads the record named by key and returns its fields%s.", j, i, desc)),
				mcp.WithString("key", mcp.Required(), mcp.Description("The record's key")),
				mcp.WithNumber("limit", mcp.Description("At most this many fields"))),
				func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return mcp.NewToolResultText("ok"), nil
				})
		}
		ts := httptest.NewServer(server.NewStreamableHTTPServer(s))
		tb.Cleanup(ts.Close)
		urls[i] = ts.URL + "/mcp"
	}
	return urls
}

// scaleYAML is a gateway of the upstreams at urls (prefixes u00, u01,
// ...) with two principals: all, who may call every tool, and half,
// whose policy allows the tools of the first half of the upstreams.
func scaleYAML(urls []string) string {
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	var b strings.Builder
	fmt.Fprintf(&b, "auth:\n  principals:\n    - {name: all, token_sha256: %s}\n    - {name: half, token_sha256: %s}\n", sum("all-token"), sum("half-token"))
	b.WriteString("policy:\n  default: deny\n  rules:\n    - principals: [all]\n      allow: {tools: [\"*\"]}\n    - principals: [half]\n      allow:\n        tools:\n")
	for i := range len(urls) / 2 {
		fmt.Fprintf(&b, "          - \"u%02d_*\"\n", i)
	}
	b.WriteString("upstreams:\n")
	for i, u := range urls {
		fmt.Fprintf(&b, "  - {name: u%02d, prefix: u%02d, url: %q, limits: {max_tools: 1000}}\n", i, i, u)
	}
	return b.String()
}

// BenchmarkListScale is tools/list at scale (issue 46): 100 upstreams of
// 100 tools each (10,000 tools), served over the HTTP handler in
// process to a 2025-11-25 session, for a caller whose policy allows every
// tool and one whose policy allows half. Reported: ms per list (every
// page) and the list's size.
func BenchmarkListScale(b *testing.B) {
	urls := scaleUpstreams(b, 100, 100, "")
	g := openTestGateway(b, scaleYAML(urls))
	h, _ := g.HTTPHandler(time.Minute, loader.DefaultStreamHeartbeat)
	for _, tc := range []struct {
		name, token string
		want        int
	}{{"all", "all-token", 10000}, {"half", "half-token", 5000}} {
		b.Run(tc.name, func(b *testing.B) {
			id := httpSessionAs(b, h, tc.token)
			list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
			w := httptest.NewRecorder()
			h.ServeHTTP(w, benchRequestAs(list, id, tc.token))
			if w.Code != http.StatusOK {
				b.Fatalf("tools/list: %d %.300s", w.Code, w.Body)
			}
			if n := strings.Count(w.Body.String(), `"name":"u`); n != tc.want {
				b.Fatalf("tools/list lists %d tools, want %d", n, tc.want)
			}
			size := w.Body.Len()
			b.ReportAllocs()
			for b.Loop() {
				// written as to a connection, not kept (a recorder grows a
				// buffer of the list's size on every call)
				w := &countingWriter{header: http.Header{}}
				h.ServeHTTP(w, benchRequestAs(list, id, tc.token))
				if w.code != http.StatusOK || w.n != size {
					b.Fatalf("tools/list: %d, %d bytes, want %d", w.code, w.n, size)
				}
			}
			b.ReportMetric(float64(size)/1024, "KiB/list")
		})
	}
}

// countingWriter is a ResponseWriter (and Flusher) that counts what is
// written and keeps none of it.
type countingWriter struct {
	header http.Header
	code   int
	n      int
}

func (w *countingWriter) Header() http.Header { return w.header }
func (w *countingWriter) Flush()              {}
func (w *countingWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.n += len(p)
	return len(p), nil
}

// BenchmarkReloadOneOfMany is a reload that changes one upstream among
// 100 (its URL, so its session is started anew), until the change is
// served, against one that changes nothing.
func BenchmarkReloadOneOfMany(b *testing.B) {
	urls := scaleUpstreams(b, 100, 100, "")
	other := scaleUpstreams(b, 1, 100, " (other)")
	g := openTestGateway(b, scaleYAML(urls))
	path := g.opts.ConfigPath
	ctx := context.Background()
	swap := func(i int) {
		u := append([]string(nil), urls...)
		if i%2 == 1 {
			u[50] = other[0]
		}
		if err := os.WriteFile(path, []byte(scaleYAML(u)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("none", func(b *testing.B) {
		for b.Loop() {
			if err := g.Reload(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("one", func(b *testing.B) {
		i := 0
		for b.Loop() {
			i++
			swap(i)
			if err := g.Reload(ctx); err != nil {
				b.Fatal(err)
			}
		}
		swap(0)
	})
}
