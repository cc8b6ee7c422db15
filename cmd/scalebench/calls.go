package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// idleCalls measures calls on active sessions with o.sessions idle ones
// beside them: two gateways of the same config serving the calculator
// example plugin (o.plugin), one with no idle session ("none"), one
// holding o.sessions idle sessions as -sessions opens them ("idle"),
// driven by mcpbench (o.mcpbench) with both as -target, o.clients
// clients each, in turns (mcpbench's rotation of -slice turns), o.rounds
// runs of o.duration of each one's own time. It prints one JSON line and
// a table: each one's median calls/s over the runs and the median of the
// runs' ratios (idle over none, mcpbench's rate_ratio: the median of its
// rounds' ratios).
func idleCalls(ctx context.Context, o options, dir string, stdout, stderr io.Writer) error {
	n := o.sessions
	if _, err := os.Stat(o.plugin); err != nil {
		return fmt.Errorf("-plugin: %w (make plugins builds it)", err)
	}
	if _, err := os.Stat(o.mcpbench); err != nil {
		return fmt.Errorf("-mcpbench: %w (go build -o bin/mcpbench ./cmd/mcpbench)", err)
	}
	var gws [2]*gateway
	for i, name := range []string{"none", "idle"} {
		gdir := filepath.Join(dir, name)
		if err := os.MkdirAll(gdir, 0o700); err != nil {
			return err
		}
		cfg := filepath.Join(gdir, "gateway.yaml")
		if err := os.WriteFile(cfg, []byte(callsConfig(o, dir)), 0o600); err != nil {
			return err
		}
		g, err := startGateway(ctx, o, cfg, gdir)
		if err != nil {
			return fmt.Errorf("gateway %q: %w", name, err)
		}
		defer g.stop()
		gws[i] = g
	}
	none, idle := gws[0], gws[1]

	// The gateway's own files (listeners, logs, the module cache), before
	// the sessions: each session adds the connection its GET holds.
	base, err := countFDs(idle.pid)
	if err != nil {
		return err
	}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, DisableCompression: true}}
	defer hc.CloseIdleConnections()
	streams, err := openSessions(ctx, hc, idle.url, n, false)
	defer closeAll(streams)
	if err != nil {
		return fmt.Errorf("gateway %q: %w", "idle", err)
	}
	held, err := countFDs(idle.pid)
	if err != nil {
		return err
	}
	// Where to profile them while they are called (admin.pprof).
	fmt.Fprintf(stderr, "scalebench: calls: gateway none (pid %d, admin %s), gateway idle with %d idle sessions (pid %d, admin %s)\n",
		none.pid, none.admin, n, idle.pid, idle.admin)

	target := func(name string, g *gateway) string {
		b, _ := json.Marshal(map[string]any{"name": name, "url": g.url, "pid": g.pid})
		return string(b)
	}
	args := []string{"-tool", "calculate", "-args", `{"operation":"add","a":5,"b":3}`, "-expect", "8",
		"-clients", fmt.Sprint(o.clients), "-duration", o.duration.String(), "-warmup", o.warmup.String(),
		"-slice", o.slice.String(), "-json", "-target", target("none", none), "-target", target("idle", idle)}
	var rNone, rIdle, ratios, cpuRatios []float64
	for r := range o.rounds {
		var out, errOut bytes.Buffer
		cmd := exec.CommandContext(ctx, o.mcpbench, args...)
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("run %d: mcpbench: %w\n%s%s", r+1, err, out.Bytes(), errOut.Bytes())
		}
		got := map[string]mcpbenchSummary{}
		for line := range strings.Lines(out.String()) {
			if !strings.HasPrefix(line, "{") {
				continue
			}
			var s mcpbenchSummary
			if err := json.Unmarshal([]byte(line), &s); err != nil {
				return fmt.Errorf("run %d: mcpbench's line %q: %w", r+1, line, err)
			}
			got[s.Name] = s
		}
		a, b := got["none"], got["idle"]
		if a.Calls == 0 || b.Calls == 0 || b.RateRatio == nil {
			return fmt.Errorf("run %d: mcpbench printed no figures of both targets:\n%s", r+1, out.Bytes())
		}
		rNone, rIdle, ratios = append(rNone, a.CallsPerS), append(rIdle, b.CallsPerS), append(ratios, *b.RateRatio)
		if b.CPURatio != nil {
			cpuRatios = append(cpuRatios, *b.CPURatio)
		}
		fmt.Fprintf(stderr, "scalebench: calls run %d: none %.0f calls/s, %d idle %.0f calls/s, ratio %.3f\n",
			r+1, a.CallsPerS, n, b.CallsPerS, *b.RateRatio)
	}
	// The idle sessions were still held by the gateway (a connection
	// each). Not against held: the client's spare kept-alive connections
	// (it keeps up to 256 idle) counted there, and the gateway closes
	// them after idle_timeout (1 minute), which a run of the calls can
	// outlast.
	if fds, err := countFDs(idle.pid); err != nil {
		return err
	} else if fds < base+n {
		return fmt.Errorf("gateway %q holds %d open files, %d before its %d idle sessions were opened and %d after: some were dropped", "idle", fds, base, n, held)
	}
	res := map[string]any{"idle_sessions": n, "clients": o.clients, "runs": o.rounds, "tool": "calculate (examples/plugins/calculator)",
		"none_calls_per_s": round1(median(rNone)), "idle_calls_per_s": round1(median(rIdle)), "ratio": round3(median(ratios)), "ratios": ratios}
	if len(cpuRatios) > 0 {
		res["cpu_per_call_ratio"] = round3(median(cpuRatios))
	}
	line, _ := json.Marshal(res)
	fmt.Fprintln(stdout, string(line))
	fmt.Fprintf(stdout, "calls with idle sessions: tools/call calculate (the calculator example plugin) at %d clients, two gateways in turns of %s, %d runs of %s of each one's own time (medians):\n",
		o.clients, o.slice, o.rounds, o.duration)
	fmt.Fprintf(stdout, "  %-24s %10.0f calls/s\n", "no idle sessions", median(rNone))
	fmt.Fprintf(stdout, "  %-24s %10.0f calls/s\n", fmt.Sprintf("%d idle sessions", n), median(rIdle))
	fmt.Fprintf(stdout, "  %-24s %10.3f (target >= 0.95; runs %v)\n", "ratio", median(ratios), ratios)
	if len(cpuRatios) > 0 {
		fmt.Fprintf(stdout, "  %-24s %10.3f\n", "CPU per call ratio", median(cpuRatios))
	}
	return nil
}

// mcpbenchSummary is what idleCalls reads of mcpbench's JSON line of a
// target (cmd/mcpbench targetSummary).
type mcpbenchSummary struct {
	Name      string   `json:"name"`
	Calls     int64    `json:"calls"`
	CallsPerS float64  `json:"calls_per_s"`
	RateRatio *float64 `json:"rate_ratio"`
	CPURatio  *float64 `json:"cpu_ratio"`
}

// callsConfig is the gateway.yaml of both gateways of idleCalls: the
// calculator plugin, limits above o.sessions and the clients, and the
// compilation cache both share (in dir).
func callsConfig(o options, dir string) string {
	n := o.sessions + o.clients + 64
	return fmt.Sprintf(`server:
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
plugins:
  - {name: calculator, path: %q}
`, filepath.Join(dir, "cache"), n, n, 2*n, o.plugin)
}

// median is the median of xs (copied).
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
