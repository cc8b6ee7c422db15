package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"sync"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// testServer is an in-process mcp-go Streamable HTTP server with a native
// calculate tool (always "8" for the default arguments) and calculate_sse,
// which sends a notification first so that mcp-go answers with an SSE stream.
type testServer struct {
	url     string
	calls   atomic.Int64
	deletes atomic.Int64
	sse     atomic.Int64 // responses sent as text/event-stream
}

// sniffWriter counts event-stream responses.
type sniffWriter struct {
	http.ResponseWriter
	sse *atomic.Int64
}

func (w sniffWriter) WriteHeader(code int) {
	if strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
		w.sse.Add(1)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w sniffWriter) Flush() { w.ResponseWriter.(http.Flusher).Flush() }

func newTestServer(t *testing.T, token string) *testServer {
	t.Helper()
	ts := &testServer{}
	s := server.NewMCPServer("mcpbench-test", "0.0.1", server.WithToolCapabilities(false))
	calc := func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ts.calls.Add(1)
		a, err := req.RequireFloat("a")
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		b, err := req.RequireFloat("b")
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		switch op := req.GetString("operation", ""); op {
		case "add":
			return mcp.NewToolResultText(fmt.Sprint(a + b)), nil
		case "divide":
			if b == 0 {
				return mcp.NewToolResultError("division by zero"), nil
			}
			return mcp.NewToolResultText(fmt.Sprint(a / b)), nil
		default:
			return mcp.NewToolResultError("unknown operation " + op), nil
		}
	}
	tool := func(name string) mcp.Tool {
		return mcp.NewTool(name,
			mcp.WithString("operation", mcp.Required()),
			mcp.WithNumber("a", mcp.Required()),
			mcp.WithNumber("b", mcp.Required()))
	}
	s.AddTool(tool("calculate"), calc)
	s.AddTool(tool("calculate_sse"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if err := s.SendNotificationToClient(ctx, "notifications/message",
			map[string]any{"level": "info", "data": "computing"}); err != nil {
			return nil, err
		}
		return calc(ctx, req)
	})

	s.AddTool(mcp.NewTool("hang"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})

	var h http.Handler = server.NewStreamableHTTPServer(s)
	inner := h
	h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token != "" && r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if r.Method == http.MethodDelete {
			ts.deletes.Add(1)
		}
		inner.ServeHTTP(sniffWriter{w, &ts.sse}, r)
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	ts.url = srv.URL + "/mcp"
	return ts
}

func testConfig(t *testing.T, args ...string) config {
	t.Helper()
	var stderr bytes.Buffer
	cfg, err := parseConfig(args, func(string) string { return "" }, &stderr)
	if err != nil {
		t.Fatalf("parseConfig(%q): %v (%s)", args, err, stderr.String())
	}
	return cfg
}

func runTestPhase(t *testing.T, cfg config) phaseResult {
	t.Helper()
	tr := newTransport(maxInt(cfg.clients))
	defer tr.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	res, err := runPhase(ctx, cfg, tr, cfg.clients[0])
	if err != nil {
		t.Fatalf("runPhase: %v", err)
	}
	t.Logf("%s", res)
	return res
}

func TestRunPhase(t *testing.T) {
	ts := newTestServer(t, "")
	cfg := testConfig(t, "-url", ts.url, "-tool", "calculate",
		"-args", `{"operation":"add","a":5,"b":3}`, "-expect", "8",
		"-clients", "2", "-duration", "300ms", "-warmup", "50ms")
	res := runTestPhase(t, cfg)
	if res.calls <= 0 {
		t.Errorf("calls = %d, want > 0", res.calls)
	}
	if res.failures != 0 {
		t.Errorf("failures = %d, want 0; reasons: %q", res.failures, res.reasons)
	}
	if res.p50 <= 0 || res.p99 < res.p50 || res.max < res.p99 {
		t.Errorf("implausible percentiles p50=%v p99=%v max=%v", res.p50, res.p99, res.max)
	}
	if got := ts.calls.Load(); got < res.calls {
		t.Errorf("server saw %d tool calls, driver counted %d", got, res.calls)
	}
	if got := ts.deletes.Load(); got != 2 {
		t.Errorf("server saw %d DELETEs, want 2 (one per session)", got)
	}
}

