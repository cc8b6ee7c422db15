// Command unruly is an MCP server over stdio, written without an SDK so
// that it can misbehave the way a real one might, for the upstream
// tests: it floods notifications (progress, log messages, list_changed,
// resources/updated) as fast as the pipe takes them, and lists as many
// tools as it is told to (-tools N, in pages of -page P).
//
// Tools: "hello" answers "hello"; "ask" asks its client to sample, then
// to elicit a name, and answers with both ("ask" {kind: "roots"} asks
// roots/list instead and answers with the roots' URIs); "flood" {kind, n} sends n
// notifications of kind (progress, message, list_changed, updated), then
// answers "flooded n". Resource unruly://r can be subscribed to.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"sync"
)

type msg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

var (
	mu  sync.Mutex
	out = bufio.NewWriterSize(os.Stdout, 64<<10)
)

func send(v any) {
	b, _ := json.Marshal(v)
	mu.Lock()
	defer mu.Unlock()
	out.Write(b)
	out.WriteByte('\n')
}

func flush() {
	mu.Lock()
	defer mu.Unlock()
	out.Flush()
}

func result(id json.RawMessage, r any) {
	send(map[string]any{"jsonrpc": "2.0", "id": id, "result": r})
	flush()
}

func text(s string) map[string]any {
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}}
}

func main() {
	extra := flag.Int("tools", 0, "tools t0..tN-1 listed besides hello and flood")
	page := flag.Int("page", 0, "tools per tools/list page (0: all in one)")
	flag.Parse()
	tools := []any{
		map[string]any{"name": "hello", "inputSchema": map[string]any{"type": "object"}},
		map[string]any{"name": "ask", "description": "asks its client to sample, then to elicit a name (kind roots: to list its roots)", "inputSchema": map[string]any{"type": "object"}},
		map[string]any{"name": "flood", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{
			"kind": map[string]any{"type": "string"}, "n": map[string]any{"type": "number"}}}},
	}
	for i := range *extra {
		tools = append(tools, map[string]any{"name": "t" + strconv.Itoa(i), "description": "generated tool " + strconv.Itoa(i),
			"inputSchema": map[string]any{"type": "object"}})
	}
	// The calls of "ask" waiting for their client's answers, by the id of
	// the request sent to the client.
	waiting := map[string]func(m msg){}
	seq := 0
	request := func(method string, params any, then func(m msg)) {
		seq++
		id := fmt.Sprintf("u-%d", seq)
		waiting[id] = then
		send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		flush()
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 16<<20)
	for in.Scan() {
		var m msg
		if json.Unmarshal(in.Bytes(), &m) != nil || m.ID == nil {
			continue // a notification, or garbage
		}
		if m.Method == "" { // the client's answer to a request of ours
			var id string
			_ = json.Unmarshal(m.ID, &id)
			if then := waiting[id]; then != nil {
				delete(waiting, id)
				then(m)
			}
			continue
		}
		switch m.Method {
		case "initialize":
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			_ = json.Unmarshal(m.Params, &p)
			result(m.ID, map[string]any{"protocolVersion": p.ProtocolVersion, "serverInfo": map[string]any{"name": "unruly", "version": "1"},
				"capabilities": map[string]any{"tools": map[string]any{"listChanged": true}, "resources": map[string]any{"subscribe": true}, "logging": map[string]any{}}})
		case "ping", "resources/subscribe", "resources/unsubscribe", "logging/setLevel":
			result(m.ID, map[string]any{})
		case "tools/list":
			var p struct {
				Cursor string `json:"cursor"`
			}
			_ = json.Unmarshal(m.Params, &p)
			from, _ := strconv.Atoi(p.Cursor)
			to := len(tools)
			if *page > 0 && from+*page < to {
				to = from + *page
			}
			r := map[string]any{"tools": tools[min(from, len(tools)):to]}
			if to < len(tools) {
				r["nextCursor"] = strconv.Itoa(to)
			}
			result(m.ID, r)
		case "resources/list":
			result(m.ID, map[string]any{"resources": []any{map[string]any{"uri": "unruly://r", "name": "r", "mimeType": "text/plain"}}})
		case "resources/templates/list":
			result(m.ID, map[string]any{"resourceTemplates": []any{}})
		case "resources/read":
			result(m.ID, map[string]any{"contents": []any{map[string]any{"uri": "unruly://r", "mimeType": "text/plain", "text": "r"}}})
		case "tools/call":
			var p struct {
				Name      string `json:"name"`
				Arguments struct {
					Kind string  `json:"kind"`
					N    float64 `json:"n"`
				} `json:"arguments"`
				Meta struct {
					ProgressToken any `json:"progressToken"`
				} `json:"_meta"`
			}
			_ = json.Unmarshal(m.Params, &p)
			switch p.Name {
			case "hello":
				result(m.ID, text("hello"))
			case "ask":
				call := m.ID
				failed := func(a msg) bool {
					if a.Error != nil {
						result(call, map[string]any{"isError": true, "content": []any{map[string]any{"type": "text", "text": "the client refused: " + string(a.Error)}}})
						return true
					}
					return false
				}
				if p.Arguments.Kind == "roots" {
					request("roots/list", map[string]any{}, func(a msg) {
						if failed(a) {
							return
						}
						var listed struct {
							Roots []struct {
								URI string `json:"uri"`
							} `json:"roots"`
						}
						_ = json.Unmarshal(a.Result, &listed)
						s := "roots:"
						for _, r := range listed.Roots {
							s += " " + r.URI
						}
						result(call, text(s))
					})
					break
				}
				request("sampling/createMessage", map[string]any{"maxTokens": 10,
					"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "the answer?"}}}}, func(a msg) {
					if failed(a) {
						return
					}
					var sampled struct {
						Content struct {
							Text string `json:"text"`
						} `json:"content"`
					}
					_ = json.Unmarshal(a.Result, &sampled)
					request("elicitation/create", map[string]any{"message": "Your name?",
						"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}, func(a msg) {
						if failed(a) {
							return
						}
						var el struct {
							Action  string         `json:"action"`
							Content map[string]any `json:"content"`
						}
						_ = json.Unmarshal(a.Result, &el)
						result(call, text(fmt.Sprintf("sampled: %s; elicited: %v (%s)", sampled.Content.Text, el.Content["name"], el.Action)))
					})
				})
			case "flood":
				n := int(p.Arguments.N)
				for i := range n {
					switch p.Arguments.Kind {
					case "progress":
						send(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress",
							"params": map[string]any{"progressToken": p.Meta.ProgressToken, "progress": i + 1, "total": n}})
					case "message":
						send(map[string]any{"jsonrpc": "2.0", "method": "notifications/message",
							"params": map[string]any{"level": "info", "data": fmt.Sprintf("line %d", i)}})
					case "list_changed":
						send(map[string]any{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
					case "updated":
						send(map[string]any{"jsonrpc": "2.0", "method": "notifications/resources/updated",
							"params": map[string]any{"uri": "unruly://r"}})
					}
				}
				result(m.ID, text(fmt.Sprintf("flooded %d", n)))
			default:
				send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32602, "message": "no tool " + p.Name}})
				flush()
			}
		default:
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "no method " + m.Method}})
			flush()
		}
	}
}
