package main

// The MCP host functions, through testdata/plugins/hyperv2 (and hyperv1
// for a v1 plugin's progress, sampling and list change), over Streamable
// HTTP and stdio with mcp-go clients that declare sampling, elicitation
// and roots and clients that declare none.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// capableClient answers the gateway's requests as a user and a model
// would, and records what it was asked and the notifications it got.
type capableClient struct {
	mu       sync.Mutex
	prompts  []string // the text of each sampling request's first message
	messages []string // each elicitation's message
	notes    []mcp.JSONRPCNotification
}

func (h *capableClient) CreateMessage(_ context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	text := ""
	if len(req.Messages) > 0 {
		if tc, ok := req.Messages[0].Content.(mcp.TextContent); ok {
			text = tc.Text
		} else if m, ok := req.Messages[0].Content.(map[string]any); ok {
			text, _ = m["text"].(string)
		}
	}
	h.mu.Lock()
	h.prompts = append(h.prompts, text)
	h.mu.Unlock()
	return &mcp.CreateMessageResult{
		SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent("answer to " + text)},
		Model:           "test-model",
		StopReason:      "endTurn",
	}, nil
}

func (h *capableClient) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	h.mu.Lock()
	h.messages = append(h.messages, req.Params.Message)
	h.mu.Unlock()
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"name": "Ada"}}}, nil
}

func (h *capableClient) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///work/a", Name: "a"}, {URI: "file:///work/b"}}}, nil
}

func (h *capableClient) note(n mcp.JSONRPCNotification) {
	h.mu.Lock()
	h.notes = append(h.notes, n)
	h.mu.Unlock()
}

// notes returns the notifications of method received so far.
func (h *capableClient) notesOf(method string) []mcp.JSONRPCNotification {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []mcp.JSONRPCNotification
	for _, n := range h.notes {
		if n.Method == method {
			out = append(out, n)
		}
	}
	return out
}

// progressOf is the progress notifications received for the call
// whose progress token was token, in the order they came.
func (h *capableClient) progressOf(token string) []mcp.JSONRPCNotification {
	var out []mcp.JSONRPCNotification
	for _, n := range h.notesOf("notifications/progress") {
		if n.Params.AdditionalFields["progressToken"] == token {
			out = append(out, n)
		}
	}
	return out
}

// connect returns an initialized 2025-11-25 client of g over stdio or
// HTTP (with a GET stream), declaring sampling, elicitation and roots if
// capable, and the recorder of what it gets.
func connect(t *testing.T, g *harness.Gateway, stdio, capable bool) (*client.Client, *capableClient) {
	t.Helper()
	h := &capableClient{}
	var opts []client.ClientOption
	if capable {
		opts = append(opts, client.WithSamplingHandler(h), client.WithElicitationHandler(h), client.WithRootsHandler(h))
	}
	var tr transport.Interface
	if stdio {
		tr = transport.NewIO(g.Stdout, g.Stdin, nil)
	} else {
		var err error
		if tr, err = transport.NewStreamableHTTP(g.MCPURL, transport.WithContinuousListening()); err != nil {
			t.Fatal(err)
		}
	}
	c := client.NewClient(tr, opts...)
	c.OnNotification(h.note)
	harness.Init(t, c, harness.ProtoSessions)
	return c, h
}

func hostConfig(t *testing.T) string {
	t.Helper()
	v1 := harness.Q(harness.Wasm(t, "testdata/plugins/hyperv1"))
	v2 := harness.Q(harness.Wasm(t, "testdata/plugins/hyperv2"))
	// One instance each: the fixtures keep what grow and add_tool add in
	// globals.
	return harness.WriteConfig(t, bins.YAML(harness.Parts{Plugins: harness.Item("name: hyperv1", "path: "+v1, "instances: single") +
		harness.Item("name: hyperv2", "path: "+v2, "instances: single")}))
}

func callWithToken(ctx context.Context, c *client.Client, tool string, args map[string]any, token any) (*mcp.CallToolResult, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	if token != nil {
		req.Params.Meta = &mcp.Meta{ProgressToken: token}
	}
	return c.CallTool(ctx, req)
}

