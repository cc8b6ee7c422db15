package main

// What one client can hold on the HTTP listener: forged session ids, slow
// bodies and headers, idle keep-alive connections, sessions and GET streams
// past their caps, a flood of held-open connections; and the admin
// listener's refusal of cross-site and DNS-rebinding requests. Each abuse
// is small (caps are set low in the test config) and checks the exact
// status, then that the gateway's goroutines and heap come back near where
// they were, as its /metrics reports them.

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// abuseEnv runs a test gateway with GOGC=25, so that the garbage
// collections settle needs come quickly.
var abuseEnv = []string{"GOGC=25"}

// runtimeStats are the gateway's Go runtime figures from /metrics.
// runtimeStats, gatewayStats, settleStats, settledMin and backNear are
// internal/harness's Runtime helpers under the names these tests use.
type runtimeStats struct {
	heap       float64 // go_memstats_heap_alloc_bytes
	goroutines float64 // go_goroutines
	gcs        float64 // go_gc_duration_seconds_count
}

func (s runtimeStats) String() string { return s.h().String() }

func (s runtimeStats) h() harness.Runtime {
	return harness.Runtime{Heap: s.heap, Goroutines: s.goroutines, GCs: s.gcs}
}

func fromHarness(r harness.Runtime) runtimeStats { return runtimeStats{r.Heap, r.Goroutines, r.GCs} }

func gatewayStats(t testing.TB, g *harness.Gateway) runtimeStats {
	t.Helper()
	return fromHarness(g.Runtime(t))
}

func settleStats(t testing.TB, g *harness.Gateway, base *runtimeStats) runtimeStats {
	t.Helper()
	if base == nil {
		return fromHarness(g.SettleRuntime(t, nil))
	}
	b := base.h()
	return fromHarness(g.SettleRuntime(t, &b))
}

func settledMin(t testing.TB, g *harness.Gateway, base *runtimeStats) runtimeStats {
	t.Helper()
	if base == nil {
		return fromHarness(g.Baseline(t, nil))
	}
	b := base.h()
	return fromHarness(g.Baseline(t, &b))
}

// backNear checks that after is within slack bytes of base's heap and 3 of
// its goroutines.
func backNear(t testing.TB, what string, base, after runtimeStats, slack float64) {
	t.Helper()
	harness.CheckNear(t, what, base.h(), after.h(), slack)
}

