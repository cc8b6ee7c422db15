// Command scalebench measures how the gateway starts with many slow
// upstreams (issue 46, docs/upstreams.md "Catalogs kept between runs"),
// for make bench-scale (scripts/bench-scale.sh):
//
//	scalebench -wasmgate bin/wasmgate -fixture bin/slowstart \
//	    [-upstreams 20] [-delay 5s] [-tools 3] [-rounds 3]
//
// writes a gateway.yaml with -upstreams eager upstreams, each the
// slowstart fixture (testdata/upstreams/slowstart) answering initialize
// -delay after it starts, and runs the gateway -rounds times in each of
// two ways, in turns: cold (no catalog kept: the first run of a config)
// and warm (the catalogs the previous run kept). For each run, from the
// moment the process is started:
//
//	ready   the gateway wrote its --ready-file (it serves)
//	listed  tools/list first returned every upstream's tools
//	calls   the first call of each upstream's tool_0, all made at once
//	        when it was ready, returned (their median and the last)
//
// It prints one JSON line per way with the medians over the rounds, in
// milliseconds.
//
//	scalebench -sessions 10000 -wasmgate bin/wasmgate [-upstream-url URL] \
//	    [-settle 3s] [-quiet 10s]
//
// opens that many idle 2025-11-25 sessions (initialize, initialized, a
// GET stream left open) on a gateway of its own serving one tool (an
// upstream at -upstream-url, session: per_client, whose per-client
// session each downstream session opens with one call; without it, no
// upstream and no call), and measures the gateway: its resident memory,
// heap, stacks, goroutines and open files per session (less the figures
// with one session, divided by the sessions) and its CPU time over -quiet
// with every session idle. Then it measures the floor the same way, with
// the same client: `scalebench floor-server`, an MCP-shaped server written
// with net/http alone, run as a process of its own (floor.go). It prints
// one JSON line each for wasmgate, the floor and their gap, and a table
// (sessions.go).
//
//	scalebench -calls -sessions 10000 -wasmgate bin/wasmgate \
//	    -mcpbench bin/mcpbench -plugin examples/plugins/calculator.wasm \
//	    [-clients 16] [-duration 5s] [-rounds 3]
//
// measures calls with idle sessions beside them: two gateways serving the
// calculator plugin, one holding -sessions idle sessions and one none,
// called by mcpbench in turns, -rounds runs: the median calls/s of each
// and of the runs' ratios (calls.go).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	switch {
	case errors.Is(err, flag.ErrHelp):
	case errors.Is(err, errUsage):
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "scalebench:", err)
		os.Exit(1)
	}
}

var errUsage = errors.New("usage")

