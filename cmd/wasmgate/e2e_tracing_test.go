package main

// Tracing end to end: the built gateway exports OTLP over HTTP to an
// in-process receiver that decodes the protobuf the way a collector does;
// the spans of a call continue the caller's traceparent (an HTTP header,
// or _meta.traceparent), nest as documented (policy, the source, the wait
// for an instance, the WASM call, the plugin's HTTP request), the plugin's
// request carries the trace on, and the trace id is in the audit line and
// on the latency histogram as an exemplar. A collector that is down slows
// nothing; a reload turns tracing off.

import (
	"compress/gzip"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// otlpSpan is one span as the receiver decoded it.
type otlpSpan struct {
	name, trace, id, parent string
	attrs                   map[string]string
	events                  map[string]map[string]string // by name: its string attributes
}

// otlpReceiver is an OTLP/HTTP trace receiver (POST /v1/traces,
// application/x-protobuf).
type otlpReceiver struct {
	*httptest.Server
	mu    sync.Mutex
	spans []otlpSpan
	bad   []string
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	rc := &otlpReceiver{}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			body = zr
		}
		b, _ := io.ReadAll(body)
		var req coltracepb.ExportTraceServiceRequest
		if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" || proto.Unmarshal(b, &req) != nil {
			rc.mu.Lock()
			rc.bad = append(rc.bad, fmt.Sprintf("%s %s %s", r.Method, r.URL.Path, r.Header.Get("Content-Type")))
			rc.mu.Unlock()
			http.Error(w, "not an OTLP trace export", 400)
			return
		}
		rc.mu.Lock()
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					sp := otlpSpan{name: s.Name, trace: hex.EncodeToString(s.TraceId), id: hex.EncodeToString(s.SpanId),
						parent: hex.EncodeToString(s.ParentSpanId), attrs: map[string]string{}}
					for _, a := range s.Attributes {
						sp.attrs[a.Key] = a.Value.GetStringValue()
						if _, isInt := a.Value.GetValue().(*commonpb.AnyValue_IntValue); isInt {
							sp.attrs[a.Key] = strconv.FormatInt(a.Value.GetIntValue(), 10)
						}
					}
					for _, e := range s.Events {
						if sp.events == nil {
							sp.events = map[string]map[string]string{}
						}
						ea := map[string]string{}
						for _, a := range e.Attributes {
							ea[a.Key] = a.Value.GetStringValue()
						}
						sp.events[e.Name] = ea
					}
					for _, a := range rs.Resource.GetAttributes() {
						sp.attrs["resource."+a.Key] = a.Value.GetStringValue()
					}
					rc.spans = append(rc.spans, sp)
				}
			}
		}
		rc.mu.Unlock()
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
	}))
	t.Cleanup(rc.Close)
	return rc
}

// trace waits until the spans of trace id include every one of names,
// and returns them by name.
func (rc *otlpReceiver) trace(t *testing.T, id string, names ...string) map[string]otlpSpan {
	t.Helper()
	var got map[string]otlpSpan
	ok := harness.WaitFor(20*time.Second, func() bool {
		rc.mu.Lock()
		defer rc.mu.Unlock()
		got = map[string]otlpSpan{}
		for _, s := range rc.spans {
			if s.trace == id {
				got[s.name] = s
			}
		}
		for _, n := range names {
			if _, ok := got[n]; !ok {
				return false
			}
		}
		return true
	})
	if !ok {
		var have []string
		for n := range got {
			have = append(have, n)
		}
		t.Fatalf("trace %s: spans %q, want %q (bad requests: %q)", id, have, names, rc.bad)
	}
	return got
}

func (rc *otlpReceiver) count() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.spans)
}

