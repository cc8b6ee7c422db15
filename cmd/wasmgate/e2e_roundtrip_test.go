package main

// A plugin's sampling, elicitation and roots requests for clients of both
// eras (issue 19): a 2026-07-28 client gets input_required with a signed
// requestState and retries with the answers (mcp-go's client does the
// loop with its handlers); a 2025-11-25 client is asked with
// server-initiated requests as before. Forged, altered, foreign, replayed
// and expired states are refused.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// askingClient answers elicitation with name "ada", sampling with
// "forty-two" and roots with two roots, counting each.
type askingClient struct{ elicits, samples, roots atomic.Int32 }

func (a *askingClient) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	a.elicits.Add(1)
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"name": "ada", "username": "ada", "email": "ada@example.com"}}}, nil
}

func (a *askingClient) CreateMessage(_ context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	a.samples.Add(1)
	return &mcp.CreateMessageResult{SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.TextContent{Type: "text", Text: "forty-two"}}, Model: "test-model"}, nil
}

func (a *askingClient) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	a.roots.Add(1)
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///a", Name: "a"}, {URI: "file:///b", Name: "b"}}}, nil
}

func (a *askingClient) options() []client.ClientOption {
	return []client.ClientOption{
		client.WithElicitationHandler(a), client.WithSamplingHandler(a), client.WithRootsHandler(a),
		client.WithClientCapabilities(mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{}, Elicitation: &mcp.ElicitationCapability{}, Roots: &struct {
			ListChanged bool `json:"listChanged,omitempty"`
		}{}}),
	}
}

