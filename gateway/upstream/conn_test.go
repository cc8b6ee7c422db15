package upstream

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/metrics"
)

// TestReconnectBackoff: the delays between two starts are 100 ms
// doubling up to 30 s, exactly (no jitter), and 100 ms again after a
// Reset (a session that lived longer than 30 s).
func TestReconnectBackoff(t *testing.T) {
	b := reconnectBackoff()
	ms := time.Millisecond
	want := []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, 1600 * ms, 3200 * ms, 6400 * ms, 12800 * ms, 25600 * ms, 30 * time.Second, 30 * time.Second}
	for i, w := range want {
		if got := b.NextBackOff(); got != w {
			t.Errorf("delay %d = %s, want %s", i+1, got, w)
		}
	}
	b.Reset()
	if got := b.NextBackOff(); got != 100*ms {
		t.Errorf("the delay after Reset = %s, want 100ms", got)
	}
}

// TestSuperviseFailedStarts: a remote upstream that cannot be started
// (its server answers 503) is tried again after 100, 200, 400 and 800 ms:
// each warning names the delay it waits (retry_in), the next attempt
// comes no sooner, each counts as a start_failed restart, and stopping the
// upstream in the middle of a wait ends its supervisor at once.
func TestSuperviseFailedStarts(t *testing.T) {
	var mu sync.Mutex
	var posts []time.Time // when each attempt reached the server
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			mu.Lock()
			posts = append(posts, time.Now())
			mu.Unlock()
		}
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	attempts := func() []time.Time {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(posts)
	}
	c, rec := supervised(t, fmt.Sprintf("  - name: down\n    url: %s/mcp\n    start: background\n", srv.URL))
	if !harness.WaitFor(20*time.Second, func() bool { return len(attempts()) >= 5 }) {
		t.Fatalf("%d attempts to start the upstream in 20 s, want 5:\n%s", len(attempts()), rec)
	}
	// The fifth attempt is followed by a wait of 1.6 s: the restarts so
	// far are the four before it.
	restarts := testutil.ToFloat64(c.h.Metrics.UpstreamRestarts.WithLabelValues("down", "start_failed"))
	got := attempts()[:5]
	time.Sleep(100 * time.Millisecond) // into the wait
	stopping := time.Now()
	c.Cleanup(context.Background())
	if took := time.Since(stopping); took > time.Second {
		t.Errorf("stopping the upstream during its 1.6 s backoff took %s, want at once", took)
	}
	if restarts != 4 {
		t.Errorf("wasmgate_upstream_restarts_total{upstream=down,reason=start_failed} = %v after 5 attempts, want 4", restarts)
	}
	warns := rec.find("upstream could not be started; retrying")
	want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond}
	if len(warns) < len(want) {
		t.Fatalf("%d warnings of a failed start, want at least %d:\n%s", len(warns), len(want), rec)
	}
	for i, w := range want {
		if warns[i].retryIn != w {
			t.Errorf("failed start %d: retry_in=%s, want %s", i+1, warns[i].retryIn, w)
		}
		if !strings.Contains(warns[i].err, "503") {
			t.Errorf("failed start %d: error=%q, want the server's 503", i+1, warns[i].err)
		}
		if gap := got[i+1].Sub(got[i]); gap < w {
			t.Errorf("attempt %d came %s after attempt %d, sooner than its backoff of %s", i+2, gap, i+1, w)
		}
	}
}

// TestSuperviseClosedDuringBackoff: a session closed while its
// supervisor waits to start it again (a per_client session whose
// downstream session ended, closed without the upstream stopping) is not
// started again: no further attempt reaches the server, no restart is
// counted, and the supervisor returns.
func TestSuperviseClosedDuringBackoff(t *testing.T) {
	var mu sync.Mutex
	posts := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			mu.Lock()
			posts++
			mu.Unlock()
		}
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	attempts := func() int {
		mu.Lock()
		defer mu.Unlock()
		return posts
	}
	c, rec := supervised(t, fmt.Sprintf("  - name: down\n    url: %s/mcp\n    start: background\n", srv.URL))
	defer c.Cleanup(context.Background())
	// The fourth failed start is followed by a wait of 800 ms.
	if !harness.WaitFor(20*time.Second, func() bool { return len(rec.find("upstream could not be started; retrying")) >= 4 }) {
		t.Fatalf("fewer than 4 failed starts in 20 s:\n%s", rec)
	}
	s := c.sources[0].srv
	restarts := testutil.ToFloat64(c.h.Metrics.UpstreamRestarts.WithLabelValues("down", "start_failed"))
	before := attempts()
	s.main.close() // as endSession closes a per_client session: the upstream's context lives on
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		t.Fatalf("the supervisor of the closed session is still running 3 s later:\n%s", rec)
	}
	if n := attempts(); n != before {
		t.Errorf("%d attempts reached the server after the session was closed, want none", n-before)
	}
	if v := testutil.ToFloat64(c.h.Metrics.UpstreamRestarts.WithLabelValues("down", "start_failed")); v != restarts {
		t.Errorf("wasmgate_upstream_restarts_total{upstream=down,reason=start_failed} went from %v to %v after the session was closed, want no change", restarts, v)
	}
}