// TestRunPhaseCPU: -cpu-pid reports each listed process's CPU time per
// call, and the driver's own. The test server runs in this process, so
// this process is listed twice and is the driver too.
func TestRunPhaseCPU(t *testing.T) {
	ts := newTestServer(t, "")
	self := strconv.Itoa(os.Getpid())
	cfg := testConfig(t, "-url", ts.url, "-expect", "8", "-clients", "2",
		"-duration", "300ms", "-warmup", "50ms", "-cpu-pid", self+","+self)
	res := runTestPhase(t, cfg)
	if len(res.cpuPerCall) != 2 || res.cpuPerCall[0] <= 0 || res.cpuPerCall[1] <= 0 || res.driverPerCall <= 0 {
		t.Fatalf("CPU per call %v, driver %v: want two positive figures and a positive driver figure", res.cpuPerCall, res.driverPerCall)
	}
	sum := res.summary()
	if len(sum.PIDCPUUs) != 2 || sum.CPUUs != sum.PIDCPUUs[0] || sum.DriverCPUUs <= 0 {
		t.Errorf("summary %+v: want cpu_us_per_call for both processes, the first as server_cpu_us_per_call, and the driver's", sum)
	}
	if s := res.String(); !strings.Contains(s, " server_cpu=") || !strings.Contains(s, " cpu_pid2=") || !strings.Contains(s, " driver_cpu=") {
		t.Errorf("result line %q lacks the CPU figures", s)
	}
}

func TestRunPhaseExpectMismatch(t *testing.T) {
	ts := newTestServer(t, "")
	cfg := testConfig(t, "-url", ts.url, "-expect", "9",
		"-clients", "2", "-duration", "200ms", "-warmup", "0s")
	res := runTestPhase(t, cfg)
	if res.failures == 0 {
		t.Fatalf("failures = 0, want > 0 when -expect mismatches")
	}
	if len(res.reasons) == 0 || !strings.Contains(res.reasons[0], `expected text "9", got "8"`) {
		t.Errorf("reasons = %q, want an expected/got mismatch", res.reasons)
	}
}

func TestRunPhaseToolError(t *testing.T) {
	ts := newTestServer(t, "")
	cfg := testConfig(t, "-url", ts.url, "-args", `{"operation":"divide","a":1,"b":0}`,
		"-clients", "1", "-duration", "100ms", "-warmup", "0s")
	res := runTestPhase(t, cfg)
	if res.failures == 0 || !strings.Contains(res.reasons[0], "isError=true") {
		t.Fatalf("failures = %d reasons = %q, want isError failures", res.failures, res.reasons)
	}
}

func TestRunPhaseSSE(t *testing.T) {
	ts := newTestServer(t, "")
	cfg := testConfig(t, "-url", ts.url, "-tool", "calculate_sse", "-expect", "8",
		"-clients", "2", "-duration", "200ms", "-warmup", "0s")
	res := runTestPhase(t, cfg)
	if res.calls <= 0 || res.failures != 0 {
		t.Fatalf("calls = %d failures = %d (%q), want calls > 0 and no failures", res.calls, res.failures, res.reasons)
	}
	if got := ts.sse.Load(); got < res.calls {
		t.Errorf("server sent %d event-stream responses for %d calls; the SSE path was not exercised", got, res.calls)
	}
}