func TestPluginAsksBothEras(t *testing.T) {
	t.Parallel()
	conf := harness.Wasm(t, "testdata/plugins/conformance")
	plugins := fmt.Sprintf("  - {name: conformance, path: %s}\n", conf)
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{Plugins: plugins}))
	g := bins.Start(t, harness.Options{Config: cfg, Env: []string{"E2E_STATE_KEY=" + strings.Repeat("k", 40), "E2E_SHORT_KEY=short"}})
	ctx := harness.Ctx(t, 120*time.Second)

	call := func(t *testing.T, c *client.Client, tool string, args map[string]any) string {
		t.Helper()
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = tool, args
		res, err := c.CallTool(ctx, req)
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if res.IsError {
			t.Fatalf("%s: isError %q", tool, harness.ResultText(res))
		}
		return harness.ResultText(res)
	}
	for _, version := range []string{harness.ProtoStateless, harness.ProtoSessions} {
		t.Run(version, func(t *testing.T) {
			a := &askingClient{}
			c := harness.AskedClient(t, g.MCPURL, version, a.options()...)
			if got := call(t, c, "test_elicitation", map[string]any{"message": "Your name?"}); !strings.Contains(got, `"username":"ada"`) {
				t.Errorf("test_elicitation = %q", got)
			}
			if got := call(t, c, "test_sampling", map[string]any{"prompt": "the answer?"}); got != "LLM response: forty-two" {
				t.Errorf("test_sampling = %q", got)
			}
			if got := call(t, c, "test_ask_twice", map[string]any{"topic": "engines"}); got != "ada; model: forty-two; roots: 2" {
				t.Errorf("test_ask_twice = %q", got)
			}
			if e, s, r := a.elicits.Load(), a.samples.Load(), a.roots.Load(); e != 2 || s != 2 || r != 1 {
				t.Errorf("the client was asked %d elicitations, %d samplings, %d roots; want 2, 2, 1", e, s, r)
			}
		})
	}
	if v, _ := g.Metric(t, "wasmgate_tool_calls_total", map[string]string{"tool": "test_ask_twice", "outcome": "input_required"}); v != 3 {
		t.Errorf("test_ask_twice input_required calls = %v, want 3 (three questions of the 2026-07-28 client)", v)
	}

	// By hand: the first round's state, then the attacks on it.
	raw := func(t *testing.T, params map[string]any) map[string]any {
		t.Helper()
		var out map[string]any
		body := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
		code, text := harness.PostStateless(t, g.MCPURL, body, "tools/call", params["name"].(string))
		if code != 200 || json.Unmarshal([]byte(text), &out) != nil {
			t.Fatalf("tools/call: %d %.300s", code, text)
		}
		return out
	}
	first := raw(t, map[string]any{"name": "test_sampling", "arguments": map[string]any{"prompt": "p"}})
	res, _ := first["result"].(map[string]any)
	state, _ := res["requestState"].(string)
	reqs, _ := res["inputRequests"].(map[string]any)
	if res["resultType"] != "input_required" || state == "" || reqs["wasmgate-0"] == nil {
		t.Fatalf("first round = %v, want input_required with wasmgate-0 and a requestState", first)
	}
	answer := map[string]any{"wasmgate-0": map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "x"}, "model": "m"}}
	refused := func(t *testing.T, what string, params map[string]any, want string) {
		t.Helper()
		out := raw(t, params)
		res, _ := out["result"].(map[string]any)
		text, _ := json.Marshal(out)
		if res == nil || res["isError"] != true || !strings.Contains(string(text), want) {
			t.Errorf("%s: %s, want isError containing %q", what, text, want)
		}
	}
	refused(t, "forged state", map[string]any{"name": "test_sampling", "arguments": map[string]any{"prompt": "p"},
		"requestState": "eyJ2IjoxfQ.AAAA", "inputResponses": answer}, "bad signature")
	altered := []byte(state)
	altered[3] ^= 1
	refused(t, "altered state", map[string]any{"name": "test_sampling", "arguments": map[string]any{"prompt": "p"},
		"requestState": string(altered), "inputResponses": answer}, "requestState")
	refused(t, "other arguments", map[string]any{"name": "test_sampling", "arguments": map[string]any{"prompt": "other"},
		"requestState": state, "inputResponses": answer}, "issued for another caller, tool or arguments")
	refused(t, "no answer", map[string]any{"name": "test_sampling", "arguments": map[string]any{"prompt": "p"},
		"requestState": state}, `no answer to \"wasmgate-0\"`)
	ok := raw(t, map[string]any{"name": "test_sampling", "arguments": map[string]any{"prompt": "p"}, "requestState": state, "inputResponses": answer})
	if text, _ := json.Marshal(ok); !strings.Contains(string(text), "LLM response: x") {
		t.Errorf("the retry with the answer = %s", text)
	}
	refused(t, "replayed state", map[string]any{"name": "test_sampling", "arguments": map[string]any{"prompt": "p"},
		"requestState": state, "inputResponses": answer}, "already used")

	// server.request_state: a configured key (the old states no longer
	// open) and a TTL of 1s (a state is refused once it expired).
	stateOf := func(t *testing.T) string {
		out := raw(t, map[string]any{"name": "test_sampling", "arguments": map[string]any{"prompt": "p"}})
		res, _ := out["result"].(map[string]any)
		st, _ := res["requestState"].(string)
		if st == "" {
			t.Fatalf("no requestState in %v", out)
		}
		return st
	}
	before := stateOf(t)
	n := g.ReloadCount(t)
	harness.RenameOver(t, cfg, []byte(bins.YAML(harness.Parts{Plugins: plugins,
		Server: "  request_state: {key_env: E2E_STATE_KEY, ttl: 1s}\n"})))
	g.WaitReload(t, n, "server.request_state")
	refused(t, "a state of the old key", map[string]any{"name": "test_sampling", "arguments": map[string]any{"prompt": "p"},
		"requestState": before, "inputResponses": answer}, "bad signature")
	short := stateOf(t)
	time.Sleep(2100 * time.Millisecond)
	refused(t, "expired state", map[string]any{"name": "test_sampling", "arguments": map[string]any{"prompt": "p"},
		"requestState": short, "inputResponses": answer}, "expired")

	// A key too short is a config error naming the key; the old
	// snapshot keeps serving.
	bad := bins.YAML(harness.Parts{Plugins: plugins, Server: "  request_state: {key_env: E2E_SHORT_KEY}\n"})
	n = g.ReloadCount(t)
	harness.RenameOver(t, cfg, []byte(bad))
	if _, fail := g.WaitReload(t, n, "a short key"); fail == 0 {
		t.Errorf("a request_state key shorter than 32 bytes was accepted")
	}
	if !strings.Contains(g.Stderr(), "server.request_state.key_env") {
		t.Errorf("the refused reload does not name server.request_state.key_env:\n%s", g.Stderr())
	}
	if got := call(t, g.SessionClient(t), "test_simple_text", nil); !strings.Contains(got, "simple text") {
		t.Errorf("after the refused reload: %q", got)
	}
}
