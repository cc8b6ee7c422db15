package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// idleSessions measures o.sessions idle sessions (see the package doc).
func idleSessions(ctx context.Context, o options, dir string, stdout, stderr io.Writer) error {
	n := o.sessions
	var b strings.Builder
	fmt.Fprintf(&b, `server:
  cache_dir: %q
  log: {level: warn}
transports:
  http:
    listen: 127.0.0.1:0
    max_sessions: %d
    max_streams: %d
    max_connections: %d
    session_idle_timeout: 1h
admin: {listen: 127.0.0.1:0, pprof: true}
`, filepath.Join(dir, "cache"), n+16, n+16, 2*n+64)
	if o.upstreamURL != "" {
		fmt.Fprintf(&b, "upstreams:\n  - {name: up, prefix: up, url: %q, session: per_client, limits: {concurrency: 1024}}\n", o.upstreamURL)
	}
	cfg := filepath.Join(dir, "gateway.yaml")
	if err := os.WriteFile(cfg, []byte(b.String()), 0o600); err != nil {
		return err
	}
	g, err := startGateway(ctx, o, cfg, dir)
	if err != nil {
		return err
	}
	defer g.stop()

	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, DisableCompression: true}}
	// One session first, so the baseline has served one (the code paths a
	// session takes are warm, their one-time allocations made).
	if _, err := openSession(ctx, hc, g.url, o.upstreamURL != ""); err != nil {
		return err
	}
	time.Sleep(2 * time.Second)
	before, err := rssKiB(g.pid)
	if err != nil {
		return err
	}
	streams := make(chan io.Closer, n)
	errs := make(chan error, n)
	work := make(chan struct{}, n)
	for range n {
		work <- struct{}{}
	}
	close(work)
	var wg sync.WaitGroup
	started := time.Now()
	for range 64 {
		wg.Go(func() {
			for range work {
				s, err := openSession(ctx, hc, g.url, o.upstreamURL != "")
				if err != nil {
					errs <- err
					return
				}
				streams <- s
			}
		})
	}
	wg.Wait()
	close(errs)
	close(streams)
	defer func() {
		for s := range streams {
			s.Close()
		}
	}()
	if err := errors.Join(collect(errs)...); err != nil {
		return fmt.Errorf("opening %d sessions: %w", n, err)
	}
	fmt.Fprintf(stderr, "scalebench: %d sessions open in %.1f s\n", n, time.Since(started).Seconds())
	time.Sleep(3 * time.Second)
	after, err := rssKiB(g.pid)
	if err != nil {
		return err
	}
	cpu0, err := cpuTicks(g.pid)
	if err != nil {
		return err
	}
	const quiet = 10 * time.Second
	time.Sleep(quiet)
	if o.heap != "" {
		if err := saveHeap(ctx, g.admin, o.heap); err != nil {
			return err
		}
	}
	cpu1, err := cpuTicks(g.pid)
	if err != nil {
		return err
	}
	out := map[string]any{"sessions": n, "per_client_upstream": o.upstreamURL != "",
		"rss_before_kib": before, "rss_after_kib": after, "per_session_kib": float64(after-before) / float64(n),
		"idle_cpu_ms_per_10s": float64(cpu1-cpu0) * 10} // clock ticks of 10 ms
	// Where it goes: goroutines, their stacks and the heap in use (the
	// gateway's Go collector), per session.
	if g.admin != "" {
		if m, err := goMetrics(ctx, g.admin); err == nil {
			out["goroutines_per_session"] = m["go_goroutines"] / float64(n)
			out["stack_kib_per_session"] = m["go_memstats_stack_inuse_bytes"] / 1024 / float64(n)
			out["heap_kib_per_session"] = m["go_memstats_heap_inuse_bytes"] / 1024 / float64(n)
		}
		// An idle gateway still collects every two minutes (the runtime's
		// forced GC), and each collection halves the stacks that use less
		// than a quarter of theirs: three collections (pprof's ?gc=1) are
		// where ten idle minutes leave it.
		for range 3 {
			if err := forceGC(ctx, g.admin); err != nil {
				return err
			}
		}
		if m, err := goMetrics(ctx, g.admin); err == nil {
			out["stack_kib_per_session_after_gc"] = m["go_memstats_stack_inuse_bytes"] / 1024 / float64(n)
			out["heap_kib_per_session_after_gc"] = m["go_memstats_heap_inuse_bytes"] / 1024 / float64(n)
		}
	}
	line, _ := json.Marshal(out)
	fmt.Fprintln(stdout, string(line))
	return nil
}

func collect(errs <-chan error) []error {
	var out []error
	for err := range errs {
		out = append(out, err)
		if len(out) == 3 {
			break
		}
	}
	return out
}

