package main

// Issue 16, items 4-6: subscriptions bounded and policed, per-caller
// shares of sessions and streams, per-call caps on a plugin's
// notifications. Each attack against the built binary: it fails with a
// clear error, heap and goroutines come back near their baseline (from
// /metrics), and the legitimate owner keeps serving. The relay's
// registration rate limit is tested in relay (TestRegisterRateLimit).

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/internal/relaytest"
)

// nearBaseline fails t when the gateway's live heap or goroutines stay
// well above base once the attack is over.
func nearBaseline(t *testing.T, g *harness.Gateway, base runtimeStats) {
	t.Helper()
	after := settledMin(t, g, &base)
	if after.heap > base.heap+24<<20 {
		t.Errorf("heap did not come back: %v after, %v before", after, base)
	}
	if after.goroutines > base.goroutines+3 {
		t.Errorf("goroutines did not come back: %v after, %v before", after, base)
	}
	t.Logf("before %v; after %v", base, after)
}

// tokenClient is a 2025-11-25 HTTP client sending token, recording its
// notifications.
func tokenClient(t *testing.T, g *harness.Gateway, token string) (*client.Client, *capableClient) {
	t.Helper()
	h := &capableClient{}
	tr, err := transport.NewStreamableHTTP(g.MCPURL, transport.WithContinuousListening(), withToken(token))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr)
	c.OnNotification(h.note)
	harness.Init(t, c, harness.ProtoSessions)
	t.Cleanup(func() { c.Close() })
	return c, h
}

func subsPolicy(alice, bob string, bobReads string) string {
	return fmt.Sprintf(`auth:
  principals:
    - {name: alice, token_sha256: %s}
    - {name: bob, token_sha256: %s}
policy:
  rules:
    - principals: [alice]
      allow: {tools: ["*"], resources: ["*"]}
    - principals: [bob]
      allow: {tools: ["*"], resources: [%s]}
`, sha256Hex(alice), sha256Hex(bob), bobReads)
}

