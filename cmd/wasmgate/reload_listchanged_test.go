package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
)

// settle is how long the tests wait, after /metrics shows a reload, for
// notifications that reload caused to arrive before counting them.
const settle = time.Second

// TestReloadListChanged saves a series of changes and counts, on an HTTP
// session (listening on its GET stream) and on a stdio session, the
// tools/resources/prompts list_changed notifications each save causes:
// exactly one per list that changed, none for a save that changes nothing
// a client can list.
func TestReloadListChanged(t *testing.T) {
	e := newRLEnv(t)
	calc := e.module("calculator", "examples/plugins/calculator")
	greeter := e.module("greeter", "examples/plugins/greeter")
	seaflea := e.module("seaflea", "testdata/plugins/seaflea")
	hostile := e.module("hostile", "testdata/plugins/hostile")
	storage := e.module("storage", "examples/plugins/storage")

	type state struct {
		timeout, greeting, seafleaPrefix string
		concurrency                      string
		seaflea, hostile, storage        bool
	}
	render := func(s state) []byte {
		items := []string{
			rlItem("name: calculator", "path: "+rlQ(calc), "limits: {timeout: "+s.timeout+", concurrency: "+s.concurrency+"}"),
			rlItem("name: greeter", "path: "+rlQ(greeter), "config: {greeting: "+s.greeting+"}"),
		}
		if s.seaflea {
			items = append(items, rlItem("name: seaflea", "path: "+rlQ(seaflea), "prefix: "+s.seafleaPrefix))
		}
		if s.hostile {
			items = append(items, rlItem("name: hostile", "path: "+rlQ(hostile), "prefix: h"))
		}
		if s.storage {
			items = append(items, rlItem("name: storage", "path: "+rlQ(storage)))
		}
		return []byte(e.yaml("", items...))
	}
	tools := func(s state) []string {
		out := []string{"calculate", "say_hello"}
		if s.seaflea {
			out = append(out, s.seafleaPrefix+"_add")
		}
		if s.hostile {
			for _, n := range []string{"bomb", "crash", "echo", "flood", "sleep", "spin", "trap"} {
				out = append(out, "h_"+n)
			}
		}
		if s.storage {
			out = append(out, "set-storage")
		}
		return slices.Sorted(slices.Values(out))
	}

	cur := state{timeout: "5s", greeting: "Hello", seafleaPrefix: "s", concurrency: "2"}
	rlWriteFile(t, e.cfg, render(cur))
	g := startGateway(t, e.cfg, nil, "--stdio")
	ctx := ctxTimeout(t, 3*time.Minute)
	hc := sessionClient(t, g, transport.WithContinuousListening())
	sc := stdioClient(t, g)
	sid := hc.GetSessionId()
	clients := []struct {
		name  string
		c     *client.Client
		notes *rlNotes
	}{{"http", hc, rlCount(hc)}, {"stdio", sc, rlCount(sc)}}
	rlWaitTools(ctx, t, hc, visible, tools(cur)...)
	time.Sleep(300 * time.Millisecond) // the GET stream is open by now

	// accept lists other counts tolerated for a step (a documented
	// imprecision), logged when seen.
	step := func(name string, save func(), next state, want [3]int, accept ...[3]int) {
		t.Helper()
		var before [2][3]int
		for i, cl := range clients {
			before[i] = cl.notes.lists()
		}
		n := rlReloadCount(t, g)
		save()
		_, fail := rlWaitReloads(t, g, n, name)
		if fail != 0 {
			t.Fatalf("%s: the reload failed:\n%s", name, g.Stderr())
		}
		for _, cl := range clients {
			rlWaitTools(ctx, t, cl.c, visible, tools(next)...)
		}
		time.Sleep(settle)
		for i, cl := range clients {
			now := cl.notes.lists()
			got := [3]int{now[0] - before[i][0], now[1] - before[i][1], now[2] - before[i][2]}
			switch {
			case got == want:
			case slices.Contains(accept, got):
				t.Logf("%s: the %s session got %s list_changed (tolerated, see docs/reload.md; exact would be %s)", name, cl.name, rlFmtLists(got), rlFmtLists(want))
			default:
				t.Errorf("%s: the %s session got %s list_changed, want %s", name, cl.name, rlFmtLists(got), rlFmtLists(want))
			}
		}
		cur = next
	}
	saveState := func(s state) func() { return func() { rlSaveAtomic(t, e.cfg, render(s)) } }
	with := func(f func(*state)) state {
		s := cur
		f(&s)
		return s
	}

	same := render(cur)
	step("rewrite the same bytes in place", func() { rlWriteFile(t, e.cfg, same) }, cur, [3]int{})
	step("save the same bytes by rename", func() { rlSaveAtomic(t, e.cfg, same) }, cur, [3]int{})
	step("comment-only change", func() {
		rlSaveAtomic(t, e.cfg, []byte("# edited by hand\n"+strings.Replace(string(same), "plugins:", "plugins: # the plugins\n", 1)))
	}, cur, [3]int{})
	step("add a plugin with tools, resources and a prompt (seaflea)", saveState(with(func(s *state) { s.seaflea = true })), with(func(s *state) { s.seaflea = true }), [3]int{1, 1, 1})
	step("add a plugin with tools only (hostile)", saveState(with(func(s *state) { s.hostile = true })), with(func(s *state) { s.hostile = true }), [3]int{1, 0, 0})
	step("change a limit (calculator timeout)", saveState(with(func(s *state) { s.timeout = "7s" })), with(func(s *state) { s.timeout = "7s" }), [3]int{})
	step("change a limit that rebuilds the pool (calculator concurrency)", saveState(with(func(s *state) { s.concurrency = "3" })), with(func(s *state) { s.concurrency = "3" }), [3]int{})
	step("change a config value (greeting)", saveState(with(func(s *state) { s.greeting = "Howdy" })), with(func(s *state) { s.greeting = "Howdy" }), [3]int{})
	for _, cl := range clients {
		if text, isErr := callTool(ctx, t, cl.c, "say_hello", map[string]any{"name": "Ada"}); isErr || text != "Howdy, Ada!" {
			t.Errorf("%s: say_hello after greeting: Howdy = %q (isError %v)", cl.name, text, isErr)
		}
	}
	step("add a plugin with a resource template (storage)", saveState(with(func(s *state) { s.storage = true })), with(func(s *state) { s.storage = true }), [3]int{1, 1, 0})
	step("remove a plugin with tools only (hostile)", saveState(with(func(s *state) { s.hostile = false })), with(func(s *state) { s.hostile = false }), [3]int{1, 0, 0})
	step("rename tools and prompts (seaflea prefix)", saveState(with(func(s *state) { s.seafleaPrefix = "t" })), with(func(s *state) { s.seafleaPrefix = "t" }), [3]int{1, 0, 1})
	// Both the static resources (seaflea's) and the resource templates
	// (storage's) change: one reload, so one resources/list_changed would
	// be exact. wasmgate sends two (mcp-go v1.2.1 notifies once per list
	// it replaces), documented in docs/reload.md as a known imprecision:
	// tolerated, but nothing more.
	step("remove two plugins at once (seaflea, storage)", saveState(with(func(s *state) { s.seaflea, s.storage = false, false })), with(func(s *state) { s.seaflea, s.storage = false, false }),
		[3]int{1, 1, 1}, [3]int{1, 2, 1})

	if got := hc.GetSessionId(); got != sid {
		t.Errorf("HTTP session id changed from %q to %q", sid, got)
	}
	rlCalc(ctx, t, sc, 1, 2)
	rlCalc(ctx, t, hc, 3, 4)
}
