// Command mcpbench is a small, bounded load driver for MCP servers that speak
// the Streamable HTTP transport (such as wasmgate's /mcp endpoint).
//
// Every client is one MCP session: it sends initialize and
// notifications/initialized, then calls a single tool in a tight loop with
// the Mcp-Session-Id it was given, and finally DELETEs the session. One phase
// is run per value of -clients; each phase has a warmup (calls are made but not
// recorded) followed by the measured duration. Responses may arrive as
// application/json or as a text/event-stream carrying the JSON-RPC response.
//
// The driver sends initialize with -protocol-version (default 2025-11-25,
// the newest revision with sessions) and uses the version the server
// negotiates in the MCP-Protocol-Version header. -token-env NAME sends
// "Authorization: Bearer $NAME"; -token-file FILE sends each client a
// token of its own, client i the file's line i modulo their number. The
// driver runs with GOMAXPROCS=-procs (default 1) so that it takes as
// little CPU as possible from a server on the same machine; -cpuprofile writes a profile of the driver itself.
// -cpu-pid PID[,PID...] adds each process's CPU time per call over the
// measured window to the line (server_cpu for the first, cpu_pid2 and so
// on for the rest, read from /proc) and the driver's own (driver_cpu).
//
// Each phase prints one line such as
//
//	clients=16 duration=5.00s calls=81234 calls/s=16246.8 p50=0.85ms p99=2.90ms failures=0
//
// and, with -json, a JSON object with the same figures plus p90 and max.
// calls counts the calls that completed inside the measured window and the
// percentiles are taken over their latencies; failures counts every failed
// call of the phase, warmup included, plus failed session DELETEs.
//
// A call fails when the HTTP exchange fails, the status is not 200, the
// JSON-RPC response carries an error or a different id, the tool result has
// isError set, or (with -expect) its first text content differs from the
// expected text. The exit status is 1 if any call failed in any phase
// (warmup included), 2 for usage errors.
//
// Only loopback targets are accepted (127.0.0.0/8, ::1 or localhost); the
// dialer re-checks every resolved address, so the driver cannot be pointed at
// another machine.
//
// With -serve ADDR it drives nothing: it serves mcp-go's own Streamable
// HTTP server on ADDR (loopback only), at /mcp, with one native Go tool,
// calculate, doing what the calculator example plugin does, until
// interrupted. `make bench` measures wasmgate against it.
//
// Example:
//
//	mcpbench -url http://127.0.0.1:8080/mcp -tool calculate \
//	    -args '{"operation":"add","a":5,"b":3}' -expect 8 \
//	    -clients 1,16 -duration 5s -warmup 1s
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
	"runtime"
	"runtime/pprof"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit statuses.
const (
	exitOK       = 0
	exitFailures = 1
	exitUsage    = 2
)

// run parses args, runs every phase and reports on stdout (results) and
// stderr (diagnostics). It returns the process exit status.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	cfg, err := parseConfig(args, getenv, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintf(stderr, "mcpbench: %v\n", err)
		return exitUsage
	}

	if cfg.otlpSink != "" {
		return served(stderr, serveOTLPSink(ctx, cfg.otlpSink, stdout))
	}
	if cfg.cpuProfile != "" {
		stopProfile, err := startCPUProfile(cfg.cpuProfile)
		if err != nil {
			fmt.Fprintf(stderr, "mcpbench: %v\n", err)
			return exitUsage
		}
		defer func() {
			if err := stopProfile(); err != nil {
				fmt.Fprintf(stderr, "mcpbench: %v\n", err)
			}
		}()
	}
	if cfg.serveStdio {
		return served(stderr, serveNativeStdio(ctx, os.Stdin, stdout))
	}
	if cfg.serveFloor != "" {
		return served(stderr, serveFloor(ctx, cfg.serveFloor, stdout))
	}
	if cfg.stdioFloor != "" {
		self, err := os.Executable()
		if err != nil {
			fmt.Fprintf(stderr, "mcpbench: -stdio-floor: finding mcpbench's own binary for its -serve-stdio server: %v\n", err)
			return exitFailures
		}
		return served(stderr, serveStdioFloor(ctx, cfg.stdioFloor, []string{self, "-serve-stdio"}, stdout))
	}
	if cfg.reverseProxy != "" {
		return served(stderr, serveReverseProxy(ctx, cfg.reverseProxy, cfg.url, stdout))
	}
	if cfg.serve != "" {
		return served(stderr, serveNative(ctx, cfg.serve, cfg.traceTo, stdout))
	}

	if cfg.procs > 0 {
		// One P is enough to drive a local server and avoids the scheduler
		// spinning on a CPU the server needs; the old value is restored so
		// that run stays usable from tests.
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(cfg.procs))
	}

	// Every target keeps its clients' connections open between its turns.
	tr := newTransport(maxInt(cfg.clients) * max(1, len(cfg.targets)))
	defer tr.CloseIdleConnections()

	code := exitOK
	for _, n := range cfg.clients {
		if len(cfg.targets) > 0 {
			res, err := runInterleaved(ctx, cfg, tr, n)
			if err != nil {
				fmt.Fprintf(stderr, "mcpbench: phase clients=%d: %v\n", n, err)
				return exitFailures
			}
			failed, err := reportInterleaved(res, cfg, stdout, stderr)
			if err != nil {
				fmt.Fprintf(stderr, "mcpbench: %v\n", err)
				return exitFailures
			}
			if failed {
				code = exitFailures
			}
			continue
		}
		res, err := runPhase(ctx, cfg, tr, n)
		if err != nil {
			fmt.Fprintf(stderr, "mcpbench: phase clients=%d: %v\n", n, err)
			return exitFailures
		}
		fmt.Fprintln(stdout, res.String())
		if cfg.json {
			line, err := json.Marshal(res.summary())
			if err != nil {
				fmt.Fprintf(stderr, "mcpbench: encoding JSON summary: %v\n", err)
				return exitFailures
			}
			fmt.Fprintf(stdout, "%s\n", line)
		}
		if res.failures > 0 {
			code = exitFailures
			for _, reason := range res.reasons {
				fmt.Fprintf(stderr, "mcpbench: clients=%d failure: %s\n", n, reason)
			}
			if extra := res.failures - int64(len(res.reasons)); extra > 0 {
				fmt.Fprintf(stderr, "mcpbench: clients=%d ... and %d more failures\n", n, extra)
			}
		}
	}
	return code
}

// served is the exit status of a serving mode (-serve and the like) that
// returned err, which it reports on stderr.
func served(stderr io.Writer, err error) int {
	if err != nil {
		fmt.Fprintf(stderr, "mcpbench: %v\n", err)
		return exitFailures
	}
	return exitOK
}

// startCPUProfile starts profiling the driver into path and returns the
// function that stops profiling and closes the file.
func startCPUProfile(path string) (stop func() error, err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("creating CPU profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("starting CPU profile: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return fmt.Errorf("writing CPU profile: %w", err)
		}
		return nil
	}, nil
}

func maxInt(xs []int) int {
	m := 0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}
