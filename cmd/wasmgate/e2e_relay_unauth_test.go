package main

// Issue 16, item 3: nothing unauthenticated holds memory on the relay.
// Raw TCP clients with an allowed Origin (no token) open a site's
// WebSocket, send most of an auth frame declared as 15 MiB, and stall;
// others stall with a small partial frame; a third group guesses wu-legacy
// tokens. The gateway caps the frame before authentication at 4 KiB, the
// unauthenticated connections per site and in total, slows the guesses
// down, logs the refusals at a bounded rate; its heap and goroutines come
// back, and the page that was connected keeps serving, then reconnects.

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/internal/relaytest"
)

// rawUpgrade opens a WebSocket to path on hostport by hand and returns the
// connection with the HTTP status of the upgrade (101 when accepted).
func rawUpgrade(hostport, path, origin string) (net.Conn, *bufio.Reader, int, error) {
	c, err := net.DialTimeout("tcp", hostport, 10*time.Second)
	if err != nil {
		return nil, nil, 0, err
	}
	key := make([]byte, 16)
	rand.Read(key)
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\nOrigin: %s\r\n\r\n",
		path, hostport, base64.StdEncoding.EncodeToString(key), origin)
	c.SetReadDeadline(time.Now().Add(15 * time.Second))
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		c.Close()
		return nil, nil, 0, err
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	c.SetReadDeadline(time.Time{})
	return c, br, resp.StatusCode, nil
}

// partialFrame writes the header of a masked text frame of declared bytes
// and the first send bytes of its payload.
func partialFrame(c net.Conn, declared, send int) error {
	hdr := []byte{0x81, 0x80 | 127, 0, 0, 0, 0, 0, 0, 0, 0}
	binary.BigEndian.PutUint64(hdr[2:], uint64(declared))
	hdr = append(hdr, 1, 2, 3, 4) // masking key
	payload := []byte(`{"type":"auth","nonce":"` + strings.Repeat("A", max(0, send-24)))
	for i := range payload {
		payload[i] ^= byte(i%4 + 1)
	}
	_, err := c.Write(append(hdr, payload[:send]...))
	return err
}

type memStats struct{ heapInuse, rss, goroutines float64 }

func memNow(t testing.TB, g *harness.Gateway) memStats { return memOf(g.Scrape(t)) }

