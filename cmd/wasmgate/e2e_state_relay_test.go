package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/redis/go-redis/v9"

	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/internal/relaytest"
)

// Relay routing across replicas (issue 18 item 3): a page connected to
// one replica serves the calls that reach any replica.

// dialGoPage is startGoPage that returns the failure instead of ending
// the test (a dial through HAProxy to a replica just killed).
func dialGoPage(t *testing.T, url, site, token string) (*goPage, error) {
	c, _, err := relaytest.Dial(t, url, "http://127.0.0.1:3000")
	if err != nil {
		return nil, err
	}
	if _, _, err := relaytest.Handshake(c, site, token); err != nil {
		c.CloseNow()
		return nil, err
	}
	p := &goPage{t: t, c: c, registered: make(chan map[string]any, 16), refused: make(chan map[string]any, 64),
		calls: make(chan map[string]any, 1024), cancels: make(chan map[string]any, 1024), done: make(chan struct{})}
	go p.read()
	t.Cleanup(func() {
		c.CloseNow()
		<-p.done
	})
	return p, nil
}

// servePage answers the page's calls: a+b for add, an error frame when a
// is 13, nothing when a is 99 (the call times out); served counts calls.
func servePage(p *goPage, served *atomic.Int64) {
	go func() {
		for {
			select {
			case f := <-p.calls:
				served.Add(1)
				switch f["method"] {
				case "resources/read":
					text := "note"
					if v, ok := f["variables"].(map[string]any); ok {
						text = fmt.Sprint("item ", v["id"])
					}
					_ = relaytest.Write(p.c, map[string]any{"type": "result", "id": f["id"],
						"result": map[string]any{"contents": []any{map[string]any{"uri": f["uri"], "mimeType": "text/plain", "text": text}}}})
					continue
				case "prompts/get":
					a, _ := f["arguments"].(map[string]any)
					_ = relaytest.Write(p.c, map[string]any{"type": "result", "id": f["id"],
						"result": map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": fmt.Sprint("hello ", a["who"])}}}}})
					continue
				}
				a, _ := f["arguments"].(map[string]any)
				x, _ := a["a"].(float64)
				y, _ := a["b"].(float64)
				switch x {
				case 99:
					continue
				case 13:
					_ = relaytest.Write(p.c, map[string]any{"type": "result", "id": f["id"], "error": map[string]any{"message": "thirteen is unlucky"}})
					continue
				}
				p.answer(f, fmt.Sprint(x+y))
			case <-p.done:
				return
			}
		}
	}()
}

func hasTool(ctx context.Context, c *client.Client, name string) (bool, error) {
	tools, err := harness.ToolsErr(ctx, c)
	return slices.Contains(tools, name), err
}

func TestStateRelayAcrossReplicas(t *testing.T) {
	t.Parallel()
	tokenFile := filepath.Join(t.TempDir(), "demo.token")
	harness.WriteFile(t, tokenFile, []byte(relayToken+"\n"))
	c := startClusterOpts(t, fmt.Sprintf(`relay:
  sites:
    - {name: demo, token_file: %q, call_timeout: 2s}
`, tokenFile), true)
	ctx := harness.Ctx(t, 3*time.Minute)
	const tool = "demo_calculate"

	// Sessions on each replica, listening for list_changed.
	var sess []*client.Client
	var notes []*harness.Notes
	for _, g := range c.replicas {
		cl := g.SessionClient(t, transport.WithContinuousListening())
		notes = append(notes, harness.CountNotes(cl))
		if ok, err := hasTool(ctx, cl, tool); err != nil || ok {
			t.Fatalf("%s listed before any page (%v)", tool, err)
		}
		sess = append(sess, cl)
	}

	// The page connects to replica 1 and registers: every replica lists
	// its tool, with list_changed.
	p := startGoPage(t, relayURL(c.replicas[0].MCPURL, "demo"), "demo", relayToken)
	if ack := p.register(map[string]any{"id": "r1", "tools": []any{relaytest.CalcTool()},
		"resources":         []any{map[string]any{"uri": "demo://note", "name": "note"}},
		"resourceTemplates": []any{map[string]any{"uriTemplate": "demo://item/{id}", "name": "item"}},
		"prompts":           []any{map[string]any{"name": "greet", "arguments": []any{map[string]any{"name": "who", "required": true}}}},
	}); fmt.Sprint(ack["tools"]) != "[demo_calculate]" || ack["warnings"] != nil {
		t.Fatalf("registered %v", ack)
	}
	var served atomic.Int64
	servePage(p, &served)
	for i, cl := range sess {
		if !harness.WaitFor(20*time.Second, func() bool { ok, err := hasTool(ctx, cl, tool); return err == nil && ok }) {
			t.Fatalf("%s not listed on replica %d after the page registered on replica 1", tool, i+1)
		}
		if !harness.WaitFor(20*time.Second, func() bool { return notes[i].Lists()[0] >= 1 }) {
			t.Errorf("replica %d: no tools list_changed after the page registered on replica 1: %v", i+1, notes[i].Lists())
		}
	}

	// Calls sent to replicas 2 and 3 are answered by the page on 1.
	for i, cl := range sess[1:] {
		for n := range 3 {
			text, isErr := harness.CallTool(ctx, t, cl, tool, map[string]any{"operation": "add", "a": n, "b": 10 * (i + 2)})
			if isErr || text != fmt.Sprint(n+10*(i+2)) {
				t.Fatalf("%s through replica %d = %q isError=%v", tool, i+2, text, isErr)
			}
		}
	}
	if got := served.Load(); got != 6 {
		t.Errorf("the page served %d calls, want the 6 sent to replicas 2 and 3", got)
	}
	// Resources, templates and prompts too.
	for i, cl := range sess[1:] {
		if got := harness.ReadText(ctx, t, cl, "demo://note"); got != "note" {
			t.Errorf("demo://note through replica %d = %q", i+2, got)
		}
		if got := harness.ReadText(ctx, t, cl, "demo://item/7"); got != "item 7" {
			t.Errorf("demo://item/7 through replica %d = %q", i+2, got)
		}
		res, err := harness.GetPrompt(ctx, cl, "demo_greet", map[string]string{"who": "ada"})
		if err != nil || harness.PromptText(t, res) != "hello ada" {
			t.Errorf("prompt demo_greet through replica %d: %v %v", i+2, res, err)
		}
	}
	// Through HAProxy's round robin: every call lands somewhere and is served.
	lb := statelessClient(t, c.lbURL)
	for n := range 6 {
		if text, isErr := harness.CallTool(ctx, t, lb, tool, map[string]any{"operation": "add", "a": n, "b": 1}); isErr || text != fmt.Sprint(n+1) {
			t.Fatalf("%s through HAProxy = %q isError=%v", tool, text, isErr)
		}
	}

	// An error the page reports, forwarded as is.
	if text, isErr := harness.CallTool(ctx, t, sess[1], tool, map[string]any{"operation": "add", "a": 13, "b": 1}); !isErr || text != "thirteen is unlucky" {
		t.Errorf("a page error through replica 2 = %q isError=%v, want the page's message", text, isErr)
	}
	// A call the page never answers times out with the message a local
	// page's call has, and the page is told to cancel.
	local, isErr := harness.CallTool(ctx, t, sess[0], tool, map[string]any{"operation": "add", "a": 99, "b": 1})
	if !isErr || !strings.Contains(local, "timed out after 2s") {
		t.Fatalf("a local call never answered = %q isError=%v", local, isErr)
	}
	remote, isErr := harness.CallTool(ctx, t, sess[2], tool, map[string]any{"operation": "add", "a": 99, "b": 1})
	if !isErr || remote != local {
		t.Errorf("a forwarded call never answered = %q isError=%v, want the local message %q", remote, isErr, local)
	}
	for range 2 {
		select {
		case f := <-p.cancels:
			if f["reason"] != "timeout" {
				t.Errorf("cancel frame %v, want reason timeout", f)
			}
		case <-time.After(15 * time.Second):
			t.Fatal("the page was not told to cancel the call that timed out")
		}
	}

	// A client that gives up cancels the call on the page, through the
	// replica holding it.
	cctx, cancel := context.WithCancel(ctx)
	n := served.Load()
	go func() { // once the page has the call
		harness.WaitFor(15*time.Second, func() bool { return served.Load() > n })
		cancel()
	}()
	_, _ = harness.CallToolErr(cctx, sess[1], tool, map[string]any{"operation": "add", "a": 99, "b": 2})
	select {
	case f := <-p.cancels:
		if f["reason"] != "cancelled" {
			t.Errorf("cancel frame %v, want reason cancelled", f)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the page was not told to cancel the call its client gave up on (through replica 2)")
	}

	// Metrics and outcomes count on the replica that received the call.
	m1, m2, m3 := c.replicas[0].Scrape(t), c.replicas[1].Scrape(t), c.replicas[2].Scrape(t)
	if v := m1.ToolCalls(tool, "timeout"); v != 1 {
		t.Errorf("replica 1 counts %v timeouts of %s, want its own 1", v, tool)
	}
	if v := m3.ToolCalls(tool, "timeout"); v != 1 {
		t.Errorf("replica 3 counts %v timeouts of %s, want 1", v, tool)
	}
	if v := m2.ToolCalls(tool, "ok"); v < 3 {
		t.Errorf("replica 2 counts %v ok calls of %s, want at least its 3", v, tool)
	}
	if v := m2.ToolCalls(tool, "error"); v != 1 {
		t.Errorf("replica 2 counts %v error outcomes of %s, want 1", v, tool)
	}
	if sum := m1.ToolCalls(tool, "ok") + m2.ToolCalls(tool, "ok") + m3.ToolCalls(tool, "ok"); sum != 12 {
		t.Errorf("the replicas count %v ok calls of %s in all, want 12 (each call once, where it was received)", sum, tool)
	}

	// A second page of the site on replica 2 is refused: replica 1 holds it.
	q, _, err := relaytest.Dial(t, relayURL(c.replicas[1].MCPURL, "demo"), "http://127.0.0.1:3000")
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = relaytest.Handshake(q, "demo", relayToken)
	var ce websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != 4008 || !strings.Contains(ce.Reason, "on replica") {
		t.Errorf("a second page on replica 2: %v, want 4008 naming the replica that holds the site", err)
	}

	// kill -9 replica 1: its page's tool vanishes from the others within
	// the ownership TTL.
	killed := time.Now()
	c.replicas[0].Kill()
	for i, cl := range sess[1:] {
		if !harness.WaitFor(30*time.Second, func() bool {
			ok, err := hasTool(ctx, cl, tool)
			return err == nil && !ok
		}) {
			t.Fatalf("%s still listed on replica %d after replica 1 was killed", tool, i+2)
		}
		t.Logf("replica %d dropped %s %s after the kill", i+2, tool, time.Since(killed).Round(100*time.Millisecond))
	}
	if res, err := harness.CallToolErr(ctx, sess[1], tool, map[string]any{"operation": "add", "a": 1, "b": 1}); err == nil && !res.IsError {
		t.Errorf("a call of the vanished tool through replica 2 = %q, want an error", harness.ResultText(res))
	}
	<-p.done

	// The page reconnects through HAProxy (to whichever replica it gets)
	// and the tool is back on both survivors.
	var p2 *goPage
	if !harness.WaitFor(30*time.Second, func() bool {
		p2, err = dialGoPage(t, relayURL(c.lbURL, "demo"), "demo", relayToken)
		return err == nil
	}) {
		t.Fatalf("the page could not reconnect through HAProxy: %v", err)
	}
	p2.register(map[string]any{"id": "r2", "tools": []any{relaytest.CalcTool()}})
	var served2 atomic.Int64
	servePage(p2, &served2)
	for i, cl := range sess[1:] {
		if !harness.WaitFor(20*time.Second, func() bool { ok, err := hasTool(ctx, cl, tool); return err == nil && ok }) {
			t.Fatalf("%s not back on replica %d after the page reconnected", tool, i+2)
		}
		text, isErr := harness.CallTool(ctx, t, cl, tool, map[string]any{"operation": "add", "a": 40, "b": i})
		if isErr || text != fmt.Sprint(40+i) {
			t.Errorf("%s through replica %d after the reconnect = %q isError=%v", tool, i+2, text, isErr)
		}
	}
	if served2.Load() != 2 {
		t.Errorf("the reconnected page served %d calls, want 2", served2.Load())
	}
}

// TestStateRelayRedisDown: with Redis stopped, a page's tool listed on
// another replica fails at once with an isError naming state.redis, the
// page's own replica keeps serving it, and the goroutines do not grow;
// with Redis back, forwarding works again by itself.
func TestStateRelayRedisDown(t *testing.T) {
	t.Parallel()
	tokenFile := filepath.Join(t.TempDir(), "demo.token")
	harness.WriteFile(t, tokenFile, []byte(relayToken+"\n"))
	c := startCluster(t, fmt.Sprintf(`relay:
  sites:
    - {name: demo, token_file: %q}
`, tokenFile))
	ctx := harness.Ctx(t, 3*time.Minute)
	const tool = "demo_calculate"
	p := startGoPage(t, relayURL(c.replicas[0].MCPURL, "demo"), "demo", relayToken)
	p.register(map[string]any{"id": "r1", "tools": []any{relaytest.CalcTool()}})
	var served atomic.Int64
	servePage(p, &served)
	here, there := statelessClient(t, c.replicas[0].MCPURL), statelessClient(t, c.replicas[1].MCPURL)
	if !harness.WaitFor(20*time.Second, func() bool { ok, err := hasTool(ctx, there, tool); return err == nil && ok }) {
		t.Fatalf("%s not listed on replica 2", tool)
	}
	if text, isErr := harness.CallTool(ctx, t, there, tool, map[string]any{"operation": "add", "a": 2, "b": 2}); isErr || text != "4" {
		t.Fatalf("%s through replica 2 = %q isError=%v", tool, text, isErr)
	}
	goroutines := func() float64 { v, _ := c.replicas[1].Metric(t, "go_goroutines", nil); return v }
	before := goroutines()

	c.redis.Stop()
	if !harness.WaitFor(10*time.Second, func() bool { v, _ := c.replicas[1].Metric(t, "wasmgate_state_up", nil); return v == 0 }) {
		t.Fatal("wasmgate_state_up is not 0 with Redis stopped")
	}
	var slowest time.Duration
	for range 30 {
		start := time.Now()
		text, isErr := harness.CallTool(ctx, t, there, tool, map[string]any{"operation": "add", "a": 1, "b": 1})
		slowest = max(slowest, time.Since(start))
		if !isErr || !strings.Contains(text, "state.redis") {
			t.Fatalf("%s through replica 2 with Redis down = %q isError=%v, want an isError naming state.redis", tool, text, isErr)
		}
	}
	t.Logf("with Redis down a forwarded call fails in at most %s", slowest)
	if slowest > 3*time.Second {
		t.Errorf("a forwarded call with Redis down took %s: not failing fast", slowest)
	}
	for range 10 {
		if text, isErr := harness.CallTool(ctx, t, here, tool, map[string]any{"operation": "add", "a": 3, "b": 4}); isErr || text != "7" {
			t.Fatalf("%s on the page's own replica with Redis down = %q isError=%v", tool, text, isErr)
		}
	}
	if after := goroutines(); after > before+10 {
		t.Errorf("goroutines grew from %v to %v with Redis down", before, after)
	}

	// Redis comes back empty (no persistence): the owner writes its
	// entry again, and replica 2 keeps listing the tool meanwhile.
	c.redis.Start()
	if !harness.WaitFor(30*time.Second, func() bool {
		res, err := harness.CallToolErr(ctx, there, tool, map[string]any{"operation": "add", "a": 5, "b": 5})
		if err != nil {
			t.Fatalf("%s through replica 2 while Redis came back: %v", tool, err)
		}
		return !res.IsError && harness.ResultText(res) == "10"
	}) {
		t.Fatalf("forwarding did not recover once Redis was back")
	}
}

// TestStateRelayBench (WASMGATE_RELAY_BENCH=5s to run it; without -race
// for numbers that mean something) measures a relay page's calculate at
// 16 clients on the page's replica and forwarded from another one, and the
// Redis commands each forwarded call costs.
func TestStateRelayBench(t *testing.T) {
	// Not parallel: a measurement (WASMGATE_RELAY_BENCH), meaningful only alone.
	d, err := time.ParseDuration(os.Getenv("WASMGATE_RELAY_BENCH"))
	if err != nil {
		t.Skip("set WASMGATE_RELAY_BENCH to a duration to run the relay bench")
	}
	tokenFile := filepath.Join(t.TempDir(), "demo.token")
	harness.WriteFile(t, tokenFile, []byte(relayToken+"\n"))
	c := startCluster(t, fmt.Sprintf("relay:\n  sites:\n    - {name: demo, token_file: %q}\n", tokenFile))
	ctx := harness.Ctx(t, 5*time.Minute)
	p := startGoPage(t, relayURL(c.replicas[0].MCPURL, "demo"), "demo", relayToken)
	p.register(map[string]any{"id": "r1", "tools": []any{relaytest.CalcTool()}})
	var served atomic.Int64
	servePage(p, &served)
	rc := redis.NewClient(&redis.Options{Addr: c.redis.Addr})
	defer rc.Close()
	commands := func() int64 {
		info, err := rc.Info(ctx, "commandstats").Result()
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		for _, line := range strings.Split(info, "\n") {
			if _, rest, ok := strings.Cut(line, "calls="); ok && strings.HasPrefix(line, "cmdstat_") && !strings.HasPrefix(line, "cmdstat_info") {
				v, _ := strconv.ParseInt(strings.SplitN(rest, ",", 2)[0], 10, 64)
				n += v
			}
		}
		return n
	}
	for _, run := range []struct {
		name string
		g    *harness.Gateway
	}{{"local (the page's replica)", c.replicas[0]}, {"forwarded (another replica)", c.replicas[1]}} {
		if !harness.WaitFor(20*time.Second, func() bool {
			ok, err := hasTool(ctx, statelessClient(t, run.g.MCPURL), "demo_calculate")
			return err == nil && ok
		}) {
			t.Fatalf("demo_calculate not listed on %s", run.g.MCPURL)
		}
		var calls, failed atomic.Int64
		var lat []time.Duration
		var mu sync.Mutex
		stop := time.Now().Add(d)
		r0 := commands()
		var wg sync.WaitGroup
		for range 16 {
			cl := statelessClient(t, run.g.MCPURL)
			wg.Add(1)
			go func() {
				defer wg.Done()
				var mine []time.Duration
				for time.Now().Before(stop) {
					s := time.Now()
					res, err := harness.CallToolErr(ctx, cl, "demo_calculate", map[string]any{"operation": "add", "a": 1, "b": 2})
					if err != nil || res.IsError {
						failed.Add(1)
						continue
					}
					mine = append(mine, time.Since(s))
					calls.Add(1)
				}
				mu.Lock()
				lat = append(lat, mine...)
				mu.Unlock()
			}()
		}
		wg.Wait()
		r1 := commands()
		slices.Sort(lat)
		p50 := time.Duration(0)
		if len(lat) > 0 {
			p50 = lat[len(lat)/2]
		}
		t.Logf("%s: %.0f calls/s, p50 %s, %d failed, %.2f Redis commands per call (background included)",
			run.name, float64(calls.Load())/d.Seconds(), p50.Round(10*time.Microsecond), failed.Load(), float64(r1-r0)/float64(max(calls.Load(), 1)))
	}
}