type options struct {
	wasmgate, fixture string
	upstreams, tools  int
	delay             time.Duration
	rounds            int
	sessions          int
	upstreamURL       string
	heartbeat         string // transports.http.stream_heartbeat, "": the default
	heap              string
	settle, quiet     time.Duration
	// -calls: calls with idle sessions beside them (calls.go).
	calls                   bool
	mcpbench, plugin        string
	clients                 int
	duration, warmup, slice time.Duration
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "floor-server" {
		return floorMain(ctx, args[1:], stdout, stderr)
	}
	var o options
	fs := flag.NewFlagSet("scalebench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.wasmgate, "wasmgate", "bin/wasmgate", "the gateway binary")
	fs.StringVar(&o.fixture, "fixture", "bin/slowstart", "the slowstart fixture binary (testdata/upstreams/slowstart)")
	fs.IntVar(&o.upstreams, "upstreams", 20, "how many upstreams")
	fs.IntVar(&o.tools, "tools", 3, "tools of each upstream (besides its pid tool)")
	fs.DurationVar(&o.delay, "delay", 5*time.Second, "how long each upstream takes to answer initialize")
	fs.IntVar(&o.rounds, "rounds", 3, "runs of each way, in turns")
	fs.IntVar(&o.sessions, "sessions", 0, "measure this many idle sessions instead")
	fs.StringVar(&o.heap, "heap", "", "with -sessions: write the gateway's heap profile with every session idle to this file")
	fs.DurationVar(&o.settle, "settle", 3*time.Second, "with -sessions: how long the server is left before each reading of its memory")
	fs.DurationVar(&o.quiet, "quiet", 10*time.Second, "with -sessions: how long the idle server's CPU time is measured")
	fs.BoolVar(&o.calls, "calls", false, "with -sessions: measure calls on active sessions with that many idle ones beside them, against none (two gateways serving -plugin, driven by -mcpbench in turns), -rounds runs")
	fs.StringVar(&o.mcpbench, "mcpbench", "bin/mcpbench", "with -calls: the mcpbench binary (cmd/mcpbench)")
	fs.StringVar(&o.plugin, "plugin", "examples/plugins/calculator.wasm", "with -calls: the calculator example plugin, whose calculate is called")
	fs.IntVar(&o.clients, "clients", 16, "with -calls: clients calling at once, each in a session of its own")
	fs.DurationVar(&o.duration, "duration", 5*time.Second, "with -calls: each gateway's own time per run")
	fs.DurationVar(&o.warmup, "warmup", time.Second, "with -calls: each gateway's unrecorded time per run, first")
	fs.DurationVar(&o.slice, "slice", 200*time.Millisecond, "with -calls: the turns of the two gateways")
	fs.StringVar(&o.heartbeat, "heartbeat", "", "with -sessions: the gateway's transports.http.stream_heartbeat (0s: no ping on idle streams; default: the gateway's)")
	fs.StringVar(&o.upstreamURL, "upstream-url", "", "with -sessions: an MCP server (Streamable HTTP) each session calls once through a per_client upstream")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	for _, p := range []*string{&o.wasmgate, &o.fixture, &o.mcpbench, &o.plugin} {
		abs, err := filepath.Abs(*p)
		if err != nil {
			return err
		}
		*p = abs
	}
	dir, err := os.MkdirTemp("", "scalebench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if o.calls {
		if o.sessions <= 0 || o.rounds <= 0 || o.clients <= 0 {
			fmt.Fprintln(stderr, "scalebench: -calls needs -sessions, -rounds and -clients above 0")
			return errUsage
		}
		return idleCalls(ctx, o, dir, stdout, stderr)
	}
	if o.sessions > 0 {
		return idleSessions(ctx, o, dir, stdout, stderr)
	}
	cfg := filepath.Join(dir, "gateway.yaml")
	if err := os.WriteFile(cfg, []byte(config(o, dir)), 0o600); err != nil {
		return err
	}
	results := map[string][]runResult{}
	for r := range o.rounds {
		for _, way := range []string{"cold", "warm"} {
			if way == "cold" {
				if err := os.RemoveAll(filepath.Join(dir, "cache", "catalogs")); err != nil {
					return err
				}
			}
			res, err := runOnce(ctx, o, cfg, dir)
			if err != nil {
				return fmt.Errorf("round %d, %s: %w", r+1, way, err)
			}
			fmt.Fprintf(stderr, "scalebench: round %d %s: ready %.0f ms, listed %.0f ms, calls median %.0f ms, last %.0f ms\n",
				r+1, way, ms(res.ready), ms(res.listed), ms(res.callsMedian), ms(res.callsLast))
			results[way] = append(results[way], res)
		}
	}
	for _, way := range []string{"cold", "warm"} {
		rs := results[way]
		line := map[string]any{"way": way, "upstreams": o.upstreams, "delay_ms": ms(o.delay), "rounds": len(rs),
			"ready_ms":        medianOf(rs, func(r runResult) time.Duration { return r.ready }),
			"listed_ms":       medianOf(rs, func(r runResult) time.Duration { return r.listed }),
			"calls_median_ms": medianOf(rs, func(r runResult) time.Duration { return r.callsMedian }),
			"calls_last_ms":   medianOf(rs, func(r runResult) time.Duration { return r.callsLast })}
		b, _ := json.Marshal(line)
		fmt.Fprintln(stdout, string(b))
	}
	return nil
}

// config is the gateway.yaml of the run: no plugins, the upstreams.
func config(o options, dir string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "server:\n  cache_dir: %q\n  log: {level: warn}\ntransports:\n  http: {listen: 127.0.0.1:0}\nupstreams:\n", filepath.Join(dir, "cache"))
	for i := range o.upstreams {
		fmt.Fprintf(&b, "  - name: u%02d\n    prefix: u%02d\n    command: [%q]\n    env: {SLOWSTART_DELAY: %q, SLOWSTART_TOOLS: \"%d\"}\n    limits: {start_timeout: 5m, timeout: 5m}\n",
			i, i, o.fixture, o.delay.String(), o.tools)
	}
	return b.String()
}

