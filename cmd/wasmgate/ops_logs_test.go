package main

// Logs: a debug line per call, and durations as numbers of seconds in
// JSON logs.

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/internal/harness"
)

func TestJSONLogDurationsAreSeconds(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	logger := newLogger(&buf, new(slog.LevelVar), "json")
	logger.Info("x", "took", 1500*time.Millisecond, "timeout", config.Duration(250*time.Millisecond), "name", "n")
	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatalf("%v: %s", err, buf.Bytes())
	}
	if rec["took"] != 1.5 || rec["timeout"] != 0.25 || rec["name"] != "n" {
		t.Errorf("JSON log record %v: want took 1.5, timeout 0.25 (numbers of seconds)", rec)
	}
	buf.Reset()
	newLogger(&buf, new(slog.LevelVar), "text").Info("x", "took", 1500*time.Millisecond)
	if !strings.Contains(buf.String(), "took=1.5s") {
		t.Errorf("text log %q: want took=1.5s", buf.String())
	}
}

func TestDebugLinePerCall(t *testing.T) {
	t.Parallel()
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{Server: "  log: {level: debug}\n", Plugins: harness.ExamplePlugins(t)}))
	g := bins.Start(t, harness.Options{Config: cfg})
	c := g.SessionClient(t)
	ctx := harness.Ctx(t, time.Minute)
	off := len(g.Stderr())
	harness.CalcTool(ctx, t, c, "calculate", 1, 2)
	harness.CallTool(ctx, t, c, "calculate", map[string]any{"operation": "divide", "a": 1, "b": 0})
	line, ok := g.WaitLog(off, `msg="call finished"`, 10*time.Second)
	if !ok {
		t.Fatalf("no debug line for a call:\n%s", g.StderrSince(off))
	}
	for _, want := range []string{"level=DEBUG", "principal=anonymous", "transport=http", "endpoint=default", "tool=calculate", "source=calculator", "outcome=ok", "duration="} {
		if !strings.Contains(line, want) {
			t.Errorf("call line %q lacks %q", line, want)
		}
	}
	line, ok = g.WaitLog(off, `msg="call finished" principal=anonymous transport=http endpoint=default tool=calculate source=calculator outcome=error`, 10*time.Second)
	if !ok || !strings.Contains(line, `error="Division by zero"`) {
		t.Errorf("the isError call's line %q should carry its outcome and error", line)
	}
}
