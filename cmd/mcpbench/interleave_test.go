package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// turnTaker fronts a test server and records whether a call reached it
// while a call was running on another turnTaker of the same group.
type turnTaker struct {
	url      string
	inFlight atomic.Int64
	calls    atomic.Int64
}

func newTurnTakers(t *testing.T, overlaps *atomic.Int64, backends ...string) []*turnTaker {
	t.Helper()
	var all []*turnTaker
	for _, backend := range backends {
		u, err := url.Parse(backend)
		if err != nil {
			t.Fatal(err)
		}
		tt := &turnTaker{}
		proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") != "" {
				tt.inFlight.Add(1)
				defer tt.inFlight.Add(-1)
				tt.calls.Add(1)
				for _, other := range all {
					if other != tt && other.inFlight.Load() > 0 {
						overlaps.Add(1)
					}
				}
			}
			proxy.ServeHTTP(w, r)
		}))
		t.Cleanup(srv.Close)
		tt.url = srv.URL + u.Path
		all = append(all, tt)
	}
	return all
}

// TestInterleaved: two servers, one behind a bearer token, compared in
// turns: each gets calls only while the other gets none, both are
// counted, every target but the first is compared with the first, and
// the per-target -target fields (tool, args, expect, token_env, pid and
// pids) are used.
func TestInterleaved(t *testing.T) {
	var overlaps atomic.Int64
	tt := newTurnTakers(t, &overlaps, newTestServer(t, "").url, newTestServer(t, "s3cret").url)
	self := os.Getpid()
	getenv := func(k string) string {
		if k == "TOK" {
			return "s3cret"
		}
		return ""
	}
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"-expect", "8", "-clients", "1,3", "-duration", "400ms", "-slice", "50ms", "-warmup", "50ms", "-json",
		"-target", fmt.Sprintf(`{"name":"plain","url":%q,"pid":%d}`, tt[0].url, self),
		"-target", fmt.Sprintf(`{"name":"guarded","url":%q,"pids":[%d],"token_env":"TOK","args":{"operation":"add","a":6,"b":4},"expect":"10"}`, tt[1].url, self),
	}, getenv, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s\nstdout:\n%s", code, stderr.String(), stdout.String())
	}
	t.Logf("\n%s", stdout.String())
	var sums []targetSummary
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var s targetSummary
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("JSON line %q: %v", line, err)
		}
		sums = append(sums, s)
	}
	if len(sums) != 4 {
		t.Fatalf("%d JSON summaries, want 4 (two targets, two phases)", len(sums))
	}
	for i, s := range sums {
		name, clients := []string{"plain", "guarded"}[i%2], []int{1, 3}[i/2]
		if s.Name != name || s.Clients != clients || s.Rounds != 8 || s.Calls <= 0 || s.Failures != 0 || s.P50Ms <= 0 || s.CPUUs <= 0 || s.DriverCPUUs <= 0 {
			t.Errorf("summary %d: %+v; want %s at %d clients, 8 rounds, calls, no failures, p50 and CPU figures", i, s, name, clients)
		}
		if first := i%2 == 0; first != (s.RateRatio == nil) || !first && (s.Versus != "plain" || *s.RateRatio <= 0 || s.P50Ratio == nil || *s.P50Ratio <= 0 || s.CPURatio == nil || len(s.RateRatioIQR) != 2) {
			t.Errorf("summary %d: %+v; want the second target compared with the first, the first with none", i, s)
		}
	}
	if tt[0].calls.Load() == 0 || tt[1].calls.Load() == 0 {
		t.Errorf("calls reached plain %d, guarded %d times; want both", tt[0].calls.Load(), tt[1].calls.Load())
	}
	if n := overlaps.Load(); n != 0 {
		t.Errorf("%d calls reached a server while the other was serving one; want turns", n)
	}
}

