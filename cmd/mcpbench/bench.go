package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

const (
	// expectedRate is the aggregate call rate latency slices are sized for;
	// a faster run just grows them.
	expectedRate = 60_000
	// maxPrealloc caps the latency samples preallocated for one phase.
	maxPrealloc = 4 << 20
	// maxReasons is how many failure reasons a phase reports.
	maxReasons = 5
	// teardownTimeout bounds the DELETE of all sessions after a phase.
	teardownTimeout = 10 * time.Second
)

// phaseResult is the outcome of one phase.
type phaseResult struct {
	clients  int
	duration time.Duration
	calls    int64 // calls completed inside the measured window
	failures int64 // failed calls and teardown errors, warmup included
	reasons  []string
	sorted   []time.Duration // every latency measured, in order
	p50, p90 time.Duration
	p99, max time.Duration
	// CPU time per call over the measured window: of each -cpu-pid
	// process (the server first), and of the driver itself; empty and 0
	// when not measured.
	cpuPerCall    []time.Duration
	driverPerCall time.Duration
}

// String renders the human-readable result line.
func (r phaseResult) String() string {
	cpu := ""
	for i, d := range r.cpuPerCall {
		name := "server_cpu"
		if i > 0 {
			name = fmt.Sprintf("cpu_pid%d", i+1)
		}
		cpu += fmt.Sprintf(" %s=%.1fµs/call", name, us(d))
	}
	if r.driverPerCall > 0 {
		cpu += fmt.Sprintf(" driver_cpu=%.1fµs/call", us(r.driverPerCall))
	}
	return fmt.Sprintf("clients=%d duration=%.2fs calls=%d calls/s=%.1f p50=%s p99=%s failures=%d%s",
		r.clients, r.duration.Seconds(), r.calls, r.rate(), ms(r.p50), ms(r.p99), r.failures, cpu)
}

func (r phaseResult) rate() float64 {
	if r.duration <= 0 {
		return 0
	}
	return float64(r.calls) / r.duration.Seconds()
}

// round1 and round3 round f to one and three decimals.
func round1(f float64) float64 { return math.Round(f*10) / 10 }

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// msf is d in milliseconds, to the microsecond.
func msf(d time.Duration) float64 { return math.Round(float64(d)/1e3) / 1e3 }

// us is d in microseconds, to 0.1 µs.
func us(d time.Duration) float64 { return math.Round(float64(d)/float64(time.Microsecond)*10) / 10 }

func ms(d time.Duration) string {
	return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
}

// phaseSummary is the -json line of a phase.
type phaseSummary struct {
	Clients   int     `json:"clients"`
	DurationS float64 `json:"duration_s"`
	Calls     int64   `json:"calls"`
	CallsPerS float64 `json:"calls_per_s"`
	P50Ms     float64 `json:"p50_ms"`
	P90Ms     float64 `json:"p90_ms"`
	P99Ms     float64 `json:"p99_ms"`
	MaxMs     float64 `json:"max_ms"`
	Failures  int64   `json:"failures"`
	CPUUs     float64 `json:"server_cpu_us_per_call,omitempty"` // the first -cpu-pid
	// Every -cpu-pid's, in order, and the driver's own.
	PIDCPUUs    []float64 `json:"cpu_us_per_call,omitempty"`
	DriverCPUUs float64   `json:"driver_cpu_us_per_call,omitempty"`
}

func (r phaseResult) summary() phaseSummary {
	s := phaseSummary{
		Clients:   r.clients,
		DurationS: r.duration.Seconds(),
		Calls:     r.calls,
		CallsPerS: round1(r.rate()),
		P50Ms:     msf(r.p50),
		P90Ms:     msf(r.p90),
		P99Ms:     msf(r.p99),
		MaxMs:     msf(r.max),
		Failures:  r.failures,
	}
	for _, d := range r.cpuPerCall {
		s.PIDCPUUs = append(s.PIDCPUUs, us(d))
	}
	if len(s.PIDCPUUs) > 0 {
		s.CPUUs = s.PIDCPUUs[0]
	}
	s.DriverCPUUs = us(r.driverPerCall)
	return s
}

// clientStats is what one client goroutine records; it is only read after
// the goroutine has finished.
type clientStats struct {
	calls     int64
	failures  int64
	reasons   []string
	latencies []time.Duration
}

func (c *clientStats) fail(err error) {
	c.failures++
	if len(c.reasons) < maxReasonsPerClient {
		c.reasons = append(c.reasons, err.Error())
	}
}