func TestRunPhaseBearerToken(t *testing.T) {
	ts := newTestServer(t, "s3cret")

	env := func(name string) string {
		if name == "BENCH_TOKEN" {
			return "s3cret"
		}
		return ""
	}
	cfg, err := parseConfig([]string{"-url", ts.url, "-token-env", "BENCH_TOKEN", "-expect", "8",
		"-clients", "1", "-duration", "100ms", "-warmup", "0s"}, env, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if res := runTestPhase(t, cfg); res.calls <= 0 || res.failures != 0 {
		t.Fatalf("with token: calls = %d failures = %d (%q)", res.calls, res.failures, res.reasons)
	}

	// Without the token the server refuses initialize: the phase errors out.
	cfg = testConfig(t, "-url", ts.url, "-clients", "1", "-duration", "100ms", "-warmup", "0s")
	tr := newTransport(1)
	defer tr.CloseIdleConnections()
	if _, err := runPhase(t.Context(), cfg, tr, 1); err == nil || !strings.Contains(err.Error(), "HTTP 401") {
		t.Fatalf("without token: err = %v, want HTTP 401 from initialize", err)
	}
}

func TestRunPhaseHungServerIsBounded(t *testing.T) {
	ts := newTestServer(t, "")
	cfg := testConfig(t, "-url", ts.url, "-tool", "hang", "-args", "{}",
		"-clients", "2", "-duration", "100ms", "-warmup", "0s", "-timeout", "200ms")
	begin := time.Now()
	res := runTestPhase(t, cfg)
	if elapsed := time.Since(begin); elapsed > 5*time.Second {
		t.Errorf("phase took %v against a hung tool, want it bounded by -duration + -timeout", elapsed)
	}
	if res.failures != 2 || res.calls != 0 {
		t.Errorf("calls = %d failures = %d (%q), want 0 calls and one timeout per client", res.calls, res.failures, res.reasons)
	}
}

func TestRunOutputAndExitStatus(t *testing.T) {
	ts := newTestServer(t, "")
	line := regexp.MustCompile(`^clients=(1|2) duration=0\.15s calls=\d+ calls/s=\d+\.\d p50=\d+\.\d\dms p99=\d+\.\d\dms failures=\d+$`)

	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"-url", ts.url, "-expect", "8", "-clients", "1,2",
		"-duration", "150ms", "-warmup", "20ms", "-json"}, func(string) string { return "" }, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit = %d, stderr:\n%s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("stdout has %d lines, want 4 (human + JSON per phase):\n%s", len(lines), stdout.String())
	}
	for i, want := range []int{1, 2} {
		if !line.MatchString(lines[2*i]) {
			t.Errorf("line %q does not match %s", lines[2*i], line)
		}
		var sum phaseSummary
		if err := json.Unmarshal([]byte(lines[2*i+1]), &sum); err != nil {
			t.Fatalf("JSON line %q: %v", lines[2*i+1], err)
		}
		if sum.Clients != want || sum.Calls <= 0 || sum.Failures != 0 || sum.DurationS != 0.15 {
			t.Errorf("summary %+v, want clients=%d, calls > 0, no failures", sum, want)
		}
	}

	stdout.Reset()
	stderr.Reset()
	code = run(t.Context(), []string{"-url", ts.url, "-expect", "nope", "-clients", "1",
		"-duration", "50ms", "-warmup", "0s"}, func(string) string { return "" }, &stdout, &stderr)
	if code != exitFailures {
		t.Fatalf("mismatch: exit = %d, want %d", code, exitFailures)
	}
	if !strings.Contains(stderr.String(), `failure: tools/call id `) {
		t.Errorf("stderr lacks failure reasons:\n%s", stderr.String())
	}
}

