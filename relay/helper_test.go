package relay

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/internal/relaytest"
	"github.com/wasmgate/wasmgate/metrics"
)

const (
	testToken  = "correct horse battery staple 42"
	testOrigin = "http://127.0.0.1:5173"
)

// fixture is a Relay served by an httptest server at /relay/, with the
// sites a test configures.
type fixture struct {
	t       testing.TB
	r       *Relay
	m       *metrics.Metrics
	srv     *httptest.Server
	plan    *Plan
	env     map[string]string
	changes chan string

	mu       sync.Mutex
	warnings []string // what OnChange returns
}

// newFixture applies a relay section with sites (YAML-less: the structs
// as koanf would decode them); each site's token_env is set to testToken
// unless the test set it.
func newFixture(t testing.TB, sites ...SiteConfig) *fixture {
	t.Helper()
	f := &fixture{t: t, m: metrics.New("test", "test"), changes: make(chan string, 100)}
	f.r = New(Options{Metrics: f.m, OnChange: func(site string) []string {
		f.changes <- site
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.warnings
	}})
	f.srv = httptest.NewServer(f.r)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		f.r.Close(ctx)
		f.srv.Close()
	})
	f.apply(sites...)
	f.r.SetListener(Listener{Addr: f.srv.Listener.Addr().String()})
	return f
}

// apply normalizes and applies a relay section with sites.
func (f *fixture) apply(sites ...SiteConfig) {
	f.t.Helper()
	f.applyConfig(Config{Sites: sites})
}

// applyConfig normalizes and applies a relay section (see apply).
func (f *fixture) applyConfig(cfg Config) {
	f.t.Helper()
	var errs []error
	env := config.NewEnv("/test/gateway.yaml", &errs)
	for i := range cfg.Sites {
		s := &cfg.Sites[i]
		if s.TokenEnv == "" && s.TokenFile == "" && !s.Insecure {
			s.TokenEnv = "RELAY_TEST_TOKEN_" + strings.ToUpper(strings.ReplaceAll(s.Name, "-", "_"))
			if _, ok := os.LookupEnv(s.TokenEnv); !ok {
				f.t.Setenv(s.TokenEnv, testToken)
			}
		}
	}
	cfg.Normalize("relay", env)
	if len(errs) > 0 {
		f.t.Fatalf("normalize: %v", errors.Join(errs...))
	}
	p, err := f.r.Prepare("/test/gateway.yaml", cfg, Listener{Addr: "127.0.0.1:0"})
	if err != nil {
		f.t.Fatalf("prepare: %v", err)
	}
	f.plan = p
	f.r.Apply(p)
}

// site returns the planned Site named name.
func (f *fixture) site(name string) *Site {
	for _, s := range f.plan.Sites() {
		if s.Name() == name {
			return s
		}
	}
	f.t.Fatalf("no site %q", name)
	return nil
}

func (f *fixture) url(site string) string {
	return "ws" + strings.TrimPrefix(f.srv.URL, "http") + "/relay/" + site
}

func (f *fixture) handshakes(site, outcome string) float64 {
	return testutil.ToFloat64(f.m.RelayHandshakes.WithLabelValues(site, outcome))
}

func (f *fixture) rejected(site, reason string) float64 {
	return testutil.ToFloat64(f.m.RelayFramesRejected.WithLabelValues(site, reason))
}

// waitChange waits for OnChange(site).
func (f *fixture) waitChange(site string) {
	f.t.Helper()
	select {
	case s := <-f.changes:
		if s != site {
			f.t.Fatalf("OnChange(%q), want %q", s, site)
		}
	case <-time.After(5 * time.Second):
		f.t.Fatalf("no OnChange(%q)", site)
	}
}

// page is a test page speaking the protocol over a real WebSocket.
type page struct {
	t testing.TB
	c *websocket.Conn
}

// dial connects to url with origin ("" sends none).
func dial(t testing.TB, url, origin string) (*page, *http.Response, error) {
	t.Helper()
	c, resp, err := relaytest.Dial(t, url, origin)
	if err != nil {
		return nil, resp, err
	}
	return &page{t: t, c: c}, resp, nil
}

func mustDial(t testing.TB, url string) *page {
	t.Helper()
	p, _, err := dial(t, url, testOrigin)
	if err != nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	return p
}

// read reads one frame into a map; it fails the test on error.
func (p *page) read() map[string]any {
	p.t.Helper()
	m, err := p.readErr()
	if err != nil {
		p.t.Fatalf("read frame: %v", err)
	}
	return m
}

func (p *page) readErr() (map[string]any, error) { return relaytest.Read(p.c) }

// closed waits for the gateway to close the connection and returns the
// close code and reason.
func (p *page) closed() (websocket.StatusCode, string) { return relaytest.Closed(p.c) }

func (p *page) send(v any) {
	p.t.Helper()
	if err := relaytest.Write(p.c, v); err != nil {
		p.t.Fatalf("write: %v", err)
	}
}

func (p *page) sendRaw(data []byte) {
	p.t.Helper()
	if err := relaytest.WriteRaw(p.c, data); err != nil {
		p.t.Fatalf("write: %v", err)
	}
}

// auth completes the handshake for site with token and checks the
// gateway's proof (relaytest, from docs/relay-protocol.md) and that the
// hello names ProtocolVersion.
func (p *page) auth(site, token string) {
	p.t.Helper()
	hello, _, err := relaytest.Handshake(p.c, site, token)
	if err != nil {
		p.t.Fatalf("handshake with %s: %v", site, err)
	}
	if hello["protocol"] != ProtocolVersion {
		p.t.Fatalf("first frame %v, want hello in %s", hello, ProtocolVersion)
	}
}

// connect dials site and authenticates with testToken.
func (f *fixture) connect(site string) *page {
	f.t.Helper()
	p := mustDial(f.t, f.url(site))
	p.auth(site, testToken)
	return p
}

// register sends a register frame and returns the acknowledgement.
func (p *page) register(frame map[string]any) map[string]any {
	p.t.Helper()
	frame["type"] = "register"
	p.send(frame)
	ack := p.read()
	if ack["type"] != "registered" {
		p.t.Fatalf("after register: %v", ack)
	}
	return ack
}

// runtimeStats are this process's goroutines and live heap.
type runtimeStats struct {
	goroutines int
	heap       uint64
}

// inProcessRuntime reads them after a garbage collection.
func inProcessRuntime() runtimeStats {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return runtimeStats{runtime.NumGoroutine(), ms.HeapInuse}
}

// backNearInProcess fails t unless, once the attacks are over, the
// relay's goroutines come back within 3 of base (waiting up to 10 s for
// closed pages to be let go) and the live heap within 16 MiB.
func backNearInProcess(t *testing.T, base runtimeStats) {
	t.Helper()
	var now runtimeStats
	deadline := time.Now().Add(10 * time.Second)
	for {
		now = inProcessRuntime()
		if (now.goroutines <= base.goroutines+3 && now.heap <= base.heap+16<<20) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("after the attacks: %d goroutines (%d before), heap in use %.1f MiB (%.1f MiB before)",
		now.goroutines, base.goroutines, float64(now.heap)/(1<<20), float64(base.heap)/(1<<20))
	if now.goroutines > base.goroutines+3 {
		t.Errorf("goroutines did not come back: %d, %d before", now.goroutines, base.goroutines)
	}
	if now.heap > base.heap+16<<20 {
		t.Errorf("heap did not come back: %.1f MiB, %.1f MiB before", float64(now.heap)/(1<<20), float64(base.heap)/(1<<20))
	}
}
