package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/gateway/search"
)

// protocolVersion is the revision the driver asks for: the newest with
// sessions, as mcpbench's default.
const protocolVersion = "2025-11-25"

// checkLoopback refuses a URL whose host is not localhost or a loopback
// IP literal.
func checkLoopback(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("-url: %w", err)
	}
	if u.Scheme != "http" || u.User != nil {
		return fmt.Errorf("-url %q: want http://host:port/path, no credentials", raw)
	}
	if strings.EqualFold(u.Hostname(), "localhost") {
		return nil
	}
	if ip, err := netip.ParseAddr(u.Hostname()); err != nil || !ip.Unmap().IsLoopback() {
		return fmt.Errorf("-url %q: only loopback hosts are driven", raw)
	}
	return nil
}

// loopbackClient is an HTTP client whose dialer refuses any address that
// is not a loopback IP (a name that resolves elsewhere included).
func loopbackClient(rt func(http.RoundTripper) http.RoundTripper) *http.Client {
	d := &net.Dialer{Timeout: 5 * time.Second, Control: func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil || !ap.Addr().Unmap().IsLoopback() {
			return fmt.Errorf("refusing to dial %s: not a loopback address", address)
		}
		return nil
	}}
	tr := &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 4}
	var out http.RoundTripper = tr
	if rt != nil {
		out = rt(tr)
	}
	return &http.Client{Transport: out}
}