func mcpHostPort(t testing.TB, g *harness.Gateway) string {
	u, err := url.Parse(g.MCPURL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// doRequest sends method to url with headers and returns the status and
// body (the body is read in full).
func doRequest(t testing.TB, c *http.Client, method, url string, headers map[string]string, body string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		if k == "Host" { // net/http sends req.Host, not a Host header
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// headerIf is the headers of a request sending name: value, or none
// when value is empty (net/http would send the header empty).
func headerIf(name, value string) map[string]string {
	if value == "" {
		return map[string]string{}
	}
	return map[string]string{name: value}
}

// TestHTTPForgedSessionIDs: session ids the gateway did not issue get 404
// on GET, POST and DELETE and are not kept: 600 requests naming 60 KiB ids
// leave the heap where it was. A GET without an id gets 400, an id past
// max_header_bytes 431, and an ended session 404 everywhere.
func TestHTTPForgedSessionIDs(t *testing.T) {
	t.Parallel()
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{Plugins: harness.ExamplePlugins(t)}))
	g := bins.Start(t, harness.Options{Config: cfg, Env: abuseEnv})
	base := settleStats(t, g, nil)

	const n, idLen = 200, 60 << 10 // under the default max_header_bytes (64 KiB)
	c := &http.Client{Timeout: 10 * time.Second}
	defer c.CloseIdleConnections()
	for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
		codes := map[int]int{}
		for i := range n {
			if len(codes) > 1 {
				break // one failure says it
			}
			id := fmt.Sprintf("mcp-session-%d-%s", i, strings.Repeat("F", idLen))
			body := ""
			if method == http.MethodPost {
				body = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
			}
			code, _, _ := doRequest(t, c, method, g.MCPURL, map[string]string{
				"Mcp-Session-Id": id, "MCP-Protocol-Version": harness.ProtoSessions,
				"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
			}, body)
			if code != http.StatusNotFound {
				codes[code] = i
				break
			}
			codes[code]++
		}
		if codes[http.StatusNotFound] != n {
			t.Errorf("%s with %d forged session ids: statuses %v (status: count, or index of the first other), want %d×404", method, n, codes, n)
		}
	}
	c.CloseIdleConnections()
	backNear(t, fmt.Sprintf("%d forged 60 KiB session ids", 3*n), base, settledMin(t, g, &base), 8<<20)

	if code, _, _ := doRequest(t, c, http.MethodGet, g.MCPURL, map[string]string{
		"Accept": "text/event-stream", "MCP-Protocol-Version": harness.ProtoSessions}, ""); code != http.StatusBadRequest {
		t.Errorf("GET without Mcp-Session-Id: status %d, want 400", code)
	}
	if code, _, _ := doRequest(t, c, http.MethodGet, g.MCPURL, map[string]string{
		"Accept": "text/event-stream", "Mcp-Session-Id": strings.Repeat("F", 1<<20)}, ""); code != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("GET with a 1 MiB session id: status %d, want 431", code)
	}

	// An ended session is refused everywhere, DELETE included.
	s := openSession(t, g.MCPURL, nil)
	resp := s.do(t, http.MethodDelete, nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE of a live session: status %d", resp.StatusCode)
	}
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		resp := s.do(t, method, nil)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s of an ended session: status %d, want 404", method, resp.StatusCode)
		}
	}
	if code := s.toolsListStatus(t); code != http.StatusNotFound {
		t.Errorf("POST in an ended session: status %d, want 404", code)
	}
	stillServes(t, g)
}

// TestHTTPSlowClients: a slow body gets 408 at read_timeout, a slow header
// and an idle keep-alive connection are closed (read_header_timeout,
// idle_timeout), and what they held is given back. A call that runs past
// read_timeout once its body is in, and a GET stream that outlives it, are
// not cut.
func TestHTTPSlowClients(t *testing.T) {
	t.Parallel()
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
		HTTP: "    read_header_timeout: 1s\n    read_timeout: 2s\n    idle_timeout: 1s\n    max_body: 2MiB\n",
		Plugins: harness.ExamplePlugins(t) + fmt.Sprintf("  - name: hostile\n    path: %s\n    limits: {timeout: 10s}\n",
			harness.Wasm(t, "testdata/plugins/hostile")),
	}))
	g := bins.Start(t, harness.Options{Config: cfg, Env: abuseEnv})
	addr := mcpHostPort(t, g)
	base := settleStats(t, g, nil)
	const conns = 20

	// conns connections at once of each kind; what each got, and what
	// the gateway held once they are gone.
	closed := func(got string) bool { return got == "closed" }
	for _, tc := range []struct {
		name string            // the subtest, and each failure's prefix
		open func() string     // one connection, and what came of it
		ok   func(string) bool // whether what came of it is right
		want string            // what is right, for the failure
		held string            // what backNear names
	}{
		// Each sends 1 MiB of a 2 MB body, then a byte every 500ms.
		{"slow body", func() string { return slowBody(addr, 1<<20) },
			func(got string) bool { return strings.HasPrefix(got, "HTTP/1.1 408 ") }, "HTTP/1.1 408",
			fmt.Sprintf("%d slow 1 MiB bodies", conns)},
		{"slow header", func() string { return slowHeader(addr) },
			closed, "the connection closed without a response",
			fmt.Sprintf("%d slow headers", conns)},
		{"idle keep-alive", func() string { return idleKeepAlive(addr) },
			closed, "the connection closed after idle_timeout",
			fmt.Sprintf("%d idle keep-alive connections", conns)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			results := make([]string, conns)
			var wg sync.WaitGroup
			for i := range conns {
				wg.Add(1)
				go func() {
					defer wg.Done()
					results[i] = tc.open()
				}()
			}
			wg.Wait()
			for i, r := range results {
				if !tc.ok(r) {
					t.Errorf("%s %d: got %q, want %s", tc.name, i, r, tc.want)
				}
			}
			backNear(t, tc.held, base, settledMin(t, g, &base), 8<<20)
		})
	}

	t.Run("long requests are not cut", func(t *testing.T) {
		// A GET stream lasts past read_timeout (2s) and idle_timeout.
		s := openSession(t, g.MCPURL, nil)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		stream := openStream(ctx, t, s)
		defer stream.Body.Close()
		if stream.StatusCode != http.StatusOK {
			t.Fatalf("GET stream: status %d", stream.StatusCode)
		}
		ended := make(chan error, 1)
		go func() {
			_, err := io.Copy(io.Discard, stream.Body)
			ended <- err
		}()
		select {
		case err := <-ended:
			t.Fatalf("the GET stream ended within 3.5s (read_timeout 2s): %v", err)
		case <-time.After(3500 * time.Millisecond):
		}
		// A call that runs 3s, once its request is in, is not cut at
		// read_timeout either.
		c := g.SessionClient(t)
		if text, isErr := harness.CallTool(harness.Ctx(t, 30*time.Second), t, c, "sleep", map[string]any{"ms": 3000}); isErr || text != "slept 3000ms" {
			t.Errorf("sleep 3000ms with read_timeout 2s = %q (isError %v)", text, isErr)
		}
	})
}

