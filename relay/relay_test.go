package relay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/internal/relaytest"
)

func demo() SiteConfig { return SiteConfig{Name: "demo"} }

func resultText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	var parts []string
	for _, c := range res.Content {
		if tc, ok := mcp.AsTextContent(c); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// answer reads one call frame from p and answers it with fn's frame.
func (p *page) answer(fn func(call map[string]any) map[string]any) map[string]any {
	p.t.Helper()
	call := p.read()
	if call["type"] != "call" {
		p.t.Fatalf("want a call frame, got %v", call)
	}
	out := fn(call)
	out["type"] = "result"
	out["id"] = call["id"]
	p.send(out)
	return call
}

func TestCallsThroughAPage(t *testing.T) {
	f := newFixture(t, demo())
	site := f.site("demo")
	if d := site.Descriptor(); len(d.Tools) != 0 {
		t.Fatalf("tools before any page: %v", d.Tools)
	}
	p := f.connect("demo")
	// The gauge follows the welcome the page has just read.
	deadline := time.Now().Add(2 * time.Second)
	for testutil.ToFloat64(f.m.RelayBridges.WithLabelValues("demo")) != 1 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := testutil.ToFloat64(f.m.RelayBridges.WithLabelValues("demo")); got != 1 {
		t.Errorf("wasmgate_relay_bridges = %v, want 1", got)
	}
	ack := p.register(map[string]any{"id": 1, "tools": []any{relaytest.CalcTool()},
		"resourceTemplates": []any{map[string]any{"uriTemplate": "demo://storage/{key}", "name": "storage"}},
		"prompts":           []any{map[string]any{"name": "greet", "arguments": []any{map[string]any{"name": "who", "required": true}}}}})
	f.waitChange("demo")
	if fmt.Sprint(ack["tools"]) != "[demo_calculate]" || fmt.Sprint(ack["resources"]) != "[demo://storage/{key}]" || fmt.Sprint(ack["prompts"]) != "[demo_greet]" || ack["id"] != 1.0 {
		t.Errorf("registered frame %v", ack)
	}
	d := site.Descriptor()
	if len(d.Tools) != 1 || d.Tools[0].Name != "demo_calculate" || len(d.Resources) != 1 || d.Resources[0].Template == nil || len(d.Prompts) != 1 || d.Prompts[0].Name != "demo_greet" {
		t.Fatalf("descriptor %+v", d)
	}

	ctx := context.Background()
	go p.answer(func(call map[string]any) map[string]any {
		if call["method"] != "tools/call" || call["name"] != "calculate" || fmt.Sprint(call["arguments"]) != "map[a:5 b:3 operation:add]" {
			t.Errorf("call frame %v", call)
		}
		return map[string]any{"result": map[string]any{"content": []any{map[string]any{"type": "text", "text": "8"}}}}
	})
	res, err := site.CallTool(ctx, "demo_calculate", json.RawMessage(`{"operation":"add","a":5,"b":3}`))
	if err != nil || res.IsError || resultText(t, res) != "8" {
		t.Fatalf("CallTool = %+v, %v", res, err)
	}

	// A handler that threw: isError with its message.
	go p.answer(func(map[string]any) map[string]any {
		return map[string]any{"error": map[string]any{"message": "Division by zero"}}
	})
	res, err = site.CallTool(ctx, "demo_calculate", json.RawMessage(`{"operation":"divide","a":1,"b":0}`))
	if err != nil || !res.IsError || resultText(t, res) != "Division by zero" {
		t.Fatalf("CallTool (throws) = %+v, %v", res, err)
	}

	// A resource template read carries the template and its variables.
	go p.answer(func(call map[string]any) map[string]any {
		if call["method"] != "resources/read" || call["uri"] != "demo://storage/theme" || call["template"] != "demo://storage/{key}" || fmt.Sprint(call["variables"]) != "map[key:theme]" {
			t.Errorf("read frame %v", call)
		}
		return map[string]any{"result": map[string]any{"contents": []any{map[string]any{"uri": "demo://storage/theme", "text": "dark"}}}}
	})
	contents, err := site.ReadResource(ctx, d.Resources[0], "demo://storage/theme", map[string]string{"key": "theme"})
	if err != nil || len(contents) != 1 || contents[0].(mcp.TextResourceContents).Text != "dark" {
		t.Fatalf("ReadResource = %#v, %v", contents, err)
	}

	go p.answer(func(call map[string]any) map[string]any {
		return map[string]any{"result": map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "Hello " + call["arguments"].(map[string]any)["who"].(string)}}}}}
	})
	msgs, err := site.GetPrompt(ctx, "demo_greet", map[string]string{"who": "Ada"})
	if err != nil || len(msgs) != 1 || msgs[0].Content.(mcp.TextContent).Text != "Hello Ada" {
		t.Fatalf("GetPrompt = %#v, %v", msgs, err)
	}

	// A result the page cannot be trusted with: crash, not a panic.
	go p.answer(func(map[string]any) map[string]any {
		return map[string]any{"result": map[string]any{"nocontent": true}}
	})
	_, err = site.CallTool(ctx, "demo_calculate", json.RawMessage(`{}`))
	var ce *CallError
	if !errors.As(err, &ce) || ce.FailureKind() != KindCrash || !strings.Contains(ce.Msg, "invalid result") {
		t.Fatalf("invalid result: %v", err)
	}

	// Re-registering replaces the set.
	p.register(map[string]any{"tools": []any{map[string]any{"name": "other"}}})
	f.waitChange("demo")
	d = site.Descriptor()
	if len(d.Tools) != 1 || d.Tools[0].Name != "demo_other" || len(d.Resources) != 0 || len(d.Prompts) != 0 {
		t.Fatalf("after re-registering: %+v", d)
	}
	if string(d.Tools[0].InputSchema) != `{"type":"object"}` {
		t.Errorf("default input schema %s", d.Tools[0].InputSchema)
	}

	// The page leaves: the set vanishes and OnChange says so.
	p.c.Close(websocket.StatusNormalClosure, "bye")
	f.waitChange("demo")
	if d := site.Descriptor(); len(d.Tools) != 0 || site.Connected() {
		t.Fatalf("after the page left: %+v connected=%v", d, site.Connected())
	}
	if got := testutil.ToFloat64(f.m.RelayBridges.WithLabelValues("demo")); got != 0 {
		t.Errorf("wasmgate_relay_bridges = %v after the page left, want 0", got)
	}
	if got := f.handshakes("demo", "ok"); got != 1 {
		t.Errorf("handshakes ok = %v, want 1", got)
	}
}

