package gateway

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// TestFastCallMatchesMCPGo is the differential test of the transport's fast
// path for tools/call (gateway/transport/fast.go and mcp-go's
// ServeToolCall): every request, plain or not, gets the same status,
// content type and body from a handler with the fast path as from one
// serving everything through mcp-go's ServeHTTP.
func TestFastCallMatchesMCPGo(t *testing.T) {
	g := calcConformanceGateway(t)
	fast, slow := slowHandler(g, false), slowHandler(g, true)
	call := func(id, params string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":` + params + `}`
	}
	calc := func(args string) string { return call("1", `{"name":"calculate","arguments":`+args+`}`) }
	cases := []struct {
		name, body string
		header     map[string]string
	}{
		{name: "plain", body: calc(`{"operation":"add","a":5,"b":3}`)},
		{name: "string id", body: call(`"abc"`, `{"name":"calculate","arguments":{"operation":"mul","a":6,"b":7}}`)},
		{name: "big id", body: call(`12345678901234567890`, `{"name":"calculate","arguments":{"operation":"add","a":1,"b":2}}`)},
		{name: "fraction id", body: call(`1.5`, `{"name":"calculate","arguments":{"operation":"add","a":1,"b":2}}`)},
		{name: "null id", body: call(`null`, `{"name":"calculate","arguments":{"operation":"add","a":1,"b":2}}`)},
		{name: "spaces", body: "{ \"jsonrpc\" : \"2.0\", \"id\" : 2 ,\n \"method\":\"tools/call\", \"params\": {\"arguments\": { \"b\" : 3 , \"a\":-0.5e1, \"operation\":\"sub\"}, \"name\": \"calculate\"} }"},
		{name: "division by zero", body: calc(`{"operation":"div","a":1,"b":0}`)},
		{name: "schema refusal", body: calc(`{"operation":"add","a":"five","b":3}`)},
		{name: "missing argument", body: calc(`{"operation":"add","a":5}`)},
		{name: "unknown operation", body: calc(`{"operation":"pow","a":5,"b":3}`)},
		{name: "extra argument", body: calc(`{"operation":"add","a":5,"b":3,"c":{"d":[1,2]}}`)},
		{name: "duplicate key", body: calc(`{"operation":"add","a":5,"a":6,"b":3}`)},
		{name: "case collision", body: calc(`{"operation":"add","a":5,"A":6,"b":3}`)},
		{name: "escaped collision", body: calc(`{"operation":"add","a":5,"\u0041":6,"b":3}`)},
		{name: "big number", body: calc(`{"operation":"add","a":12345678901234567890123,"b":1e400}`)},
		{name: "arguments array", body: calc(`[1,2]`)},
		{name: "arguments string", body: calc(`"x"`)},
		{name: "arguments null", body: calc(`null`)},
		{name: "no arguments", body: call("1", `{"name":"calculate"}`)},
		{name: "unknown tool", body: call("1", `{"name":"nope","arguments":{}}`)},
		{name: "name not a string", body: call("1", `{"name":5,"arguments":{}}`)},
		{name: "no params", body: `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`},
		{name: "params not an object", body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1]}`},
		{name: "escaped name", body: call("1", `{"name":"calcul\u0061te","arguments":{"operation":"add","a":5,"b":3}}`)},
		{name: "wrong jsonrpc", body: `{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"calculate","arguments":{"operation":"add","a":5,"b":3}}}`},
		{name: "no jsonrpc", body: `{"id":1,"method":"tools/call","params":{"name":"calculate","arguments":{"operation":"add","a":5,"b":3}}}`},
		{name: "not json", body: `{"jsonrpc":"2.0","id":1,"method":"tools/call",`},
		{name: "trailing data", body: calc(`{"operation":"add","a":5,"b":3}`) + ` {}`},
		{name: "progress token", body: call("1", `{"name":"calculate","arguments":{"operation":"add","a":5,"b":3},"_meta":{"progressToken":"p1"}}`)},
		{name: "meta", body: call("1", `{"name":"calculate","arguments":{"operation":"add","a":5,"b":3},"_meta":{}}`)},
		{name: "task", body: call("1", `{"name":"calculate","arguments":{"operation":"add","a":5,"b":3},"task":{"ttl":1000}}`)},
		{name: "Task", body: call("1", `{"name":"calculate","arguments":{"operation":"add","a":5,"b":3},"TASK":{}}`)},
		{name: "request state", body: call("1", `{"name":"calculate","arguments":{"operation":"add","a":5,"b":3},"requestState":"x"}`)},
		{name: "charset", body: calc(`{"operation":"add","a":5,"b":3}`), header: map[string]string{"Content-Type": "application/json; charset=utf-8"}},
		{name: "wrong content type", body: calc(`{"operation":"add","a":5,"b":3}`), header: map[string]string{"Content-Type": "text/plain"}},
		{name: "unsupported version", body: calc(`{"operation":"add","a":5,"b":3}`), header: map[string]string{"Mcp-Protocol-Version": "1999-01-01"}},
		{name: "older version", body: calc(`{"operation":"add","a":5,"b":3}`), header: map[string]string{"Mcp-Protocol-Version": "2025-06-18"}},
		{name: "no version header", body: calc(`{"operation":"add","a":5,"b":3}`), header: map[string]string{"Mcp-Protocol-Version": ""}},
		{name: "modern header", body: calc(`{"operation":"add","a":5,"b":3}`), header: map[string]string{"Mcp-Protocol-Version": "2026-07-28"}},
		{name: "text", body: call("1", `{"name":"test_simple_text","arguments":{}}`)},
		{name: "image", body: call("1", `{"name":"test_image_content"}`)},
		{name: "multiple", body: call("1", `{"name":"test_multiple_content_types","arguments":{}}`)},
		{name: "embedded", body: call("1", `{"name":"test_embedded_resource","arguments":{}}`)},
		{name: "isError", body: call("1", `{"name":"test_error_handling","arguments":{}}`)},
		{name: "logging", body: call("1", `{"name":"test_tool_with_logging","arguments":{}}`)},
		{name: "progress without token", body: call("1", `{"name":"test_tool_with_progress","arguments":{}}`)},
		{name: "progress", body: call("1", `{"name":"test_tool_with_progress","arguments":{},"_meta":{"progressToken":7}}`)},
	}
	do := func(h http.Handler, id, body string, header map[string]string) *httptest.ResponseRecorder {
		r := benchRequest(body, id)
		for k, v := range header {
			if v == "" {
				r.Header.Del(k)
			} else {
				r.Header.Set(k, v)
			}
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	// A session of each handler, at debug log level; upgraded: one that
	// has been sent a notification (a log line), which mcp-go answers with
	// event streams from then on.
	logged := call(`"log"`, `{"name":"test_tool_with_logging","arguments":{}}`)
	sessions := func(t *testing.T, upgraded bool) (fastID, slowID string) {
		ids := make([]string, 2)
		for i, h := range []http.Handler{fast, slow} {
			ids[i] = httpSession(t, h)
			if w := do(h, ids[i], `{"jsonrpc":"2.0","id":"lvl","method":"logging/setLevel","params":{"level":"debug"}}`, nil); w.Code != http.StatusOK {
				t.Fatalf("setLevel: %d %s", w.Code, w.Body)
			}
			if upgraded {
				if w := do(h, ids[i], logged, nil); !strings.Contains(w.Body.String(), "notifications/message") {
					t.Fatalf("the logging tool sent no notification: %d %s", w.Code, w.Body)
				}
			}
		}
		return ids[0], ids[1]
	}
	for _, state := range []string{"fresh", "upgraded"} {
		upgraded := state == "upgraded"
		for _, c := range cases {
			t.Run(state+"/"+c.name, func(t *testing.T) {
				fastID, slowID := sessions(t, upgraded)
				a, b := do(fast, fastID, c.body, c.header), do(slow, slowID, c.body, c.header)
				got := fmt.Sprintf("%d %s\n%s", a.Code, a.Header().Get("Content-Type"), a.Body)
				want := fmt.Sprintf("%d %s\n%s", b.Code, b.Header().Get("Content-Type"), b.Body)
				if got != want {
					t.Errorf("%s\nfast path:\n%s\nmcp-go:\n%s", c.body, got, want)
				}
				if strings.Contains(c.name, "logging") && !strings.Contains(got, "notifications/message") {
					t.Errorf("no log notification ahead of the result:\n%s", got)
				}
				if c.name == "plain" {
					// The state is what the case says: mcp-go answers a
					// session that was sent a notification with an event
					// stream, and a fresh one with JSON.
					wantType := "application/json"
					if upgraded {
						wantType = "text/event-stream"
					}
					if ct := a.Header().Get("Content-Type"); ct != wantType {
						t.Errorf("Content-Type %q on a %s session, want %q", ct, state, wantType)
					}
				}
			})
		}
		// Under concurrent calls on the same session too.
		t.Run(state+"/concurrent", func(t *testing.T) {
			fastID, slowID := sessions(t, upgraded)
			body := calc(`{"operation":"add","a":5,"b":3}`)
			want := do(slow, slowID, body, nil).Body.String()
			errs := make(chan string, 64)
			for i := 0; i < 64; i++ {
				go func() {
					w := do(fast, fastID, body, nil)
					if w.Code != http.StatusOK || w.Body.String() != want {
						errs <- fmt.Sprintf("%d %s", w.Code, w.Body)
						return
					}
					errs <- ""
				}()
			}
			deadline := time.After(time.Minute)
			for i := 0; i < 64; i++ {
				select {
				case e := <-errs:
					if e != "" {
						t.Errorf("fast path: %s, want %s", e, want)
					}
				case <-deadline:
					t.Fatal("calls did not finish")
				}
			}
		})
	}
}

// calcConformanceGateway serves the calculator example and the
// conformance fixture (its logging, progress and content tools)
// in-process.
func calcConformanceGateway(t *testing.T) *Gateway {
	t.Helper()
	conf := builtWasm(t, "testdata/plugins/conformance.wasm")
	return newPluginsGateway(t, builtWasm(t, "examples/plugins/calculator.wasm"), conf)
}

// newPluginsGateway serves the plugins at paths in-process.
func newPluginsGateway(tb testing.TB, paths ...string) *Gateway {
	tb.Helper()
	yaml := "plugins:\n"
	for _, p := range paths {
		yaml += "  - path: " + p + "\n"
	}
	return openTestGateway(tb, yaml)
}

// FuzzFastCall compares the fast path with mcp-go's ServeHTTP on any
// body: same status, content type and body.
func FuzzFastCall(f *testing.F) {
	calc := builtWasm(f, "examples/plugins/calculator.wasm")
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"calculate","arguments":{"operation":"add","a":5,"b":3}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"calculate","arguments":{"operation":"div","a":5,"b":0}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"calculate","arguments":{"a":1,"A":2}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"calculate","arguments":{"operation":"add","a":5,"b":3},"_meta":{"progressToken":1}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
	} {
		f.Add([]byte(s))
	}
	g := newPluginsGateway(f, calc)
	fast, slow := slowHandler(g, false), slowHandler(g, true)
	fastID, slowID := httpSession(f, fast), httpSession(f, slow)
	f.Fuzz(func(t *testing.T, body []byte) {
		do := func(h http.Handler, id string) string {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, benchRequest(string(body), id))
			return fmt.Sprintf("%d %s\n%s", w.Code, w.Header().Get("Content-Type"), w.Body)
		}
		if got, want := do(fast, fastID), do(slow, slowID); got != want {
			t.Fatalf("%q\nfast path:\n%s\nmcp-go:\n%s", body, got, want)
		}
	})
}

// TestServeToolCallUpgradedSession: mcp-go's ServeToolCall (the fast path)
// serves a tools/call on a session that has been sent a notification, and
// answers it with the event stream ServeHTTP answers it with. It used to
// decline such a session, which left every session that had seen one log
// line or list_changed (a reload) on the slow path for good.
func TestServeToolCallUpgradedSession(t *testing.T) {
	g := calcConformanceGateway(t)
	sh := server.NewStreamableHTTPServer(g.MCPServer(), server.WithEndpointPath("/mcp"))
	serve := func(id, body string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		sh.ServeHTTP(w, benchRequest(body, id))
		return w
	}
	body := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"calculate","arguments":{"operation":"add","a":5,"b":3}}}`
	var answers []string
	for _, fastPath := range []bool{true, false} {
		id := httpSession(t, sh)
		serve(id, `{"jsonrpc":"2.0","id":"lvl","method":"logging/setLevel","params":{"level":"debug"}}`)
		if w := serve(id, `{"jsonrpc":"2.0","id":"log","method":"tools/call","params":{"name":"test_tool_with_logging","arguments":{}}}`); !strings.Contains(w.Body.String(), "notifications/message") {
			t.Fatalf("the logging tool sent no notification: %d %s", w.Code, w.Body)
		}
		w := httptest.NewRecorder()
		if fastPath {
			if !sh.ServeToolCall(w, benchRequest(body, id), []byte(body)) {
				t.Fatal("ServeToolCall declined a plain tools/call on a session that was sent a notification")
			}
		} else {
			sh.ServeHTTP(w, benchRequest(body, id))
		}
		if ct := w.Header().Get("Content-Type"); ct != "text/event-stream" || !strings.Contains(w.Body.String(), `"text":"8"`) {
			t.Fatalf("fast path %v: %d %q\n%s", fastPath, w.Code, ct, w.Body)
		}
		answers = append(answers, fmt.Sprintf("%d %s\n%s", w.Code, w.Header().Get("Content-Type"), w.Body))
	}
	if answers[0] != answers[1] {
		t.Errorf("ServeToolCall:\n%s\nServeHTTP:\n%s", answers[0], answers[1])
	}
}