// slowBody sends headers and first bytes of a body, then a byte every
// 500ms, and returns the status line it gets (or what went wrong).
func slowBody(addr string, first int) string {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err.Error()
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", addr, 2_000_000)
	if _, err := c.Write([]byte(strings.Repeat(" ", first))); err != nil {
		return "writing the body: " + err.Error()
	}
	defer trickle(c, 500*time.Millisecond, " ")()
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return "no response: " + err.Error()
	}
	return strings.TrimSpace(line)
}

// trickle writes s to c every period until the func it returns is
// called (or a write fails).
func trickle(c net.Conn, period time.Duration, s string) (stop func()) {
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if _, err := c.Write([]byte(s)); err != nil {
					return
				}
			}
		}
	}()
	return func() { close(done); <-stopped }
}

// slowHeader sends a request line and then a header a byte every 300ms,
// and reports "closed" if the gateway hangs up without answering.
func slowHeader(addr string) string {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err.Error()
	}
	defer c.Close()
	fmt.Fprintf(c, "GET /mcp HTTP/1.1\r\nHost: %s\r\nX-Slow: ", addr)
	defer trickle(c, 300*time.Millisecond, "x")()
	return readUntilClosed(c)
}

// idleKeepAlive makes one request on a connection, reads the answer, then
// waits, and reports "closed" if the gateway hangs up.
func idleKeepAlive(addr string) string {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err.Error()
	}
	defer c.Close()
	fmt.Fprintf(c, "GET /mcp HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\n\r\n", addr)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return "no response: " + err.Error()
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || resp.Close {
		return fmt.Sprintf("status %d (close %v), want 400 on a kept-alive connection", resp.StatusCode, resp.Close)
	}
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	if n, err := br.Read(make([]byte, 1)); n > 0 || !isClosed(err) {
		return fmt.Sprintf("read %d bytes, %v", n, err)
	}
	return "closed"
}

func readUntilClosed(c net.Conn) string {
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	b, err := io.ReadAll(c)
	if len(b) > 0 {
		return fmt.Sprintf("got %q", b)
	}
	if err != nil && !isClosed(err) {
		return "still open: " + err.Error()
	}
	return "closed"
}

func isClosed(err error) bool {
	var ne net.Error
	return err == io.EOF || (err != nil && !(errors.As(err, &ne) && ne.Timeout()))
}

// openStream opens a session's GET stream; cancel ctx to close it.
func openStream(ctx context.Context, t testing.TB, s session) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range s.headers(nil) {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET stream: %v", err)
	}
	return resp
}

