package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/cmd/mcpbench/native"
	"github.com/wasmgate/wasmgate/internal/harness"
)

// testBins are the binaries the end-to-end tests of the idle sessions
// run: the gateway (plain, its cache warmed with the calculator) and
// mcpbench, built at the first test that needs them (not by fuzzing
// workers, which run TestMain too), removed by TestMain.
type testBins struct {
	gateway  *harness.Binaries
	mcpbench string
	dir      string
}

var (
	buildBins = sync.OnceValues(func() (*testBins, error) {
		g, err := harness.Build(harness.BuildOptions{Warm: []string{"examples/plugins/calculator"}, WarmAlone: []string{}})
		if err != nil {
			return nil, err
		}
		b := &testBins{gateway: g}
		built.Store(b)
		if b.dir, err = os.MkdirTemp("", "scalebench-test-"); err != nil {
			return nil, err
		}
		b.mcpbench = filepath.Join(b.dir, "mcpbench")
		cmd := exec.Command("go", "build", "-o", b.mcpbench, "github.com/wasmgate/wasmgate/cmd/mcpbench")
		cmd.Dir, cmd.Stdout, cmd.Stderr = harness.RepoRoot(), os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("building mcpbench: %w", err)
		}
		return b, nil
	})
	built atomic.Pointer[testBins] // what buildBins made, for TestMain to remove
)

// bins are the built binaries; t fails if they could not be built.
func bins(t *testing.T) *testBins {
	t.Helper()
	b, err := buildBins()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMain removes the binaries the tests built; run as `floor-server`
// (startFloor runs this program's own binary, here the test binary, as
// the floor), it is the floor server instead.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "floor-server" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := floorMain(ctx, os.Args[2:], os.Stdout, os.Stderr)
		stop()
		if err != nil {
			fmt.Fprintln(os.Stderr, "floor-server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	if b := built.Load(); b != nil {
		b.gateway.Close()
		if b.dir != "" {
			os.RemoveAll(b.dir)
		}
	}
	os.Exit(code)
}

// upstream serves mcp-go's own server with mcpbench's native calculate
// (the upstream of make bench-scale) for the test.
func upstream(t *testing.T) string {
	mux := http.NewServeMux()
	mux.Handle("/mcp", server.NewStreamableHTTPServer(native.Server(), server.WithEndpointPath("/mcp")))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// TestIdleSessions runs scalebench -sessions against the built gateway
// and its floor server, without and with a per_client upstream: three
// lines (wasmgate, floor, gap) of the sessions asked, each server holding
// a connection and goroutines per session, and the table.
func TestIdleSessions(t *testing.T) {
	for _, up := range []bool{false, true} {
		t.Run(fmt.Sprintf("upstream=%v", up), func(t *testing.T) {
			t.Parallel()
			args := []string{"-wasmgate", bins(t).gateway.Path, "-sessions", "50", "-settle", "100ms", "-quiet", "200ms"}
			if up {
				args = append(args, "-upstream-url", upstream(t))
			}
			var stdout, stderr bytes.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			if err := run(ctx, args, &stdout, &stderr); err != nil {
				t.Fatalf("scalebench %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
			}
			var figs []idleFigures
			for line := range strings.Lines(stdout.String()) {
				if strings.HasPrefix(line, "{") {
					var f idleFigures
					if err := json.Unmarshal([]byte(line), &f); err != nil {
						t.Fatalf("%q: %v", line, err)
					}
					figs = append(figs, f)
				}
			}
			if len(figs) != 3 || figs[0].Server != "wasmgate" || figs[1].Server != "floor" || figs[2].Server != "gap" {
				t.Fatalf("want the lines of wasmgate, floor and gap, got:\n%s", stdout.String())
			}
			for _, f := range figs[:2] {
				// A session holds its GET stream's connection and its
				// goroutine (the client's POSTs and its GET share the
				// connection): whatever else, at least that.
				if f.Sessions != 50 || f.PerClientUpstream != up || f.FDsPerSession < 0.9 || f.Goroutines < 0.9 || f.RSSAfterKiB <= 0 {
					t.Errorf("%s: %+v", f.Server, f)
				}
			}
			if g := figs[2]; g.PerSessionKiB != round1(figs[0].PerSessionKiB-figs[1].PerSessionKiB) {
				t.Errorf("gap %v, want wasmgate's less the floor's", g.PerSessionKiB)
			}
			for _, want := range []string{"idle sessions: 50", "wasmgate", "floor", "gap"} {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("the table has no %q:\n%s", want, stdout.String())
				}
			}
		})
	}
}

// TestIdleCalls runs scalebench -calls: two gateways serving the
// calculator, one holding 50 idle sessions, called in turns by mcpbench;
// both answer (mcpbench -expect 8), and the line has both rates and
// their ratio.
func TestIdleCalls(t *testing.T) {
	t.Parallel()
	b := bins(t)
	args := []string{"-wasmgate", b.gateway.Path, "-mcpbench", b.mcpbench, "-plugin", harness.Wasm(t, "examples/plugins/calculator"),
		"-calls", "-sessions", "50", "-clients", "2", "-duration", "400ms", "-warmup", "200ms", "-rounds", "1"}
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := run(ctx, args, &stdout, &stderr); err != nil {
		t.Fatalf("scalebench %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	line, _, _ := strings.Cut(stdout.String(), "\n")
	var res struct {
		IdleSessions int     `json:"idle_sessions"`
		None         float64 `json:"none_calls_per_s"`
		Idle         float64 `json:"idle_calls_per_s"`
		Ratio        float64 `json:"ratio"`
	}
	if err := json.Unmarshal([]byte(line), &res); err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	if res.IdleSessions != 50 || res.None <= 0 || res.Idle <= 0 || res.Ratio <= 0 {
		t.Errorf("%+v", res)
	}
	if !strings.Contains(stdout.String(), "50 idle sessions") || !strings.Contains(stdout.String(), "ratio") {
		t.Errorf("no table:\n%s", stdout.String())
	}
}

// TestFloorServer: the floor answers what openSession sends, forwards a
// call of up_calculate to its upstream in a session of the downstream
// session's own, and refuses unknown sessions.
func TestFloorServer(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	up := upstream(t)
	f := newFloor(up, 4)
	mux := http.NewServeMux()
	mux.Handle("/mcp", f)
	mux.HandleFunc(floorStatsPath, floorStats)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	defer f.hc.CloseIdleConnections()
	hc := srv.Client()
	var streams []interface{ Close() error }
	for range 3 {
		s, err := openSession(ctx, hc, srv.URL+"/mcp", true)
		if err != nil {
			t.Fatal(err)
		}
		streams = append(streams, s)
	}
	f.mu.Lock()
	n := len(f.sessions)
	ups := map[string]bool{}
	for _, s := range f.sessions {
		ups[s.upstream] = true
	}
	f.mu.Unlock()
	if n != 3 || len(ups) != 3 || ups[""] {
		t.Errorf("%d sessions with upstream sessions %v, want 3 of their own each", n, ups)
	}
	for _, s := range streams {
		s.Close()
	}

	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/mcp", nil)
	req.Header.Set("Mcp-Session-Id", "nope")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET of an unknown session: %d, want 404", resp.StatusCode)
	}
	b, err := adminGet(ctx, srv.URL, floorStatsPath+"?gc=1", "stats")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]float64
	if err := json.Unmarshal(b, &m); err != nil || m["go_goroutines"] <= 0 || m["go_memstats_heap_inuse_bytes"] <= 0 {
		t.Errorf("stats %s: %v", b, err)
	}
}