// TestSuperviseEndedSessions: a stdio server that exits right after
// initialize is started again after 100, 200, 400 and 800 ms (a session
// that lived less than 30 s does not start the backoff over); each
// warning names its exit status and the delay, each restart is an
// `ended` one, and the next session starts no sooner.
func TestSuperviseEndedSessions(t *testing.T) {
	script := filepath.Join(t.TempDir(), "brief.sh")
	// Answers initialize with the version asked for and no capabilities,
	// reads notifications/initialized, and exits 3. Shell builtins only:
	// the command runs with the config's environment (no PATH).
	const brief = `read -r line
id=${line#*\"id\":}
id=${id%%,*}
v=${line#*\"protocolVersion\":\"}
v=${v%%\"*}
printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"%s","capabilities":{},"serverInfo":{"name":"brief","version":"1"}}}\n' "$id" "$v"
read -r line
exit 3
`
	if err := os.WriteFile(script, []byte(brief), 0o644); err != nil {
		t.Fatal(err)
	}
	c, rec := supervised(t, fmt.Sprintf("  - name: brief\n    command: [/bin/sh, %q]\n    start: background\n", script))
	defer c.Cleanup(context.Background())
	if !harness.WaitFor(20*time.Second, func() bool { return len(rec.find("upstream connected")) >= 5 }) {
		t.Fatalf("%d sessions in 20 s, want 5:\n%s", len(rec.find("upstream connected")), rec)
	}
	ups := rec.find("upstream connected")[:5]
	ends := rec.find("upstream session ended; restarting")
	want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond}
	if len(ends) < len(want) {
		t.Fatalf("%d warnings of an ended session, want at least %d:\n%s", len(ends), len(want), rec)
	}
	for i, w := range want {
		if ends[i].retryIn != w {
			t.Errorf("ended session %d: retry_in=%s, want %s", i+1, ends[i].retryIn, w)
		}
		if !strings.Contains(ends[i].err, "exit status 3") {
			t.Errorf("ended session %d: error=%q, want its exit status 3", i+1, ends[i].err)
		}
		if gap := ups[i+1].at.Sub(ends[i].at); gap < w {
			t.Errorf("session %d started %s after session %d ended, sooner than its backoff of %s", i+2, gap, i+1, w)
		}
	}
	if v := testutil.ToFloat64(c.h.Metrics.UpstreamRestarts.WithLabelValues("brief", "ended")); v < 4 {
		t.Errorf("wasmgate_upstream_restarts_total{upstream=brief,reason=ended} = %v after 5 sessions, want at least 4", v)
	}
	if v := testutil.ToFloat64(c.h.Metrics.UpstreamRestarts.WithLabelValues("brief", "start_failed")); v != 0 {
		t.Errorf("wasmgate_upstream_restarts_total{upstream=brief,reason=start_failed} = %v, want 0", v)
	}
}

// supervised starts the upstreams of a gateway.yaml's upstreams section
// (YAML list items) as a snapshot's build does, logging to the recorder
// returned; the caller stops them (Cleanup).
func supervised(t *testing.T, items string) (*Component, *recorder) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "gateway.yaml")
	if err := os.WriteFile(f, []byte("upstreams:\n"+items), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := loader.Load(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	c := New(&Host{Logger: slog.New(rec), Metrics: metrics.New("test", "test")})
	if err := c.Provision(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	return c, rec
}

// recorder is a slog.Handler keeping every record's time, message, and
// retry_in and error attributes.
type recorder struct {
	mu   sync.Mutex
	recs []logged
}

type logged struct {
	at      time.Time
	msg     string
	retryIn time.Duration
	err     string
}

func (r *recorder) Enabled(context.Context, slog.Level) bool { return true }

func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	l := logged{at: rec.Time, msg: rec.Message}
	rec.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case "retry_in":
			l.retryIn = a.Value.Duration()
		case "error":
			l.err = a.Value.String()
		}
		return true
	})
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recs = append(r.recs, l)
	return nil
}

func (r *recorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *recorder) WithGroup(string) slog.Handler      { return r }

// find is the records with message msg, in order.
func (r *recorder) find(msg string) []logged {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []logged
	for _, l := range r.recs {
		if l.msg == msg {
			out = append(out, l)
		}
	}
	return out
}

func (r *recorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, l := range r.recs {
		fmt.Fprintf(&b, "%s %s retry_in=%s error=%q\n", l.at.Format("15:04:05.000"), l.msg, l.retryIn, l.err)
	}
	return b.String()
}