// TestHTTPSessionAndStreamCaps: past max_sessions an initialize gets 503
// with Retry-After; past max_streams_per_session a GET gets 409, past
// max_streams 503 with Retry-After; places come back when sessions end and
// streams close.
func TestHTTPSessionAndStreamCaps(t *testing.T) {
	t.Parallel()
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
		HTTP:    "    max_sessions: 5\n    max_streams: 3\n    max_streams_per_session: 2\n",
		Plugins: harness.ExamplePlugins(t),
	}))
	g := bins.Start(t, harness.Options{Config: cfg, Env: abuseEnv})
	base := settleStats(t, g, nil)

	t.Run("sessions", func(t *testing.T) {
		var sessions []session
		for range 5 {
			sessions = append(sessions, openSession(t, g.MCPURL, nil))
		}
		for range 3 {
			resp := harness.PostJSON(t, g.MCPURL, harness.InitializeBody, nil)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
				!strings.Contains(string(b), "transports.http.max_sessions") || resp.Header.Get("Mcp-Session-Id") != "" {
				t.Errorf("initialize past max_sessions 5: status %d, Retry-After %q, session %q, body %q; want 503 naming the key, with Retry-After",
					resp.StatusCode, resp.Header.Get("Retry-After"), resp.Header.Get("Mcp-Session-Id"), b)
			}
		}
		// Sessions already open keep working.
		if code := sessions[4].toolsListStatus(t); code != http.StatusOK {
			t.Errorf("tools/list in an open session at the cap: %d", code)
		}
		// An initialize notification cannot make a session nobody knows.
		resp := harness.PostJSON(t, g.MCPURL, `{"jsonrpc":"2.0","method":"initialize","params":{}}`, nil)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("initialize as a notification: status %d, want 400", resp.StatusCode)
		}
		for _, s := range sessions {
			resp := s.do(t, http.MethodDelete, nil)
			resp.Body.Close()
		}
		if v, _ := g.Scrape(t).Value("wasmgate_http_rejected_total", map[string]string{"reason": "sessions"}); v != 3 {
			t.Errorf("wasmgate_http_rejected_total{reason=sessions} = %v, want 3", v)
		}
		// Ended sessions give their places back.
		for range 5 {
			s := openSession(t, g.MCPURL, nil)
			resp := s.do(t, http.MethodDelete, nil)
			resp.Body.Close()
		}
	})

	t.Run("streams", func(t *testing.T) {
		a, b := openSession(t, g.MCPURL, nil), openSession(t, g.MCPURL, nil)
		defer func() {
			for _, s := range []session{a, b} {
				resp := s.do(t, http.MethodDelete, nil)
				resp.Body.Close()
			}
		}()
		var cancels []context.CancelFunc
		defer func() {
			for _, c := range cancels {
				c()
			}
		}()
		open := func(s session) (*http.Response, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancels = append(cancels, cancel)
			return openStream(ctx, t, s), cancel
		}
		status := func(resp *http.Response) string {
			defer func() {
				if resp.StatusCode != http.StatusOK {
					resp.Body.Close()
				}
			}()
			if resp.StatusCode == http.StatusOK {
				return "200"
			}
			body, _ := io.ReadAll(resp.Body)
			return fmt.Sprintf("%d Retry-After=%q %s", resp.StatusCode, resp.Header.Get("Retry-After"), strings.TrimSpace(string(body)))
		}
		a1, closeA1 := open(a)
		a2, _ := open(a)
		if s1, s2 := status(a1), status(a2); s1 != "200" || s2 != "200" {
			t.Fatalf("two streams on one session (max 2): %s, %s", s1, s2)
		}
		a3, _ := open(a)
		if s := status(a3); !strings.HasPrefix(s, "409 ") || !strings.Contains(s, "max_streams_per_session") {
			t.Errorf("third stream on one session: %s, want 409 naming max_streams_per_session", s)
		}
		b1, _ := open(b)
		if s := status(b1); s != "200" {
			t.Fatalf("a stream on another session (3 of max 3): %s", s)
		}
		b2, _ := open(b)
		if s := status(b2); !strings.HasPrefix(s, `503 Retry-After="30"`) || !strings.Contains(s, "transports.http.max_streams") {
			t.Errorf("fourth stream in all (max 3): %s, want 503 with Retry-After naming max_streams", s)
		}
		// A closed stream gives its place back.
		closeA1()
		a1.Body.Close()
		var s string
		if !harness.WaitFor(10*time.Second, func() bool {
			resp, _ := open(b)
			s = status(resp)
			return s == "200"
		}) {
			t.Errorf("a stream after one closed: %s, want 200", s)
		}
		v, _ := g.Scrape(t).Value("wasmgate_http_rejected_total", map[string]string{"reason": "streams"})
		if v < 2 {
			t.Errorf("wasmgate_http_rejected_total{reason=streams} = %v, want >= 2", v)
		}
	})
	backNear(t, "sessions and streams past their caps", base, settledMin(t, g, &base), 8<<20)
	stillServes(t, g)
}

