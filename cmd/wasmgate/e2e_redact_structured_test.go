package main

// redact_secrets reaches everything a client receives from a source
// (issue 39, finding 6): a tool result's structuredContent (mcp-go sent
// the upstream's raw bytes, so the redacted copy was ignored), its _meta,
// a resource_link's name and URI, a content item's _meta and annotations,
// an embedded resource's URI and _meta; and the results of resources/read,
// prompts/get and completion/complete, and a source's error.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/internal/mcphttp"
)

// leakToken is a GitHub-token-shaped string, one per place it is hidden,
// so that a leak names its place.
func leakToken(place string) string {
	var b strings.Builder
	b.WriteString("ghp_")
	for _, r := range strings.ToUpper(place) {
		if r >= 'A' && r <= 'Z' {
			b.WriteRune(r)
		}
	}
	for b.Len() < 4+36 {
		b.WriteByte('0')
	}
	return b.String()
}

// leakPlaces are the places of a result the upstream hides a token in.
var leakPlaces = []string{
	"structured", "structuredkey", "resultmeta", "linkname", "linkuri", "linkmeta",
	"textmeta", "annotations", "embeddeduri", "embeddedtext", "embeddedmeta", "embeddeditemmeta",
	"resourcetext", "resourcemeta", "resourceuri", "prompttext", "promptlink", "completion", "error",
}

// leakyUpstream is an MCP server (mcp-go over Streamable HTTP) that hides
// a token in every place of every kind of result it returns.
func leakyUpstream(t *testing.T) *httptest.Server {
	t.Helper()
	tok := leakToken
	s := server.NewMCPServer("leaky", "1.0.0",
		server.WithToolCapabilities(false), server.WithResourceCapabilities(false, false),
		server.WithPromptCapabilities(false), server.WithCompletions(),
		server.WithPromptCompletionProvider(leakyCompleter{}))
	s.AddTool(mcp.NewTool("leak"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		text := mcp.NewTextContent("plain text")
		text.Meta = &mcp.Meta{AdditionalFields: map[string]any{"note": tok("textmeta")}}
		text.Annotations = &mcp.Annotations{LastModified: tok("annotations"), Audience: []mcp.Role{mcp.RoleUser}}
		link := mcp.NewResourceLink("https://example.com/doc?t="+tok("linkuri"), "doc "+tok("linkname"), "a document", "text/plain")
		link.Meta = &mcp.Meta{AdditionalFields: map[string]any{"k": tok("linkmeta")}}
		emb := mcp.NewEmbeddedResource(mcp.TextResourceContents{
			URI: "mem://" + tok("embeddeduri"), MIMEType: "text/plain", Text: "key " + tok("embeddedtext"),
			Meta: map[string]any{"k": tok("embeddeditemmeta")},
		})
		emb.Meta = &mcp.Meta{AdditionalFields: map[string]any{"k": tok("embeddedmeta")}}
		res := &mcp.CallToolResult{
			Content: []mcp.Content{text, link, emb},
			StructuredContent: map[string]any{
				"deep":               map[string]any{"list": []any{"x " + tok("structured")}},
				tok("structuredkey"): "a token as a key",
				"big":                json.Number("12345678901234567890"),
			},
		}
		res.Meta = &mcp.Meta{AdditionalFields: map[string]any{"auth": tok("resultmeta")}}
		return res, nil
	})
	s.AddTool(mcp.NewTool("fail"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("the database said: bad password " + tok("error"))
	})
	s.AddResource(mcp.NewResource("mem://leak", "leak", mcp.WithMIMEType("text/plain")),
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{
				mcp.TextResourceContents{URI: "mem://leak", MIMEType: "text/plain", Text: "text " + tok("resourcetext"),
					Meta: map[string]any{"k": tok("resourcemeta")}},
				mcp.TextResourceContents{URI: "mem://leak/" + tok("resourceuri"), Text: "more"},
			}, nil
		})
	s.AddPrompt(mcp.NewPrompt("leak", mcp.WithArgument("topic")),
		func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("a leaky prompt", []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("say "+tok("prompttext"))),
				mcp.NewPromptMessage(mcp.RoleAssistant, mcp.NewResourceLink("mem://x", "n "+tok("promptlink"), "", "")),
			}), nil
		})
	srv := httptest.NewServer(server.NewStreamableHTTPServer(s))
	t.Cleanup(srv.Close)
	return srv
}

type leakyCompleter struct{}

func (leakyCompleter) CompletePromptArgument(context.Context, string, mcp.CompleteArgument, mcp.CompleteContext) (*mcp.Completion, error) {
	return &mcp.Completion{Values: []string{"plain", "v " + leakToken("completion")}}, nil
}

