package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// A target is one server of an interleaved comparison (-target). Its
// fields left empty take the command line's -tool, -args, -expect and
// -token-env or -token-file.
type target struct {
	Name      string          `json:"name"`
	URL       string          `json:"url"`
	Tool      string          `json:"tool,omitempty"`
	Args      json.RawMessage `json:"args,omitempty"`
	Expect    *string         `json:"expect,omitempty"`
	TokenEnv  string          `json:"token_env,omitempty"`
	TokenFile string          `json:"token_file,omitempty"` // one token a line, client i sending line i modulo their number
	PID       int             `json:"pid,omitempty"`        // the server's process, for its CPU time per call
	// PIDs, instead of PID: the server side's processes, each with all
	// its descendants (a proxy and the stdio server it started), whose
	// CPU time per call is summed.
	PIDs []int `json:"pids,omitempty"`

	cfg config // the command line with this target's fields applied
}

// parseTarget decodes one -target JSON object and applies it to base.
func parseTarget(raw string, base config, getenv func(string) string) (target, error) {
	var t target
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return target{}, fmt.Errorf("%s: %w", raw, err)
	}
	if t.Name == "" {
		return target{}, fmt.Errorf("%s: name must not be empty", raw)
	}
	c := base
	var err error
	if c.url, err = parseLoopbackURL(t.URL); err != nil {
		return target{}, fmt.Errorf("%s: %w", t.Name, err)
	}
	if t.Tool != "" {
		c.tool = t.Tool
	}
	if t.Args != nil {
		if c.args, err = compactObject(string(t.Args)); err != nil {
			return target{}, fmt.Errorf("%s: args: %w", t.Name, err)
		}
	}
	if t.Expect != nil {
		c.expect, c.hasExpect = *t.Expect, true
	}
	if t.TokenEnv != "" || t.TokenFile != "" {
		if c.tokens, err = readTokens("", t.TokenEnv, t.TokenFile, getenv); err != nil {
			return target{}, fmt.Errorf("%s: %w", t.Name, err)
		}
	}
	if t.PID < 0 {
		return target{}, fmt.Errorf("%s: pid must not be negative", t.Name)
	}
	if t.PID > 0 && len(t.PIDs) > 0 {
		return target{}, fmt.Errorf("%s: pid and pids are exclusive", t.Name)
	}
	for _, p := range t.PIDs {
		if p <= 0 {
			return target{}, fmt.Errorf("%s: pids: %d is not a process id", t.Name, p)
		}
	}
	t.cfg = c
	return t, nil
}

// slot is what one target's clients did in one slice.
type slot struct {
	calls     int64
	latencies []time.Duration // sorted
	failures  int64
	reasons   []string
	cpu       time.Duration // the target's server process, over the slice
	driver    time.Duration // the driver's own CPU time, over the slice
}

// interleaved is the outcome of one interleaved phase: per target, one
// slot per round.
type interleaved struct {
	clients int
	slice   time.Duration
	names   []string
	cpu     []func() (time.Duration, error) // per target, its server side's CPU time so far; nil if not measured
	rounds  [][]slot                        // rounds[r][target]
	fails   []int64                         // per target, warmup included
	reasons [][]string
}

// runInterleaved opens n sessions to every target and then calls them in
// turns: each round gives every target one slice of cfg.slice during which
// only its n clients call (the others wait), in an order that rotates
// from round to round. A machine whose speed drifts over seconds, as a
// shared virtual machine's does, slows every target alike, so the ratio of
// two targets in the same round measures them and not the drift. The
// first rounds, cfg.warmup of each target's time, are not recorded.
func runInterleaved(ctx context.Context, cfg config, rt http.RoundTripper, n int) (*interleaved, error) {
	if tr, ok := rt.(interface{ CloseIdleConnections() }); ok {
		defer tr.CloseIdleConnections()
		tr.CloseIdleConnections()
	}
	T := len(cfg.targets)
	sessions := make([][]*session, T)
	defer func() {
		tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), teardownTimeout)
		defer cancel()
		for _, ss := range sessions {
			for _, s := range ss {
				_ = s.Close(tctx)
			}
		}
	}()
	for i := range cfg.targets {
		tc := &cfg.targets[i].cfg
		for j := range n {
			setupCtx, cancel := context.WithTimeout(ctx, cfg.callTimeout)
			s, err := openSession(setupCtx, rt, tc, j)
			cancel()
			if err != nil {
				return nil, fmt.Errorf("%s: opening session %d of %d: %w", cfg.targets[i].Name, j+1, n, err)
			}
			sessions[i] = append(sessions[i], s)
		}
	}

	res := &interleaved{clients: n, slice: cfg.slice, fails: make([]int64, T), reasons: make([][]string, T)}
	for _, t := range cfg.targets {
		res.names = append(res.names, t.Name)
		res.cpu = append(res.cpu, t.serverCPU())
	}
	warm := int(math.Ceil(float64(cfg.warmup) / float64(cfg.slice)))
	measured := max(1, int(math.Round(float64(cfg.duration)/float64(cfg.slice))))
	stats := make([]clientStats, n)
	for r := range warm + measured {
		round := make([]slot, T)
		for k := range T {
			i := (k + r) % T
			sl, err := runSlice(ctx, cfg, sessions[i], res.cpu[i], stats)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", cfg.targets[i].Name, err)
			}
			res.fails[i] += sl.failures
			res.reasons[i] = append(res.reasons[i], sl.reasons[:min(len(sl.reasons), maxReasons-len(res.reasons[i]))]...)
			round[i] = sl
		}
		if r >= warm {
			res.rounds = append(res.rounds, round)
		}
	}

	tctx, tcancel := context.WithTimeout(ctx, teardownTimeout)
	defer tcancel()
	for i, ss := range sessions {
		for _, s := range ss {
			if err := s.Close(tctx); err != nil {
				res.fails[i]++
				if len(res.reasons[i]) < maxReasons {
					res.reasons[i] = append(res.reasons[i], err.Error())
				}
			}
		}
		sessions[i] = nil
	}
	return res, nil
}