// TestHTTPDescriptorFlood: under a descriptor limit of 128 (ulimit -n), the
// MCP listener lowers max_connections to keep a reserve, so 140 held-open
// connections leave the admin listener answering /healthz; once they close,
// MCP serves again.
func TestHTTPDescriptorFlood(t *testing.T) {
	t.Parallel()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to set ulimit -n with")
	}
	wrapper := filepath.Join(t.TempDir(), "wasmgate-ulimit")
	script := fmt.Sprintf("#!%s\nulimit -n 128 || exit 97\nexec %q \"$@\"\n", sh, bins.Path)
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
		HTTP:    "    read_header_timeout: 1m\n    read_timeout: 1m\n",
		Plugins: harness.ExamplePlugins(t),
	}))
	g := bins.Start(t, harness.Options{Config: cfg, Env: abuseEnv, Binary: wrapper})
	if !strings.Contains(g.Stderr(), "transports.http.max_connections lowered to fit the open-file limit") ||
		!strings.Contains(g.Stderr(), "now=64") {
		t.Errorf("no warning that max_connections (1024) was lowered to 64 for a limit of 128:\n%s", g.Stderr())
	}
	addr := mcpHostPort(t, g)
	base := settleStats(t, g, nil)

	var flood []net.Conn
	defer func() {
		for _, c := range flood {
			c.Close()
		}
	}()
	for i := range 140 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		flood = append(flood, c)
	}
	// The held connections send nothing: the gateway has accepted what it
	// may, the rest wait in the kernel's queue.
	hc := &http.Client{Timeout: 10 * time.Second}
	defer hc.CloseIdleConnections()
	for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
		resp, err := hc.Get(g.AdminURL + path)
		if err != nil {
			t.Fatalf("GET %s during the flood: %v", path, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s during the flood: status %d", path, resp.StatusCode)
		}
	}
	for _, c := range flood {
		c.Close()
	}
	flood = nil
	stillServes(t, g)
	backNear(t, "140 held-open connections", base, settledMin(t, g, &base), 8<<20)
	if strings.Contains(g.Stderr(), "too many open files") {
		t.Errorf("the gateway ran out of descriptors:\n%s", g.Stderr())
	}
}

