package main

// redact_secrets reaches what a source sends a client besides results
// (issue 39, finding 6): its notifications (progress messages, log
// data), its requests toward the client (sampling's messages and system
// prompt, elicitation's message and schema, as server-initiated requests
// and as a 2026-07-28 client's inputRequests) and its definitions in the
// lists (a tool's description, a resource's name, a prompt's and its
// argument's descriptions).

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// outboundPlaces are the places besides results the upstream hides a
// token in.
var outboundPlaces = []string{
	"progress", "logdata", "samplingmessage", "systemprompt", "elicitmessage", "elicitschema",
	"tooldescription", "resourcename", "promptdescription", "promptargument",
}

// outboundUpstream is an mcp-go server over Streamable HTTP that hides a
// token (leakToken) in each of outboundPlaces.
func outboundUpstream(t *testing.T) string {
	t.Helper()
	tok := leakToken
	srv := server.NewMCPServer("leaky-out", "1.0", server.WithLogging(), server.WithToolCapabilities(false),
		server.WithResourceCapabilities(false, false), server.WithPromptCapabilities(false))
	srv.EnableSampling()
	srv.AddTool(mcp.NewTool("ask", mcp.WithDescription("asks with "+tok("tooldescription"))),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if m := req.Params.Meta; m != nil && m.ProgressToken != nil {
				_ = srv.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), map[string]any{
					"progressToken": m.ProgressToken, "progress": 1, "total": 2, "message": "halfway " + tok("progress"),
				})
			}
			_ = srv.SendLogMessageToClient(ctx, mcp.NewLoggingMessageNotification(mcp.LoggingLevelInfo, "up",
				map[string]any{"msg": "connected with " + tok("logdata")}))
			sres, err := srv.RequestSampling(ctx, mcp.CreateMessageRequest{CreateMessageParams: mcp.CreateMessageParams{
				Messages:     []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent("use " + tok("samplingmessage"))}},
				SystemPrompt: "the key is " + tok("systemprompt"),
				MaxTokens:    10,
			}})
			if err != nil {
				return mcp.NewToolResultError("sampling failed: " + err.Error()), nil
			}
			eres, err := srv.RequestElicitation(ctx, mcp.ElicitationRequest{Params: mcp.ElicitationParams{
				Message: "confirm " + tok("elicitmessage"),
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{
					"name": map[string]any{"type": "string", "description": "not " + tok("elicitschema")}}},
			}})
			if err != nil {
				return mcp.NewToolResultError("elicitation failed: " + err.Error()), nil
			}
			return mcp.NewToolResultText(fmt.Sprintf("sampled %v, elicited %s", sres.Content, eres.Action)), nil
		})
	srv.AddResource(mcp.NewResource("mem://doc", "doc "+tok("resourcename"), mcp.WithMIMEType("text/plain")),
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: "mem://doc", Text: "doc"}}, nil
		})
	srv.AddPrompt(mcp.NewPrompt("greet", mcp.WithPromptDescription("greets "+tok("promptdescription")),
		mcp.WithArgument("who", mcp.ArgumentDescription("who, not "+tok("promptargument")))),
		func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("hi", []mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("hi"))}), nil
		})
	ts := httptest.NewServer(server.NewStreamableHTTPServer(srv))
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp"
}

// recordingClient answers sampling and elicitation, keeping what it was
// asked and notified as JSON text.
type recordingClient struct {
	mu   sync.Mutex
	seen []string
}

func (r *recordingClient) keep(what string, v any) {
	b, _ := json.Marshal(v)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = append(r.seen, what+" "+string(b))
}

func (r *recordingClient) text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.seen, "\n")
}

func (r *recordingClient) CreateMessage(_ context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	r.keep("sampling", req)
	return &mcp.CreateMessageResult{SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent("ok")}, Model: "m"}, nil
}

func (r *recordingClient) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	r.keep("elicitation", req)
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"name": "ada"}}}, nil
}

func (r *recordingClient) options() []client.ClientOption {
	return []client.ClientOption{
		client.WithSamplingHandler(r), client.WithElicitationHandler(r),
		client.WithClientCapabilities(mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{}, Elicitation: &mcp.ElicitationCapability{}}),
	}
}

func TestRedactSecretsNotificationsRequestsDefinitions(t *testing.T) {
	t.Parallel()
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
		Server:   harness.NoWatch,
		Sections: fmt.Sprintf("upstreams:\n  - {name: leakyout, url: %s, prefix: lo, redact_secrets: true, limits: {timeout: 30s}}\n", outboundUpstream(t)),
	}))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 2*time.Minute)

	clients := recordEras(ctx, t, g, "lo_ask", true)

	for i, rec := range clients {
		checkNoLeak(t, i, rec.text(), "the upstream's", outboundPlaces)
	}
	sess := clients[0].text()
	for _, want := range []string{
		`halfway [redacted github-token]`, `connected with [redacted github-token]`,
		`use [redacted github-token]`, `the key is [redacted github-token]`,
		`confirm [redacted github-token]`, `not [redacted github-token]`,
		`asks with [redacted github-token]`, `doc [redacted github-token]`,
		`greets [redacted github-token]`, `who, not [redacted github-token]`,
	} {
		if !strings.Contains(sess, want) {
			t.Errorf("the client never received %q:\n%s", want, sess)
		}
	}
	if !strings.Contains(clients[1].text(), `use [redacted github-token]`) {
		t.Errorf("the 2026-07-28 client was not asked the redacted sampling request:\n%s", clients[1].text())
	}
	checkRedactedCounted(t, g, "leakyout")
	for _, place := range outboundPlaces {
		if strings.Contains(g.Stderr(), leakToken(place)) {
			t.Errorf("the token in the upstream's %s reached the log", place)
		}
	}
}