type runResult struct {
	ready, listed, callsMedian, callsLast time.Duration
}

// runOnce starts the gateway, measures one run and stops it.
func runOnce(ctx context.Context, o options, cfg, dir string) (runResult, error) {
	var res runResult
	g, err := startGateway(ctx, o, cfg, dir)
	if err != nil {
		return res, err
	}
	defer g.stop()
	start, url := g.started, g.url
	res.ready = time.Since(start)
	cctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	c, err := connect(cctx, url)
	if err != nil {
		return res, err
	}
	defer c.Close()

	// Every upstream's first call, at once.
	took := make([]time.Duration, o.upstreams)
	errs := make([]error, o.upstreams)
	var wg sync.WaitGroup
	for i := range o.upstreams {
		wg.Go(func() {
			req := mcp.CallToolRequest{}
			req.Params.Name = fmt.Sprintf("u%02d_tool_0", i)
			r, err := c.CallTool(cctx, req)
			switch {
			case err != nil:
				errs[i] = err
			case r.IsError:
				errs[i] = fmt.Errorf("%s: isError: %v", req.Params.Name, r.Content)
			}
			took[i] = time.Since(start)
		})
	}
	// The whole catalog listed.
	want := o.upstreams * (o.tools + 1)
	for {
		n, err := countTools(cctx, c)
		if err != nil {
			return res, err
		}
		if n >= want {
			res.listed = time.Since(start)
			break
		}
		select {
		case <-cctx.Done():
			return res, fmt.Errorf("tools/list had %d tools, want %d: %w", n, want, cctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return res, err
	}
	slices.Sort(took)
	res.callsMedian, res.callsLast = took[len(took)/2], took[len(took)-1]
	return res, nil
}

// connect starts and initializes an mcp-go client on url (one session).
func connect(ctx context.Context, url string) (*client.Client, error) {
	c, err := client.NewStreamableHttpClient(url)
	if err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		return nil, fmt.Errorf("starting the client: %w", err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = "2025-11-25"
	req.Params.ClientInfo = mcp.Implementation{Name: "scalebench", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		c.Close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	return c, nil
}

// countTools is how many tools tools/list returns, every page.
func countTools(ctx context.Context, c *client.Client) (int, error) {
	n := 0
	var cursor mcp.Cursor
	for {
		req := mcp.ListToolsRequest{}
		req.Params.Cursor = cursor
		r, err := c.ListToolsByPage(ctx, req)
		if err != nil {
			return 0, fmt.Errorf("tools/list: %w", err)
		}
		n += len(r.Tools)
		if r.NextCursor == "" {
			return n, nil
		}
		cursor = r.NextCursor
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func medianOf(rs []runResult, f func(runResult) time.Duration) float64 {
	v := make([]time.Duration, len(rs))
	for i, r := range rs {
		v[i] = f(r)
	}
	slices.Sort(v)
	return ms(v[len(v)/2])
}