func TestTracing(t *testing.T) {
	t.Parallel()
	rc := newOTLPReceiver(t)
	var hopMu sync.Mutex
	var hops []string // the traceparent headers the plugin's requests carried
	hop := newRecordingServer(t, map[string]http.HandlerFunc{"/hop": func(w http.ResponseWriter, r *http.Request) {
		hopMu.Lock()
		hops = append(hops, r.Header.Get("Traceparent"))
		hopMu.Unlock()
		io.WriteString(w, "hop")
	}})
	plugins := fmt.Sprintf(`  - {name: calculator, path: %s}
  - name: fetch
    path: %s
    allowed_hosts: ["127.0.0.1:%s"]
  - {name: storage, path: %s}
  - {name: hostile, path: %s, limits: {concurrency: 1}}
  - {name: hyperv1, path: %s}
`, harness.Wasm(t, "examples/plugins/calculator"), harness.Wasm(t, "testdata/plugins/fetch"), hop.Port(), harness.Wasm(t, "examples/plugins/storage"),
		harness.Wasm(t, "testdata/plugins/hostile"), harness.Wasm(t, "testdata/plugins/hyperv1"))
	// A policy (anonymous callers may use everything), so that calls have
	// a policy span: without a policy there is nothing to time and no span.
	// A ratio above 0 but so small that no call starts a trace of its own
	// here: the calls traced are those whose caller sent a sampled
	// traceparent (with sample_ratio 0 none is: TestTracingSampleRatioZeroHonoured).
	tracingOn := fmt.Sprintf("tracing:\n  endpoint: %s\n  sample_ratio: 0.000001\npolicy:\n  rules:\n    - principals: [\"*\"]\n      allow: {tools: [\"*\"], resources: [\"*\"], prompts: [\"*\"]}\n", rc.URL)
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{Plugins: plugins, Sections: tracingOn}))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 120*time.Second)

	// A tiny sample_ratio, but the caller's sampled traceparent is followed
	// (parent-based sampling): a header on every request of this client.
	const trace1, parent1 = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	c1 := g.SessionClient(t, transport.WithHTTPHeaders(map[string]string{"traceparent": "00-" + trace1 + "-" + parent1 + "-01"}))
	harness.Calc(ctx, t, c1, 2, 3)
	sp := rc.trace(t, trace1, "tools/call calculate", "policy", "wasm call")
	root := sp["tools/call calculate"]
	if root.parent != parent1 {
		t.Errorf("the call's span has parent %q, want the header's %q", root.parent, parent1)
	}
	for _, n := range []string{"policy", "wasm call"} {
		if sp[n].parent != root.id {
			t.Errorf("span %q has parent %q, want the call's %q", n, sp[n].parent, root.id)
		}
	}
	if _, ok := sp["instance wait"]; ok {
		t.Errorf("an instance wait span for a call that found its instance at once (the calculator, idle)")
	}
	if _, ok := sp["plugin calculator"]; ok {
		t.Errorf("a plugin span between the call's and the wasm call's (a plugin's spans are its own)")
	}

	// A call that waits for the only instance (limits.concurrency 1, held
	// by a sleeping call) has its wait as a span under the plugin's.
	sleeping := make(chan error, 1)
	cs := g.Client(t)
	go func() {
		res, err := harness.CallToolErr(ctx, cs, "sleep", map[string]any{"ms": 1500})
		if err == nil && res.IsError {
			err = fmt.Errorf("sleep 1500: %s", harness.ResultText(res))
		}
		sleeping <- err
	}()
	if !harness.WaitFor(30*time.Second, func() bool {
		n, _ := g.Metric(t, "wasmgate_tool_calls_in_flight", map[string]string{"source": "hostile"})
		return n >= 1
	}) {
		t.Fatal("the sleeping call never ran")
	}
	const traceW, parentW = "1c4d6a2b3e5f7081920a1b2c3d4e5f60", "0123456789abcdef"
	cw := g.SessionClient(t, transport.WithHTTPHeaders(map[string]string{"traceparent": "00-" + traceW + "-" + parentW + "-01"}))
	if text, isErr := harness.CallTool(ctx, t, cw, "sleep", map[string]any{"ms": 1}); isErr {
		t.Fatalf("sleep 1 behind a sleeping call: %q", text)
	}
	if err := <-sleeping; err != nil {
		t.Fatal(err)
	}
	sp = rc.trace(t, traceW, "tools/call sleep", "instance wait", "wasm call")
	if call := sp["tools/call sleep"].id; sp["instance wait"].parent != call || sp["wasm call"].parent != call {
		t.Errorf("instance wait span has parent %q and wasm call %q, want the call's %q", sp["instance wait"].parent, sp["wasm call"].parent, call)
	}
	for k, want := range map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "calculate",
		"wasmgate.source": "calculator", "wasmgate.source.kind": "plugin", "wasmgate.endpoint": "default", "wasmgate.outcome": "ok",
		"wasmgate.principal": "anonymous", "resource.service.name": "wasmgate"} {
		if got := root.attrs[k]; got != want {
			t.Errorf("call span attribute %s = %q, want %q", k, got, want)
		}
	}

	// A 2026-07-28 request carries its traceparent in _meta; the plugin's
	// HTTP request continues the trace.
	const trace2, parent2 = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
	c2 := g.Client(t)
	req := mcp.CallToolRequest{}
	req.Params.Name = "fetch"
	req.Params.Arguments = map[string]any{"url": hop.URL + "/hop"}
	req.Params.Meta = &mcp.Meta{AdditionalFields: map[string]any{"traceparent": "00-" + trace2 + "-" + parent2 + "-01"}}
	if res, err := c2.CallTool(ctx, req); err != nil || res.IsError {
		t.Fatalf("fetch: %v %+v", err, res)
	}
	sp = rc.trace(t, trace2, "tools/call fetch", "wasm call", "HTTP GET")
	if sp["tools/call fetch"].parent != parent2 {
		t.Errorf("the _meta call's span has parent %q, want %q", sp["tools/call fetch"].parent, parent2)
	}
	httpSpan := sp["HTTP GET"]
	if httpSpan.parent != sp["wasm call"].id || httpSpan.attrs["server.address"] != "127.0.0.1" {
		t.Errorf("HTTP span %+v, want a child of the wasm call %q to 127.0.0.1", httpSpan, sp["wasm call"].id)
	}
	hopMu.Lock()
	carried := append([]string(nil), hops...)
	hopMu.Unlock()
	if len(carried) != 1 || carried[0] != "00-"+trace2+"-"+httpSpan.id+"-01" {
		t.Errorf("the plugin's request carried traceparent %q, want 00-%s-%s-01", carried, trace2, httpSpan.id)
	}

	// A host function's KV write is a span under the WASM call.
	const trace3, parent3 = "5b8aa5a2d2c872e8321cf37308d69df2", "051581bf3cb55c13"
	req = mcp.CallToolRequest{}
	req.Params.Name = "set-storage"
	req.Params.Arguments = map[string]any{"key": "k", "value": "v"}
	req.Params.Meta = &mcp.Meta{AdditionalFields: map[string]any{"traceparent": "00-" + trace3 + "-" + parent3 + "-01"}}
	if res, err := c2.CallTool(ctx, req); err != nil || res.IsError {
		t.Fatalf("set-storage: %v %+v", err, res)
	}
	sp = rc.trace(t, trace3, "tools/call set-storage", "wasm call", "kv set")
	if sp["kv set"].parent != sp["wasm call"].id {
		t.Errorf("kv set span has parent %q, want the wasm call %q", sp["kv set"].parent, sp["wasm call"].id)
	}

	// A plugin's sampling request is a span under the WASM call (for this
	// 2026-07-28 client the run stops there and the client is asked,
	// input_required: what the client makes of that does not matter here).
	const traceS, parentS = "7d1e2f3a4b5c6d7e8f90a1b2c3d4e5f6", "1a2b3c4d5e6f7081"
	req = mcp.CallToolRequest{}
	req.Params.Name = "v1_sample"
	req.Params.Arguments = map[string]any{"prompt": "hi"}
	req.Params.Meta = &mcp.Meta{AdditionalFields: map[string]any{"traceparent": "00-" + traceS + "-" + parentS + "-01"}}
	_, _ = c2.CallTool(ctx, req)
	sp = rc.trace(t, traceS, "tools/call v1_sample", "wasm call", "sampling/createMessage")
	if sp["sampling/createMessage"].parent != sp["wasm call"].id {
		t.Errorf("sampling span has parent %q, want the wasm call %q", sp["sampling/createMessage"].parent, sp["wasm call"].id)
	}

	// The trace id is in the audit line and on the histogram's exemplar.
	if !strings.Contains(g.Stderr(), "trace_id="+trace1) {
		t.Errorf("no audit line with trace_id=%s:\n%s", trace1, g.Stderr())
	}
	om, err := http.NewRequest(http.MethodGet, g.AdminURL+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	om.Header.Set("Accept", "application/openmetrics-text; version=1.0.0")
	resp, err := http.DefaultClient.Do(om)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	exemplar := false // on a bucket of fetch's series, labelled with its endpoint
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "wasmgate_tool_call_duration_seconds_bucket{") && strings.Contains(line, `tool="fetch"`) &&
			strings.Contains(line, `endpoint="default"`) && strings.Contains(line, `# {trace_id="`+trace2+`"}`) {
			exemplar = true
		}
	}
	if !exemplar {
		t.Errorf("no exemplar with trace_id %s on the latency histogram of fetch, endpoint default, in OpenMetrics output", trace2)
	}

	// A caller without a traceparent is not recorded (sample_ratio tiny).
	c3 := g.SessionClient(t)
	before := rc.count()
	harness.Calc(ctx, t, c3, 1, 1)

	// The collector goes away (another endpoint, nobody listening):
	// calls keep answering, the spans are dropped and counted.
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	n := g.ReloadCount(t)
	harness.RenameOver(t, cfg, []byte(bins.YAML(harness.Parts{Plugins: plugins,
		Sections: fmt.Sprintf("tracing:\n  endpoint: %s\n", deadURL)})))
	g.WaitReload(t, n, "tracing to a dead collector")
	for i := range 20 {
		harness.Calc(ctx, t, c3, i, 1)
	}
	if !harness.WaitFor(30*time.Second, func() bool {
		v, _ := g.Metric(t, "wasmgate_trace_spans_total", map[string]string{"outcome": "dropped"})
		return v > 0
	}) {
		t.Errorf("spans to a dead collector were not counted as dropped")
	}
	if _, ok := g.WaitLog(0, "tracing: exporting spans failed", 10*time.Second); !ok {
		t.Errorf("no structured log line for the failed exports:\n%s", g.Stderr())
	}
	for _, line := range strings.Split(g.Stderr(), "\n") {
		if strings.HasPrefix(line, "20") && strings.Contains(line, "traces export") && !strings.Contains(line, "level=") {
			t.Errorf("OpenTelemetry wrote its own log line: %q", line)
		}
	}
	if got := rc.count(); got != before {
		t.Errorf("the receiver got %d spans after the unsampled call and the switch, want none", got-before)
	}

	// Off again: no tracing section.
	n = g.ReloadCount(t)
	harness.RenameOver(t, cfg, []byte(bins.YAML(harness.Parts{Plugins: plugins})))
	g.WaitReload(t, n, "no tracing section")
	harness.Calc(ctx, t, c1, 4, 4)
	if _, ok := g.WaitLog(0, "tracing off", 10*time.Second); !ok {
		t.Errorf("no \"tracing off\" log line after the reload")
	}

	// And on again by a reload, to the live receiver: the next call of
	// a client with a sampled traceparent is recorded.
	n = g.ReloadCount(t)
	harness.RenameOver(t, cfg, []byte(bins.YAML(harness.Parts{Plugins: plugins, Sections: tracingOn})))
	g.WaitReload(t, n, "tracing on again")
	const traceOn = "5bf92f3577b34da6a3ce929d0e0e4737"
	c4 := g.SessionClient(t, transport.WithHTTPHeaders(map[string]string{"traceparent": "00-" + traceOn + "-" + parent1 + "-01"}))
	harness.Calc(ctx, t, c4, 5, 5)
	rc.trace(t, traceOn, "tools/call calculate", "wasm call")
}

