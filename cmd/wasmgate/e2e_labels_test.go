package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// TestCallLabels: without an endpoints section, every call's metrics,
// audit line and debug line name the endpoint default and the call's
// source (the label and key source, not plugin), for a plugin and an
// upstream server alike.
func TestCallLabels(t *testing.T) {
	t.Parallel()
	node, script := everything(t)
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
		Server:  "  log: {level: debug}\n",
		Plugins: harness.ExamplePlugins(t),
		Sections: fmt.Sprintf(`upstreams:
  - name: every
    command: [%q, %q, stdio]
    prefix: ev
    limits: {timeout: 60s}
`, node, script),
	}))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 90*time.Second)
	c := g.SessionClient(t)

	harness.CalcTool(ctx, t, c, "calculate", 2, 3)
	if text, isErr := harness.CallTool(ctx, t, c, "ev_echo", map[string]any{"message": "labels"}); isErr || !strings.Contains(text, "labels") {
		t.Fatalf("ev_echo = %q (isError %v)", text, isErr)
	}
	if _, isErr := harness.CallTool(ctx, t, c, "ev_echo", map[string]any{}); !isErr {
		t.Fatal("ev_echo without its message was served")
	}
	harness.ReadText(ctx, t, c, "greeter://about")
	if contents := harness.ReadResource(ctx, t, c, "demo://ev/resource/dynamic/text/1"); len(contents) != 1 {
		t.Fatalf("the upstream's resource: %d contents", len(contents))
	}
	if _, err := harness.GetPrompt(ctx, c, "greeting_prompt", map[string]string{"name": "Ada"}); err != nil {
		t.Fatal(err)
	}
	if _, err := harness.GetPrompt(ctx, c, "ev_simple-prompt", nil); err != nil {
		t.Fatal(err)
	}

	m := g.Scrape(t)
	for _, w := range []struct {
		metric string
		labels map[string]string
	}{
		{"wasmgate_tool_calls_total", map[string]string{"tool": "calculate", "source": "calculator", "outcome": "ok"}},
		{"wasmgate_tool_calls_total", map[string]string{"tool": "ev_echo", "source": "every", "outcome": "ok"}},
		{"wasmgate_tool_calls_total", map[string]string{"tool": "ev_echo", "source": "every", "outcome": "invalid_args"}},
		{"wasmgate_tool_call_duration_seconds_count", map[string]string{"tool": "calculate", "source": "calculator"}},
		{"wasmgate_tool_call_duration_seconds_count", map[string]string{"tool": "ev_echo", "source": "every"}},
		{"wasmgate_resource_reads_total", map[string]string{"source": "greeter", "outcome": "ok"}},
		{"wasmgate_resource_reads_total", map[string]string{"source": "every", "outcome": "ok"}},
		{"wasmgate_prompt_gets_total", map[string]string{"source": "greeter", "outcome": "ok"}},
		{"wasmgate_prompt_gets_total", map[string]string{"source": "every", "outcome": "ok"}},
	} {
		w.labels["endpoint"] = "default"
		want := 1.0
		if w.labels["tool"] == "ev_echo" && w.labels["outcome"] == "" {
			want = 2 // both calls, whatever their outcome
		}
		if v, ok := m.Value(w.metric, w.labels); !ok || v != want {
			t.Errorf("%s%v = %v (present %v), want %v", w.metric, w.labels, v, ok, want)
		}
	}
	for _, src := range []string{"calculator", "every"} {
		if v, ok := m.Value("wasmgate_tool_calls_in_flight", map[string]string{"source": src, "endpoint": "default"}); !ok || v != 0 {
			t.Errorf("wasmgate_tool_calls_in_flight{source=%s,endpoint=default} = %v (present %v), want 0", src, v, ok)
		}
	}
	// No call metric is labelled plugin any more; every one has an endpoint.
	for _, line := range strings.Split(string(m), "\n") {
		for _, name := range []string{"wasmgate_tool_calls_total{", "wasmgate_tool_call_duration_seconds_bucket{", "wasmgate_tool_calls_in_flight{", "wasmgate_resource_reads_total{", "wasmgate_prompt_gets_total{"} {
			if strings.HasPrefix(line, name) && (strings.Contains(line, `plugin="`) || !strings.Contains(line, `endpoint="default"`)) {
				t.Errorf("a call series without endpoint=\"default\", or with plugin: %s", line)
			}
		}
	}

	// The audit lines (info, to the log) and the debug line of each call.
	for _, want := range []string{
		`msg=call component=audit principal=anonymous transport=http session=`,
		`endpoint=default kind=tool name=calculate outcome=ok`,
		`endpoint=default kind=tool name=ev_echo outcome=invalid_args`,
		`endpoint=default kind=resource name=demo://ev/resource/dynamic/text/1 outcome=ok`,
		`msg="call finished" principal=anonymous transport=http endpoint=default tool=ev_echo source=every outcome=ok`,
		`endpoint=default prompt=greeting_prompt source=greeter outcome=ok`,
	} {
		if !harness.WaitFor(10*time.Second, func() bool { return strings.Contains(g.Stderr(), want) }) {
			t.Errorf("the log has no line with %s:\n%s", want, g.Stderr())
		}
	}
}
