package main

// Issue 46 with the built binary: catalogs that outlive a restart (an
// upstream's lists kept in the cache directory, served at the next start
// while it starts, replaced by its own with an exact list_changed, under
// the lock file's checks) and start: lazy (started by the first call,
// stopped after idle_timeout, started again by the next call).

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// upstreamHealth is an upstream's health on /api/status.
type upstreamHealth struct {
	Up    bool `json:"up"`
	Stale bool `json:"stale"`
	Idle  bool `json:"idle"`
}

// upstreamState is the health of upstream name on g's status page.
func upstreamState(t *testing.T, g *harness.Gateway, name string) upstreamHealth {
	t.Helper()
	_, body := harness.HTTPGet(t, g.AdminURL+"/api/status")
	var st struct {
		Sources []struct {
			Name     string          `json:"name"`
			Upstream *upstreamHealth `json:"upstream"`
		} `json:"sources"`
	}
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatalf("/api/status: %v", err)
	}
	for _, s := range st.Sources {
		if s.Name == name && s.Upstream != nil {
			return *s.Upstream
		}
	}
	t.Fatalf("/api/status has no upstream %s:\n%.2000s", name, body)
	return upstreamHealth{}
}

// slowStart is the slowstart fixture's command and the files it is
// driven by: gate (it answers initialize once the file exists), starts
// (a line per process started) and desc (its tools' description suffix).
type slowStart struct {
	bin, gate, starts, desc string
}

func newSlowStart(t *testing.T) slowStart {
	dir := t.TempDir()
	s := slowStart{bin: bins.GoFixture(t, "testdata/upstreams/slowstart"), gate: filepath.Join(dir, "gate"),
		starts: filepath.Join(dir, "starts"), desc: filepath.Join(dir, "desc")}
	harness.WriteFile(t, s.desc, []byte(""))
	return s
}

// item is the upstreams: entry of the fixture, named slow.
func (s slowStart) item(extra string) string {
	return fmt.Sprintf(`  - name: slow
    command: [%q]
    env: {SLOWSTART_GATE: %q, SLOWSTART_STARTS: %q, SLOWSTART_DESC_FILE: %q}
    limits: {start_timeout: 60s}
%s`, s.bin, s.gate, s.starts, s.desc, extra)
}

func (s slowStart) open(t *testing.T)  { harness.WriteFile(t, s.gate, []byte("open")) }
func (s slowStart) close(t *testing.T) { _ = os.Remove(s.gate) }

// pids are the processes the fixture started, in order.
func (s slowStart) pids(t *testing.T) []string {
	b, err := os.ReadFile(s.starts)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(b))
}

// descriptions are the tools g lists to c, by name.
func descriptions(ctx context.Context, t *testing.T, c interface {
	ListTools(context.Context, mcp.ListToolsRequest) (*mcp.ListToolsResult, error)
}) map[string]string {
	t.Helper()
	res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	out := map[string]string{}
	for _, tl := range res.Tools {
		out[tl.Name] = tl.Description
	}
	return out
}

