package relay

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/internal/relaytest"
)

func (f *fixture) refused(site, reason string) float64 {
	return testutil.ToFloat64(f.m.RelayRefused.WithLabelValues(site, reason))
}

func (f *fixture) unauthenticated(site string) float64 {
	return testutil.ToFloat64(f.m.RelayUnauthenticated.WithLabelValues(site))
}

// TestPreAuthReadLimit: before the handshake a frame may be 4 KiB whatever
// max_frame says; after it, max_frame applies.
func TestPreAuthReadLimit(t *testing.T) {
	f := newFixture(t, SiteConfig{Name: "big", MaxFrame: 16 << 20})
	p := mustDial(t, f.url("big"))
	p.read()
	p.sendRaw([]byte(`{"type":"auth","nonce":"` + strings.Repeat("A", 5000) + `"}`))
	if code, reason := p.closed(); code != websocket.StatusMessageTooBig {
		t.Fatalf("closed with %d %q, want 1009", code, reason)
	}
	if !harness.WaitFor(5*time.Second, func() bool { return f.handshakes("big", "too_large") == 1 }) {
		t.Errorf("handshakes too_large = %v", f.handshakes("big", "too_large"))
	}

	p = f.connect("big")
	ack := p.register(map[string]any{"tools": []any{relaytest.CalcTool(), map[string]any{"name": "pad", "description": strings.Repeat("x", 100<<10)}}})
	if ack["ok"] == false {
		t.Fatalf("a 100 KiB register frame after auth: %v", ack)
	}
}

// TestUnauthenticatedCaps: stalled connections that never authenticate
// take at most the site's cap, and all sites together the total; the
// refusals are 503 with a metric; the slots come back at auth_timeout
// and when a page authenticates.
func TestUnauthenticatedCaps(t *testing.T) {
	f := newFixture(t)
	f.applyConfig(Config{
		Unauthenticated: Unauthenticated{MaxUnauthenticated: 5},
		Sites: []SiteConfig{
			{Name: "a", AuthTimeout: config.Duration(time.Second), SiteUnauthenticated: SiteUnauthenticated{MaxUnauthenticated: 3}},
			{Name: "b", AuthTimeout: config.Duration(time.Second), SiteUnauthenticated: SiteUnauthenticated{MaxUnauthenticated: 3}},
		}})
	for i := range 3 {
		p := mustDial(t, f.url("a"))
		p.read()
		p.stall(1000 + i)
	}
	if got := f.unauthenticated("a"); got != 3 {
		t.Errorf("unauthenticated a = %v, want 3", got)
	}
	_, resp, err := dial(t, f.url("a"), testOrigin)
	if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("fourth connection to a: %v %v, want 503 with Retry-After", err, resp)
	}
	if f.refused("a", refusedSiteCap) != 1 {
		t.Errorf("refused site_cap = %v", f.refused("a", refusedSiteCap))
	}
	for range 2 {
		mustDial(t, f.url("b")).read()
	}
	if _, resp, err = dial(t, f.url("b"), testOrigin); err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("sixth connection in all: %v, want 503", err)
	}
	if f.refused("b", refusedTotalCap) != 1 {
		t.Errorf("refused total_cap = %v", f.refused("b", refusedTotalCap))
	}
	// At auth_timeout every slot comes back; a page then authenticates
	// and gives its slot back too.
	if !harness.WaitFor(5*time.Second, func() bool { return f.unauthenticated("a") == 0 && f.unauthenticated("b") == 0 }) {
		t.Fatalf("slots not back after auth_timeout: a %v, b %v (timeouts %v, closed %v, malformed %v)", f.unauthenticated("a"), f.unauthenticated("b"), f.handshakes("a", "timeout"), f.handshakes("a", "closed"), f.handshakes("a", "malformed"))
	}
	f.connect("a")
	if !harness.WaitFor(5*time.Second, func() bool { return f.unauthenticated("a") == 0 }) {
		t.Errorf("an authenticated page holds a slot: %v", f.unauthenticated("a"))
	}
	f.r.mu.Lock()
	total := f.r.unauthTotal
	f.r.mu.Unlock()
	if total != 0 {
		t.Errorf("unauthTotal = %d", total)
	}
}