func TestRegisterWarnings(t *testing.T) {
	f := newFixture(t, demo())
	f.warnings = []string{`tool "demo_calculate" is also provided by plugins[0]`}
	p := f.connect("demo")
	ack := p.register(map[string]any{"tools": []any{relaytest.CalcTool()}})
	if fmt.Sprint(ack["warnings"]) != fmt.Sprint([]string{f.warnings[0]}) {
		t.Errorf("registered %v, want the gateway's warnings", ack)
	}
}

// TestAttacks tries each way in that must fail: each is refused, counted,
// and leaves the site without a page and without tools.
func TestAttacks(t *testing.T) {
	small := demo()
	small.MaxFrame = 1 << 10
	small.AuthTimeout = config.Duration(300 * time.Millisecond)
	f := newFixture(t, small)
	site := f.site("demo")
	base := inProcessRuntime()
	defer backNearInProcess(t, base)
	nothingServed := func(t *testing.T) {
		t.Helper()
		// The page reads its close frame before the relay has let it go.
		harness.WaitFor(5*time.Second, func() bool { return !site.Connected() })
		if site.Connected() || len(site.Descriptor().Tools) != 0 {
			t.Errorf("the site serves after an attack: connected=%v tools=%v", site.Connected(), site.Descriptor().Tools)
		}
	}
	refusedAt := func(t *testing.T, p *page, code websocket.StatusCode) string {
		t.Helper()
		got, reason := p.closed()
		if got != code {
			t.Errorf("closed with %d %q, want %d", got, reason, code)
		}
		return reason
	}

	for _, c := range []struct{ name, origin string }{{"foreign origin", "https://evil.example"}, {"missing origin", ""}, {"null origin", "null"}} {
		t.Run(c.name, func(t *testing.T) {
			before := f.handshakes("demo", "origin")
			_, resp, err := dial(t, f.url("demo"), c.origin)
			if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
				t.Fatalf("dial: %v (response %v), want 403", err, resp)
			}
			if got := f.handshakes("demo", "origin"); got != before+1 {
				t.Errorf("handshakes origin = %v, want %v", got, before+1)
			}
			nothingServed(t)
		})
	}
	t.Run("unknown site", func(t *testing.T) {
		_, resp, err := dial(t, f.url("nope"), testOrigin)
		if err == nil || resp == nil || resp.StatusCode != http.StatusNotFound {
			t.Fatalf("dial: %v, want 404", err)
		}
		if got := f.handshakes("", "unknown_site"); got != 1 {
			t.Errorf("handshakes unknown_site = %v", got)
		}
	})
	t.Run("wrong token", func(t *testing.T) {
		p := mustDial(t, f.url("demo"))
		p.send(relaytest.AuthFrame(p.read(), "demo", "not the token, but long enough", relaytest.Nonce()))
		if reason := refusedAt(t, p, closeAuthFailed); reason != "authentication failed" {
			t.Errorf("reason %q", reason)
		}
		if !harness.WaitFor(5*time.Second, func() bool { return f.handshakes("demo", "bad_proof") == 1 }) {
			got := f.handshakes("demo", "bad_proof")
			t.Errorf("handshakes bad_proof = %v", got)
		}
		nothingServed(t)
	})
	t.Run("forged proof", func(t *testing.T) {
		p := mustDial(t, f.url("demo"))
		p.read()
		p.send(map[string]any{"type": "auth", "nonce": relaytest.Nonce(), "proof": relaytest.Nonce()})
		refusedAt(t, p, closeAuthFailed)
		if !harness.WaitFor(5*time.Second, func() bool { return f.handshakes("demo", "bad_proof") == 2 }) {
			got := f.handshakes("demo", "bad_proof")
			t.Errorf("handshakes bad_proof = %v, want 2", got)
		}
		nothingServed(t)
	})
	t.Run("replayed handshake", func(t *testing.T) {
		// Record a good handshake, then replay its auth frame.
		p := mustDial(t, f.url("demo"))
		hello := p.read()
		auth := relaytest.AuthFrame(hello, "demo", testToken, relaytest.Nonce())
		p.send(auth)
		if w := p.read(); w["type"] != "welcome" {
			t.Fatalf("good handshake: %v", w)
		}
		p.c.Close(websocket.StatusNormalClosure, "")
		if !harness.WaitFor(5*time.Second, func() bool { return !site.Connected() }) {
			t.Fatal("the first page did not leave")
		}
		q := mustDial(t, f.url("demo"))
		q.read()
		q.send(auth)
		refusedAt(t, q, closeAuthFailed)
		if !harness.WaitFor(5*time.Second, func() bool { return f.handshakes("demo", "replay") == 1 }) {
			got := f.handshakes("demo", "replay")
			t.Errorf("handshakes replay = %v", got)
		}
		// The same proof with a fresh nonce field fails on the proof.
		r := mustDial(t, f.url("demo"))
		r.read()
		r.send(map[string]any{"type": "auth", "nonce": relaytest.Nonce(), "proof": auth["proof"]})
		refusedAt(t, r, closeAuthFailed)
		nothingServed(t)
	})
	t.Run("short nonce", func(t *testing.T) {
		p := mustDial(t, f.url("demo"))
		hello := p.read()
		p.send(relaytest.AuthFrame(hello, "demo", testToken, "c2hvcnQ"))
		refusedAt(t, p, closeProtocol)
		nothingServed(t)
	})
	t.Run("silence past auth_timeout", func(t *testing.T) {
		p := mustDial(t, f.url("demo"))
		p.read() // hello
		start := time.Now()
		if reason := refusedAt(t, p, closeAuthTimeout); reason != "authentication timed out" {
			t.Errorf("reason %q", reason)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("closed after %v", d)
		}
		if !harness.WaitFor(5*time.Second, func() bool { return f.handshakes("demo", "timeout") == 1 }) {
			t.Errorf("handshakes timeout = %v", f.handshakes("demo", "timeout"))
		}
		nothingServed(t)
	})
	t.Run("frame over max_frame before auth", func(t *testing.T) {
		p := mustDial(t, f.url("demo"))
		p.read()
		p.sendRaw([]byte(`{"type":"auth","nonce":"` + strings.Repeat("A", 2000) + `"}`))
		refusedAt(t, p, websocket.StatusMessageTooBig)
		if !harness.WaitFor(5*time.Second, func() bool { return f.handshakes("demo", "too_large") == 1 && f.rejected("demo", "too_large") == 1 }) {
			t.Errorf("handshakes too_large = %v, frames too_large = %v", f.handshakes("demo", "too_large"), f.rejected("demo", "too_large"))
		}
		nothingServed(t)
	})
	for _, c := range []struct{ name, frame string }{
		{"garbage", "\x00\x01garbage"},
		{"half JSON", `{"type":"auth","nonce":"`},
		{"JSON but not a frame", `[1,2,3]`},
	} {
		t.Run(c.name+" before auth", func(t *testing.T) {
			before := f.handshakes("demo", "malformed")
			p := mustDial(t, f.url("demo"))
			p.read()
			p.sendRaw([]byte(c.frame))
			refusedAt(t, p, closeProtocol)
			if !harness.WaitFor(5*time.Second, func() bool { return f.handshakes("demo", "malformed") == before+1 }) {
				t.Errorf("handshakes malformed = %v", f.handshakes("demo", "malformed"))
			}
			nothingServed(t)
		})
	}

	// After authentication.
	t.Run("second bridge for a busy site", func(t *testing.T) {
		p := f.connect("demo")
		p.register(map[string]any{"tools": []any{relaytest.CalcTool()}})
		f.waitChange("demo")
		q := mustDial(t, f.url("demo"))
		hello := q.read()
		q.send(relaytest.AuthFrame(hello, "demo", testToken, relaytest.Nonce()))
		if _, reason := q.closed(); !strings.Contains(reason, "already has a connected page") {
			t.Errorf("second page closed with %q", reason)
		}
		if !harness.WaitFor(5*time.Second, func() bool { return f.handshakes("demo", "busy") == 1 }) {
			got := f.handshakes("demo", "busy")
			t.Errorf("handshakes busy = %v", got)
		}
		// The first page still serves.
		go p.answer(func(map[string]any) map[string]any {
			return map[string]any{"result": map[string]any{"content": []any{}}}
		})
		if _, err := site.CallTool(context.Background(), "demo_calculate", json.RawMessage(`{}`)); err != nil {
			t.Errorf("the first page no longer serves: %v", err)
		}
		p.c.Close(websocket.StatusNormalClosure, "")
		f.waitChange("demo")
	})
	for _, c := range []struct {
		name, frame, reason string
		code                websocket.StatusCode
	}{
		{"garbage after auth", "garbage", "malformed", closeProtocol},
		{"half JSON after auth", `{"type":"result","id":1,"result":{"con`, "malformed", closeProtocol},
		{"unknown type after auth", `{"type":"hello"}`, "malformed", closeProtocol},
		{"auth again", `{"type":"auth","nonce":"AAAAAAAAAAAAAAAAAAAAAA","proof":"x"}`, "unexpected", closeProtocol},
		{"frame over max_frame after auth", `{"type":"register","tools":[{"name":"` + strings.Repeat("x", 2000) + `"}]}`, "too_large", websocket.StatusMessageTooBig},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := f.rejected("demo", c.reason)
			p := f.connect("demo")
			p.register(map[string]any{"tools": []any{relaytest.CalcTool()}})
			f.waitChange("demo")
			p.sendRaw([]byte(c.frame))
			refusedAt(t, p, c.code)
			f.waitChange("demo") // the page's tools are gone
			if got := f.rejected("demo", c.reason); got != before+1 {
				t.Errorf("frames rejected %s = %v, want %v", c.reason, got, before+1)
			}
			nothingServed(t)
		})
	}
	t.Run("binary frame", func(t *testing.T) {
		p := f.connect("demo")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		p.c.Write(ctx, websocket.MessageBinary, []byte(`{"type":"register"}`))
		refusedAt(t, p, websocket.StatusUnsupportedData)
		if got := f.rejected("demo", "binary"); got != 1 {
			t.Errorf("frames rejected binary = %v", got)
		}
		nothingServed(t) // and let go before the next page connects
	})
	t.Run("result for an id never sent", func(t *testing.T) {
		p := f.connect("demo")
		p.register(map[string]any{"tools": []any{relaytest.CalcTool()}})
		f.waitChange("demo")
		p.send(map[string]any{"type": "result", "id": 987654, "result": map[string]any{"content": []any{}}})
		// Ignored, counted, and the page keeps serving.
		go p.answer(func(map[string]any) map[string]any {
			return map[string]any{"result": map[string]any{"content": []any{map[string]any{"type": "text", "text": "still here"}}}}
		})
		res, err := site.CallTool(context.Background(), "demo_calculate", json.RawMessage(`{}`))
		if err != nil || resultText(t, res) != "still here" {
			t.Fatalf("after an unknown id: %v %v", res, err)
		}
		if got := f.rejected("demo", "unknown_id"); got != 1 {
			t.Errorf("frames rejected unknown_id = %v", got)
		}
		p.c.Close(websocket.StatusNormalClosure, "")
		f.waitChange("demo")
	})
	t.Run("invalid registration", func(t *testing.T) {
		p := f.connect("demo")
		p.send(map[string]any{"type": "register", "tools": []any{map[string]any{"name": "bad", "inputSchema": map[string]any{"type": "string"}}}})
		if _, reason := p.closed(); !strings.Contains(reason, "inputSchema") {
			t.Errorf("closed with %q", reason)
		}
		nothingServed(t)
	})
}