// TestUpstreamCatalogKept: an eager upstream that takes its time to
// answer initialize does not hold up a restart once a run has listed it:
// its tools are listed at once from the kept catalog (stale on the status
// page), a call waits for the upstream, and its own lists replace the
// catalog, with list_changed only when they differ.
func TestUpstreamCatalogKept(t *testing.T) {
	t.Parallel()
	s := newSlowStart(t)
	cfg := harness.WriteConfig(t, upstreamYAML(t, s.item("")))
	ctx := harness.Ctx(t, 3*time.Minute)

	// First run: the gate is open; the upstream is listed live, and its
	// catalog kept.
	s.open(t)
	g := bins.Start(t, harness.Options{Config: cfg})
	if d := descriptions(ctx, t, g.SessionClient(t)); d["tool_0"] != "Tool 0" {
		t.Fatalf("first run: tools %v, want tool_0 described \"Tool 0\"", d)
	}
	if st := upstreamState(t, g, "slow"); !st.Up || st.Stale {
		t.Fatalf("first run: upstream %+v, want up and not stale", st)
	}
	if err := g.Stop(t); err != nil {
		t.Fatal(err)
	}

	// Second run: the upstream does not answer initialize until the gate
	// opens. Without a kept catalog an eager upstream holds the load
	// until it answers; with one the gateway is ready and lists it.
	s.close(t)
	g = bins.Start(t, harness.Options{Config: cfg})
	c := g.SessionClient(t, transport.WithContinuousListening())
	var notes sync.Map
	c.OnNotification(func(n mcp.JSONRPCNotification) { notes.Store(n.Method, true) })
	if d := descriptions(ctx, t, c); d["tool_0"] != "Tool 0" || d["pid"] == "" {
		t.Fatalf("second run, upstream not answering: tools %v, want the kept catalog (tool_0, pid)", d)
	}
	if st := upstreamState(t, g, "slow"); st.Up || !st.Stale {
		t.Fatalf("second run, upstream not answering: %+v, want down and stale", st)
	}
	if !strings.Contains(g.Stderr(), "serving the catalog kept by an earlier run") {
		t.Errorf("no log line says the kept catalog is served:\n%s", g.Stderr())
	}
	// A call waits for the upstream (bounded by limits.timeout).
	type answer struct {
		text  string
		isErr bool
	}
	got := make(chan answer, 1)
	go func() {
		res, err := harness.CallToolErr(ctx, c, "tool_0", nil)
		if err != nil {
			got <- answer{err.Error(), true}
			return
		}
		got <- answer{harness.ResultText(res), res.IsError}
	}()
	if !harness.WaitFor(60*time.Second, func() bool { return len(s.pids(t)) == 2 }) {
		t.Fatalf("the upstream was not started on the second run: %v", s.pids(t))
	}
	s.open(t)
	select {
	case a := <-got:
		if a.isErr || a.text != "tool_0 from "+s.pids(t)[1] {
			t.Fatalf("the call made while the upstream started = %q (isError %v), want tool_0 from %s", a.text, a.isErr, s.pids(t)[1])
		}
	case <-ctx.Done():
		t.Fatal("the call made while the upstream started did not return")
	}
	if !harness.WaitFor(30*time.Second, func() bool { st := upstreamState(t, g, "slow"); return st.Up && !st.Stale }) {
		t.Fatalf("the upstream is %+v after it answered, want up and not stale", upstreamState(t, g, "slow"))
	}
	descriptions(ctx, t, c) // a round trip after the upstream's lists were read
	if _, ok := notes.Load("notifications/tools/list_changed"); ok {
		t.Error("tools/list_changed was sent though the upstream listed what the kept catalog had")
	}
	if err := g.Stop(t); err != nil {
		t.Fatal(err)
	}

	// Third run: the upstream now describes its tools otherwise. The kept
	// catalog is served until it answers; then its lists replace it, with
	// list_changed.
	s.close(t)
	harness.WriteFile(t, s.desc, []byte(" (v2)"))
	g = bins.Start(t, harness.Options{Config: cfg})
	c = g.SessionClient(t, transport.WithContinuousListening())
	changed := make(chan struct{}, 1)
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == "notifications/tools/list_changed" {
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	})
	if d := descriptions(ctx, t, c); d["tool_0"] != "Tool 0" {
		t.Fatalf("third run before the upstream answers: tool_0 %q, want the kept \"Tool 0\"", d["tool_0"])
	}
	s.open(t)
	select {
	case <-changed:
	case <-time.After(60 * time.Second):
		t.Fatal("no tools/list_changed when the upstream's own lists replaced the kept catalog")
	}
	if d := descriptions(ctx, t, c); d["tool_0"] != "Tool 0 (v2)" {
		t.Fatalf("third run after the upstream answered: tool_0 %q, want \"Tool 0 (v2)\"", d["tool_0"])
	}
}

// TestUpstreamCatalogLocked: the lock file's checks apply to a kept
// catalog as to live lists: a catalog kept after the upstream changed a
// description is withheld from the first list of the next start, before
// the upstream answers.
func TestUpstreamCatalogLocked(t *testing.T) {
	t.Parallel()
	s := newSlowStart(t)
	cfg := harness.WriteConfig(t, upstreamYAML(t, s.item("")))
	ctx := harness.Ctx(t, 3*time.Minute)
	s.open(t)
	g := bins.Start(t, harness.Options{Config: cfg})
	waitListed(ctx, t, g.SessionClient(t), "tool_0")
	mustLock(t, g, cfg)
	if err := g.Stop(t); err != nil {
		t.Fatal(err)
	}
	// The upstream changes: the live lists withhold the changed tools,
	// and the catalog kept is the changed one.
	harness.WriteFile(t, s.desc, []byte(" (changed)"))
	g = bins.Start(t, harness.Options{Config: cfg})
	c := g.SessionClient(t)
	waitWithheld(ctx, t, g, c, "slow", "tool_0", "(changed)")
	if err := g.Stop(t); err != nil {
		t.Fatal(err)
	}
	// Next start, the upstream not answering: the kept (changed) catalog
	// is checked against the lock at once.
	s.close(t)
	g = bins.Start(t, harness.Options{Config: cfg})
	c = g.SessionClient(t)
	if st := upstreamState(t, g, "slow"); st.Up || !st.Stale {
		t.Fatalf("upstream %+v, want down and serving the kept catalog", st)
	}
	d := descriptions(ctx, t, c)
	if _, ok := d["tool_0"]; ok {
		t.Fatalf("the kept catalog's changed tool_0 is listed before the upstream answers: %v", d)
	}
	if _, ok := d["pid"]; !ok {
		t.Fatalf("the kept catalog's unchanged pid tool is not listed: %v", d)
	}
	waitWithheld(ctx, t, g, c, "slow", "tool_0", "(changed)")
	s.open(t)
}