// TestSubscriptionsArePoliced: subscribing to URIs longer than
// server.max_subscription_uri, that no source serves, that policy does
// not let the caller read, or past server.max_subscriptions_per_session is
// refused with a JSON-RPC error naming why; and an update reaches only
// the subscribers that may still read the URI when it is sent, after a
// reload that takes bob's right away too.
func TestSubscriptionsArePoliced(t *testing.T) {
	t.Parallel()
	alice, bob := newToken(t), newToken(t)
	secrets := harness.Secrets{alice, bob}
	v2 := harness.Q(harness.Wasm(t, "testdata/plugins/hyperv2"))
	yaml := func(bobReads string) string {
		return bins.YAML(harness.Parts{
			Server:   "  max_subscriptions_per_session: 5\n",
			Plugins:  harness.Item("name: hyperv2", "path: "+v2, "prefix: p", "instances: single"),
			Sections: subsPolicy(alice, bob, bobReads),
		})
	}
	cfg := harness.WriteConfig(t, yaml(`"hyper://p/notes/public*"`))
	g := bins.Start(t, harness.Options{Config: cfg, Env: abuseEnv})
	secrets.Watch(t, g)
	ctx := harness.Ctx(t, 6*time.Minute)
	base := settledMin(t, g, nil)
	// The attacker's session.
	x, _ := tokenClient(t, g, bob)

	subscribe := func(c *client.Client, uri string) error {
		return c.Subscribe(ctx, mcp.SubscribeRequest{Params: mcp.SubscribeParams{URI: uri}})
	}
	refused := func(what string, err error, want string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: %v, want an error with %q", what, err, want)
		}
	}
	// 60 distinct 1 MiB URIs nobody serves (500 times the 2 KiB bound):
	// each refused, none kept (60 MiB kept would be far over
	// nearBaseline's 24 MiB). They were 2 MiB, which added nothing but
	// 20 s of encoding and decoding under the race detector.
	for i := range 60 {
		uri := fmt.Sprintf("evil://%d/%s", i, strings.Repeat("x", 1<<20))
		refused("a 1 MiB URI", subscribe(x, uri), "server.max_subscription_uri")
	}
	refused("a URI nobody serves", subscribe(x, "evil2://alice-private"), "not a resource you may read")
	refused("a URI bob may not read", subscribe(x, "hyper://p/notes/alice-private"), "not a resource you may read")
	refused("a static URI bob may not read", subscribe(x, "hyper://p/readme"), "not a resource you may read")
	x.Close()
	// A 2026-07-28 subscriptions/listen is policed the same way.
	for _, uri := range []string{"evil2://alice-private", "hyper://p/notes/alice-private"} {
		body := strings.Replace(listenBody, `"toolsListChanged":true`, `"resourceSubscriptions":["`+uri+`"]`, 1)
		resp, text := listenWith(t, ctx, g.MCPURL, bob, body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK && !strings.Contains(text, "not a resource you may read") {
			t.Fatalf("subscriptions/listen to %s: %d %s", uri, resp.StatusCode, text)
		}
		if !strings.Contains(text, "not a resource you may read") {
			t.Fatalf("subscriptions/listen to %s: %d %s, want the refusal", uri, resp.StatusCode, text)
		}
	}
	// Sessions opened now: their GET streams are fresh (see the report
	// on streams older than read_timeout).
	a, ha := tokenClient(t, g, alice)
	b, hb := tokenClient(t, g, bob)
	for i := range 5 {
		if err := subscribe(b, fmt.Sprintf("hyper://p/notes/public%d", i)); err != nil {
			t.Fatalf("bob's subscription %d: %v", i, err)
		}
	}
	if err := subscribe(b, "hyper://p/notes/public0"); err != nil {
		t.Fatalf("subscribing twice to the same URI: %v", err)
	}
	refused("a sixth subscription", subscribe(b, "hyper://p/notes/public9"), "server.max_subscriptions_per_session")
	if err := b.Unsubscribe(ctx, mcp.UnsubscribeRequest{Params: mcp.UnsubscribeParams{URI: "hyper://p/notes/public4"}}); err != nil {
		t.Fatal(err)
	}
	if err := subscribe(b, "hyper://p/notes/public9"); err != nil {
		t.Fatalf("a subscription after an unsubscribe: %v", err)
	}
	// The owner of the URIs keeps serving, and alice subscribes as before.
	for _, uri := range []string{"hyper://p/notes/alice-private", "hyper://p/notes/public0", "hyper://p/readme"} {
		if err := subscribe(a, uri); err != nil {
			t.Fatalf("alice subscribes to %s: %v", uri, err)
		}
	}
	if got := harness.ReadText(ctx, t, a, "hyper://p/notes/alice-private"); got != "note alice-private" {
		t.Errorf("alice reads her note: %q", got)
	}
	for reason, want := range map[string]float64{"uri_too_long": 60, "not_served": 2, "denied": 3, "too_many": 1} {
		if got, _ := g.Metric(t, "wasmgate_subscriptions_refused_total", map[string]string{"reason": reason}); got != want {
			t.Errorf("wasmgate_subscriptions_refused_total{reason=%q} = %v, want %v", reason, got, want)
		}
	}

	updated := func(h *capableClient) []string {
		var out []string
		for _, n := range h.notesOf("notifications/resources/updated") {
			out = append(out, fmt.Sprint(n.Params.AdditionalFields["uri"]))
		}
		return out
	}
	touch := func(id string) {
		t.Helper()
		if got, _ := harness.CallTool(ctx, t, a, "p_v2_touch", map[string]any{"id": id}); got != "touched" {
			t.Fatalf("p_v2_touch %s = %q", id, got)
		}
	}
	touch("public0")
	if !harness.WaitFor(10*time.Second, func() bool { return len(updated(ha)) == 1 && len(updated(hb)) == 1 }) {
		t.Fatalf("updates of public0: alice %q, bob %q", updated(ha), updated(hb))
	}
	// A reload takes bob's right to read the public notes away: his
	// subscription stays, but the update is not sent to him.
	before := g.ReloadCount(t)
	harness.RenameOver(t, cfg, []byte(yaml(`"hyper://p/nothing"`)))
	g.WaitReload(t, before, "policy without bob's notes")
	touch("public0")
	if !harness.WaitFor(10*time.Second, func() bool { return len(updated(ha)) == 2 }) {
		t.Fatalf("alice's updates after the reload: %q", updated(ha))
	}
	time.Sleep(500 * time.Millisecond)
	if got := updated(hb); len(got) != 1 {
		t.Errorf("bob, who may no longer read public0, got its update: %q", got)
	}
	a.Close()
	b.Close()
	x.Close() // the attacker's session holds its stream's goroutines until then
	nearBaseline(t, g, base)
}