// serverCPU returns the function that reads t's server side's CPU time
// so far (pid, or pids with their descendants), or nil if t has neither.
func (t *target) serverCPU() func() (time.Duration, error) {
	switch {
	case len(t.PIDs) > 0:
		pids := t.PIDs
		return func() (time.Duration, error) { return treesCPU(pids) }
	case t.PID > 0:
		pid := t.PID
		return func() (time.Duration, error) {
			d, err := processCPU(pid)
			if err != nil {
				return 0, fmt.Errorf("reading the CPU time of process %d: %w", pid, err)
			}
			return d, nil
		}
	}
	return nil
}

// runSlice drives sessions for one slice (stats is scratch space, one per
// client, reset here; server, if not nil, reads the server side's CPU time). Calls that complete inside the slice are counted;
// the slice ends when every client's last call has returned, so the next
// target starts on an idle machine.
func runSlice(ctx context.Context, cfg config, sessions []*session, server func() (time.Duration, error), stats []clientStats) (slot, error) {
	self := os.Getpid()
	for i := range stats {
		stats[i] = clientStats{latencies: stats[i].latencies[:0]}
	}
	cpu0, err := sliceCPU(self, server)
	if err != nil {
		return slot{}, err
	}
	t0 := time.Now()
	t1 := t0.Add(cfg.slice)
	// A call still running cfg.callTimeout after the slice fails, as in
	// runPhase, so that a hung server cannot stall the comparison.
	callCtx, cancel := context.WithDeadline(ctx, t1.Add(cfg.callTimeout))
	defer cancel()
	var wg sync.WaitGroup
	for i, s := range sessions {
		s.bind(callCtx)
		wg.Go(func() { drive(callCtx, s, t0, t1, &stats[i]) })
	}
	time.Sleep(time.Until(t1))
	cpu1, err := sliceCPU(self, server)
	wg.Wait()
	if err != nil {
		return slot{}, err
	}
	if err := ctx.Err(); err != nil {
		return slot{}, fmt.Errorf("interrupted: %w", err)
	}
	m := merge(stats, len(stats), cfg.slice)
	sl := slot{calls: m.calls, latencies: m.sorted, failures: m.failures, reasons: m.reasons}
	sl.driver = cpu1[0] - cpu0[0]
	sl.cpu = cpu1[1] - cpu0[1]
	return sl, nil
}

// sliceCPU reads the driver's own CPU time and, if server is not nil,
// the server side's.
func sliceCPU(self int, server func() (time.Duration, error)) ([2]time.Duration, error) {
	var out [2]time.Duration
	var err error
	if out[0], err = processCPU(self); err != nil {
		return out, fmt.Errorf("reading the driver's CPU time: %w", err)
	}
	if server != nil {
		if out[1], err = server(); err != nil {
			return out, err
		}
	}
	return out, nil
}

// targetSummary is one target's figures over an interleaved phase, and
// (for every target but the first) its comparison with the first: each
// round's figure against the first target's in the same round, then the
// median over the rounds.
type targetSummary struct {
	Name        string  `json:"name"`
	Clients     int     `json:"clients"`
	Rounds      int     `json:"rounds"`
	SliceMs     float64 `json:"slice_ms"`
	Calls       int64   `json:"calls"`
	CallsPerS   float64 `json:"calls_per_s"`
	P50Ms       float64 `json:"p50_ms"`
	P99Ms       float64 `json:"p99_ms"`
	Failures    int64   `json:"failures"`
	CPUUs       float64 `json:"server_cpu_us_per_call,omitempty"`
	DriverCPUUs float64 `json:"driver_cpu_us_per_call"`
	// Against the first target, the median of the rounds' ratios or
	// differences; absent on the first target itself.
	Versus       string    `json:"versus,omitempty"`
	RateRatio    *float64  `json:"rate_ratio,omitempty"`
	P50OverUs    *float64  `json:"p50_over_us,omitempty"`
	P50Ratio     *float64  `json:"p50_ratio,omitempty"`
	CPURatio     *float64  `json:"cpu_ratio,omitempty"`
	RateRatioIQR []float64 `json:"rate_ratio_iqr,omitempty"` // the 25th and 75th percentiles of the rounds' ratios
}