func TestHostFunctions(t *testing.T) {
	t.Parallel()
	ctx := harness.Ctx(t, 2*time.Minute)
	for _, transportName := range []string{"http", "stdio"} {
		t.Run(transportName, func(t *testing.T) {
			stdio := transportName == "stdio"
			g := bins.Start(t, harness.Options{Config: hostConfig(t), Stdio: stdio})
			c, h := connect(t, g, stdio, true)

			t.Run("progress", func(t *testing.T) {
				for _, tool := range []string{"v2_progress", "v1_progress"} {
					token := "tok-" + tool
					res, err := callWithToken(ctx, c, tool, map[string]any{"steps": 3}, token)
					if err != nil || res.IsError || harness.ResultText(res) != "done" {
						t.Fatalf("%s = %+v, %v", tool, res, err)
					}
					mine := func() []mcp.JSONRPCNotification { return h.progressOf(token) }
					if !harness.WaitFor(10*time.Second, func() bool { return len(mine()) == 3 }) {
						t.Fatalf("%s: %d progress notifications with the client's token, want 3: %+v", tool, len(mine()), h.notesOf("notifications/progress"))
					}
					for i, n := range mine() {
						if p := n.Params.AdditionalFields["progress"]; p != float64(i+1) {
							t.Errorf("%s: notification %d progress %v", tool, i, p)
						}
					}
					if tool == "v2_progress" {
						if n := mine()[2]; n.Params.AdditionalFields["total"] != float64(3) || n.Params.AdditionalFields["message"] != "step 3" {
							t.Errorf("last notification %+v", n.Params.AdditionalFields)
						}
					}
				}
				// Without a token, no progress is sent.
				before := len(h.notesOf("notifications/progress"))
				if res, err := callWithToken(ctx, c, "v2_progress", map[string]any{"steps": 2}, nil); err != nil || res.IsError {
					t.Fatalf("v2_progress without a token: %+v, %v", res, err)
				}
				if res, err := callWithToken(ctx, c, "v2_progress", map[string]any{"steps": 1}, "tok-last"); err != nil || res.IsError {
					t.Fatalf("v2_progress: %+v, %v", res, err)
				}
				harness.WaitFor(10*time.Second, func() bool { return len(h.notesOf("notifications/progress")) > before })
				for _, n := range h.notesOf("notifications/progress")[before:] {
					if n.Params.AdditionalFields["progressToken"] != "tok-last" {
						t.Errorf("progress sent for a call without a token: %+v", n.Params.AdditionalFields)
					}
				}
			})

			// Over HTTP the notifications of a call travel on its response
			// stream, ahead of the result: a client that stops listening for
			// progress when the result comes (the TypeScript SDK does) must
			// have them all by then.
			if !stdio {
				t.Run("progress before the result", func(t *testing.T) {
					for i := range 20 {
						token := fmt.Sprintf("ordered-%d", i)
						if res, err := callWithToken(ctx, c, "v2_progress", map[string]any{"steps": 3}, token); err != nil || res.IsError {
							t.Fatalf("v2_progress: %+v, %v", res, err)
						}
						var got []any
						for _, note := range h.progressOf(token) {
							got = append(got, note.Params.AdditionalFields["progress"])
						}
						if len(got) != 3 || got[0] != float64(1) || got[1] != float64(2) || got[2] != float64(3) {
							t.Fatalf("call %d: progress %v arrived before its result, want 1, 2, 3 in order", i, got)
						}
					}
				})
			}

			t.Run("sampling", func(t *testing.T) {
				if got, isErr := harness.CallTool(ctx, t, c, "v2_sample", map[string]any{"prompt": "six times seven"}); isErr || got != "test-model: answer to six times seven" {
					t.Errorf("v2_sample = %q (isError %v)", got, isErr)
				}
				if got, isErr := harness.CallTool(ctx, t, c, "v1_sample", map[string]any{"prompt": "hello"}); isErr || got != "answer to hello" {
					t.Errorf("v1_sample = %q (isError %v)", got, isErr)
				}
				h.mu.Lock()
				defer h.mu.Unlock()
				if !slices.Equal(h.prompts, []string{"six times seven", "hello"}) {
					t.Errorf("the client was asked %q", h.prompts)
				}
			})

			t.Run("elicitation", func(t *testing.T) {
				if got, isErr := harness.CallTool(ctx, t, c, "v2_elicit", map[string]any{"message": "Who are you?"}); isErr || got != "accept Ada" {
					t.Errorf("v2_elicit = %q (isError %v)", got, isErr)
				}
				h.mu.Lock()
				defer h.mu.Unlock()
				if !slices.Equal(h.messages, []string{"Who are you?"}) {
					t.Errorf("the client was asked %q", h.messages)
				}
			})

			t.Run("roots", func(t *testing.T) {
				if got, isErr := harness.CallTool(ctx, t, c, "v2_roots", nil); isErr || got != "file:///work/a file:///work/b" {
					t.Errorf("v2_roots = %q (isError %v)", got, isErr)
				}
			})

			t.Run("logging", func(t *testing.T) {
				// The level is error until the client sets one.
				if got, _ := harness.CallTool(ctx, t, c, "v2_log", map[string]any{"level": "info", "message": "quiet"}); got != "logged" {
					t.Fatalf("v2_log = %q", got)
				}
				if err := c.SetLevel(ctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelDebug}}); err != nil {
					t.Fatal(err)
				}
				if got, _ := harness.CallTool(ctx, t, c, "v2_log", map[string]any{"level": "info", "message": "loud"}); got != "logged" {
					t.Fatalf("v2_log = %q", got)
				}
				if !harness.WaitFor(10*time.Second, func() bool { return len(h.notesOf("notifications/message")) > 0 }) {
					t.Fatal("no notifications/message")
				}
				msgs := h.notesOf("notifications/message")
				if len(msgs) != 1 || msgs[0].Params.AdditionalFields["data"] != "loud" || msgs[0].Params.AdditionalFields["level"] != "info" || msgs[0].Params.AdditionalFields["logger"] != "hyperv2" {
					t.Errorf("notifications/message: %+v", msgs)
				}
			})

			t.Run("list changed", func(t *testing.T) {
				for _, c2 := range []struct{ tool, args, method, item string }{
					{"v2_grow", "tools", "notifications/tools/list_changed", "v2_grown_1"},
					{"v2_grow", "prompts", "notifications/prompts/list_changed", "grown_1"},
					{"v2_grow", "resources", "notifications/resources/list_changed", "hyper://grown/1"},
					{"v1_add_tool", "", "notifications/tools/list_changed", "v1_added_1"},
				} {
					before := len(h.notesOf(c2.method))
					if _, isErr := harness.CallTool(ctx, t, c, c2.tool, map[string]any{"kind": c2.args}); isErr {
						t.Fatalf("%s %s failed", c2.tool, c2.args)
					}
					// Listed as soon as the call has returned.
					if !slices.Contains(listed(ctx, t, c, c2.method), c2.item) {
						t.Errorf("%s %s: %s not listed right after the call", c2.tool, c2.args, c2.item)
					}
					if !harness.WaitFor(10*time.Second, func() bool { return len(h.notesOf(c2.method)) > before }) {
						t.Errorf("%s %s: no %s", c2.tool, c2.args, c2.method)
					}
				}
				if got, _ := harness.CallTool(ctx, t, c, "v2_grown_1", nil); !strings.Contains(got, "unknown tool") {
					// The fixture serves grown tools as unknown: what
					// matters is that the gateway routes the call.
					t.Errorf("v2_grown_1 = %q", got)
				}
				if got, _ := harness.CallTool(ctx, t, c, "v1_added_1", nil); got != "I was added" {
					t.Errorf("v1_added_1 = %q", got)
				}
			})
		})
	}
}