// TestTracingThroughUpstream (issue 19 item 4): a call forwarded to an
// upstream server carries the trace on. Both gateways export to one
// receiver; the back gateway's span of the call is a child of the front
// gateway's upstream span, in the caller's trace.
func TestTracingThroughUpstream(t *testing.T) {
	t.Parallel()
	rc := newOTLPReceiver(t)
	tracingOn := fmt.Sprintf("tracing:\n  endpoint: %s\n  sample_ratio: 0.000001\n  service_name: %%s\n", rc.URL)
	back := bins.Start(t, harness.Options{Config: harness.WriteConfig(t, bins.YAML(harness.Parts{
		Plugins:  harness.Item("name: calculator", "path: "+harness.Q(harness.Wasm(t, "examples/plugins/calculator"))),
		Sections: fmt.Sprintf(tracingOn, "back"),
	}))})
	front := bins.Start(t, harness.Options{Config: harness.WriteConfig(t, bins.YAML(harness.Parts{
		Plugins: "  []\n",
		Sections: fmt.Sprintf(tracingOn, "front") + fmt.Sprintf(`upstreams:
  - name: back
    url: %s
    prefix: back
`, back.MCPURL),
	}))})
	ctx := harness.Ctx(t, 2*time.Minute)
	const trace1, parent1 = "6e0c63257de34c92bf9efcd03927272e", "2a3f7c0d9b1e4f56"
	c := front.SessionClient(t, transport.WithHTTPHeaders(map[string]string{"traceparent": "00-" + trace1 + "-" + parent1 + "-01"}))
	harness.CalcTool(ctx, t, c, "back_calculate", 2, 3)
	sp := rc.trace(t, trace1, "tools/call back_calculate", "upstream back", "tools/call calculate", "wasm call")
	if got := sp["tools/call back_calculate"].parent; got != parent1 {
		t.Errorf("the front call's span has parent %q, want the header's %q", got, parent1)
	}
	if got, want := sp["tools/call calculate"].parent, sp["upstream back"].id; got != want {
		t.Errorf("the back gateway's call span has parent %q, want the front's upstream span %q", got, want)
	}
	if sp["tools/call back_calculate"].attrs["resource.service.name"] != "front" || sp["tools/call calculate"].attrs["resource.service.name"] != "back" {
		t.Errorf("service names: front span %q, back span %q", sp["tools/call back_calculate"].attrs["resource.service.name"], sp["tools/call calculate"].attrs["resource.service.name"])
	}
}