// summaries computes every target's summary.
func (r *interleaved) summaries() []targetSummary {
	out := make([]targetSummary, len(r.names))
	for i, name := range r.names {
		s := targetSummary{Name: name, Clients: r.clients, Rounds: len(r.rounds), SliceMs: float64(r.slice) / 1e6, Failures: r.fails[i]}
		var all []time.Duration
		var cpu, driver time.Duration
		for _, round := range r.rounds {
			sl := round[i]
			s.Calls += sl.calls
			all = append(all, sl.latencies...)
			cpu += sl.cpu
			driver += sl.driver
		}
		slices.Sort(all)
		d := time.Duration(len(r.rounds)) * r.slice
		s.CallsPerS = round1(float64(s.Calls) / d.Seconds())
		s.P50Ms = msf(percentile(all, 0.50))
		s.P99Ms = msf(percentile(all, 0.99))
		if s.Calls > 0 {
			if r.cpu[i] != nil {
				s.CPUUs = us(cpu / time.Duration(s.Calls))
			}
			s.DriverCPUUs = us(driver / time.Duration(s.Calls))
		}
		if i > 0 {
			s.Versus = r.names[0]
			var rate, p50, p50r []float64
			var ca, cb, na, nb float64 // CPU time and calls of this target and the first
			for _, round := range r.rounds {
				a, b := round[i], round[0]
				if a.calls > 0 && b.calls > 0 {
					rate = append(rate, float64(a.calls)/float64(b.calls))
					pa, pb := percentile(a.latencies, 0.5), percentile(b.latencies, 0.5)
					p50 = append(p50, float64(pa-pb)/1e3)
					p50r = append(p50r, float64(pa)/float64(pb))
					ca, na = ca+float64(a.cpu), na+float64(a.calls)
					cb, nb = cb+float64(b.cpu), nb+float64(b.calls)
				}
			}
			if len(rate) > 0 {
				s.RateRatio = ptr(round3(quantile(rate, 0.5)))
				s.RateRatioIQR = []float64{round3(quantile(rate, 0.25)), round3(quantile(rate, 0.75))}
				s.P50OverUs = ptr(round1(quantile(p50, 0.5)))
				s.P50Ratio = ptr(round3(quantile(p50r, 0.5)))
			}
			if r.cpu[i] != nil && r.cpu[0] != nil && cb > 0 {
				// Clock ticks are 10 ms: one slice's CPU time is coarse,
				// so the ratio is of the sums, not the median of rounds.
				s.CPURatio = ptr(round3((ca / na) / (cb / nb)))
			}
		}
		out[i] = s
	}
	return out
}

// String renders a summary as one line.
func (s targetSummary) String() string {
	line := fmt.Sprintf("%-12s clients=%d rounds=%d calls/s=%.1f p50=%.3fms p99=%.3fms failures=%d",
		s.Name, s.Clients, s.Rounds, s.CallsPerS, s.P50Ms, s.P99Ms, s.Failures)
	if s.CPUUs > 0 {
		line += fmt.Sprintf(" server_cpu=%.1fµs/call", s.CPUUs)
	}
	line += fmt.Sprintf(" driver_cpu=%.1fµs/call", s.DriverCPUUs)
	if s.RateRatio != nil {
		line += fmt.Sprintf(" | vs %s: calls/s %.3fx (IQR %.3f-%.3f), p50 %+.1fµs (%.3fx)", s.Versus, *s.RateRatio, s.RateRatioIQR[0], s.RateRatioIQR[1], *s.P50OverUs, *s.P50Ratio)
		if s.CPURatio != nil {
			line += fmt.Sprintf(", CPU/call %.3fx", *s.CPURatio)
		}
	}
	return line
}

// reportInterleaved prints one phase's summaries and returns whether any
// call failed.
func reportInterleaved(r *interleaved, cfg config, stdout, stderr io.Writer) (failed bool, err error) {
	for i, s := range r.summaries() {
		fmt.Fprintln(stdout, s.String())
		if cfg.json {
			line, err := json.Marshal(s)
			if err != nil {
				return false, fmt.Errorf("encoding JSON summary: %w", err)
			}
			fmt.Fprintf(stdout, "%s\n", line)
		}
		if s.Failures > 0 {
			failed = true
			for _, reason := range r.reasons[i] {
				fmt.Fprintf(stderr, "mcpbench: %s clients=%d failure: %s\n", s.Name, r.clients, reason)
			}
		}
	}
	return failed, nil
}

// quantile is the linearly interpolated q-quantile of xs (copied, sorted).
func quantile(xs []float64, q float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return math.NaN()
	}
	pos := q * float64(len(s)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(s)-1)
	return s[lo] + (s[hi]-s[lo])*(pos-float64(lo))
}

func ptr(f float64) *float64 { return &f }

// errNeedTwoTargets is returned for a single -target.
var errNeedTwoTargets = errors.New("-target: an interleaved comparison needs at least two targets")