// listed is the names or URIs of the list a list_changed method is about.
func listed(ctx context.Context, t *testing.T, c *client.Client, method string) []string {
	t.Helper()
	var out []string
	switch method {
	case "notifications/tools/list_changed":
		out = harness.Tools(ctx, t, c)
	case "notifications/prompts/list_changed":
		res, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range res.Prompts {
			out = append(out, p.Name)
		}
	case "notifications/resources/list_changed":
		res, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Resources {
			out = append(out, r.URI)
		}
	}
	return out
}

// A client that declares none of sampling, elicitation and roots gets a
// clean error in the plugin, at once, for each.
func TestHostFunctionsWithoutCapabilities(t *testing.T) {
	t.Parallel()
	ctx := harness.Ctx(t, 2*time.Minute)
	for _, transportName := range []string{"http", "stdio"} {
		t.Run(transportName, func(t *testing.T) {
			stdio := transportName == "stdio"
			g := bins.Start(t, harness.Options{Config: hostConfig(t), Stdio: stdio})
			c, _ := connect(t, g, stdio, false)
			for tool, want := range map[string]string{
				"v2_sample": "create_message: the client does not support sampling",
				"v2_elicit": "create_elicitation: the client does not support elicitation",
				"v2_roots":  "list_roots: the client does not support roots",
				"v1_sample": "create_message: the client does not support sampling",
			} {
				got, isErr := harness.CallTool(ctx, t, c, tool, map[string]any{"prompt": "x", "message": "x"})
				if !isErr || !strings.Contains(got, want) {
					t.Errorf("%s = %q (isError %v), want an error containing %q", tool, got, isErr, want)
				}
			}
			// The plugin keeps serving.
			if got, _ := harness.CallTool(ctx, t, c, "v2_echo", map[string]any{"message": "still here"}); got != "still here" {
				t.Errorf("v2_echo = %q", got)
			}
		})
	}
}