func TestRedactSecretsStructuredResults(t *testing.T) {
	t.Parallel()
	up := leakyUpstream(t)
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
		Server:   harness.NoWatch,
		Sections: fmt.Sprintf("upstreams:\n  - {name: leaky, url: %s/mcp, prefix: lk, redact_secrets: true}\n", up.URL),
	}))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 2*time.Minute)

	// What a client received, as text, for every kind of result: through
	// mcp-go's client (decoded, encoded again) and as the raw bytes of the
	// HTTP response.
	received := map[string]string{}
	c := g.SessionClient(t)
	encode := func(what string, v any, err error) {
		t.Helper()
		b, merr := json.Marshal(v)
		if merr != nil {
			t.Fatalf("%s: encoding %T: %v", what, v, merr)
		}
		received["mcp-go "+what] = fmt.Sprintf("%s %v", b, err)
	}
	tool := mcp.CallToolRequest{}
	tool.Params.Name = "lk_leak"
	res, err := c.CallTool(ctx, tool)
	if err != nil || res.IsError {
		t.Fatalf("lk_leak: %v %+v", err, res)
	}
	encode("tools/call", res, err)
	fail := mcp.CallToolRequest{}
	fail.Params.Name = "lk_fail"
	fres, err := c.CallTool(ctx, fail)
	encode("tools/call of a failing tool", fres, err)
	rres, err := c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "mem://lk/leak"}})
	encode("resources/read", rres, err)
	preq := mcp.GetPromptRequest{}
	preq.Params.Name = "lk_leak"
	pres, err := c.GetPrompt(ctx, preq)
	encode("prompts/get", pres, err)
	creq := mcp.CompleteRequest{}
	creq.Params.Ref = mcp.PromptReference{Type: "ref/prompt", Name: "lk_leak"}
	creq.Params.Argument = mcp.CompleteArgument{Name: "topic", Value: ""}
	cres, err := c.Complete(ctx, creq)
	encode("completion/complete", cres, err)

	s, err := mcphttp.Open(ctx, g.MCPURL, mcphttp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	for _, m := range []struct {
		method string
		params any
	}{
		{"tools/call", map[string]any{"name": "lk_leak", "arguments": map[string]any{}}},
		{"tools/call", map[string]any{"name": "lk_fail", "arguments": map[string]any{}}},
		{"resources/read", map[string]any{"uri": "mem://lk/leak"}}, // the prefix after the scheme
		{"prompts/get", map[string]any{"name": "lk_leak"}},
		{"completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "lk_leak"}, "argument": map[string]any{"name": "topic", "value": ""}}},
	} {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.NextID(), "method": m.method, "params": m.params})
		resp, raw, err := s.Post(ctx, body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("raw %s %s: %v %v", m.method, body, resp, err)
		}
		received[fmt.Sprintf("raw %s %s", m.method, body)] += string(raw)
	}

	all := ""
	for what, text := range received {
		all += text + "\n"
		var leaked []string
		for _, place := range leakPlaces {
			if strings.Contains(text, leakToken(place)) {
				leaked = append(leaked, place)
			}
		}
		if leaked != nil {
			t.Errorf("the tokens in the upstream's %s reached the client (%s):\n%s", strings.Join(leaked, ", "), what, text)
		}
	}
	for _, want := range []string{
		`"x [redacted github-token]"`,   // structuredContent, decoded
		`12345678901234567890`,          // its numbers as the upstream wrote them
		`"doc [redacted github-token]"`, // the link's name
		`https://example.com/doc?t=[redacted github-token]`,
		`"text [redacted github-token]"`, // the resource's text
		`"say [redacted github-token]"`,  // the prompt's
		`"v [redacted github-token]"`,    // the completion
		`"plain text"`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no client received %s", want)
		}
	}
	// Every place of a result twice (the mcp-go client's and the raw
	// requests), and the error twice.
	m := g.Scrape(t)
	for where, want := range map[string]int{"result": 2 * (len(leakPlaces) - 1), "error": 2} {
		if n := m.Sum("wasmgate_secrets_redacted_total", map[string]string{"source": "leaky", "kind": "github-token", "where": where}); n != float64(want) {
			t.Errorf("wasmgate_secrets_redacted_total{source=leaky,where=%s} = %v, want %d", where, n, want)
		}
	}
	for _, place := range leakPlaces {
		if strings.Contains(g.Stderr(), leakToken(place)) {
			t.Errorf("the token in the upstream's %s reached the log", place)
		}
	}
}