func TestCallEndings(t *testing.T) {
	short := demo()
	short.CallTimeout = config.Duration(200 * time.Millisecond)
	f := newFixture(t, short)
	site := f.site("demo")
	p := f.connect("demo")
	p.register(map[string]any{"tools": []any{relaytest.CalcTool()}})
	f.waitChange("demo")
	kind := func(err error) string {
		var ce *CallError
		if !errors.As(err, &ce) {
			return fmt.Sprintf("%T %v", err, err)
		}
		return ce.FailureKind()
	}

	t.Run("timeout tells the page", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), site.Timeout())
		defer cancel()
		errc := make(chan error, 1)
		go func() {
			_, err := site.CallTool(ctx, "demo_calculate", json.RawMessage(`{}`))
			errc <- err
		}()
		call := p.read()
		cancelFrame := p.read()
		if cancelFrame["type"] != "cancel" || cancelFrame["id"] != call["id"] || cancelFrame["reason"] != "timeout" {
			t.Errorf("after the timeout the page got %v", cancelFrame)
		}
		err := <-errc
		if kind(err) != KindTimeout || !strings.Contains(err.Error(), "relay.sites[0].call_timeout") {
			t.Errorf("timeout: %v", err)
		}
		// The late answer is ignored and counted.
		p.send(map[string]any{"type": "result", "id": call["id"], "result": map[string]any{"content": []any{}}})
		if !harness.WaitFor(5*time.Second, func() bool { return f.rejected("demo", "late") == 1 }) {
			t.Errorf("frames rejected late = %v", f.rejected("demo", "late"))
		}
	})
	t.Run("cancellation reaches the page", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			_, err := site.CallTool(ctx, "demo_calculate", json.RawMessage(`{}`))
			errc <- err
		}()
		call := p.read()
		cancel()
		cf := p.read()
		if cf["type"] != "cancel" || cf["id"] != call["id"] || cf["reason"] != "cancelled" {
			t.Errorf("after cancel the page got %v", cf)
		}
		if err := <-errc; kind(err) != KindCancelled {
			t.Errorf("cancelled: %v", err)
		}
	})
	t.Run("disconnect fails pending calls at once", func(t *testing.T) {
		long := context.Background()
		errc := make(chan error, 3)
		for range 3 {
			go func() {
				_, err := site.CallTool(long, "demo_calculate", json.RawMessage(`{}`))
				errc <- err
			}()
		}
		for range 3 {
			p.read()
		}
		start := time.Now()
		p.c.CloseNow() // the page vanishes without a close frame
		for range 3 {
			err := <-errc
			if kind(err) != KindCrash || !strings.Contains(err.Error(), "disconnected") {
				t.Errorf("pending call: %v", err)
			}
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("pending calls failed after %v", d)
		}
		_, err := site.CallTool(long, "demo_calculate", json.RawMessage(`{}`))
		if kind(err) != KindCrash || !strings.Contains(err.Error(), "no page is connected") {
			t.Errorf("call without a page: %v", err)
		}
	})
}

