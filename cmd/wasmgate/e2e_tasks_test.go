package main

// Tasks (the MCP tasks extension) end to end: a plugin with
// limits.task_timeout offers its tools as tasks; a task-augmented call
// returns at once and runs in the background past limits.timeout; it is
// polled, its result fetched, another one cancelled (the WASM call
// stops); each task is seen only by the principal that started it.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/internal/mcphttp"
)

type taskInfo struct {
	TaskID string `json:"taskId"`
	Status string `json:"status"`
	Msg    string `json:"statusMessage"`
}

func TestTasks(t *testing.T) {
	t.Parallel()
	alice, bob := newToken(t), newToken(t)
	hostile := harness.Wasm(t, "testdata/plugins/hostile")
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
		Plugins: fmt.Sprintf(`  - {name: hostile, path: %s, limits: {timeout: 1s, task_timeout: 1m, concurrency: 2}}
  - {name: calculator, path: %s}
`, hostile, harness.Wasm(t, "examples/plugins/calculator")),
		Sections: fmt.Sprintf(`auth:
  principals:
    - {name: alice, token_sha256: %s}
    - {name: bob, token_sha256: %s}
`, sha256Hex(alice), sha256Hex(bob)),
	}))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 2*time.Minute)
	open := func(tok string) *mcphttp.Session {
		s, err := mcphttp.Open(ctx, g.MCPURL, mcphttp.Options{Header: http.Header{"Authorization": {"Bearer " + tok}}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close(ctx) })
		return s
	}
	sa, sb := open(alice), open(bob)
	call := func(s *mcphttp.Session, method string, params any, out any) error {
		raw, err := s.Call(ctx, method, params)
		if err != nil {
			return err
		}
		if out != nil {
			return json.Unmarshal(raw, out)
		}
		return nil
	}

	// tools/list says which tools may run as tasks.
	var list struct {
		Tools []struct {
			Name      string `json:"name"`
			Execution *struct {
				TaskSupport string `json:"taskSupport"`
			} `json:"execution"`
		} `json:"tools"`
	}
	if err := call(sa, "tools/list", nil, &list); err != nil {
		t.Fatal(err)
	}
	support := map[string]string{}
	for _, tl := range list.Tools {
		if tl.Execution != nil {
			support[tl.Name] = tl.Execution.TaskSupport
		}
	}
	if support["sleep"] != "optional" || support["calculate"] != "" {
		t.Errorf("taskSupport: sleep %q, calculate %q; want optional and none", support["sleep"], support["calculate"])
	}

	// Without a task, limits.timeout (1s) stops a 1.5s sleep.
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		Task taskInfo `json:"task"`
	}
	if err := call(sa, "tools/call", map[string]any{"name": "sleep", "arguments": map[string]any{"ms": 1500}}, &res); err != nil || !res.IsError || !strings.Contains(res.Content[0].Text, "timed out") {
		t.Fatalf("sleep 1.5s without a task: %v %+v, want a timeout", err, res)
	}

	// As a task, it returns at once and completes after limits.timeout.
	res = struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		Task taskInfo `json:"task"`
	}{}
	start := time.Now()
	if err := call(sa, "tools/call", map[string]any{"name": "sleep", "arguments": map[string]any{"ms": 2500}, "task": map[string]any{"ttl": 60000}}, &res); err != nil || res.Task.TaskID == "" {
		t.Fatalf("task-augmented sleep: %v %+v", err, res)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Logf("creating the task took %s (it should not wait for the call)", took)
	}
	slept := res.Task.TaskID
	var got taskInfo
	if err := call(sa, "tasks/get", map[string]any{"taskId": slept}, &got); err != nil || got.Status != "working" {
		t.Errorf("tasks/get while it sleeps: %v %+v, want working", err, got)
	}
	// Bob may not see, fetch or cancel alice's task.
	for _, m := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
		var rpc *mcphttp.RPCError
		if err := call(sb, m, map[string]any{"taskId": slept}, nil); !errors.As(err, &rpc) || !strings.Contains(rpc.Message, "not found") {
			t.Errorf("bob's %s of alice's task: %v, want not found", m, err)
		}
	}
	var bobs struct {
		Tasks []taskInfo `json:"tasks"`
	}
	if err := call(sb, "tasks/list", nil, &bobs); err != nil || len(bobs.Tasks) != 0 {
		t.Errorf("bob's tasks/list: %v %+v, want none", err, bobs.Tasks)
	}
	if !harness.WaitFor(30*time.Second, func() bool {
		return call(sa, "tasks/get", map[string]any{"taskId": slept}, &got) == nil && got.Status != "working"
	}) || got.Status != "completed" {
		t.Fatalf("the task did not complete: %+v", got)
	}
	var out struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := call(sa, "tasks/result", map[string]any{"taskId": slept}, &out); err != nil || out.IsError || len(out.Content) == 0 || out.Content[0].Text != "slept 2500ms" {
		t.Errorf("tasks/result: %v %+v, want slept 2500ms", err, out)
	}

	// A spinning task is cancelled: its WASM call stops.
	if err := call(sa, "tools/call", map[string]any{"name": "spin", "arguments": map[string]any{}, "task": map[string]any{}}, &res); err != nil || res.Task.TaskID == "" {
		t.Fatalf("task-augmented spin: %v %+v", err, res)
	}
	spin := res.Task.TaskID
	if !harness.WaitFor(10*time.Second, func() bool {
		v, _ := g.Metric(t, "wasmgate_tool_calls_in_flight", map[string]string{"source": "hostile"})
		return v == 1
	}) {
		t.Fatal("the spin task is not running")
	}
	if err := call(sa, "tasks/cancel", map[string]any{"taskId": spin}, &got); err != nil || got.Status != "cancelled" {
		t.Errorf("tasks/cancel: %v %+v", err, got)
	}
	if !harness.WaitFor(10*time.Second, func() bool {
		v, _ := g.Metric(t, "wasmgate_tool_calls_in_flight", map[string]string{"source": "hostile"})
		return v == 0
	}) {
		t.Error("the cancelled task's WASM call still runs")
	}
	var alices struct {
		Tasks []taskInfo `json:"tasks"`
	}
	if err := call(sa, "tasks/list", nil, &alices); err != nil || len(alices.Tasks) != 2 {
		t.Errorf("alice's tasks/list: %v %+v, want her two tasks", err, alices.Tasks)
	}

	// A tool of a plugin without task_timeout runs as an ordinary call
	// when a client asks for a task (mcp-go's behaviour): no task is kept.
	if err := call(sa, "tools/call", map[string]any{"name": "calculate", "arguments": map[string]any{"operation": "add", "a": 1, "b": 2}, "task": map[string]any{}}, &out); err != nil || len(out.Content) == 0 || out.Content[0].Text != "3" {
		t.Errorf("calculate asked as a task: %v %+v, want its result at once", err, out)
	}
	harness.Calc(ctx, t, g.SessionClient(t, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + alice})), 2, 3)
}