// TestAdminCrossSite: POST /-/reload refuses what a web page could make a
// browser send (a form or text/plain POST, a foreign Origin, Sec-Fetch-Site
// cross-site) and a Host that is not loopback's (DNS rebinding), without
// reloading; a POST without the Wasmgate-Admin header (what the gateway's
// own HTTP clients send when an upstream redirects them there) is refused
// too; a plain POST from loopback with the header (curl -X POST -H
// 'Wasmgate-Admin: 1') reloads.
func TestAdminCrossSite(t *testing.T) {
	t.Parallel()
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{Plugins: harness.ExamplePlugins(t)}))
	g := bins.Start(t, harness.Options{Config: cfg, Env: nil})
	reloads := func() float64 {
		v, _ := g.Scrape(t).Value("wasmgate_config_reloads_total", map[string]string{"outcome": "success"})
		return v
	}
	u, _ := url.Parse(g.AdminURL)
	port := u.Port()
	before := reloads()
	c := &http.Client{}
	defer c.CloseIdleConnections()
	for _, tc := range []struct {
		name   string
		header map[string]string
		body   string
	}{
		{"form POST, text/plain, foreign Origin", map[string]string{"Content-Type": "text/plain", "Origin": "http://evil.com"}, "x=1"},
		{"text/plain from the same origin", map[string]string{"Content-Type": "text/plain;charset=UTF-8", "Origin": "http://127.0.0.1:" + port}, "x"},
		{"urlencoded form", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, "a=b"},
		{"multipart form", map[string]string{"Content-Type": "multipart/form-data; boundary=x"}, "--x--"},
		{"foreign Origin, no body", map[string]string{"Origin": "http://evil.com"}, ""},
		{"another loopback port's page", map[string]string{"Origin": "http://localhost:3000"}, ""},
		{"Sec-Fetch-Site cross-site", map[string]string{"Sec-Fetch-Site": "cross-site"}, ""},
		{"DNS rebinding Host", map[string]string{"Host": "evil.com:" + port}, ""},
		{"DNS rebinding, same origin", map[string]string{"Host": "evil.com:" + port, "Origin": "http://evil.com:" + port, "Content-Type": "application/json"}, "{}"},
		{"no Wasmgate-Admin header", map[string]string{"Content-Type": "application/json"}, "{}"},
		{"no Wasmgate-Admin header, no body", nil, ""},
	} {
		if code, _, b := doRequest(t, c, http.MethodPost, g.AdminURL+"/-/reload", tc.header, tc.body); code != http.StatusForbidden {
			t.Errorf("%s: status %d %q, want 403", tc.name, code, b)
		}
	}
	if after := reloads(); after != before {
		t.Errorf("refused requests reloaded the gateway: reloads %v -> %v", before, after)
	}

	// curl -X POST -H 'Wasmgate-Admin: 1' http://127.0.0.1:port/-/reload:
	// no body, no Content-Type.
	if curl, err := exec.LookPath("curl"); err == nil {
		out, err := exec.Command(curl, "-sS", "-X", "POST", "-H", "Wasmgate-Admin: 1", g.AdminURL+"/-/reload").CombinedOutput()
		if err != nil || !strings.HasPrefix(string(out), "reloaded: ") {
			t.Errorf("curl -X POST -H 'Wasmgate-Admin: 1' /-/reload: %v: %s", err, out)
		}
	} else {
		t.Log("no curl: sending its request with net/http")
		code, _, body := doRequest(t, c, http.MethodPost, g.AdminURL+"/-/reload", map[string]string{"User-Agent": "curl/8", "Wasmgate-Admin": "1"}, "")
		if code != http.StatusOK || !strings.HasPrefix(body, "reloaded: ") {
			t.Errorf("POST /-/reload like curl -X POST: %d %q", code, body)
		}
	}
	// A JSON POST from the admin's own origin, and from localhost, too.
	for _, h := range []map[string]string{
		{"Content-Type": "application/json", "Origin": g.AdminURL, "Sec-Fetch-Site": "same-origin", "Wasmgate-Admin": "1"},
		{"Host": "localhost:" + port, "Wasmgate-Admin": "yes"},
	} {
		if code, _, _ := doRequest(t, c, http.MethodPost, g.AdminURL+"/-/reload", h, "{}"); code != http.StatusOK {
			t.Errorf("POST /-/reload with %v: status %d, want 200", h, code)
		}
	}
	if after := reloads(); after != before+3 {
		t.Errorf("reloads %v -> %v, want 3 more", before, after)
	}
	if v, _ := g.Scrape(t).Value("wasmgate_http_rejected_total", map[string]string{"reason": "admin_cross_site"}); v != 9 {
		t.Errorf("wasmgate_http_rejected_total{reason=admin_cross_site} = %v, want 9", v)
	}
	if v, _ := g.Scrape(t).Value("wasmgate_http_rejected_total", map[string]string{"reason": "admin_header"}); v != 2 {
		t.Errorf("wasmgate_http_rejected_total{reason=admin_header} = %v, want 2", v)
	}
	if !strings.Contains(g.Stderr(), "refused an admin request without the Wasmgate-Admin header") {
		t.Error("the log does not name the request refused for want of the Wasmgate-Admin header")
	}
}

