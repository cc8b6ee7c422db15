package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
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

// idleSessions measures o.sessions idle sessions on the gateway and then
// on the floor server (floor.go), with the same client (see the package
// doc), and prints both, their gap and a table.
func idleSessions(ctx context.Context, o options, dir string, stdout, stderr io.Writer) error {
	n := o.sessions
	call := o.upstreamURL != ""
	cfg := filepath.Join(dir, "gateway.yaml")
	if err := os.WriteFile(cfg, []byte(sessionsConfig(o, dir)), 0o600); err != nil {
		return err
	}
	g, err := startGateway(ctx, o, cfg, dir)
	if err != nil {
		return err
	}
	gw, err := measureIdle(ctx, o, g.measured(o.heap), call, stderr)
	g.stop()
	if err != nil {
		return fmt.Errorf("wasmgate: %w", err)
	}
	f, err := startFloor(ctx, o)
	if err != nil {
		return err
	}
	fl, err := measureIdle(ctx, o, f, call, stderr)
	f.stop()
	if err != nil {
		return fmt.Errorf("floor: %w", err)
	}
	gap := gw.minus(fl)
	for _, fig := range []idleFigures{gw, fl, gap} {
		line, _ := json.Marshal(fig)
		fmt.Fprintln(stdout, string(line))
	}
	printIdleTable(stdout, n, call, gw, fl, gap)
	return nil
}

