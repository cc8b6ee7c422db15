// Command stalling is an MCP server over stdio, written without an SDK,
// for the upstream tests of a server whose pipes misbehave.
//
// Tools: "echo" {text} answers with the length of text; "stop_reading"
// answers, then the server never reads its stdin again (it keeps running,
// as a server stuck in a loop would), so the gateway's writes to it fill
// the pipe; "stderr" {bytes} writes one stderr line of that many bytes,
// then the short line "stalling: the line after the long one", and
// answers.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

type msg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method"`
	Params struct {
		Name            string         `json:"name"`
		Arguments       map[string]any `json:"arguments"`
		ProtocolVersion string         `json:"protocolVersion"`
	} `json:"params"`
}

func send(id json.RawMessage, result any) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	os.Stdout.Write(append(b, '\n'))
}

func text(s string) map[string]any {
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}}
}

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return
		}
		var m msg
		if json.Unmarshal(line, &m) != nil || len(m.ID) == 0 {
			continue // a notification
		}
		switch m.Method {
		case "initialize":
			send(m.ID, map[string]any{"protocolVersion": m.Params.ProtocolVersion, "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "stalling", "version": "1"}})
		case "tools/list":
			obj := map[string]any{"type": "object"}
			send(m.ID, map[string]any{"tools": []any{
				map[string]any{"name": "echo", "inputSchema": obj},
				map[string]any{"name": "stop_reading", "inputSchema": obj},
				map[string]any{"name": "stderr", "inputSchema": obj},
			}})
		case "tools/call":
			switch m.Params.Name {
			case "echo":
				s, _ := m.Params.Arguments["text"].(string)
				send(m.ID, text(fmt.Sprintf("got %d bytes", len(s))))
			case "stop_reading":
				send(m.ID, text("not reading any more"))
				for { // never reads stdin again
					time.Sleep(time.Hour)
				}
			case "stderr":
				n, _ := m.Params.Arguments["bytes"].(float64)
				os.Stderr.Write(append(bytes.Repeat([]byte("x"), int(n)), '\n'))
				os.Stderr.WriteString("stalling: the line after the long one\n")
				send(m.ID, text("written"))
			default:
				b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32602, "message": "no tool " + m.Params.Name}})
				os.Stdout.Write(append(b, '\n'))
			}
		default:
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "no " + m.Method}})
			os.Stdout.Write(append(b, '\n'))
		}
	}
}
