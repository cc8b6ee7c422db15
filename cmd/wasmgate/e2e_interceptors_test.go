package main

// Interceptors (issue 44) through the binary: an external interceptor
// server (internal/interceptortest, written from the interceptors draft)
// that denies, and modifies arguments and results; failure closed and
// open when it is down.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/internal/interceptortest"
)

func TestInterceptorServer(t *testing.T) {
	t.Parallel()
	srv := interceptortest.Start(t,
		interceptortest.DenyTool("no-math", "calculate", "arithmetic is not allowed here"),
		interceptortest.LowerArgument("lower", "name"),
		interceptortest.ReplaceWord("howdy", "Hello", "Howdy"))
	// The server is reached with a bearer token from a file and a plain
	// header, and told the entry's config.
	const secret = "interceptor-token-5e1f"
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	section := func(failure string) string {
		return fmt.Sprintf("interceptors:\n  - {name: policy-server, url: %q, on: [tools/call], phase: both, failure: %s, limits: {timeout: 2s},\n"+
			"     auth: {bearer_file: %q}, headers: {X-Team: blue}, config: {root: /srv}}\n", srv.URL+"/mcp", failure, tokenFile)
	}
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{Server: harness.NoWatch, Plugins: harness.ExamplePlugins(t), Sections: section("closed")}))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 90*time.Second)
	c := g.SessionClient(t)

	// Modified on the way in (the name lower-cased) and on the way out
	// (Hello replaced): the plugin greets "alice", the client reads Howdy.
	res, err := harness.CallToolErr(ctx, c, "say_hello", map[string]any{"name": "ALICE"})
	if err != nil || res.IsError || harness.ResultText(res) != "Howdy, alice!" {
		t.Fatalf("say_hello through the interceptors: %v %q", err, harness.ResultText(res))
	}
	invs := srv.Invocations()
	if len(invs) == 0 {
		t.Fatal("the server saw no invocation")
	}
	if h := invs[0].Header; h.Get("Authorization") != "Bearer "+secret || h.Get("X-Team") != "blue" {
		t.Errorf("the server got Authorization %q, X-Team %q; want the bearer token from auth.bearer_file and the header", h.Get("Authorization"), h.Get("X-Team"))
	}
	if string(invs[0].Config) != `{"root":"/srv"}` {
		t.Errorf("the server got config %s, want the entry's config", invs[0].Config)
	}
	// Denied before the plugin runs, with the server's reason.
	res, err = harness.CallToolErr(ctx, c, "calculate", map[string]any{"operation": "add", "a": 1, "b": 2})
	if err != nil || !res.IsError || !strings.Contains(harness.ResultText(res), `denied by interceptor "policy-server"`) ||
		!strings.Contains(harness.ResultText(res), "arithmetic is not allowed here") {
		t.Errorf("calculate: %v %q; want it denied by the interceptor with its reason", err, harness.ResultText(res))
	}
	m := g.Scrape(t)
	if n := m.Sum("wasmgate_interceptor_decisions_total", map[string]string{"interceptor": "policy-server", "decision": "modify"}); n != 2 {
		t.Errorf("modify decisions %v, want 2 (the request and the response of say_hello)", n)
	}
	if n := m.Sum("wasmgate_interceptor_decisions_total", map[string]string{"interceptor": "policy-server", "decision": "deny"}); n != 1 {
		t.Errorf("deny decisions %v, want 1", n)
	}
	// The audit line is written before the answer, but read from the
	// gateway's stderr by another goroutine: wait for it.
	var denied auditRecord
	harness.WaitFor(10*time.Second, func() bool {
		for _, a := range auditLines(t, g.Stderr()) {
			if a["name"] == "calculate" {
				denied = a
			}
		}
		return denied != nil
	})
	if denied["interceptor"] != "policy-server" || denied["decision"] != "deny" || denied["outcome"] != "denied" {
		t.Errorf("the denied call's audit line: %v", denied)
	}

	// The server goes away: with failure closed the call fails, naming
	// the interceptor; reloaded to failure open, the call goes on.
	srv.Close()
	res, err = harness.CallToolErr(ctx, c, "say_hello", map[string]any{"name": "bob"})
	if err != nil || !res.IsError || !strings.Contains(harness.ResultText(res), `interceptor "policy-server" failed`) {
		t.Errorf("say_hello with the server down, failure closed: %v %q", err, harness.ResultText(res))
	}
	harness.RenameOver(t, cfg, []byte(bins.YAML(harness.Parts{Server: harness.NoWatch, Plugins: harness.ExamplePlugins(t), Sections: section("open")})))
	g.MustReload(t, "reload to failure: open with the server down")
	res, err = harness.CallToolErr(ctx, c, "say_hello", map[string]any{"name": "Bob"})
	if err != nil || res.IsError || harness.ResultText(res) != "Hello, Bob!" {
		t.Errorf("say_hello with the server down, failure open: %v %q; want the call to go on untouched", err, harness.ResultText(res))
	}
	if n := g.Scrape(t).Sum("wasmgate_interceptor_decisions_total", map[string]string{"interceptor": "policy-server", "decision": "error"}); n < 2 {
		t.Errorf("error decisions %v, want the failures counted", n)
	}
	if _, ok := g.WaitLog(0, "interceptor failed", 10*time.Second); !ok {
		t.Error("no log line for the failing interceptor")
	}
	if strings.Contains(g.Stderr(), secret) {
		t.Error("the interceptor server's token is in the gateway's log")
	}
}