// TestPluginNotificationCap: a plugin call sending 20,000 progress
// notifications is cut at limits.max_notifications (1000 by default):
// the host function fails, the plugin reports the refusal, the client
// got at most 1000, the refusal is counted, and the next call has its own
// budget.
func TestPluginNotificationCap(t *testing.T) {
	t.Parallel()
	v2 := harness.Q(harness.Wasm(t, "testdata/plugins/hyperv2"))
	g := bins.Start(t, harness.Options{Env: abuseEnv, Config: harness.WriteConfig(t, bins.YAML(harness.Parts{
		Plugins: harness.Item("name: hyperv2", "path: "+v2)}))})
	ctx := harness.Ctx(t, 3*time.Minute)
	c, h := connect(t, g, false, false)
	base := settledMin(t, g, nil)
	progress := func(token string) int { return len(h.progressOf(token)) }
	res, err := callWithToken(ctx, c, "v2_progress", map[string]any{"steps": 20000}, "flood")
	if err != nil {
		t.Fatal(err)
	}
	if text := harness.ResultText(res); !res.IsError || !strings.Contains(text, "limits.max_notifications") {
		t.Fatalf("20,000 progress notifications: %q (isError %v), want the refusal naming limits.max_notifications", text, res.IsError)
	}
	harness.WaitFor(5*time.Second, func() bool { return progress("flood") >= 1000 })
	if n := progress("flood"); n > 1000 || n < 900 {
		t.Errorf("the client got %d progress notifications, want about 1000 and never more", n)
	}
	t.Logf("the stopped call's result: %q", harness.ResultText(res))
	if got := g.Scrape(t).ToolCalls("v2_progress", "crash"); got != 1 {
		t.Errorf("the stopped call counted as crash: %v, want 1", got)
	}
	if got, _ := g.Metric(t, "wasmgate_plugin_notifications_refused_total", map[string]string{"plugin": "hyperv2", "kind": "progress"}); got != 1 {
		t.Errorf("refusals counted: %v, want 1 (the plugin stops at the first)", got)
	}
	res, err = callWithToken(ctx, c, "v2_progress", map[string]any{"steps": 3}, "next")
	if err != nil || res.IsError || harness.ResultText(res) != "done" {
		t.Fatalf("the next call: %+v, %v", res, err)
	}
	if !harness.WaitFor(10*time.Second, func() bool { return progress("next") == 3 }) {
		t.Errorf("the next call's progress: %d, want 3", progress("next"))
	}
	if text, isErr := harness.CallTool(ctx, t, c, "v2_log", map[string]any{"level": "info", "message": "still here"}); isErr || text != "logged" {
		t.Errorf("v2_log after the flood: %q", text)
	}
	nearBaseline(t, g, base)
}

// listenBody is a 2026-07-28 subscriptions/listen request.
const listenBody = `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` +
	`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`

// listen opens a subscriptions/listen stream with token; an open stream's
// response is returned after its first event, a refused one's at once.
// cancel closes it.
func listen(t *testing.T, ctx context.Context, url, token string) (*http.Response, string) {
	t.Helper()
	return listenWith(t, ctx, url, token, listenBody)
}

// listenWith is listen with a body of its own.
func listenWith(t *testing.T, ctx context.Context, url, token, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(mcp.HeaderProtocolVersion, harness.ProtoStateless)
	req.Header.Set(mcp.HeaderMethod, "subscriptions/listen")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		body := new(strings.Builder)
		bufio.NewReader(resp.Body).WriteTo(body)
		resp.Body.Close()
		return resp, body.String()
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil {
		t.Fatalf("listen stream: %v", err)
	}
	return resp, line
}