// TestFailedAuthThrottle: a client address guessing wu-legacy tokens gets
// failed_auth_burst tries, then 429 with Retry-After until the bucket
// refills; the same address is not slowed down on another site.
func TestFailedAuthThrottle(t *testing.T) {
	f := newFixture(t)
	f.applyConfig(Config{
		// A refill a second apart: the three guesses below must all land
		// before the first token comes back, on a loaded machine too.
		Unauthenticated: Unauthenticated{FailedAuthBurst: 3, FailedAuthEvery: config.Duration(time.Second)},
		Sites:           []SiteConfig{wuSite(), {Name: "other"}},
	})
	for i := range 3 {
		p := mustDial(t, f.url("wu"))
		if r := p.legacyAuth("guess-" + strings.Repeat("x", 16+i)); r["success"] != false {
			t.Fatalf("guess %d: %v", i, r)
		}
		p.closed()
	}
	// The relay counts bad_proof before it records the failure against
	// the address: wait for both.
	failures := func() uint64 {
		f.r.mu.Lock()
		defer f.r.mu.Unlock()
		if c := f.r.clients[clientID{"wu", clientKey("127.0.0.1:1")}]; c != nil {
			return c.failures
		}
		return 0
	}
	if !harness.WaitFor(5*time.Second, func() bool { return f.handshakes("wu", "bad_proof") == 3 && failures() == 3 }) {
		t.Fatalf("bad_proof = %v, failures recorded = %d", f.handshakes("wu", "bad_proof"), failures())
	}
	_, resp, err := dial(t, f.url("wu"), testOrigin)
	if err == nil || resp == nil || resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("fourth guess: %v %+v, want 429 Retry-After: 1", err, resp)
	}
	if f.refused("wu", refusedThrottled) != 1 {
		t.Errorf("refused throttled = %v", f.refused("wu", refusedThrottled))
	}
	if n := failures(); n != 3 {
		t.Fatalf("failures of 127.0.0.1 = %d, want 3", n)
	}
	f.connect("other") // guesses at wu's token do not slow other's page down
	time.Sleep(1050 * time.Millisecond)
	p := mustDial(t, f.url("wu"))
	if r := p.legacyAuth(testToken); r["success"] != true {
		t.Fatalf("the right token after the refill: %v", r)
	}
}

func TestClientKeyAndForget(t *testing.T) {
	for in, want := range map[string]string{
		"192.0.2.7:5000":        "192.0.2.7/32",
		"[2001:db8:1:2:3::4]:1": "2001:db8:1:2::/64",
		"[::ffff:192.0.2.7]:1":  "192.0.2.7/32",
	} {
		if got := clientKey(in).String(); got != want {
			t.Errorf("clientKey(%s) = %s, want %s", in, got, want)
		}
	}
	f := newFixture(t)
	now := time.Now()
	for i := range maxClients + 10 {
		f.r.failed("s", "10."+itoa(i>>16&255)+"."+itoa(i>>8&255)+"."+itoa(i&255)+":1", now.Add(time.Duration(i)*time.Microsecond))
	}
	f.r.mu.Lock()
	n := len(f.r.clients)
	f.r.mu.Unlock()
	if n > maxClients {
		t.Errorf("%d clients remembered, cap %d", n, maxClients)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// stall starts a message on p and never finishes it: most of an auth
// frame, sent as a fragment.
func (p *page) stall(n int) {
	p.t.Helper()
	w, err := p.c.Writer(p.t.Context(), websocket.MessageText)
	if err != nil {
		p.t.Fatal(err)
	}
	if _, err := w.Write([]byte(`{"type":"auth","nonce":"` + strings.Repeat("A", n))); err != nil {
		p.t.Fatal(err)
	}
}

func TestUnauthenticatedConfig(t *testing.T) {
	c := Config{Sites: []SiteConfig{{Name: "demo", TokenEnv: "T"}}}
	if _, err := normalize(&c); err != nil {
		t.Fatal(err)
	}
	if u := c.Unauthenticated; u.MaxUnauthenticated != 64 || u.FailedAuthBurst != 10 || time.Duration(u.FailedAuthEvery) != time.Second ||
		c.Sites[0].SiteUnauthenticated.MaxUnauthenticated != 16 {
		t.Errorf("defaults: %+v %+v", u, c.Sites[0].SiteUnauthenticated)
	}
	c = Config{Unauthenticated: Unauthenticated{MaxUnauthenticated: 4}, Sites: []SiteConfig{{Name: "demo", TokenEnv: "T"}}}
	if _, err := normalize(&c); err != nil || c.Sites[0].SiteUnauthenticated.MaxUnauthenticated != 4 {
		t.Errorf("a site's default follows a lower total: %v %v", c.Sites[0].SiteUnauthenticated, err)
	}
	c = Config{Unauthenticated: Unauthenticated{MaxUnauthenticated: -1, FailedAuthBurst: 10001, FailedAuthEvery: config.Duration(time.Millisecond)},
		Sites: []SiteConfig{{Name: "demo", TokenEnv: "T", SiteUnauthenticated: SiteUnauthenticated{MaxUnauthenticated: -3}}}}
	_, err := normalize(&c)
	for _, want := range []string{"relay.max_unauthenticated: -1 is out of range (1..10000)", "relay.failed_auth_burst: 10001 is out of range",
		"relay.failed_auth_every: 1ms is out of range (10ms..1h)", "relay.sites[0].max_unauthenticated: -3 is out of range"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not say %s", err, want)
		}
	}
}