// openSession initializes a 2025-11-25 session on url, calls the
// upstream's calculate once when call, and opens its GET stream, which
// the returned Closer closes.
func openSession(ctx context.Context, hc *http.Client, url string, call bool) (io.Closer, error) {
	post := func(body, session string) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		return hc.Do(req)
	}
	drain := func(resp *http.Response, what string) error {
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode/100 != 2 {
			return fmt.Errorf("%s: %d %.200s", what, resp.StatusCode, b)
		}
		if bytes.Contains(b, []byte(`"isError":true`)) || bytes.Contains(b, []byte(`"error":{`)) {
			return fmt.Errorf("%s: %.300s", what, b)
		}
		return nil
	}
	resp, err := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"scalebench","version":"1"}}}`, "")
	if err != nil {
		return nil, err
	}
	id := resp.Header.Get("Mcp-Session-Id")
	if err := drain(resp, "initialize"); err != nil {
		return nil, err
	}
	if id == "" {
		return nil, errors.New("initialize: no Mcp-Session-Id")
	}
	if resp, err = post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, id); err != nil {
		return nil, err
	}
	if err := drain(resp, "initialized"); err != nil {
		return nil, err
	}
	if call {
		if resp, err = post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"up_calculate","arguments":{"operation":"add","a":5,"b":3}}}`, id); err != nil {
			return nil, err
		}
		if err := drain(resp, "tools/call"); err != nil {
			return nil, err
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	stream, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	if stream.StatusCode != http.StatusOK {
		stream.Body.Close()
		return nil, fmt.Errorf("GET stream: %d", stream.StatusCode)
	}
	return stream.Body, nil
}

// gateway is a wasmgate serve process of the benchmark.
type gateway struct {
	url     string
	admin   string // the admin listener's URL, when on
	pid     int
	started time.Time // just before the process was started
	stop    func()
}

// startGateway runs wasmgate serve on cfg and waits for its ready file.
func startGateway(ctx context.Context, o options, cfg, dir string) (*gateway, error) {
	ready := filepath.Join(dir, "ready.json")
	_ = os.Remove(ready)
	cmd := exec.CommandContext(ctx, o.wasmgate, "serve", "--config", cfg, "--ready-file", ready)
	cmd.Stderr = os.Stderr
	started := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	g := &gateway{pid: cmd.Process.Pid, started: started, stop: func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}}
	for g.url == "" {
		select {
		case err := <-exited:
			return nil, fmt.Errorf("the gateway exited before it was ready: %v", err)
		case <-ctx.Done():
			g.stop()
			return nil, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
		b, err := os.ReadFile(ready)
		if err != nil || len(b) == 0 {
			continue
		}
		var rf struct {
			MCP   string `json:"mcp"`
			Admin string `json:"admin"`
		}
		if json.Unmarshal(b, &rf) == nil && rf.MCP != "" {
			g.url, g.admin = rf.MCP, rf.Admin
		}
	}
	return g, nil
}

// rssKiB is process pid's resident memory.
func rssKiB(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, errors.New("no VmRSS")
}

// cpuTicks is process pid's user and system CPU time, in clock ticks.
func cpuTicks(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command (which may hold spaces), from the
	// state: utime and stime are the 12th and 13th.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	if len(f) < 13 {
		return 0, errors.New("short /proc stat")
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	return u + s, errors.Join(err1, err2)
}

// goMetrics reads the gauges of the gateway's Go collector
// (go_goroutines, go_memstats_*) from its admin listener's /metrics.
func goMetrics(ctx context.Context, admin string) (map[string]float64, error) {
	body, err := adminGet(ctx, admin, "/metrics", "metrics")
	if err != nil {
		return nil, err
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	m := map[string]float64{}
	for name, f := range families {
		if ms := f.GetMetric(); strings.HasPrefix(name, "go_") && len(ms) == 1 && ms[0].GetGauge() != nil {
			m[name] = ms[0].GetGauge().GetValue()
		}
	}
	return m, nil
}

// forceGC has the gateway collect its garbage (pprof's heap profile
// with gc=1, read and dropped).
func forceGC(ctx context.Context, admin string) error {
	_, err := adminGet(ctx, admin, "/debug/pprof/heap?gc=1", "collecting garbage")
	return err
}

// saveHeap writes the gateway's heap profile (admin.pprof) to file.
func saveHeap(ctx context.Context, admin, file string) error {
	b, err := adminGet(ctx, admin, "/debug/pprof/heap", "heap profile")
	if err != nil {
		return err
	}
	return os.WriteFile(file, b, 0o600)
}

// adminGet is the body of path on the gateway's admin listener; what
// names it in errors.
func adminGet(ctx context.Context, admin, path, what string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(admin, "/")+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", what, resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return b, nil
}