// TestTasksPoliced: policy applies to each tasks/get, tasks/result,
// tasks/cancel and tasks/list, not only to the call that started the
// task: after a reload that denies the tool to its owner, the owner can
// no longer see the task or fetch its result; a reload that allows it
// again gives them back.
func TestTasksPoliced(t *testing.T) {
	t.Parallel()
	alice := newToken(t)
	hostile := harness.Wasm(t, "testdata/plugins/hostile")
	render := func(denySleep bool) string {
		deny := ""
		if denySleep {
			deny = "    - principals: [alice]\n      deny: {tools: [sleep]}\n"
		}
		return bins.YAML(harness.Parts{
			Server:  harness.NoWatch,
			Plugins: fmt.Sprintf("  - {name: hostile, path: %s, limits: {timeout: 1s, task_timeout: 1m}}\n", hostile),
			Sections: fmt.Sprintf(`auth:
  principals:
    - {name: alice, token_sha256: %s}
policy:
  reveal_hidden: true
  default: deny
  rules:
    - principals: [alice]
      allow: {tools: ["*"]}
%s`, sha256Hex(alice), deny),
		})
	}
	cfg := harness.WriteConfig(t, render(false))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, time.Minute)
	sa, err := mcphttp.Open(ctx, g.MCPURL, mcphttp.Options{Header: http.Header{"Authorization": {"Bearer " + alice}}})
	if err != nil {
		t.Fatal(err)
	}
	defer sa.Close(ctx)
	var res struct {
		Task taskInfo `json:"task"`
	}
	raw, err := sa.Call(ctx, "tools/call", map[string]any{"name": "sleep", "arguments": map[string]any{"ms": 200}, "task": map[string]any{"ttl": 60000}})
	if err != nil || json.Unmarshal(raw, &res) != nil || res.Task.TaskID == "" {
		t.Fatalf("task-augmented sleep: %v %s", err, raw)
	}
	id := res.Task.TaskID
	var got taskInfo
	if !harness.WaitFor(10*time.Second, func() bool {
		raw, err := sa.Call(ctx, "tasks/get", map[string]any{"taskId": id})
		return err == nil && json.Unmarshal(raw, &got) == nil && got.Status == "completed"
	}) {
		t.Fatalf("the task did not complete: %+v", got)
	}
	list := func() int {
		var l struct {
			Tasks []taskInfo `json:"tasks"`
		}
		raw, err := sa.Call(ctx, "tasks/list", nil)
		if err != nil || json.Unmarshal(raw, &l) != nil {
			t.Fatalf("tasks/list: %v %s", err, raw)
		}
		return len(l.Tasks)
	}
	if n := list(); n != 1 {
		t.Fatalf("tasks/list before the reload: %d tasks, want 1", n)
	}

	harness.WriteFile(t, cfg, []byte(render(true)))
	g.MustReload(t, "reload")
	for _, m := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
		var rpc *mcphttp.RPCError
		if _, err := sa.Call(ctx, m, map[string]any{"taskId": id}); !errors.As(err, &rpc) || !strings.Contains(rpc.Message, `the task's tool "sleep" is denied by policy`) {
			t.Errorf("%s of a task whose tool policy now denies: %v, want refused by policy", m, err)
		}
	}
	if n := list(); n != 0 {
		t.Errorf("tasks/list after the reload: %d tasks, want none", n)
	}
	// The three refused requests count as denials; the list that left the
	// task out does not (as a tools/list that leaves a tool out does not).
	if v, _ := g.Metric(t, "wasmgate_policy_denials_total", map[string]string{"principal": "alice", "kind": "tool"}); v != 3 {
		t.Errorf("wasmgate_policy_denials_total{principal=alice,kind=tool} = %v, want 3", v)
	}

	harness.WriteFile(t, cfg, []byte(render(false)))
	g.MustReload(t, "reload")
	raw, err = sa.Call(ctx, "tasks/result", map[string]any{"taskId": id})
	if err != nil || !strings.Contains(string(raw), "slept 200ms") {
		t.Fatalf("tasks/result once the tool is allowed again: %v %s", err, raw)
	}
}