// TestInterleavedFailureNamesTarget: a failing target is named, fails the
// run, and the other target's figures are still reported.
func TestInterleavedFailureNamesTarget(t *testing.T) {
	ts := newTestServer(t, "")
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"-expect", "8", "-clients", "1", "-duration", "100ms", "-slice", "50ms", "-warmup", "0s",
		"-target", fmt.Sprintf(`{"name":"good","url":%q}`, ts.url),
		"-target", fmt.Sprintf(`{"name":"bad","url":%q,"expect":"9"}`, ts.url),
	}, func(string) string { return "" }, &stdout, &stderr)
	if code != exitFailures {
		t.Fatalf("exit %d, want %d", code, exitFailures)
	}
	if !strings.Contains(stderr.String(), "mcpbench: bad clients=1 failure:") || strings.Contains(stderr.String(), "good clients=1 failure") {
		t.Errorf("stderr names the wrong target:\n%s", stderr.String())
	}
	if !strings.Contains(stdout.String(), "good ") || !strings.Contains(stdout.String(), "failures=0") {
		t.Errorf("stdout lacks the good target's figures:\n%s", stdout.String())
	}
}

func TestInterleavedConfigErrors(t *testing.T) {
	a := `{"name":"a","url":"http://127.0.0.1:1/mcp"}`
	b := `{"name":"b","url":"http://127.0.0.1:2/mcp"}`
	for _, args := range [][]string{
		{"-target", a},               // one target compares nothing
		{"-target", a, "-target", a}, // the same name twice
		{"-target", a, "-target", `{"url":"http://127.0.0.1:2/mcp"}`},
		{"-target", a, "-target", `{"name":"b","url":"http://10.0.0.1/mcp"}`},
		{"-target", a, "-target", `{"name":"b","url":"http://127.0.0.1:2/mcp","tokn_env":"X"}`},
		{"-target", a, "-target", `{"name":"b","url":"http://127.0.0.1:2/mcp","token_env":"UNSET"}`},
		{"-target", a, "-target", `{"name":"b","url":"http://127.0.0.1:2/mcp","args":[1]}`},
		{"-target", a, "-target", `{"name":"b","url":"http://127.0.0.1:2/mcp","pid":-1}`},
		{"-target", a, "-target", `{"name":"b","url":"http://127.0.0.1:2/mcp","pids":[0]}`},
		{"-target", a, "-target", `{"name":"b","url":"http://127.0.0.1:2/mcp","pid":1,"pids":[1]}`},
		{"-target", a, "-target", `{"name":"b",`},
		{"-target", a, "-target", b, "-cpu-pid", "1"},
		{"-target", a, "-target", b, "-slice", "0s"},
		{"-target", a, "-target", b, "-slice", "2s", "-duration", "1s"},
	} {
		if _, err := parseConfig(args, func(string) string { return "" }, &bytes.Buffer{}); err == nil {
			t.Errorf("parseConfig(%q) succeeded, want an error", args)
		}
	}
}

// TestInterleavedHungServerIsBounded: a target whose calls never return
// fails them after -timeout past its slice, and the comparison ends.
func TestInterleavedHungServerIsBounded(t *testing.T) {
	ts := newTestServer(t, "")
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(t.Context(), []string{"-clients", "2", "-duration", "100ms", "-slice", "50ms", "-warmup", "0s", "-timeout", "200ms",
			"-target", fmt.Sprintf(`{"name":"ok","url":%q,"expect":"8"}`, ts.url),
			"-target", fmt.Sprintf(`{"name":"hung","url":%q,"tool":"hang","args":{}}`, ts.url),
		}, func(string) string { return "" }, &stdout, &stderr)
	}()
	select {
	case code := <-done:
		if code != exitFailures || !strings.Contains(stderr.String(), "mcpbench: hung clients=2 failure:") {
			t.Errorf("exit %d, stderr:\n%s\nwant exit %d naming the hung target", code, stderr.String(), exitFailures)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a hung target stalled the comparison")
	}
}