func TestReloads(t *testing.T) {
	t.Setenv("RELAY_TEST_TOKEN_DEMO", testToken)
	f := newFixture(t, demo(), SiteConfig{Name: "other"})
	p := f.connect("demo")
	p.register(map[string]any{"tools": []any{relaytest.CalcTool()}})
	f.waitChange("demo")

	// A new prefix renames the tools of the next plan's site; one without
	// a trailing separator is joined with "_" (config.PrefixedName).
	renamed := demo()
	renamed.Prefix = "v2-"
	f.apply(renamed, SiteConfig{Name: "other"})
	if d := f.site("demo").Descriptor(); len(d.Tools) != 1 || d.Tools[0].Name != "v2-calculate" {
		t.Fatalf("after the prefix change to v2-: %+v", d.Tools)
	}
	renamed.Prefix = "web"
	f.apply(renamed, SiteConfig{Name: "other"})
	if d := f.site("demo").Descriptor(); len(d.Tools) != 1 || d.Tools[0].Name != "web_calculate" {
		t.Fatalf("after the prefix change: %+v", d.Tools)
	}
	go p.answer(func(call map[string]any) map[string]any {
		if call["name"] != "calculate" {
			t.Errorf("call for %v, want the page's own name", call["name"])
		}
		return map[string]any{"result": map[string]any{"content": []any{}}}
	})
	if _, err := f.site("demo").CallTool(context.Background(), "web_calculate", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}

	// A changed token keeps the connected page and refuses the old token
	// at the next handshake.
	t.Setenv("RELAY_TEST_TOKEN_OTHER", "a brand new token for other site")
	f.apply(renamed, SiteConfig{Name: "other"})
	q := mustDial(t, f.url("other"))
	q.send(relaytest.AuthFrame(q.read(), "other", testToken, relaytest.Nonce()))
	if code, _ := q.closed(); code != closeAuthFailed {
		t.Errorf("old token: closed with %d, want %d", code, closeAuthFailed)
	}
	q = mustDial(t, f.url("other"))
	q.auth("other", "a brand new token for other site")

	// Removing a site closes its page.
	f.apply(SiteConfig{Name: "other"})
	if code, reason := p.closed(); code != closeSiteRemoved {
		t.Errorf("removed site: closed with %d %q", code, reason)
	}
	f.waitChange("demo")
	if _, resp, err := dial(t, f.url("demo"), testOrigin); err == nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("a removed site still accepts pages: %v", err)
	}
	// The other page was not disturbed.
	q.register(map[string]any{"tools": []any{}})

	// Origins: a page whose origin is dropped is disconnected.
	narrow := SiteConfig{Name: "other", AllowedOrigins: []string{"https://app.example.com"}}
	f.apply(narrow)
	if code, _ := q.closed(); code != closeSettingsChanged {
		t.Errorf("dropped origin: closed with %d", code)
	}
	if _, resp, err := dial(t, f.url("other"), "https://app.example.com"); err != nil {
		t.Errorf("allowed origin refused: %v %v", err, resp)
	}
}