// TestAdminToken: with admin.auth, /metrics and /-/reload need the token
// (any case of "Bearer"); /healthz and /readyz do not.
func TestAdminToken(t *testing.T) {
	t.Parallel()
	b := make([]byte, 16)
	rand.Read(b)
	token := "adm-" + hex.EncodeToString(b)
	yaml := strings.Replace(bins.YAML(harness.Parts{Plugins: harness.ExamplePlugins(t)}), "admin:\n  listen: 127.0.0.1:0\n",
		"admin:\n  listen: 127.0.0.1:0\n  auth:\n    bearer_token_env: E2E_ADMIN_TOKEN\n", 1)
	if !strings.Contains(yaml, "E2E_ADMIN_TOKEN") {
		t.Fatalf("could not add admin.auth to:\n%s", yaml)
	}
	cfg := harness.WriteConfig(t, yaml)
	g := bins.Start(t, harness.Options{Config: cfg, Env: []string{"E2E_ADMIN_TOKEN=" + token}})
	c := &http.Client{}
	defer c.CloseIdleConnections()
	for _, tc := range []struct {
		method, path, auth string
		want               int
	}{
		{"GET", "/metrics", "", http.StatusUnauthorized},
		{"GET", "/metrics", "Bearer wrong", http.StatusUnauthorized},
		{"GET", "/metrics", "Bearer " + token, http.StatusOK},
		{"GET", "/metrics", "bearer " + token, http.StatusOK},
		{"POST", "/-/reload", "", http.StatusUnauthorized},
		{"POST", "/-/reload", "BEARER " + token, http.StatusOK},
		{"GET", "/healthz", "", http.StatusOK},
		{"GET", "/readyz", "", http.StatusOK},
	} {
		h := headerIf("Authorization", tc.auth)
		code, hdr, body := doRequest(t, c, tc.method, g.AdminURL+tc.path, h, "")
		if code != tc.want {
			t.Errorf("%s %s with Authorization %q: status %d, want %d", tc.method, tc.path, tc.auth, code, tc.want)
		}
		if code == http.StatusUnauthorized && (!strings.HasPrefix(hdr.Get("WWW-Authenticate"), "Bearer") || strings.Contains(body, token)) {
			t.Errorf("%s %s: 401 with WWW-Authenticate %q, body %q", tc.method, tc.path, hdr.Get("WWW-Authenticate"), body)
		}
	}
	// The MCP endpoint has its own token (none here): the admin token is
	// not needed there.
	stillServes(t, g)
}

// session is a raw Streamable HTTP session: its endpoint and id.
type session struct{ url, id string }

// openSession initializes a session by hand (and sends
// notifications/initialized).
func openSession(t *testing.T, url string, _ map[string]string) session {
	t.Helper()
	s := harness.OpenSession(t, url)
	return session{url: s.URL, id: s.ID}
}

// do sends a bodiless request in session s.
func (s session) do(t *testing.T, method string, extra map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, s.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if method == http.MethodGet {
		req.Header.Set("Accept", "text/event-stream")
	}
	req.Header.Set("Mcp-Session-Id", s.id)
	req.Header.Set("MCP-Protocol-Version", harness.ProtoSessions)
	for k, v := range extra {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, s.url, err)
	}
	return resp
}

