package harness

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Metrics is a scrape of /metrics in the Prometheus text format.
type Metrics string

var (
	sampleRE = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)`)
	labelRE  = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"`)
)

// Value returns the value of the first sample of name whose labels include
// every label given (others may be present), and whether there is one.
func (m Metrics) Value(name string, labels map[string]string) (float64, bool) {
	for _, line := range strings.Split(string(m), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		s := sampleRE.FindStringSubmatch(line)
		if s == nil || s[1] != name {
			continue
		}
		have := map[string]string{}
		for _, l := range labelRE.FindAllStringSubmatch(s[3], -1) {
			have[l[1]] = l[2]
		}
		match := true
		for k, v := range labels {
			if have[k] != v {
				match = false
				break
			}
		}
		if !match {
			continue
		}
		v, err := strconv.ParseFloat(s[4], 64)
		if err != nil {
			continue
		}
		return v, true
	}
	return 0, false
}

// Sum is the sum of every sample of name whose labels include labels.
func (m Metrics) Sum(name string, labels map[string]string) float64 {
	var sum float64
	for _, line := range strings.Split(string(m), "\n") {
		if v, ok := Metrics(line).Value(name, labels); ok {
			sum += v
		}
	}
	return sum
}

// ToolCalls is wasmgate_tool_calls_total for tool and outcome (0 if
// absent).
func (m Metrics) ToolCalls(tool, outcome string) float64 {
	v, _ := m.Value("wasmgate_tool_calls_total", map[string]string{"tool": tool, "outcome": outcome})
	return v
}

// Scrape returns the gateway's /metrics.
func (g *Gateway) Scrape(t testing.TB) Metrics {
	t.Helper()
	code, body := HTTPGet(t, g.AdminURL+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("GET /metrics: status %d:\n%s", code, body)
	}
	return Metrics(body)
}

// Metric scrapes /metrics and returns the value of one sample (see
// Metrics.Value).
func (g *Gateway) Metric(t testing.TB, name string, labels map[string]string) (float64, bool) {
	t.Helper()
	return g.Scrape(t).Value(name, labels)
}

// HTTPGet fetches url and returns the status and body.
func HTTPGet(t testing.TB, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: read body: %v", url, err)
	}
	return resp.StatusCode, string(b)
}

// Ctx is a context cancelled after d or at the end of the test.
func Ctx(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// WaitFor polls cond every 20ms until it is true or d has passed, and
// reports whether it became true.
func WaitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}