func TestBridgeJSServed(t *testing.T) {
	f := newFixture(t, demo())
	resp, err := http.Get(f.srv.URL + "/relay/bridge.js")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/javascript") ||
		!strings.Contains(string(body), "export function connect(") || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("GET bridge.js: %d %v\n%.200s", resp.StatusCode, resp.Header, body)
	}
	if !strings.Contains(string(body), ProtocolVersion) {
		t.Errorf("bridge.js does not name %s", ProtocolVersion)
	}
}

func TestClose(t *testing.T) {
	f := newFixture(t, demo())
	p := f.connect("demo")
	idle := mustDial(t, f.url("demo")) // still in its handshake
	idle.read()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan struct{})
	go func() {
		f.r.Close(ctx)
		close(done)
	}()
	if code, _ := p.closed(); code != websocket.StatusGoingAway {
		t.Errorf("page closed with %d, want 1001", code)
	}
	if code, _ := idle.closed(); code != websocket.StatusGoingAway {
		t.Errorf("handshaking page closed with %d, want 1001", code)
	}
	<-done
	if _, _, err := dial(t, f.url("demo"), testOrigin); err == nil {
		t.Error("a closed relay accepted a page")
	}
}

// TestWorkedExample checks the proofs of docs/relay-protocol.md's worked
// example.
func TestWorkedExample(t *testing.T) {
	const (
		token        = "correct horse battery staple 42"
		gatewayNonce = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
		pageNonce    = "ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8"
	)
	if got := proof([]byte(token), pageLabel, "demo", gatewayNonce, pageNonce); got != "GoblaB-My6llAo265mce9v7NgoYrqW6w1UFQuUV4Dec" {
		t.Errorf("page proof %s", got)
	}
	if got := proof([]byte(token), gatewayLabel, "demo", gatewayNonce, pageNonce); got != "50jb5yUHAwcKc0sWOhpBy1piTu4E3zTKq0ZfinKUc1c" {
		t.Errorf("gateway proof %s", got)
	}
}