// TestPerPrincipalShares: with max_sessions 8 one principal holds at most
// its quarter (2) and the others still get sessions; with max_streams 6
// and max_streams_per_principal 3, 2026-07-28 subscriptions/listen
// streams count: a principal's fourth gets 409, the seventh in all 503;
// each refusal is counted with its reason, and the places come back when
// the sessions and streams end.
func TestPerPrincipalShares(t *testing.T) {
	t.Parallel()
	alice, bob, carol := newToken(t), newToken(t), newToken(t)
	secrets := harness.Secrets{alice, bob, carol}
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
		HTTP:    "    max_sessions: 8\n    max_streams: 6\n    max_streams_per_principal: 3\n",
		Plugins: harness.ExamplePlugins(t),
		Sections: fmt.Sprintf(`auth:
  principals:
    - {name: alice, token_sha256: %s}
    - {name: bob, token_sha256: %s}
    - {name: carol, token_sha256: %s}
`, sha256Hex(alice), sha256Hex(bob), sha256Hex(carol)),
	}))
	g := bins.Start(t, harness.Options{Config: cfg, Env: abuseEnv})
	secrets.Watch(t, g)
	ctx := harness.Ctx(t, 3*time.Minute)
	base := settledMin(t, g, nil)
	bearer := func(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }

	// Sessions: alice's third initialize is refused, bob's are not.
	var ids, owners []string
	initialize := func(tok string) (int, string) {
		resp := harness.PostJSON(t, g.MCPURL, harness.InitializeBody, bearer(tok))
		defer resp.Body.Close()
		body := new(strings.Builder)
		bufio.NewReader(resp.Body).WriteTo(body)
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			ids, owners = append(ids, id), append(owners, tok)
		}
		return resp.StatusCode, body.String()
	}
	for i := range 2 {
		if code, body := initialize(alice); code != http.StatusOK {
			t.Fatalf("alice's session %d: %d %s", i, code, body)
		}
	}
	for i := range 10 {
		code, body := initialize(alice)
		if code != http.StatusServiceUnavailable || !strings.Contains(body, "max_sessions_per_principal") {
			t.Fatalf("alice's session %d past her share: %d %s", i+3, code, body)
		}
	}
	for i := range 2 {
		if code, body := initialize(bob); code != http.StatusOK {
			t.Fatalf("bob's session %d while alice holds hers: %d %s", i, code, body)
		}
	}
	if got, _ := g.Metric(t, "wasmgate_http_rejected_total", map[string]string{"reason": "principal_sessions"}); got != 10 {
		t.Errorf("principal_sessions refusals counted: %v, want 10", got)
	}
	end := func(i int) {
		t.Helper()
		del, err := http.NewRequest(http.MethodDelete, g.MCPURL, nil)
		if err != nil {
			t.Fatal(err)
		}
		del.Header.Set("Mcp-Session-Id", ids[i])
		del.Header.Set("Authorization", "Bearer "+owners[i])
		resp, err := http.DefaultClient.Do(del)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("DELETE session %d: %v %v", i, resp, err)
		}
		resp.Body.Close()
	}
	// Ending one of alice's sessions gives its place back.
	end(0)
	if code, body := initialize(alice); code != http.StatusOK {
		t.Fatalf("alice's session after ending one: %d %s", code, body)
	}

	// Streams: subscriptions/listen POSTs count.
	sctx, closeStreams := context.WithCancel(ctx)
	defer closeStreams()
	var open []*http.Response
	for i := range 3 {
		resp, first := listen(t, sctx, g.MCPURL, alice)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("alice's listen stream %d: %d %s", i, resp.StatusCode, first)
		}
		open = append(open, resp)
	}
	resp, body := listen(t, sctx, g.MCPURL, alice)
	if resp.StatusCode != http.StatusConflict || !strings.Contains(body, "max_streams_per_principal") {
		t.Fatalf("alice's fourth listen stream: %d %s", resp.StatusCode, body)
	}
	for i := range 3 {
		resp, first := listen(t, sctx, g.MCPURL, bob)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("bob's listen stream %d: %d %s", i, resp.StatusCode, first)
		}
		open = append(open, resp)
	}
	for i := range 6 {
		resp, body := listen(t, sctx, g.MCPURL, carol)
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "transports.http.max_streams") {
			t.Fatalf("carol's listen stream %d with max_streams taken: %d %s", i, resp.StatusCode, body)
		}
	}
	for reason, want := range map[string]float64{"principal_streams": 1, "streams": 6} {
		if got, _ := g.Metric(t, "wasmgate_http_rejected_total", map[string]string{"reason": reason}); got != want {
			t.Errorf("wasmgate_http_rejected_total{reason=%q} = %v, want %v", reason, got, want)
		}
	}
	closeStreams()
	for _, r := range open {
		r.Body.Close()
	}
	// The places come back: carol gets a stream, and a call is served.
	if !harness.WaitFor(10*time.Second, func() bool {
		resp, _ := listen(t, ctx, g.MCPURL, carol)
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}) {
		t.Fatal("no stream came back after every stream closed")
	}
	c := g.SessionClient(t, withToken(carol))
	harness.Calc(ctx, t, c, 2, 3)
	c.Close()
	for i := 1; i < len(ids); i++ {
		end(i)
	}
	nearBaseline(t, g, base)
}