// TestRedactSecretsPluginNotificationsRequests: a plugin with
// redact_secrets (testdata/plugins/leaky) hides its own tokens in a
// progress message, a log line, an elicitation and a sampling request
// and its tool's description; neither era of client sees them.
func TestRedactSecretsPluginNotificationsRequests(t *testing.T) {
	t.Parallel()
	places := []string{"plugindescription", "pluginprogress", "pluginlog", "pluginschema", "pluginelicit", "pluginsampling", "pluginsystem"}
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
		Server:  harness.NoWatch,
		Plugins: fmt.Sprintf("  - {name: leaky, path: %s, redact_secrets: true}\n", harness.Wasm(t, "testdata/plugins/leaky")),
	}))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 2*time.Minute)

	clients := recordEras(ctx, t, g, "leak", false)
	for i, rec := range clients {
		text := rec.text()
		checkNoLeak(t, i, text, "the plugin's", places)
		for _, want := range []string{`use [redacted github-token]`, `the key is [redacted github-token]`,
			`confirm [redacted github-token]`, `not [redacted github-token]`, `leaks [redacted github-token]`} {
			if !strings.Contains(text, want) {
				t.Errorf("client %d never received %q:\n%s", i, want, text)
			}
		}
	}
	for _, want := range []string{`halfway [redacted github-token]`, `connected with [redacted github-token]`} {
		if !strings.Contains(clients[0].text(), want) {
			t.Errorf("the client never received %q:\n%s", want, clients[0].text())
		}
	}
	checkRedactedCounted(t, g, "leaky")
}

// recordEras drives one client of each era through g (sessions, then
// stateless), each a recordingClient: logging/setLevel debug (the
// sessions client), tools/list, with lists also resources/list and
// prompts/list, then a call of tool with a progress token, keeping
// each answer. It waits (up to 5s) for the sessions client's progress
// and log notifications, which arrive on the call's stream but may be
// behind its result.
func recordEras(ctx context.Context, t *testing.T, g *harness.Gateway, tool string, lists bool) []*recordingClient {
	t.Helper()
	var clients []*recordingClient
	for _, version := range []string{harness.ProtoSessions, harness.ProtoStateless} {
		rec := &recordingClient{}
		clients = append(clients, rec)
		c := harness.AskedClient(t, g.MCPURL, version, rec.options()...)
		c.OnNotification(func(n mcp.JSONRPCNotification) { rec.keep("notification", n) })
		if version == harness.ProtoSessions {
			if err := c.SetLevel(ctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelDebug}}); err != nil {
				t.Fatalf("logging/setLevel: %v", err)
			}
		}
		tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil {
			t.Fatalf("%s tools/list: %v", version, err)
		}
		rec.keep("tools/list", tools)
		if lists {
			res, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
			if err != nil {
				t.Fatalf("%s resources/list: %v", version, err)
			}
			rec.keep("resources/list", res)
			ps, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
			if err != nil {
				t.Fatalf("%s prompts/list: %v", version, err)
			}
			rec.keep("prompts/list", ps)
		}

		req := mcp.CallToolRequest{}
		req.Params.Name = tool
		req.Params.Meta = &mcp.Meta{ProgressToken: "p-" + version}
		out, err := c.CallTool(ctx, req)
		if err != nil || out.IsError {
			t.Fatalf("%s %s: %v %s", version, tool, err, harness.ResultText(out))
		}
		rec.keep("tools/call", out)
		if version == harness.ProtoSessions {
			harness.WaitFor(5*time.Second, func() bool {
				txt := rec.text()
				return strings.Contains(txt, "halfway") && strings.Contains(txt, "connected with")
			})
		}
	}
	return clients
}

// checkNoLeak reports client i's recorded text holding the token of
// any of places (whose names the message prefixes with whose).
func checkNoLeak(t *testing.T, i int, text, whose string, places []string) {
	t.Helper()
	var leaked []string
	for _, place := range places {
		if strings.Contains(text, leakToken(place)) {
			leaked = append(leaked, place)
		}
	}
	if leaked != nil {
		t.Errorf("client %d: the tokens in %s %s reached the client:\n%s", i, whose, strings.Join(leaked, ", "), text)
	}
}

// checkRedactedCounted reports a where (notification, request,
// definition) that g's wasmgate_secrets_redacted_total did not count
// for source's github tokens.
func checkRedactedCounted(t *testing.T, g *harness.Gateway, source string) {
	t.Helper()
	m := g.Scrape(t)
	for _, where := range []string{"notification", "request", "definition"} {
		if n := m.Sum("wasmgate_secrets_redacted_total", map[string]string{"source": source, "kind": "github-token", "where": where}); n == 0 {
			t.Errorf("wasmgate_secrets_redacted_total{source=%s,where=%s} = 0", source, where)
		}
	}
}
