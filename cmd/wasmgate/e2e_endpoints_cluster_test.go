package main

// Issue 40 (endpoints) across replicas: three replicas on Redis behind a
// round-robin HAProxy serve two endpoints; a 2025-11-25 session is routed
// per endpoint on every replica, whether the replica knows the id from
// the shared registry only or has served it already.

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// endpointsSection publishes the example plugins as two endpoints: math
// (the calculator) and people (the greeter and storage without
// set-storage), each with its title and instructions.
const endpointsSection = `endpoints:
  - name: math
    path: /mcp/math
    title: Math tools
    instructions: Arithmetic only.
    sources: [calculator]
  - name: people
    path: /mcp/people
    title: People tools
    instructions: Greetings and notes.
    sources: [greeter, "stor*"]
    tools: {exclude: ["set-*"]}
`

func TestEndpointsAcrossReplicas(t *testing.T) {
	t.Parallel()
	c := startCluster(t, endpointsSection)
	ctx := harness.Ctx(t, 120*time.Second)
	lb := "http://" + c.lb.Addr
	bases := make([]string, len(c.replicas))
	for i, g := range c.replicas {
		bases[i] = endpointBase(t, g.MCPURL)
	}

	// Both endpoints' lists on every replica, each with a session of its
	// own on that replica.
	for i, base := range bases {
		for path, want := range map[string][]string{"/mcp/math": {"calculate"}, "/mcp/people": {"say_hello"}} {
			cl, _ := harness.HTTPClient(t, base+path, harness.ProtoSessions)
			if got := harness.Tools(ctx, t, cl); !slices.Equal(got, want) {
				t.Errorf("replica %d, %s: tools %q, want %q", i+1, path, got, want)
			}
		}
	}

	type side struct {
		path, other string
		tool        string
		args        func(i int) map[string]any
		want        func(i int) string
	}
	sides := []side{
		{"/mcp/math", "/mcp/people", "calculate",
			func(i int) map[string]any { return map[string]any{"operation": "add", "a": i, "b": 1} },
			func(i int) string { return fmt.Sprint(i + 1) }},
		{"/mcp/people", "/mcp/math", "say_hello",
			func(i int) map[string]any { return map[string]any{"name": fmt.Sprintf("n%d", i)} },
			func(i int) string { return fmt.Sprintf("n%d", i) }},
	}
	for _, s := range sides {
		// A session opened on replica 1 directly: replicas 2 and 3 know its
		// id from Redis only. Presented at the other endpoint's path there
		// first, it is unknown (404), and that does not end it.
		cl, _ := harness.HTTPClient(t, bases[0]+s.path, harness.ProtoSessions)
		id := cl.GetSessionId()
		if id == "" {
			t.Fatalf("%s: no Mcp-Session-Id", s.path)
		}
		for i, base := range bases {
			if code := postWithSession(t, base+s.other, id); code != 404 {
				t.Errorf("a %s session at %s on replica %d (not served there yet): %d, want 404", s.path, s.other, i+1, code)
			}
		}

		// Through round robin it keeps working on every replica.
		before := make([]float64, len(c.replicas))
		for i, g := range c.replicas {
			before[i] = g.Scrape(t).ToolCalls(s.tool, "ok")
		}
		lbc, _ := harness.HTTPClient(t, lb+s.path, harness.ProtoSessions)
		for i := range 9 { // three rounds of the three replicas
			text, isErr := harness.CallTool(ctx, t, lbc, s.tool, s.args(i))
			if isErr || !strings.Contains(text, s.want(i)) {
				t.Fatalf("%s call %d through round robin: %q (isError %v), want %q", s.path, i+1, text, isErr, s.want(i))
			}
		}
		for i, g := range c.replicas {
			if n := g.Scrape(t).ToolCalls(s.tool, "ok"); n <= before[i] {
				t.Errorf("%s: replica %d served none of the round robin's calls (%v before, %v after)", s.path, i+1, before[i], n)
			}
		}
		// Its lists stay its own, whichever replica answers.
		for range 3 {
			if got := harness.Tools(ctx, t, lbc); !slices.Equal(got, []string{s.tool}) {
				t.Errorf("%s through round robin: tools %q, want [%s]", s.path, got, s.tool)
			}
		}

		// The first session, now on every replica: accepted at its own
		// path, unknown at the other's on each.
		for i, base := range bases {
			if code := postWithSession(t, base+s.path, id); code != 200 {
				t.Errorf("a %s session at its own path on replica %d: %d, want 200", s.path, i+1, code)
			}
			if code := postWithSession(t, base+s.other, id); code != 404 {
				t.Errorf("a %s session at %s on replica %d (served there): %d, want 404", s.path, s.other, i+1, code)
			}
		}
		// And the round robin's session too, presented at the other
		// endpoint through the balancer: 404 on each replica in turn.
		for i := range 3 {
			if code := postWithSession(t, lb+s.other, lbc.GetSessionId()); code != 404 {
				t.Errorf("a %s session at %s through round robin (request %d): %d, want 404", s.path, s.other, i+1, code)
			}
		}
		if text, isErr := harness.CallTool(ctx, t, cl, s.tool, s.args(41)); isErr || !strings.Contains(text, s.want(41)) {
			t.Errorf("%s: the first session after its id was refused at %s: %q (isError %v)", s.path, s.other, text, isErr)
		}
	}

	// The TypeScript SDK through round robin on each endpoint (a GET
	// stream, calls, DELETE).
	checkMath(t, "math through HAProxy", runEndpointClient(t, "http", lb+"/mcp/math", callAdd, callHello, callStore, callMissing))
	checkPeople(t, "people through HAProxy", runEndpointClient(t, "http", lb+"/mcp/people", callHello, callAdd, callStore, callMissing))
}