// TestRelayRegistrationFlood: a page sending 1,100 register frames at once
// gets an error frame for each one past max_registrations_per_minute's
// burst, counted as rate_limited; it stays connected, its tool keeps
// serving, the gateway answers other clients meanwhile, and heap and
// goroutines come back.
func TestRelayRegistrationFlood(t *testing.T) {
	t.Parallel()
	e := bins.NewDir(t)
	harness.WriteFile(t, e.Config, relayConfig(t, e, "  sites:\n    - {name: demo, token_env: RELAY_DEMO_TOKEN}\n"))
	g := bins.Start(t, harness.Options{Config: e.Config, Env: append([]string{"RELAY_DEMO_TOKEN=" + relayToken}, abuseEnv...)})
	ctx := harness.Ctx(t, 3*time.Minute)
	c := g.SessionClient(t)
	p := startGoPage(t, relayURL(g.MCPURL, "demo"), "demo", relayToken)
	p.register(map[string]any{"id": "first", "tools": []any{relaytest.CalcTool()}})
	p.serve(func(call map[string]any) string {
		a := call["arguments"].(map[string]any)
		return fmt.Sprint(a["a"].(float64) + a["b"].(float64))
	})
	harness.WaitTools(ctx, t, c, 10*time.Second, "calculate", "demo_calculate")
	base := settledMin(t, g, nil)

	const flood = 1100
	start := time.Now()
	for i := range flood {
		if err := relaytest.Write(p.c, map[string]any{"type": "register", "id": i, "tools": []any{relaytest.CalcTool()}}); err != nil {
			t.Fatalf("register frame %d: %v", i, err)
		}
	}
	harness.Calc(ctx, t, c, 2, 3) // served while the page floods
	refused, published := 0, 0
	deadline := time.After(30 * time.Second)
	for refused+published < flood {
		select {
		case f := <-p.refused:
			if f["reason"] != "rate_limited" || !strings.Contains(fmt.Sprint(f["message"]), "max_registrations_per_minute") {
				t.Fatalf("error frame %v", f)
			}
			refused++
		case <-p.registered:
			published++
		case <-deadline:
			t.Fatalf("after 30 s: %d refused, %d published of %d", refused, published, flood)
		}
	}
	took := time.Since(start)
	t.Logf("%d register frames answered in %v: %d refused, %d published", flood, took, refused, published)
	// 60 a minute: a burst of 6 (at most, when the flood began) and one
	// more each second it lasted.
	if most := 6 + int(math.Ceil(took.Seconds())); published > most {
		t.Errorf("%d registrations published of a flood of %d in %v, want at most the burst (6) and what refilled (1/s): %d", published, flood, took, most)
	}
	if got, _ := g.Metric(t, "wasmgate_relay_frames_rejected_total", map[string]string{"site": "demo", "reason": "rate_limited"}); got != float64(refused) {
		t.Errorf("rate_limited counted %v, want %d", got, refused)
	}
	if text, isErr := harness.CallTool(ctx, t, c, "demo_calculate", map[string]any{"operation": "add", "a": 5, "b": 3}); isErr || text != "8" {
		t.Fatalf("the page's tool after the flood: %q isError=%v", text, isErr)
	}
	nearBaseline(t, g, base)
}