func TestLoopbackOnly(t *testing.T) {
	for _, tc := range []struct {
		url string
		ok  bool
	}{
		{"http://127.0.0.1:8080/mcp", true},
		{"http://127.9.8.7:1/mcp", true},
		{"http://localhost:8080/mcp", true},
		{"http://LOCALHOST/mcp", true},
		{"http://[::1]:8080/mcp", true},
		{"https://[::ffff:127.0.0.1]:8443/mcp", true},
		{"http://10.0.0.1:8080/mcp", false},
		{"http://192.168.1.1/mcp", false},
		{"http://[::2]/mcp", false},
		{"http://example.com/mcp", false},
		{"http://localhost.example.com/mcp", false},
		{"http://0.0.0.0:8080/mcp", false},
		{"ftp://127.0.0.1/mcp", false},
	} {
		_, err := parseConfig([]string{"-url", tc.url}, func(string) string { return "" }, &bytes.Buffer{})
		if (err == nil) != tc.ok {
			t.Errorf("%s: err = %v, want ok=%v", tc.url, err, tc.ok)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-args", "[1,2]"},
		{"-args", "{"},
		{"-clients", "1,x"},
		{"-clients", "0"},
		{"-duration", "0s"},
		{"-cpu-pid", "x"},
		{"-cpu-pid", "0"},
		{"-cpu-pid", "1,"},
		{"-token-env", "UNSET_VAR"},
		{"extra"},
		{"-serve", "0.0.0.0:0"},
		{"-serve", "example.com:80"},
		{"-serve", "127.0.0.1"},
		{"-reverse-proxy", "0.0.0.0:0"},
		{"-serve-floor", "example.com:80"},
		{"-reverse-proxy", "example.com:80"},
		{"-stdio-floor", "0.0.0.0:0"},
		{"-trace-to", "http://127.0.0.1:4318"},
		{"-serve", "127.0.0.1:0", "-trace-to", "http://example.com:4318"},
	} {
		if _, err := parseConfig(args, func(string) string { return "" }, &bytes.Buffer{}); err == nil {
			t.Errorf("parseConfig(%q) succeeded, want an error", args)
		}
	}
}

// TestServeNative drives the native baseline server of -serve with the
// load driver itself.
func TestServeNative(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	url, served := serving(ctx, t, "-serve", "127.0.0.1:0")
	driveCalculator(t, url)
	cancel()
	if code := <-served; code != exitOK {
		t.Errorf("-serve exited with %d after its context ended", code)
	}
}

// driveCalculator drives the calculate tool at url with the load driver:
// two clients getting 8 (fatal otherwise), then a division by zero that
// must fail with the tool's error. It returns the first phase's output.
func driveCalculator(t *testing.T, url string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), []string{"-url", url, "-expect", "8", "-clients", "2",
		"-duration", "150ms", "-warmup", "20ms"}, func(string) string { return "" }, &stdout, &stderr); code != exitOK {
		t.Fatalf("driving %s: exit = %d, stderr:\n%s", url, code, stderr.String())
	}
	out := stdout.String()
	stderr.Reset()
	code := run(t.Context(), []string{"-url", url, "-args", `{"operation":"divide","a":1,"b":0}`, "-clients", "1",
		"-duration", "50ms", "-warmup", "0s"}, func(string) string { return "" }, &stdout, &stderr)
	if code != exitFailures || !strings.Contains(stderr.String(), "Division by zero") {
		t.Errorf("divide by zero at %s: exit = %d, stderr:\n%s", url, code, stderr.String())
	}
	return out
}

// serving runs mcpbench with args (a -serve-like mode) until ctx ends, and
// returns the URL of its "serving" line and where its exit status will be.
func serving(ctx context.Context, t *testing.T, args ...string) (string, <-chan int) {
	t.Helper()
	pr, pw := io.Pipe()
	served := make(chan int, 1)
	go func() {
		served <- run(ctx, args, func(string) string { return "" }, pw, io.Discard)
		pw.Close()
	}()
	first, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("%q: reading the serving line: %v", args, err)
	}
	go io.Copy(io.Discard, pr)
	url, ok := strings.CutPrefix(strings.TrimSpace(first), "serving ")
	if !ok {
		t.Fatalf("%q: first line %q, want serving http://...", args, first)
	}
	return url, served
}

// TestReverseProxy drives the native server through -reverse-proxy: the
// calls (sessions, results, a tool's error) arrive as they do directly,
// and the proxy stops with its context.
func TestReverseProxy(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	upstream, upServed := serving(ctx, t, "-serve", "127.0.0.1:0")
	url, served := serving(ctx, t, "-reverse-proxy", "127.0.0.1:0", "-url", upstream)
	if url == upstream {
		t.Fatalf("the proxy serves at the upstream's URL %s", url)
	}
	if out := driveCalculator(t, url); !strings.Contains(out, "failures=0") {
		t.Errorf("through the proxy: %s", out)
	}
	cancel()
	if code := <-served; code != exitOK {
		t.Errorf("-reverse-proxy exited with %d after its context ended", code)
	}
	<-upServed
}