// memSample scrapes without a testing.TB, for a sampling goroutine.
func memSample(g *harness.Gateway) (memStats, bool) {
	resp, err := http.Get(g.AdminURL + "/metrics")
	if err != nil {
		return memStats{}, false
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return memOf(harness.Metrics(b)), err == nil
}

func memOf(m harness.Metrics) memStats {
	h, _ := m.Value("go_memstats_heap_inuse_bytes", nil)
	r, _ := m.Value("process_resident_memory_bytes", nil)
	n, _ := m.Value("go_goroutines", nil)
	return memStats{h, r, n}
}

func TestRelayUnauthenticatedMemory(t *testing.T) {
	t.Parallel()
	e := bins.NewDir(t)
	harness.WriteFile(t, e.Config, relayConfig(t, e, `  max_unauthenticated: 40
  failed_auth_burst: 5
  failed_auth_every: 1m
  sites:
    - {name: demo, token_env: RELAY_DEMO_TOKEN, max_frame: 16MiB, auth_timeout: 20s}
    - {name: wu, protocol: wu-legacy, token_env: RELAY_WU_TOKEN}
`))
	g := bins.Start(t, harness.Options{Config: e.Config, Env: append([]string{"RELAY_DEMO_TOKEN=" + relayToken, "RELAY_WU_TOKEN=" + relayNewToken}, abuseEnv...)})
	ctx := harness.Ctx(t, 4*time.Minute)
	c := g.SessionClient(t)
	demoURL := relayURL(g.MCPURL, "demo")
	p := startGoPage(t, demoURL, "demo", relayToken)
	p.register(map[string]any{"tools": []any{relaytest.CalcTool()}})
	p.serve(func(map[string]any) string { return "served" })
	waitTool := func(name string) {
		t.Helper()
		if !harness.WaitFor(10*time.Second, func() bool {
			got, _ := harness.ToolsErr(ctx, c)
			return slices.Contains(got, name)
		}) {
			t.Fatalf("%s is not listed", name)
		}
	}
	waitTool("demo_calculate")
	hostport := mcpHostPort(t, g)
	u, _ := url.Parse(demoURL)

	base := settledMin(t, g, nil)
	mem0 := memNow(t, g)

	// 300 clients declare a 15 MiB auth frame, send 1 MiB of it and stall;
	// 60 more stall 3 KiB into a frame (under the 4 KiB limit).
	var (
		mu       sync.Mutex
		statuses = map[int]int{}
		conns    []net.Conn
		wg       sync.WaitGroup
		peak     memStats
	)
	attack := func(n, send int) {
		for range n {
			wg.Go(func() {
				conn, br, status, err := rawUpgrade(hostport, u.Path, "http://127.0.0.1:3000")
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					statuses[-1]++
					return
				}
				statuses[status]++
				conns = append(conns, conn)
				if status == http.StatusSwitchingProtocols {
					mu.Unlock()
					_ = readServerFrame(br) // hello
					_ = partialFrame(conn, 15<<20, send)
					mu.Lock()
				}
			})
		}
	}
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-stopSampling:
				return
			case <-time.After(200 * time.Millisecond):
			}
			if s, ok := memSample(g); ok && s.rss > peak.rss {
				peak = s
			}
		}
	}()
	attack(300, 1<<20)
	wg.Wait()
	// The 1 MiB ones are cut at 4 KiB and give their slots back (long
	// before auth_timeout, which is long so that a loaded machine cannot
	// time them out first).
	if !harness.WaitFor(30*time.Second, func() bool {
		n, _ := g.Metric(t, "wasmgate_relay_unauthenticated_connections", map[string]string{"site": "demo"})
		return n == 0
	}) {
		t.Errorf("the 1 MiB partial frames still hold their slots")
	}
	attack(60, 3<<10)
	wg.Wait()
	// The connected page keeps serving meanwhile.
	if text, isErr := harness.CallTool(ctx, t, c, "demo_calculate", map[string]any{"operation": "add", "a": 1, "b": 2}); isErr || text != "served" {
		t.Errorf("demo_calculate during the attack = %q isError=%v", text, isErr)
	}
	during := memNow(t, g)
	m := g.Scrape(t)
	refusedSite := m.Sum("wasmgate_relay_connections_refused_total", map[string]string{"site": "demo"})
	tooLarge, _ := m.Value("wasmgate_relay_handshakes_total", map[string]string{"site": "demo", "outcome": "too_large"})
	unauth, _ := m.Value("wasmgate_relay_unauthenticated_connections", map[string]string{"site": "demo"})
	t.Logf("upgrades by status %v; refused %v, too_large %v, unauthenticated now %v", statuses, refusedSite, tooLarge, unauth)
	if statuses[http.StatusServiceUnavailable] == 0 || refusedSite == 0 {
		t.Errorf("no connection refused at the cap: %v, refused %v", statuses, refusedSite)
	}
	if unauth != 16 {
		t.Errorf("%v unauthenticated connections on demo, want the cap, 16 (the stalled 3 KiB ones)", unauth)
	}
	if tooLarge == 0 {
		t.Errorf("no 1 MiB partial frame refused as too_large")
	}

	// wu-legacy: 60 token guesses from one address; after 5, 429.
	wuPath := strings.Replace(u.Path, "/demo", "/wu", 1)
	throttled := 0
	for i := range 60 {
		conn, br, status, err := rawUpgrade(hostport, wuPath, "http://127.0.0.1:3000")
		if err != nil {
			t.Fatalf("guess %d: %v", i, err)
		}
		if status == http.StatusTooManyRequests {
			throttled++
			conn.Close()
			continue
		}
		writeClientFrame(conn, fmt.Sprintf(`{"type":"auth","token":"guess number %04d of many"}`, i))
		_ = readServerFrame(br) // auth_result
		conn.Close()
	}
	badTokens, _ := g.Metric(t, "wasmgate_relay_handshakes_total", map[string]string{"site": "wu", "outcome": "bad_proof"})
	if throttled < 50 || badTokens > 10 {
		t.Errorf("wu-legacy guesses: %d throttled, %v tokens checked; want at most the burst (5) and a few checked", throttled, badTokens)
	}
	for _, conn := range conns {
		conn.Close()
	}
	var mem1 memStats
	if !harness.WaitFor(30*time.Second, func() bool { mem1 = memNow(t, g); return mem1.goroutines <= mem0.goroutines+3 }) {
		t.Errorf("goroutines did not come back: %v, %v before", mem1.goroutines, mem0.goroutines)
	}
	close(stopSampling)
	<-sampled
	after := settledMin(t, g, &base)
	t.Logf("heap_inuse %.1f MiB before, %.1f MiB during (at the peak of rss %.1f MiB: %.1f MiB), %.1f MiB after; rss %.1f MiB before, %.1f MiB after (before the settling churn); goroutines %v before, %v during, %v after",
		mem0.heapInuse/(1<<20), during.heapInuse/(1<<20), peak.rss/(1<<20), peak.heapInuse/(1<<20), mem1.heapInuse/(1<<20),
		mem0.rss/(1<<20), mem1.rss/(1<<20), mem0.goroutines, during.goroutines, mem1.goroutines)
	// The bound is far below the bug's 642 MiB. Under -race the gateway
	// is a race build too, whose shadow memory grows with what the
	// attack allocates and frees: its RSS rose 48 to 53 MiB in local
	// runs and 67 MiB once in CI (heap_inuse by 6 MiB), where a plain
	// build's rose 3 MiB; so a race build gets twice the room.
	bound := float64(64 << 20)
	if harness.RaceEnabled {
		bound *= 2
	}
	if rise := peak.rss - mem0.rss; rise > bound {
		t.Errorf("RSS rose %.1f MiB during the attack, bound %.0f MiB (it rose 642 MiB before the fix)", rise/(1<<20), bound/(1<<20))
	}
	backNear(t, "unauthenticated relay connections", base, after, 8<<20)

	// Refusals were logged at a bounded rate, the rest counted.
	lines := strings.Count(g.Stderr(), "relay: refused a connection") + strings.Count(g.Stderr(), "relay: connection refused")
	suppressed, _ := g.Metric(t, "wasmgate_log_lines_suppressed_total", map[string]string{"component": "relay"})
	if lines > 60 || suppressed == 0 {
		t.Errorf("%d refusal lines logged, %v suppressed; want a bounded few and a count of the rest", lines, suppressed)
	}

	// The page leaves and comes back: a slot is free, it connects and serves.
	p.c.CloseNow()
	<-p.done
	p2 := startGoPage(t, demoURL, "demo", relayToken)
	p2.register(map[string]any{"tools": []any{relaytest.CalcTool()}})
	p2.serve(func(map[string]any) string { return "served again" })
	waitTool("demo_calculate")
	if text, isErr := harness.CallTool(ctx, t, c, "demo_calculate", map[string]any{"operation": "add", "a": 1, "b": 2}); isErr || text != "served again" {
		t.Errorf("demo_calculate after the attack = %q isError=%v", text, isErr)
	}
}

// readServerFrame reads one unmasked frame from the gateway.
func readServerFrame(br *bufio.Reader) []byte {
	var h [2]byte
	if _, err := io.ReadFull(br, h[:]); err != nil {
		return nil
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var b [2]byte
		io.ReadFull(br, b[:])
		n = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		io.ReadFull(br, b[:])
		n = binary.BigEndian.Uint64(b[:])
	}
	buf := make([]byte, min(n, 1<<16))
	io.ReadFull(br, buf)
	return buf
}

// writeClientFrame writes one masked text frame.
func writeClientFrame(c net.Conn, s string) {
	hdr := []byte{0x81, 0x80 | byte(len(s)), 1, 2, 3, 4}
	if len(s) >= 126 {
		hdr = []byte{0x81, 0x80 | 126, 0, 0, 1, 2, 3, 4}
		binary.BigEndian.PutUint16(hdr[2:4], uint16(len(s)))
	}
	b := []byte(s)
	for i := range b {
		b[i] ^= byte(i%4 + 1)
	}
	c.Write(append(hdr, b...))
}