// toolsListStatus sends tools/list in session s and returns the status.
func (s session) toolsListStatus(t *testing.T) int {
	t.Helper()
	resp := harness.PostJSON(t, s.url, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`,
		map[string]string{"Mcp-Session-Id": s.id, "MCP-Protocol-Version": harness.ProtoSessions})
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// headers are the session's headers plus extra.
func (s session) headers(extra map[string]string) map[string]string {
	h := map[string]string{"Mcp-Session-Id": s.id, "MCP-Protocol-Version": harness.ProtoSessions}
	for k, v := range extra {
		h[k] = v
	}
	return h
}

// TestAdminPProf: admin.pprof serves Go's profiles behind admin.auth, and
// a reload turns it on and off; off, the paths answer 404.
func TestAdminPProf(t *testing.T) {
	t.Parallel()
	token := "adm-pprof-" + strconv.Itoa(os.Getpid())
	base := strings.Replace(bins.YAML(harness.Parts{Plugins: harness.ExamplePlugins(t)}), "admin:\n  listen: 127.0.0.1:0\n",
		"admin:\n  listen: 127.0.0.1:0\n  auth:\n    bearer_token_env: E2E_ADMIN_TOKEN\n", 1)
	if !strings.Contains(base, "E2E_ADMIN_TOKEN") {
		t.Fatalf("could not add admin.auth to:\n%s", base)
	}
	on := strings.Replace(base, "    bearer_token_env: E2E_ADMIN_TOKEN\n", "    bearer_token_env: E2E_ADMIN_TOKEN\n  pprof: true\n", 1)
	cfg := harness.WriteConfig(t, base)
	g := bins.Start(t, harness.Options{Config: cfg, Env: []string{"E2E_ADMIN_TOKEN=" + token}})
	c := &http.Client{}
	defer c.CloseIdleConnections()
	auth := map[string]string{"Authorization": "Bearer " + token}
	get := func(path string, h map[string]string) (int, string) {
		code, _, body := doRequest(t, c, http.MethodGet, g.AdminURL+path, h, "")
		return code, body
	}
	if code, body := get("/debug/pprof/", auth); code != http.StatusNotFound || !strings.Contains(body, "admin.pprof") {
		t.Errorf("pprof off: %d %q, want 404 naming admin.pprof", code, body)
	}

	// /metrics needs the token too, so the reload is seen on pprof itself.
	harness.RenameOver(t, cfg, []byte(on))
	if !harness.WaitFor(20*time.Second, func() bool { code, _ := get("/debug/pprof/", auth); return code == http.StatusOK }) {
		t.Fatalf("admin.pprof: true was not applied by a reload:\n%s", g.Stderr())
	}
	if code, _ := get("/debug/pprof/", nil); code != http.StatusUnauthorized {
		t.Errorf("pprof without the admin token: %d, want 401", code)
	}
	u, _ := url.Parse(g.AdminURL)
	req, _ := http.NewRequest(http.MethodGet, g.AdminURL+"/debug/pprof/", nil)
	req.Host = "evil.com:" + u.Port()
	req.Header.Set("Authorization", "Bearer "+token)
	if resp, err := c.Do(req); err != nil {
		t.Fatal(err)
	} else if resp.Body.Close(); resp.StatusCode != http.StatusForbidden {
		t.Errorf("pprof with a rebound Host: %d, want 403", resp.StatusCode)
	}
	code, body := get("/debug/pprof/goroutine?debug=1", auth)
	if code != http.StatusOK || !strings.Contains(body, "goroutine profile:") {
		t.Errorf("goroutine profile: %d %.200q", code, body)
	}
	if code, body := get("/debug/pprof/heap?debug=1", auth); code != http.StatusOK || !strings.Contains(body, "heap profile:") {
		t.Errorf("heap profile: %d %.200q", code, body)
	}

	harness.RenameOver(t, cfg, []byte(base))
	if !harness.WaitFor(20*time.Second, func() bool { code, _ := get("/debug/pprof/heap", auth); return code == http.StatusNotFound }) {
		t.Errorf("pprof still served after a reload turned it off")
	}
	stillServes(t, g)
}