// TestServeNativeStdio drives -serve-stdio's server with mcp-go's own
// stdio client: initialize, then a calculate.
func TestServeNativeStdio(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- serveNativeStdio(t.Context(), inR, outW)
		outW.Close()
	}()
	tr := transport.NewIO(outR, inW, io.NopCloser(strings.NewReader("")))
	c := client.NewClient(tr)
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
	if _, err := c.Initialize(t.Context(), init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "calculate"
	req.Params.Arguments = map[string]any{"operation": "multiply", "a": 6, "b": 7}
	res, err := c.CallTool(t.Context(), req)
	if err != nil {
		t.Fatalf("calculate: %v", err)
	}
	if tc, ok := res.Content[0].(mcp.TextContent); !ok || tc.Text != "42" {
		t.Errorf("calculate 6*7 = %+v", res.Content)
	}
	inW.Close() // stdin ends: the server returns
	if err := <-served; err != nil {
		t.Errorf("serveNativeStdio after stdin ended: %v", err)
	}
	c.Close()
}

// TestServeNativeTraced drives -serve -trace-to against an OTLP/HTTP
// receiver that decodes what it gets: every call is exported as the
// gateway exports one, a server span and the tool's child span under it,
// with the gateway's six attributes on the server span.
func TestServeNativeTraced(t *testing.T) {
	var mu sync.Mutex
	var spans []*tracepb.Span
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		var req coltracepb.ExportTraceServiceRequest
		if err == nil {
			err = proto.Unmarshal(body, &req)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				spans = append(spans, ss.Spans...)
			}
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer recv.Close()

	ctx, cancel := context.WithCancel(t.Context())
	url, served := serving(ctx, t, "-serve", "127.0.0.1:0", "-trace-to", recv.URL)
	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), []string{"-url", url, "-expect", "8", "-clients", "2",
		"-duration", "100ms", "-warmup", "0s"}, func(string) string { return "" }, &stdout, &stderr); code != exitOK {
		t.Fatalf("driving %s: exit = %d, stderr:\n%s", url, code, stderr.String())
	}
	cancel() // the provider's shutdown exports what is queued
	if code := <-served; code != exitOK {
		t.Fatalf("-serve exited with %d", code)
	}
	mu.Lock()
	defer mu.Unlock()
	byID := map[string]*tracepb.Span{}
	for _, s := range spans {
		byID[string(s.SpanId)] = s
	}
	calls := 0
	for _, s := range spans {
		if s.Name != "native call" {
			continue
		}
		calls++
		p := byID[string(s.ParentSpanId)]
		if p == nil || p.Name != "tools/call" || p.Kind != tracepb.Span_SPAN_KIND_SERVER {
			t.Fatalf("native call span's parent = %v, want the tools/call server span", p)
		}
		if len(p.Attributes) != 6 {
			t.Errorf("server span attributes = %v, want the gateway's six", p.Attributes)
		}
	}
	if calls < 10 {
		t.Errorf("%d tool call spans exported (of %d spans), want one per call", calls, len(spans))
	}
}

// TestServeFloor drives -serve-floor: sessions, the calculator's results
// and its errors, as the native server gives them; an unknown session is
// refused.
func TestServeFloor(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	url, served := serving(ctx, t, "-serve-floor", "127.0.0.1:0")
	driveCalculator(t, url)
	refusesUnknownSession(t, url)
	cancel()
	if code := <-served; code != exitOK {
		t.Errorf("-serve-floor exited with %d after its context ended", code)
	}
}

// refusesUnknownSession checks that url answers a call on a session it
// never opened with 404.
func refusesUnknownSession(t *testing.T, url string) {
	t.Helper()
	r, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"calculate","arguments":{"operation":"add","a":1,"b":2}}}`))
	r.Header.Set("Mcp-Session-Id", "not-a-session")
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("a call on an unknown session: HTTP %d, want 404", resp.StatusCode)
	}
}