// connect starts and initializes an mcp-go client on url.
func connect(ctx context.Context, url string, hc *http.Client) (*client.Client, error) {
	c, err := client.NewStreamableHttpClient(url, transport.WithHTTPBasicClient(hc))
	if err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		return nil, fmt.Errorf("starting the client: %w", err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = protocolVersion
	req.Params.ClientInfo = mcp.Implementation{Name: "searchbench", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		c.Close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	return c, nil
}

// phaseResult is one phase's figures over every round.
type phaseResult struct {
	Phase    string    `json:"phase"`
	Calls    int       `json:"calls"`
	P50ms    float64   `json:"p50_ms"` // the median of the rounds' p50
	P99ms    float64   `json:"p99_ms"` // the median of the rounds' p99
	RoundP50 []float64 `json:"rounds_p50_ms"`
	RoundP99 []float64 `json:"rounds_p99_ms"`
	Failures int       `json:"failures"`
	// find_tools only: searches that found nothing, and the mean number
	// of tools a search returned.
	Empty       int     `json:"empty,omitempty"`
	MeanResults float64 `json:"mean_results,omitempty"`
	firstErr    error
	results     int
}

// drive runs o.rounds rounds of the three phases over one session.
func drive(ctx context.Context, o options, stdout, stderr io.Writer) error {
	c, err := connect(ctx, o.url, loopbackClient(nil))
	if err != nil {
		return err
	}
	defer c.Close()

	qs := search.SyntheticQueries(o.queries, o.querySeed)
	next := 0
	var phases []*phaseResult
	for name := range strings.SplitSeq(o.phases, ",") {
		switch name = strings.TrimSpace(name); name {
		case "find_tools", "tools/call", "call_tool":
			phases = append(phases, &phaseResult{Phase: name})
		default:
			return fmt.Errorf("-phases: %q is not find_tools, tools/call or call_tool: %w", name, errUsage)
		}
	}
	call := func(p *phaseResult) (time.Duration, error) {
		req := mcp.CallToolRequest{}
		switch p.Phase {
		case "find_tools":
			req.Params.Name = "find_tools"
			req.Params.Arguments = map[string]any{"query": qs[next%len(qs)]}
			next++
		case "tools/call":
			req.Params.Name = o.tool
			req.Params.Arguments = map[string]any{}
		case "call_tool":
			req.Params.Name = "call_tool"
			req.Params.Arguments = map[string]any{"name": o.tool, "arguments": map[string]any{}}
		}
		cctx, cancel := context.WithTimeout(ctx, o.timeout)
		defer cancel()
		start := time.Now()
		res, err := c.CallTool(cctx, req)
		took := time.Since(start)
		if err != nil {
			return took, err
		}
		text := ""
		if len(res.Content) > 0 {
			if tc, ok := res.Content[0].(mcp.TextContent); ok {
				text = tc.Text
			}
		}
		if res.IsError {
			return took, fmt.Errorf("%s: isError: %s", req.Params.Name, text)
		}
		if p.Phase != "find_tools" {
			if text != "ok "+o.tool {
				return took, fmt.Errorf("%s: got %q, want %q", req.Params.Name, text, "ok "+o.tool)
			}
			return took, nil
		}
		var found struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		if err := json.Unmarshal([]byte(text), &found); err != nil {
			return took, fmt.Errorf("find_tools: the result is not {\"tools\":[...]}: %w", err)
		}
		if len(found.Tools) == 0 {
			p.Empty++
		}
		p.results += len(found.Tools)
		return took, nil
	}

	for r := range o.rounds {
		for i := range phases {
			p := phases[(i+r)%len(phases)]
			lat := make([]time.Duration, 0, o.calls)
			for k := range o.warmup + o.calls {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				took, err := call(p)
				if err != nil {
					p.Failures++
					if p.firstErr == nil {
						p.firstErr = err
					}
					continue
				}
				if k >= o.warmup {
					lat = append(lat, took)
				}
			}
			if len(lat) == 0 {
				continue
			}
			slices.Sort(lat)
			p.Calls += len(lat)
			p.RoundP50 = append(p.RoundP50, ms(lat[len(lat)/2]))
			p.RoundP99 = append(p.RoundP99, ms(lat[len(lat)*99/100]))
		}
	}

	failed := false
	enc := json.NewEncoder(stdout)
	for _, p := range phases {
		p.P50ms, p.P99ms = median(p.RoundP50), median(p.RoundP99)
		if p.Phase == "find_tools" {
			// Every find_tools call, warmup included, counted results.
			if n := o.rounds*(o.warmup+o.calls) - p.Failures; n > 0 {
				p.MeanResults = float64(p.results) / float64(n)
			}
		}
		if p.firstErr != nil {
			failed = true
			fmt.Fprintf(stderr, "searchbench: %s: %d failures, the first: %v\n", p.Phase, p.Failures, p.firstErr)
		}
		if err := enc.Encode(p); err != nil {
			return err
		}
	}
	if failed {
		return fmt.Errorf("calls failed")
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// median of xs (0 for none).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// listCapture keeps the body of every tools/list answer that passes
// through it.
type listCapture struct {
	next   http.RoundTripper
	bodies [][]byte
}

func (l *listCapture) RoundTrip(req *http.Request) (*http.Response, error) {
	list := false
	if req.Body != nil && req.GetBody != nil {
		if b, err := req.GetBody(); err == nil {
			body, _ := io.ReadAll(b)
			b.Close()
			list = bytes.Contains(body, []byte(`"tools/list"`))
		}
	}
	res, err := l.next.RoundTrip(req)
	if err != nil || !list {
		return res, err
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return nil, err
	}
	l.bodies = append(l.bodies, body)
	res.Body = io.NopCloser(bytes.NewReader(body))
	return res, nil
}

// resultBytes is the JSON-RPC result of an answer's body, as JSON or as
// the data of a text/event-stream's message event.
func resultBytes(body []byte) (json.RawMessage, error) {
	msg := bytes.TrimSpace(body)
	if len(msg) > 0 && msg[0] != '{' {
		var data [][]byte
		for line := range bytes.SplitSeq(msg, []byte("\n")) {
			line = bytes.TrimRight(line, "\r")
			if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				data = append(data, bytes.TrimPrefix(d, []byte(" ")))
			}
		}
		msg = bytes.Join(data, []byte("\n"))
	}
	var env struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(msg, &env); err != nil {
		return nil, fmt.Errorf("a tools/list answer that is not JSON-RPC: %w", err)
	}
	if len(env.Result) == 0 {
		return nil, fmt.Errorf("a tools/list answer without a result: %.200s", msg)
	}
	return env.Result, nil
}

// printListBytes lists url's tools (every page) and prints the bytes of
// the results, summed, as JSON.
func printListBytes(ctx context.Context, url string, stdout io.Writer) error {
	capture := &listCapture{}
	c, err := connect(ctx, url, loopbackClient(func(rt http.RoundTripper) http.RoundTripper {
		capture.next = rt
		return capture
	}))
	if err != nil {
		return err
	}
	defer c.Close()
	tools := 0
	var cursor mcp.Cursor
	for {
		req := mcp.ListToolsRequest{}
		req.Params.Cursor = cursor
		res, err := c.ListTools(ctx, req)
		if err != nil {
			return fmt.Errorf("tools/list: %w", err)
		}
		tools += len(res.Tools)
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	total := 0
	for _, b := range capture.bodies {
		r, err := resultBytes(b)
		if err != nil {
			return err
		}
		total += len(r)
	}
	return json.NewEncoder(stdout).Encode(map[string]int{"tools": tools, "bytes": total, "pages": len(capture.bodies)})
}
