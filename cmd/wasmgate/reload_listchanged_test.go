package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/wasmgate/wasmgate/internal/harness"
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
	t.Parallel()
	e := bins.NewDir(t)
	calc := e.Module("calculator", "examples/plugins/calculator")
	greeter := e.Module("greeter", "examples/plugins/greeter")
	seaflea := e.Module("seaflea", "testdata/plugins/seaflea")
	hostile := e.Module("hostile", "testdata/plugins/hostile")
	storage := e.Module("storage", "examples/plugins/storage")

	type state struct {
		timeout, greeting, seafleaPrefix string
		concurrency                      string
		seaflea, hostile, storage        bool
	}
	render := func(s state) []byte {
		items := []string{
			harness.Item("name: calculator", "path: "+harness.Q(calc), "limits: {timeout: "+s.timeout+", concurrency: "+s.concurrency+"}"),
			harness.Item("name: greeter", "path: "+harness.Q(greeter), "config: {greeting: "+s.greeting+"}"),
		}
		if s.seaflea {
			items = append(items, harness.Item("name: seaflea", "path: "+harness.Q(seaflea), "prefix: "+s.seafleaPrefix))
		}
		if s.hostile {
			items = append(items, harness.Item("name: hostile", "path: "+harness.Q(hostile), "prefix: h"))
		}
		if s.storage {
			items = append(items, harness.Item("name: storage", "path: "+harness.Q(storage)))
		}
		return []byte(e.YAML("", items...))
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
	harness.WriteFile(t, e.Config, render(cur))
	g := bins.Start(t, harness.Options{Config: e.Config, Stdio: true})
	ctx := harness.Ctx(t, 3*time.Minute)
	hc := g.SessionClient(t, transport.WithContinuousListening())
	sc := g.StdioClient(t)
	sid := hc.GetSessionId()
	clients := []struct {
		name  string
		c     *client.Client
		notes *harness.Notes
	}{{"http", hc, harness.CountNotes(hc)}, {"stdio", sc, harness.CountNotes(sc)}}
	harness.WaitTools(ctx, t, hc, visible, tools(cur)...)
	time.Sleep(300 * time.Millisecond) // the GET stream is open by now

	// accept lists other counts tolerated for a step (a documented
	// imprecision), logged when seen.
	step := func(name string, save func(), next state, want [3]int, accept ...[3]int) {
		t.Helper()
		var before [2][3]int
		for i, cl := range clients {
			before[i] = cl.notes.Lists()
		}
		n := g.ReloadCount(t)
		save()
		_, fail := g.WaitReload(t, n, name)
		if fail != 0 {
			t.Fatalf("%s: the reload failed:\n%s", name, g.Stderr())
		}
		for _, cl := range clients {
			harness.WaitTools(ctx, t, cl.c, visible, tools(next)...)
		}
		time.Sleep(settle)
		for i, cl := range clients {
			now := cl.notes.Lists()
			got := [3]int{now[0] - before[i][0], now[1] - before[i][1], now[2] - before[i][2]}
			switch {
			case got == want:
			case slices.Contains(accept, got):
				t.Logf("%s: the %s session got %s list_changed (tolerated, see docs/reload.md; exact would be %s)", name, cl.name, harness.Lists(got), harness.Lists(want))
			default:
				t.Errorf("%s: the %s session got %s list_changed, want %s", name, cl.name, harness.Lists(got), harness.Lists(want))
			}
		}
		cur = next
	}
	saveState := func(s state) func() { return func() { harness.RenameOver(t, e.Config, render(s)) } }
	with := func(f func(*state)) state {
		s := cur
		f(&s)
		return s
	}

	same := render(cur)
	step("rewrite the same bytes in place", func() { harness.WriteFile(t, e.Config, same) }, cur, [3]int{})
	step("save the same bytes by rename", func() { harness.RenameOver(t, e.Config, same) }, cur, [3]int{})
	step("comment-only change", func() {
		harness.RenameOver(t, e.Config, []byte("# edited by hand\n"+strings.Replace(string(same), "plugins:", "plugins: # the plugins\n", 1)))
	}, cur, [3]int{})
	step("add a plugin with tools, resources and a prompt (seaflea)", saveState(with(func(s *state) { s.seaflea = true })), with(func(s *state) { s.seaflea = true }), [3]int{1, 1, 1})
	step("add a plugin with tools only (hostile)", saveState(with(func(s *state) { s.hostile = true })), with(func(s *state) { s.hostile = true }), [3]int{1, 0, 0})
	step("change a limit (calculator timeout)", saveState(with(func(s *state) { s.timeout = "7s" })), with(func(s *state) { s.timeout = "7s" }), [3]int{})
	step("change a limit that rebuilds the pool (calculator concurrency)", saveState(with(func(s *state) { s.concurrency = "3" })), with(func(s *state) { s.concurrency = "3" }), [3]int{})
	step("change a config value (greeting)", saveState(with(func(s *state) { s.greeting = "Howdy" })), with(func(s *state) { s.greeting = "Howdy" }), [3]int{})
	for _, cl := range clients {
		if text, isErr := harness.CallTool(ctx, t, cl.c, "say_hello", map[string]any{"name": "Ada"}); isErr || text != "Howdy, Ada!" {
			t.Errorf("%s: say_hello after greeting: Howdy = %q (isError %v)", cl.name, text, isErr)
		}
	}
	step("add a plugin with a resource template (storage)", saveState(with(func(s *state) { s.storage = true })), with(func(s *state) { s.storage = true }), [3]int{1, 1, 0})
	step("remove a plugin with tools only (hostile)", saveState(with(func(s *state) { s.hostile = false })), with(func(s *state) { s.hostile = false }), [3]int{1, 0, 0})
	step("rename tools, prompts and resource URIs (seaflea prefix)", saveState(with(func(s *state) { s.seafleaPrefix = "t" })), with(func(s *state) { s.seafleaPrefix = "t" }), [3]int{1, 1, 1})
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
	harness.Calc(ctx, t, sc, 1, 2)
	harness.Calc(ctx, t, hc, 3, 4)
}