// sessionsConfig is the gateway.yaml of the idle sessions: limits above
// o.sessions, an admin listener for the Go collector's figures, and the
// per_client upstream when o.upstreamURL is set.
func sessionsConfig(o options, dir string) string {
	n := o.sessions
	heartbeat := ""
	if o.heartbeat != "" {
		heartbeat = fmt.Sprintf("    stream_heartbeat: %s\n", o.heartbeat)
	}
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
%sadmin: {listen: 127.0.0.1:0, pprof: true}
`, filepath.Join(dir, "cache"), n+16, n+16, 2*n+64, heartbeat)
	if o.upstreamURL != "" {
		fmt.Fprintf(&b, "upstreams:\n  - {name: up, prefix: up, url: %q, session: per_client, limits: {concurrency: 1024}}\n", o.upstreamURL)
	}
	return b.String()
}

// A measured is a server process whose idle sessions are measured: the
// gateway or the floor.
type measured struct {
	name string
	url  string
	pid  int
	// stats reads the Go runtime's figures under the names of the
	// gateway's Go collector (go_goroutines, go_memstats_*), after a
	// collection when gc.
	stats func(ctx context.Context, gc bool) (map[string]float64, error)
	// heap, if not nil, saves a heap profile with every session idle.
	heap func(ctx context.Context) error
	stop func()
}

// measured is the gateway as a measured server; heap, if not "", is the
// file its heap profile is written to with every session idle.
func (g *gateway) measured(heap string) *measured {
	m := &measured{name: "wasmgate", url: g.url, pid: g.pid, stop: g.stop,
		stats: func(ctx context.Context, gc bool) (map[string]float64, error) {
			if gc {
				if err := forceGC(ctx, g.admin); err != nil {
					return nil, err
				}
			}
			return goMetrics(ctx, g.admin)
		}}
	if heap != "" {
		m.heap = func(ctx context.Context) error { return saveHeap(ctx, g.admin, heap) }
	}
	return m
}

// idleFigures are one server's figures with n idle sessions. The per
// session ones are the difference with the same figure when one session
// had been served, divided by n (the runtime's after a collection then).
type idleFigures struct {
	Server            string  `json:"server"`
	Sessions          int     `json:"sessions"`
	PerClientUpstream bool    `json:"per_client_upstream"`
	RSSBeforeKiB      int64   `json:"rss_before_kib,omitempty"`
	RSSAfterKiB       int64   `json:"rss_after_kib,omitempty"`
	PerSessionKiB     float64 `json:"per_session_kib"`
	IdleCPUMsPer10s   float64 `json:"idle_cpu_ms_per_10s"`
	FDsPerSession     float64 `json:"fds_per_session"`
	Goroutines        float64 `json:"goroutines_per_session"`
	StackKiB          float64 `json:"stack_kib_per_session"`
	HeapKiB           float64 `json:"heap_kib_per_session"`
	StackKiBAfterGC   float64 `json:"stack_kib_per_session_after_gc"`
	HeapKiBAfterGC    float64 `json:"heap_kib_per_session_after_gc"`
}

// minus is f's per-session figures less g's: the gap between two servers.
func (f idleFigures) minus(g idleFigures) idleFigures {
	return idleFigures{Server: "gap", Sessions: f.Sessions, PerClientUpstream: f.PerClientUpstream,
		PerSessionKiB:   round1(f.PerSessionKiB - g.PerSessionKiB),
		IdleCPUMsPer10s: f.IdleCPUMsPer10s - g.IdleCPUMsPer10s,
		FDsPerSession:   round2(f.FDsPerSession - g.FDsPerSession),
		Goroutines:      round2(f.Goroutines - g.Goroutines),
		StackKiB:        round1(f.StackKiB - g.StackKiB),
		HeapKiB:         round1(f.HeapKiB - g.HeapKiB),
		StackKiBAfterGC: round1(f.StackKiBAfterGC - g.StackKiBAfterGC),
		HeapKiBAfterGC:  round1(f.HeapKiBAfterGC - g.HeapKiBAfterGC)}
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }
func round2(f float64) float64 { return math.Round(f*100) / 100 }
func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// snapshot is what measureIdle reads of a server at one moment.
type snapshot struct {
	rss   int64              // resident KiB
	fds   int                // open files
	stats map[string]float64 // the Go runtime's gauges (measured.stats)
}

// snapshot reads s's resident memory, open files and runtime gauges,
// after a collection when gc.
func (s *measured) snapshot(ctx context.Context, gc bool) (snapshot, error) {
	rss, err := rssKiB(s.pid)
	if err != nil {
		return snapshot{}, err
	}
	fds, err := countFDs(s.pid)
	if err != nil {
		return snapshot{}, err
	}
	stats, err := s.stats(ctx, gc)
	if err != nil {
		return snapshot{}, err
	}
	return snapshot{rss: rss, fds: fds, stats: stats}, nil
}

// measureIdle opens o.sessions idle sessions on s (each calling the
// upstream once when call), lets them idle and measures s.
func measureIdle(ctx context.Context, o options, s *measured, call bool, stderr io.Writer) (idleFigures, error) {
	n := o.sessions
	fig := idleFigures{Server: s.name, Sessions: n, PerClientUpstream: call}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, DisableCompression: true}}
	defer hc.CloseIdleConnections()
	// One session first, so the baseline has served one (the code paths a
	// session takes are warm, their one-time allocations made).
	first, err := openSession(ctx, hc, s.url, call)
	if err != nil {
		return fig, err
	}
	defer first.Close()
	time.Sleep(o.settle)
	before, err := s.snapshot(ctx, true)
	if err != nil {
		return fig, err
	}
	started := time.Now()
	streams, err := openSessions(ctx, hc, s.url, n, call)
	defer closeAll(streams)
	if err != nil {
		return fig, err
	}
	fmt.Fprintf(stderr, "scalebench: %s: %d sessions open in %.1f s\n", s.name, n, time.Since(started).Seconds())
	time.Sleep(o.settle)
	after, err := s.snapshot(ctx, false)
	if err != nil {
		return fig, err
	}
	cpu0, err := cpuTicks(s.pid)
	if err != nil {
		return fig, err
	}
	time.Sleep(o.quiet)
	cpu1, err := cpuTicks(s.pid)
	if err != nil {
		return fig, err
	}
	if s.heap != nil {
		if err := s.heap(ctx); err != nil {
			return fig, err
		}
	}
	// An idle gateway still collects every two minutes (the runtime's
	// forced GC), and each collection halves the stacks that use less
	// than a quarter of theirs: three collections are where ten idle
	// minutes leave it.
	var m2 map[string]float64
	for range 3 {
		if m2, err = s.stats(ctx, true); err != nil {
			return fig, err
		}
	}
	per := func(a, b float64) float64 { return round2((b - a) / float64(n)) }
	const kib = 1024
	m0, m1 := before.stats, after.stats
	fig.RSSBeforeKiB, fig.RSSAfterKiB = before.rss, after.rss
	fig.PerSessionKiB = round1(float64(after.rss-before.rss) / float64(n))
	// Clock ticks of 10 ms, over o.quiet, as over 10 s.
	fig.IdleCPUMsPer10s = round1(float64(cpu1-cpu0) * 10 * (10 * float64(time.Second) / float64(o.quiet)))
	fig.FDsPerSession = per(float64(before.fds), float64(after.fds))
	fig.Goroutines = per(m0["go_goroutines"], m1["go_goroutines"])
	fig.StackKiB = round1(per(m0["go_memstats_stack_inuse_bytes"], m1["go_memstats_stack_inuse_bytes"]) / kib)
	fig.HeapKiB = round1(per(m0["go_memstats_heap_inuse_bytes"], m1["go_memstats_heap_inuse_bytes"]) / kib)
	fig.StackKiBAfterGC = round1(per(m0["go_memstats_stack_inuse_bytes"], m2["go_memstats_stack_inuse_bytes"]) / kib)
	fig.HeapKiBAfterGC = round1(per(m0["go_memstats_heap_inuse_bytes"], m2["go_memstats_heap_inuse_bytes"]) / kib)
	return fig, nil
}

// openSessions opens n idle sessions on url, 64 at a time (see
// openSession), and returns their streams' closers: all of them, or
// those opened before the first error.
func openSessions(ctx context.Context, hc *http.Client, url string, n int, call bool) ([]io.Closer, error) {
	streams := make(chan io.Closer, n)
	errs := make(chan error, n)
	work := make(chan struct{}, n)
	for range n {
		work <- struct{}{}
	}
	close(work)
	var wg sync.WaitGroup
	for range min(64, n) {
		wg.Go(func() {
			for range work {
				s, err := openSession(ctx, hc, url, call)
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
	var out []io.Closer
	for s := range streams {
		out = append(out, s)
	}
	if err := errors.Join(collect(errs)...); err != nil {
		return out, fmt.Errorf("opening %d sessions: %w", n, err)
	}
	return out, nil
}

func closeAll(cs []io.Closer) {
	for _, c := range cs {
		c.Close()
	}
}

// printIdleTable prints the figures of the gateway, the floor and their
// gap as a table.
func printIdleTable(w io.Writer, n int, call bool, rows ...idleFigures) {
	what, target := "no upstream session", 16
	if call {
		what, target = "each with its own per_client HTTP upstream session (one call each)", 64
	}
	fmt.Fprintf(w, "idle sessions: %d, %s; per session (target: resident <= %d KiB):\n", n, what, target)
	fmt.Fprintf(w, "  %-9s %12s %10s %10s %10s %10s %10s %6s %11s\n", "", "resident", "heap", "heap(gc)", "stacks", "stacks(gc)", "goroutines", "fds", "CPU ms/10s")
	for _, r := range rows {
		fmt.Fprintf(w, "  %-9s %8.1f KiB %6.1f KiB %6.1f KiB %6.1f KiB %6.1f KiB %10.2f %6.2f %11.0f\n", r.Server,
			r.PerSessionKiB, r.HeapKiB, r.HeapKiBAfterGC, r.StackKiB, r.StackKiBAfterGC, r.Goroutines, r.FDsPerSession, r.IdleCPUMsPer10s)
	}
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

// countFDs is how many files process pid has open.
func countFDs(pid int) (int, error) {
	es, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return 0, fmt.Errorf("counting open files: %w", err)
	}
	return len(es), nil
}

// startFloor runs this program's floor-server (floor.go) as a process of
// its own, with o.upstreamURL, and waits for the address it serves on.
func startFloor(ctx context.Context, o options) (*measured, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("starting the floor server: %w", err)
	}
	args := []string{"floor-server"}
	if o.upstreamURL != "" {
		args = append(args, "-upstream-url", o.upstreamURL)
	}
	cmd := exec.CommandContext(ctx, self, args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the floor server: %w", err)
	}
	exited := make(chan error, 1)
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			lines <- sc.Text()
		}
		_, _ = io.Copy(io.Discard, out)
		exited <- cmd.Wait()
	}()
	stop := func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}
	var url string
	select {
	case line := <-lines:
		var ok bool
		if url, ok = strings.CutPrefix(line, "serving "); !ok {
			stop()
			return nil, fmt.Errorf("the floor server said %q, not where it serves", line)
		}
	case err := <-exited:
		return nil, fmt.Errorf("the floor server exited before it served: %v", err)
	case <-time.After(30 * time.Second):
		stop()
		return nil, errors.New("the floor server did not serve within 30 s")
	}
	base := strings.TrimSuffix(url, "/mcp")
	return &measured{name: "floor", url: url, pid: cmd.Process.Pid, stop: stop,
		stats: func(ctx context.Context, gc bool) (map[string]float64, error) {
			path := floorStatsPath
			if gc {
				path += "?gc=1"
			}
			b, err := adminGet(ctx, base, path, "the floor's figures")
			if err != nil {
				return nil, err
			}
			m := map[string]float64{}
			if err := json.Unmarshal(b, &m); err != nil {
				return nil, fmt.Errorf("the floor's figures: %w", err)
			}
			return m, nil
		}}, nil
}
