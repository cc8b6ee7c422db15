package server

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

type taskOwnerKey struct{}

// taskCall sends msg as owner and returns the decoded JSON-RPC response.
func taskCall(t *testing.T, s *MCPServer, owner, msg string) map[string]any {
	t.Helper()
	ctx := context.WithValue(context.Background(), taskOwnerKey{}, owner)
	data, err := json.Marshal(s.HandleMessage(ctx, json.RawMessage(msg)))
	if err != nil {
		t.Fatal(err)
	}
	var resp map[string]any
	if err := json.Unmarshal(data, &resp); err != nil {
		t.Fatalf("decoding %s: %v", data, err)
	}
	return resp
}

// TestTaskOwnerAndTTL: with WithTaskOwner a task is seen only by requests
// of its owner, even without a session; WithTaskTTL gives a task created
// without a ttl the default one and caps the one asked for.
func TestTaskOwnerAndTTL(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	s := NewMCPServer("test", "1.0.0",
		WithToolCapabilities(false),
		WithTaskCapabilities(true, true, true),
		WithTaskOwner(func(ctx context.Context) string {
			owner, _ := ctx.Value(taskOwnerKey{}).(string)
			return owner
		}),
		WithTaskTTL(1000, 5000),
	)
	s.AddTool(mcp.NewTool("slow", mcp.WithTaskSupport(mcp.TaskSupportOptional)),
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-release
			return mcp.NewToolResultText("done"), nil
		})

	create := func(task string) (id string, ttl float64) {
		t.Helper()
		resp := taskCall(t, s, "alice", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","task":`+task+`}}`)
		result, _ := resp["result"].(map[string]any)
		created, _ := result["task"].(map[string]any)
		id, _ = created["taskId"].(string)
		ttl, _ = created["ttl"].(float64)
		if id == "" {
			t.Fatalf("tools/call as a task: %v, want a created task", resp)
		}
		return id, ttl
	}
	id, ttl := create(`{}`)
	if ttl != 1000 {
		t.Errorf("a task created without a ttl has ttl %v, want the default 1000", ttl)
	}
	if _, ttl := create(`{"ttl":600000}`); ttl != 5000 {
		t.Errorf("a task created with ttl 600000 has ttl %v, want the maximum 5000", ttl)
	}

	get := `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"` + id + `"}}`
	if resp := taskCall(t, s, "alice", get); resp["result"] == nil {
		t.Errorf("tasks/get by its owner: %v, want the task", resp)
	}
	if resp := taskCall(t, s, "mallory", get); resp["error"] == nil {
		t.Errorf("tasks/get by another owner: %v, want an error", resp)
	}
	list := `{"jsonrpc":"2.0","id":3,"method":"tasks/list"}`
	if resp := taskCall(t, s, "mallory", list); resp["result"] == nil {
		t.Errorf("tasks/list by another owner: %v", resp)
	} else if tasks, _ := resp["result"].(map[string]any)["tasks"].([]any); len(tasks) != 0 {
		t.Errorf("tasks/list by another owner: %d tasks, want none", len(tasks))
	}
	cancel := `{"jsonrpc":"2.0","id":4,"method":"tasks/cancel","params":{"taskId":"` + id + `"}}`
	if resp := taskCall(t, s, "mallory", cancel); resp["error"] == nil {
		t.Errorf("tasks/cancel by another owner: %v, want an error", resp)
	}
}
