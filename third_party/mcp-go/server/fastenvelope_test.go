package server

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// FuzzFastToolCall: whatever fastToolCall reads, parseEnvelope and
// decodeCallToolRequest read the same from it.
func FuzzFastToolCall(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"calculate","arguments":{"operation":"add","a":5,"b":3}}}`,
		` { "params" : { "arguments" : { "x" : -0.5e-3 , "y":true,"z":null,"w":false} , "name":"t"}, "method":"tools/call","id":"abc" ,"jsonrpc":"2.0"} `,
		`{"jsonrpc":"2.0","id":-0,"method":"tools/call","params":{}}`,
		`{"jsonrpc":"2.0","id":123456789012345,"method":"tools/call","params":{"name":"x","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":1e400}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":1,"a":2}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":[1]}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`,
		`{"jsonrpc":1,"id":1,"method":"tools/call","params":{}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		fast, ok := fastToolCall(msg)
		if !ok {
			return
		}
		env, err := parseEnvelope(msg)
		if err != nil {
			t.Fatalf("fastToolCall read %q; parseEnvelope: %v", msg, err)
		}
		var want mcp.CallToolRequest
		if err := decodeCallToolRequest(env, &want); err != nil {
			t.Fatalf("fastToolCall read %q; decodeCallToolRequest: %v", msg, err)
		}
		got := fast.toolCall
		fast.toolCall = nil
		if !reflect.DeepEqual(fast, env) {
			t.Fatalf("%q: envelope %#v, parseEnvelope %#v", msg, fast, env)
		}
		if !reflect.DeepEqual(*got, want) {
			t.Fatalf("%q: request %#v, decoded %#v", msg, *got, want)
		}
		if f, ok := fast.id.(float64); ok && (f == 0) && (1/f < 0) != (1/env.id.(float64) < 0) {
			t.Fatalf("%q: id sign differs", msg)
		}
	})
}

// FuzzTextResult: appendTextResult writes what json.Encoder writes.
func FuzzTextResult(f *testing.F) {
	f.Add("8", "text", int64(7), "", false, 1)
	f.Add("a <b> & \"c\" \\ \u2028 \xff \x01", "text", int64(-1), "id<&>", true, 2)
	f.Add("", "", int64(0), "x", false, 0)
	f.Fuzz(func(t *testing.T, text, typ string, n int64, sid string, isError bool, items int) {
		if items < 0 || items > 3 {
			return
		}
		res := &mcp.CallToolResult{IsError: isError}
		for i := 0; i < items; i++ {
			res.Content = append(res.Content, mcp.TextContent{Type: typ, Text: text})
		}
		for _, id := range []any{float64(n), sid} {
			resp := createResponse(id, res)
			got, ok := appendTextResult(nil, resp)
			if !ok {
				t.Fatalf("appendTextResult declined %#v", resp)
			}
			var want bytes.Buffer
			if err := json.NewEncoder(&want).Encode(resp); err != nil {
				t.Fatal(err)
			}
			if string(got) != want.String() {
				t.Fatalf("appendTextResult = %s, encoding/json = %s", got, want.String())
			}
		}
	})
}