// notifications/resources/updated reaches the sessions subscribed to the
// URI, and only them; the plugin's prefix applies to the URI.
func TestResourceUpdatedReachesSubscribers(t *testing.T) {
	t.Parallel()
	v2 := harness.Q(harness.Wasm(t, "testdata/plugins/hyperv2"))
	g := bins.Start(t, harness.Options{Config: harness.WriteConfig(t, bins.YAML(harness.Parts{Plugins: harness.Item("name: hyperv2", "path: "+v2, "prefix: p")}))})
	ctx := harness.Ctx(t, time.Minute)
	a, ha := connect(t, g, false, false)
	b, hb := connect(t, g, false, false)
	_, hc := connect(t, g, false, false)
	c := hc
	subscribe := func(cl *client.Client, uri string) {
		t.Helper()
		if err := cl.Subscribe(ctx, mcp.SubscribeRequest{Params: mcp.SubscribeParams{URI: uri}}); err != nil {
			t.Fatalf("subscribe %s: %v", uri, err)
		}
	}
	subscribe(a, "hyper://p/notes/1")
	subscribe(b, "hyper://p/notes/2")
	subscribe(b, "hyper://p/notes/3")
	if err := b.Unsubscribe(ctx, mcp.UnsubscribeRequest{Params: mcp.UnsubscribeParams{URI: "hyper://p/notes/3"}}); err != nil {
		t.Fatal(err)
	}
	_ = c
	updated := func(h *capableClient) []string {
		var out []string
		for _, n := range h.notesOf("notifications/resources/updated") {
			out = append(out, fmt.Sprint(n.Params.AdditionalFields["uri"]))
		}
		return out
	}
	// Session b touches note 1 (a's) and note 3 (no one's), then 2 (its own).
	for _, id := range []string{"1", "3", "2"} {
		if got, _ := harness.CallTool(ctx, t, b, "p_v2_touch", map[string]any{"id": id}); got != "touched" {
			t.Fatalf("p_v2_touch %s = %q", id, got)
		}
	}
	if !harness.WaitFor(10*time.Second, func() bool { return len(updated(ha)) == 1 && len(updated(hb)) == 1 }) {
		t.Fatalf("updated: a got %q, b got %q", updated(ha), updated(hb))
	}
	if got := updated(ha); got[0] != "hyper://p/notes/1" {
		t.Errorf("a got %q", got)
	}
	if got := updated(hb); got[0] != "hyper://p/notes/2" {
		t.Errorf("b got %q", got)
	}
	if got := updated(hc); len(got) != 0 {
		t.Errorf("a session subscribed to nothing got %q", got)
	}
}