// TestUpstreamLazy: a start: lazy upstream with no kept catalog is
// started once at load to read its lists, then stopped after
// idle_timeout; a call starts it again (and waits for it), and it stops
// again once idle. After a restart its tools are listed from the kept
// catalog without starting it.
func TestUpstreamLazy(t *testing.T) {
	t.Parallel()
	s := newSlowStart(t)
	s.open(t)
	cfg := harness.WriteConfig(t, upstreamYAML(t, s.item("    start: lazy\n    idle_timeout: 1s\n")))
	ctx := harness.Ctx(t, 3*time.Minute)
	g := bins.Start(t, harness.Options{Config: cfg})
	c := g.SessionClient(t)
	waitListed(ctx, t, c, "tool_0", "pid")
	idle := func(what string) {
		t.Helper()
		if !harness.WaitFor(30*time.Second, func() bool { st := upstreamState(t, g, "slow"); return st.Idle && !st.Up }) {
			t.Fatalf("%s: upstream %+v, want idle", what, upstreamState(t, g, "slow"))
		}
		for _, pid := range s.pids(t) {
			if alive(t, pid) {
				t.Fatalf("%s: the upstream's process %s still runs", what, pid)
			}
		}
	}
	idle("after the first listing")
	if n := len(s.pids(t)); n != 1 {
		t.Fatalf("processes started at load: %d, want 1", n)
	}
	pid, isErr := harness.CallTool(ctx, t, c, "pid", nil)
	if isErr || !slices.Contains(s.pids(t), pid) || pid == s.pids(t)[0] {
		t.Fatalf("a call of the idle upstream = %q (isError %v), want a new process's id (started: %v)", pid, isErr, s.pids(t))
	}
	if !strings.Contains(g.Stderr(), "upstream starting for a call (start: lazy)") {
		t.Errorf("no log line says the lazy upstream started for a call")
	}
	idle("after the call")
	if err := g.Stop(t); err != nil {
		t.Fatal(err)
	}

	before := len(s.pids(t))
	g = bins.Start(t, harness.Options{Config: cfg})
	c = g.SessionClient(t)
	if d := descriptions(ctx, t, c); d["tool_0"] != "Tool 0" {
		t.Fatalf("after a restart: tools %v, want the kept catalog", d)
	}
	if st := upstreamState(t, g, "slow"); !st.Idle || st.Up {
		t.Fatalf("after a restart: upstream %+v, want idle", st)
	}
	if n := len(s.pids(t)); n != before {
		t.Fatalf("a restart with a kept catalog started the lazy upstream (%d processes, were %d)", n, before)
	}
	if text, isErr := harness.CallTool(ctx, t, c, "tool_1", nil); isErr || !strings.HasPrefix(text, "tool_1 from ") {
		t.Fatalf("tool_1 of the lazy upstream after a restart = %q (isError %v)", text, isErr)
	}
	if n := len(s.pids(t)); n != before+1 {
		t.Fatalf("processes after the call: %d, want %d", n, before+1)
	}
}

// TestUpstreamLazyEverything: server-everything from npm as a lazy
// upstream: its tools are listed, a call starts it and is answered, and
// it stops after idle_timeout, its node process gone.
func TestUpstreamLazyEverything(t *testing.T) {
	t.Parallel()
	cfg := everythingConfig(t, "start: lazy", "idle_timeout: 2s")
	ctx := harness.Ctx(t, 3*time.Minute)
	g := bins.Start(t, harness.Options{Config: cfg})
	c := g.SessionClient(t)
	waitListed(ctx, t, c, "echo")
	waitIdle := func(what string) {
		t.Helper()
		if !harness.WaitFor(60*time.Second, func() bool {
			st := upstreamState(t, g, "every")
			return st.Idle && !st.Up && len(childrenOf(t, g.Cmd.Process.Pid)) == 0
		}) {
			t.Fatalf("%s: upstream %+v, children %v; want idle and no process", what, upstreamState(t, g, "every"), childrenOf(t, g.Cmd.Process.Pid))
		}
	}
	waitIdle("after load")
	if text, isErr := harness.CallTool(ctx, t, c, "echo", map[string]any{"message": "wake up"}); isErr || !strings.Contains(text, "wake up") {
		t.Fatalf("echo of the idle upstream = %q (isError %v)", text, isErr)
	}
	if st := upstreamState(t, g, "every"); !st.Up {
		t.Fatalf("after a call: upstream %+v, want up", st)
	}
	waitIdle("after the call")
}

// alive reports whether process pid runs.
func alive(t *testing.T, pid string) bool {
	var n int
	if _, err := fmt.Sscan(pid, &n); err != nil {
		t.Fatalf("pid %q: %v", pid, err)
	}
	return syscall.Kill(n, 0) == nil
}