// runPhase opens n sessions, drives them for cfg.warmup+cfg.duration and
// closes them. Only calls that complete inside the measured window are
// counted and timed. An error is returned when the phase could not run
// (session setup failed, or ctx was cancelled); failed calls are reported in
// the result instead.
func runPhase(ctx context.Context, cfg config, rt http.RoundTripper, n int) (phaseResult, error) {
	if tr, ok := rt.(interface{ CloseIdleConnections() }); ok {
		// Start each phase on fresh connections: POSTs are not retried on a
		// keep-alive connection the server closed while it sat idle.
		defer tr.CloseIdleConnections()
		tr.CloseIdleConnections()
	}

	sessions := make([]*session, 0, n)
	defer func() {
		// Teardown runs even when ctx has been cancelled.
		tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), teardownTimeout)
		defer cancel()
		for _, s := range sessions {
			_ = s.Close(tctx) // errors are reported by the normal path below
		}
	}()
	for i := range n {
		setupCtx, cancel := context.WithTimeout(ctx, cfg.callTimeout)
		s, err := openSession(setupCtx, rt, &cfg, i)
		cancel()
		if err != nil {
			return phaseResult{}, fmt.Errorf("opening session %d of %d: %w", i+1, n, err)
		}
		sessions = append(sessions, s)
	}

	perClient := min(int(cfg.duration.Seconds()*expectedRate)/n+1, maxPrealloc/n)
	stats := make([]clientStats, n)
	for i := range stats {
		stats[i].latencies = make([]time.Duration, 0, perClient)
	}

	start := time.Now()
	t0 := start.Add(cfg.warmup)
	t1 := t0.Add(cfg.duration)
	// callCtx bounds every call: a call still running cfg.callTimeout after
	// the end of the phase fails and ends its client's loop.
	callCtx, cancel := context.WithDeadline(ctx, t1.Add(cfg.callTimeout))
	defer cancel()
	for _, s := range sessions {
		s.bind(callCtx)
	}
	var wg sync.WaitGroup
	for i, s := range sessions {
		wg.Go(func() { drive(callCtx, s, t0, t1, &stats[i]) })
	}
	// The CPU time of the -cpu-pid processes and of the driver over the
	// measured window.
	var cpu0, cpu1 []time.Duration
	var cpuErr error
	if len(cfg.cpuPIDs) > 0 {
		pids := append(slices.Clone(cfg.cpuPIDs), os.Getpid())
		time.Sleep(time.Until(t0))
		cpu0, cpuErr = processesCPU(pids)
		time.Sleep(time.Until(t1))
		if cpuErr == nil {
			cpu1, cpuErr = processesCPU(pids)
		}
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return phaseResult{}, fmt.Errorf("interrupted: %w", err)
	}

	// Close the sessions now so that teardown errors count as failures.
	tctx, tcancel := context.WithTimeout(ctx, teardownTimeout)
	defer tcancel()
	var closeErrs []error
	for _, s := range sessions {
		if err := s.Close(tctx); err != nil {
			closeErrs = append(closeErrs, err)
		}
	}
	sessions = sessions[:0]

	res := merge(stats, n, cfg.duration)
	if len(cfg.cpuPIDs) > 0 {
		if cpuErr != nil {
			return phaseResult{}, fmt.Errorf("-cpu-pid: %w", cpuErr)
		}
		if res.calls > 0 {
			n := time.Duration(res.calls)
			for i := range cfg.cpuPIDs {
				res.cpuPerCall = append(res.cpuPerCall, (cpu1[i]-cpu0[i])/n)
			}
			last := len(cpu0) - 1
			res.driverPerCall = (cpu1[last] - cpu0[last]) / n
		}
	}
	for _, err := range closeErrs {
		res.failures++
		if len(res.reasons) < maxReasons {
			res.reasons = append(res.reasons, err.Error())
		}
	}
	return res, nil
}

// drive calls the tool in a loop until t1. Calls that complete inside
// [t0, t1] are counted and timed; failures are counted whenever they happen.
func drive(ctx context.Context, s *session, t0, t1 time.Time, st *clientStats) {
	for ctx.Err() == nil {
		begin := time.Now()
		if !begin.Before(t1) {
			return
		}
		err := s.call()
		end := time.Now()
		if err != nil {
			if errors.Is(err, context.Canceled) && ctx.Err() != nil {
				return // interrupted, not a server failure
			}
			st.fail(err)
		}
		if !end.Before(t0) && !end.After(t1) {
			st.calls++
			st.latencies = append(st.latencies, end.Sub(begin))
		}
	}
}

// merge combines the per-client statistics and computes the percentiles.
func merge(stats []clientStats, clients int, d time.Duration) phaseResult {
	res := phaseResult{clients: clients, duration: d}
	total := 0
	for i := range stats {
		total += len(stats[i].latencies)
	}
	all := make([]time.Duration, 0, total)
	for i := range stats {
		st := &stats[i]
		res.calls += st.calls
		res.failures += st.failures
		all = append(all, st.latencies...)
		for _, r := range st.reasons {
			if len(res.reasons) < maxReasons {
				res.reasons = append(res.reasons, r)
			}
		}
	}
	slices.Sort(all)
	res.sorted = all
	res.p50 = percentile(all, 0.50)
	res.p90 = percentile(all, 0.90)
	res.p99 = percentile(all, 0.99)
	if len(all) > 0 {
		res.max = all[len(all)-1]
	}
	return res
}

// percentile returns the nearest-rank p-quantile of sorted samples.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// processesCPU is the CPU time of each process, in order.
func processesCPU(pids []int) ([]time.Duration, error) {
	out := make([]time.Duration, len(pids))
	for i, pid := range pids {
		d, err := processCPU(pid)
		if err != nil {
			return nil, fmt.Errorf("reading the CPU time of process %d: %w", pid, err)
		}
		out[i] = d
	}
	return out, nil
}

// processCPU is the user and system CPU time process pid has used, from
// /proc/PID/stat (in clock ticks, 100 a second on Linux).
func processCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64) // field 14
	stime, err2 := strconv.ParseInt(f[12], 10, 64) // field 15
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	return time.Duration(utime+stime) * (time.Second / 100), nil
}
