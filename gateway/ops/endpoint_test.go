package ops

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/gateway/envelope"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/policy"
)

// TestAuditEndpoint: an audit line names the endpoint a call came
// through, in the log and in audit.file alike.
func TestAuditEndpoint(t *testing.T) {
	c := envelope.Caller{Principal: policy.Principal{Name: "p"}, Transport: envelope.TransportHTTP}
	calls := []*envelope.Call{
		{Caller: c, Endpoint: "dev", Kind: "tool", Name: "calculate", Source: "calc", Outcome: "ok", Start: time.Now()},
		{Caller: c, Endpoint: "support", Kind: "resource", Name: "tickets://1", Source: "tickets", Outcome: "ok", Start: time.Now()},
	}
	check := func(where string, out []byte) {
		t.Helper()
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) != len(calls) {
			t.Fatalf("%s: %d lines, want %d:\n%s", where, len(lines), len(calls), out)
		}
		for i, line := range lines {
			var got struct{ Endpoint, Kind, Name string }
			if err := json.Unmarshal([]byte(line), &got); err != nil {
				t.Fatalf("%s: line %d: %v: %s", where, i, err, line)
			}
			if w := calls[i]; got.Endpoint != w.Endpoint || got.Kind != w.Kind || got.Name != w.Name {
				t.Errorf("%s: line %d is %+v, want endpoint %q for %s %s", where, i, got, w.Endpoint, w.Kind, w.Name)
			}
		}
	}

	var log bytes.Buffer
	a := NewAudit(slog.New(slog.NewJSONHandler(&log, nil)))
	for _, call := range calls {
		a.Observe(context.Background(), call)
	}
	check("log", log.Bytes())

	path := filepath.Join(t.TempDir(), "audit.log")
	a.Apply(loader.Audit{File: path})
	for _, call := range calls {
		a.Observe(context.Background(), call)
	}
	a.Close() // writes what waits
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	check("audit.file", b)
}

// TestTrackerEndpoints: the status page counts a tool's calls per
// endpoint, and its debug line names the endpoint and the source.
func TestTrackerEndpoints(t *testing.T) {
	var log bytes.Buffer
	s := NewTracker(slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug})))
	now := time.Now()
	for _, ep := range []string{"dev", "dev", "support"} {
		s.Observe(context.Background(), &envelope.Call{Endpoint: ep, Kind: "tool", Name: "calculate", Key: "calculate", Source: "calc", Outcome: "ok", Start: now})
	}
	got := map[string]int64{}
	for _, cs := range s.snapshotCalls(time.Now()) {
		if cs.Name != "calculate" || cs.Source != "calc" {
			t.Errorf("calls %+v, want calculate of calc", cs)
		}
		got[cs.Endpoint] = cs.Total
	}
	if len(got) != 2 || got["dev"] != 2 || got["support"] != 1 {
		t.Errorf("calls by endpoint %v, want dev 2, support 1", got)
	}
	if !strings.Contains(log.String(), "endpoint=support tool=calculate source=calc") {
		t.Errorf("the debug line does not name the endpoint and the source:\n%s", log.String())
	}
}
