package tracing

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.opentelemetry.io/otel/trace"

	"github.com/wasmgate/wasmgate/loader"
)

func cfgWith(t loader.Tracing) *loader.Config {
	return &loader.Config{File: "/etc/wasmgate/gateway.yaml", Tracing: t}
}

// TestHeadersEnv: headers_env values are read from the environment at
// provision and sent with every export; an unset variable is a config
// error naming the key and the variable, never a value.
func TestHeadersEnv(t *testing.T) {
	var mu sync.Mutex
	var auth []string
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
	}))
	defer rc.Close()
	t.Setenv("WASMGATE_TEST_OTLP_AUTH", "Bearer s3cret-otlp")
	h := NewHolder(prometheus.NewRegistry(), "test")
	log := slog.New(slog.DiscardHandler)

	bad := h.Component(log)
	err := bad.Provision(t.Context(), cfgWith(loader.Tracing{Endpoint: rc.URL, HeadersEnv: map[string]string{"Authorization": "WASMGATE_TEST_UNSET_VAR"}}))
	if err == nil || !strings.Contains(err.Error(), "tracing.headers_env.Authorization") || !strings.Contains(err.Error(), "WASMGATE_TEST_UNSET_VAR") {
		t.Fatalf("unset headers_env variable: %v, want an error naming the key and the variable", err)
	}
	bad.Cleanup(t.Context())

	c := h.Component(log)
	if err := c.Provision(t.Context(), cfgWith(loader.Tracing{Endpoint: rc.URL, HeadersEnv: map[string]string{"Authorization": "WASMGATE_TEST_OTLP_AUTH"}})); err != nil {
		t.Fatal(err)
	}
	c.Apply(t.Context())
	if !h.On() {
		t.Fatal("tracing is not on after Apply")
	}
	_, span := h.TracerFor(t.Context()).Start(t.Context(), "x")
	span.End()
	c.Cleanup(context.Background()) // flushes
	mu.Lock()
	defer mu.Unlock()
	if len(auth) == 0 || auth[0] != "Bearer s3cret-otlp" {
		t.Errorf("exports carried Authorization %q, want the variable's value", auth)
	}
	if v := testutil.ToFloat64(h.exported.WithLabelValues("exported")); v != 1 {
		t.Errorf("exported spans counted %v, want 1", v)
	}
}

// TestReuse: an unchanged section keeps the serving exporter; a changed
// one gets a new one, and the old is shut down only when the last
// snapshot using it is cleaned up.
func TestReuse(t *testing.T) {
	h := NewHolder(nil, "test")
	log := slog.New(slog.DiscardHandler)
	t1 := loader.Tracing{Endpoint: "http://127.0.0.1:1"}
	a := h.Component(log)
	if err := a.Provision(t.Context(), cfgWith(t1)); err != nil {
		t.Fatal(err)
	}
	a.Apply(t.Context())
	b := h.Component(log)
	b.Reuse(a)
	if err := b.Provision(t.Context(), cfgWith(t1)); err != nil {
		t.Fatal(err)
	}
	if b.p != a.p {
		t.Fatal("an unchanged tracing section built a new exporter")
	}
	b.Apply(t.Context())
	a.Cleanup(t.Context())
	if b.p.refs.Holders() != 1 {
		t.Errorf("refs after the old snapshot's cleanup = %d, want 1", b.p.refs.Holders())
	}
	if got := b.Changes(a); got != nil {
		t.Errorf("Changes of an unchanged section = %q", got)
	}
	c := h.Component(log)
	c.Reuse(b)
	if err := c.Provision(t.Context(), cfgWith(loader.Tracing{})); err != nil {
		t.Fatal(err)
	}
	c.Apply(t.Context())
	if h.On() {
		t.Error("tracing still on after a snapshot without a tracing section applied")
	}
	if got := c.Changes(b); len(got) != 1 || got[0] != "tracing off" {
		t.Errorf("Changes = %q, want tracing off", got)
	}
	b.Cleanup(t.Context())
	c.Cleanup(t.Context())
}

// TestFromMeta: _meta.traceparent starts a remote parent unless the
// HTTP headers gave one already; garbage is ignored.
func TestFromMeta(t *testing.T) {
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	sc := trace.SpanContextFromContext(FromMeta(t.Context(), tp, ""))
	if !sc.IsValid() || !sc.IsRemote() || sc.TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" || !sc.IsSampled() {
		t.Fatalf("FromMeta(%q) = %+v", tp, sc)
	}
	h := http.Header{}
	h.Set("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00")
	ctx := FromHeaders(t.Context(), h)
	if got := trace.SpanContextFromContext(FromMeta(ctx, tp, "")).TraceID().String(); got != "0af7651916cd43dd8448eb211c80319c" {
		t.Errorf("_meta replaced the header's trace: %s", got)
	}
	for _, bad := range []string{"garbage", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", strings.Repeat("0", 5000)} {
		if trace.SpanContextFromContext(FromMeta(t.Context(), bad, "")).IsValid() {
			t.Errorf("FromMeta(%.40q) gave a valid parent", bad)
		}
	}
}

// TestQueueFullCounted: with a collector that does not answer, spans past
// the queue's bound are dropped at once and counted, never waited for;
// once the collector answers, what was queued is exported, and every
// span is counted one way or the other.
func TestQueueFullCounted(t *testing.T) {
	release := make(chan struct{})
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		<-release
	}))
	defer rc.Close()
	h := NewHolder(prometheus.NewRegistry(), "test")
	c := h.Component(slog.New(slog.DiscardHandler))
	if err := c.Provision(t.Context(), cfgWith(loader.Tracing{Endpoint: rc.URL})); err != nil {
		t.Fatal(err)
	}
	c.Apply(t.Context())
	const extra = 5000
	tr := h.TracerFor(t.Context())
	for i := 0; i < maxQueued+extra; i++ {
		_, span := tr.Start(t.Context(), "x")
		span.End()
	}
	dropped := func() float64 { return testutil.ToFloat64(h.exported.WithLabelValues("dropped")) }
	exported := func() float64 { return testutil.ToFloat64(h.exported.WithLabelValues("exported")) }
	if got := dropped(); got != extra {
		t.Errorf("with the collector not answering, %v spans counted dropped, want the %d past the queue's bound", got, extra)
	}
	close(release)
	c.Cleanup(context.Background()) // flushes what waits
	if got := exported() + dropped(); got != maxQueued+extra {
		t.Errorf("exported %v + dropped %v = %v, want every one of the %d spans counted", exported(), dropped(), got, maxQueued+extra)
	}
	if exported() == 0 {
		t.Error("nothing exported once the collector answered")
	}
}
