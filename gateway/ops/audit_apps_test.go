package ops

import (
	"testing"
	"time"
)

// An MCP App's call: origin=app and the App's URI, after everything else
// a line can have (the attribute array holds them all).
func TestAuditAppAttrs(t *testing.T) {
	r := auditRec{principal: "p", transport: "http", session: "s", endpoint: "default", kind: "tool", name: "a_get-time",
		outcome: "ok", took: time.Millisecond, traceID: "t", args: "{}", upstreamMode: "token_exchange", upstreamSubject: "u",
		flowRule: "r", flowAction: "audit", flowChain: "c", interceptor: "i", decision: "continue", app: "ui://a/get-time/mcp-app.html"}
	attrs, n := r.attrs()
	got := map[string]string{}
	for _, a := range attrs[:n] {
		got[a.Key] = a.Value.String()
	}
	if got["origin"] != "app" || got["app"] != "ui://a/get-time/mcp-app.html" || got["arguments"] != "{}" {
		t.Errorf("attrs %v, want origin=app app=ui://a/get-time/mcp-app.html and the arguments", got)
	}
	r.app = ""
	attrs, n = r.attrs()
	for _, a := range attrs[:n] {
		if a.Key == "origin" || a.Key == "app" {
			t.Errorf("a call not from an App has %s", a.Key)
		}
	}
}
