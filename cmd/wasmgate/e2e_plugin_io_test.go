package main

// A plugin's input, output and logs cannot hurt the gateway: an input too
// large for the plugin's memory is refused and the plugin keeps serving;
// nothing a plugin prints reaches the stdio transport; a panic printed on
// stdout still explains the crash; plugin log lines are rate-limited.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

func hostileOnly(t *testing.T, limits, http string) string {
	return harness.WriteConfig(t, bins.YAML(harness.Parts{HTTP: http, Plugins: fmt.Sprintf(`  - name: calculator
    path: %s
  - name: hostile
    path: %s
    limits: {%s}
  - name: noisy
    path: %s
    limits: {%[3]s}
`, harness.Wasm(t, "examples/plugins/calculator"), harness.Wasm(t, "testdata/plugins/hostile"), limits, harness.Wasm(t, "testdata/plugins/noisy"))}))
}

func TestOversizedInputIsRefusedAndPluginKeepsServing(t *testing.T) {
	t.Parallel()
	g := bins.Start(t, harness.Options{Config: hostileOnly(t, "memory: 16MiB, concurrency: 1, timeout: 20s, max_output: 64MiB", "    max_body: 64MiB\n")})
	c := g.SessionClient(t)
	ctx := harness.Ctx(t, 2*time.Minute)

	// Larger than half of limits.memory: refused before the plugin runs.
	res, err := harness.CallToolErr(ctx, c, "echo", map[string]any{"data": strings.Repeat("x", 10<<20)})
	if err != nil {
		t.Fatal(err)
	}
	if text := harness.ResultText(res); !res.IsError || !strings.Contains(text, "limits.memory") {
		t.Errorf("a 10 MiB input to a 16 MiB plugin gave isError=%v %.200q; want isError naming limits.memory", res.IsError, text)
	}
	if v, _ := g.Scrape(t).Value("wasmgate_tool_calls_total", map[string]string{"tool": "echo", "outcome": "rejected"}); v != 1 {
		t.Errorf("wasmgate_tool_calls_total{tool=echo,outcome=rejected} = %v, want 1", v)
	}
	// Under half, but too large for the guest to copy: a clear failure
	// or the input back, never success with the wrong text.
	in := strings.Repeat("y", 7<<20)
	res, err = harness.CallToolErr(ctx, c, "echo", map[string]any{"data": in})
	if err != nil {
		t.Fatal(err)
	}
	text := harness.ResultText(res)
	switch {
	case res.IsError && !strings.Contains(text, "limits.memory"):
		t.Errorf("a 7 MiB input failed without naming limits.memory: %.300q", text)
	case !res.IsError && text != `{"data":"`+in+`"}`:
		t.Errorf("a 7 MiB input returned success with %d bytes of the wrong text (%.80q)", len(text), text)
	}
	t.Logf("7 MiB input to a 16 MiB plugin: isError=%v %.160q", res.IsError, text)
	// The plugin (its only instance, or its replacement) still serves.
	for i := range 3 {
		res, err = harness.CallToolErr(ctx, c, "echo", map[string]any{"n": i})
		if err != nil || res.IsError || harness.ResultText(res) != fmt.Sprintf(`{"n":%d}`, i) {
			t.Fatalf("echo after the oversized inputs: %v %v %q", err, res.IsError, harness.ResultText(res))
		}
	}
}

// jsonLine is the part of a JSON-RPC message the stdio test checks.
type jsonLine struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
}

func TestPluginPrintsCannotCorruptStdio(t *testing.T) {
	t.Parallel()
	// EXTISM_ENABLE_WASI_OUTPUT=1 is the plugin library's switch to send
	// guest output to the process's own streams: stdout must stay pure.
	g := bins.Start(t, harness.Options{Config: hostileOnly(t, "timeout: 20s", ""), Env: []string{"EXTISM_ENABLE_WASI_OUTPUT=1"}, Stdio: true})
	send := func(s string) {
		if _, err := g.Stdin.Write([]byte(s + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"print","arguments":{}}}`)
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"stdoutpanic","arguments":{}}}`)
	send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"calculate","arguments":{"operation":"add","a":1,"b":2}}}`)
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(g.Stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	got := map[string]string{}
	deadline := time.After(60 * time.Second)
	for len(got) < 4 {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("stdout closed after %d answers", len(got))
			}
			var m jsonLine
			if err := json.Unmarshal([]byte(l), &m); err != nil || m.JSONRPC != "2.0" {
				t.Fatalf("stdout carried a line that is not JSON-RPC: %q", l)
			}
			if len(m.ID) == 0 {
				continue // a notification
			}
			if _, dup := got[string(m.ID)]; dup {
				t.Fatalf("two answers for id %s", m.ID)
			}
			got[string(m.ID)] = string(m.Result)
		case <-deadline:
			t.Fatalf("only %d answers after 60s: %v", len(got), got)
		}
	}
	for id := range got {
		if id != "1" && id != "2" && id != "3" && id != "4" {
			t.Errorf("stdout carried an answer for id %s, which the client never sent", id)
		}
	}
	if !strings.Contains(got["2"], "printed") || !strings.Contains(got["4"], `"3"`) {
		t.Errorf("answers: print %s, calculate %s", got["2"], got["4"])
	}
	// A panic printed on stdout (as TinyGo does) explains the crash.
	if !strings.Contains(got["3"], "panic: boom on stdout") || !strings.Contains(got["3"], `"isError":true`) {
		t.Errorf("stdoutpanic answered %s; want isError with the guest's panic line", got["3"])
	}
	if !harness.WaitFor(5*time.Second, func() bool { return strings.Contains(g.Stderr(), "panic: boom on stdout") }) {
		t.Errorf("the guest's panic line is not in the gateway's log")
	}
}

func TestPluginLogLinesAreRateLimited(t *testing.T) {
	t.Parallel()
	g := bins.Start(t, harness.Options{Config: hostileOnly(t, "timeout: 20s", "")})
	c := g.SessionClient(t)
	ctx := harness.Ctx(t, time.Minute)
	if text, isErr := harness.CallTool(ctx, t, c, "logflood", map[string]any{"n": 5000}); isErr || text != "logged" {
		t.Fatalf("logflood: %q", text)
	}
	time.Sleep(200 * time.Millisecond)
	if text, isErr := harness.CallTool(ctx, t, c, "logflood", map[string]any{"n": 1}); isErr || text != "logged" {
		t.Fatalf("logflood: %q", text)
	}
	if !harness.WaitFor(5*time.Second, func() bool { return strings.Contains(g.Stderr(), "plugin log lines dropped") }) {
		t.Fatalf("no line says plugin log lines were dropped")
	}
	n := strings.Count(g.Stderr(), "logflood line ")
	t.Logf("5001 plugin log lines, %d written", n)
	if n >= 1000 {
		t.Errorf("%d of 5001 plugin log lines reached the log; want them rate-limited", n)
	}
}
