package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/wasmgate/wasmgate/internal/harness"
)

// TestReloadUnderLoad runs 50 reloads of every kind while 8 Streamable
// HTTP sessions and one stdio session call calculate (present in every
// configuration) without pause. No call may fail or return a wrong
// result, no session may change id, and every session must receive each
// list_changed notification exactly once per reload that changed that
// list, and no other.
func TestReloadUnderLoad(t *testing.T) {
	// Not parallel: it needs a load of at least 500 calls during the reloads.
	const httpClients = 8
	e := bins.NewDir(t)
	calc := e.Module("calculator", "examples/plugins/calculator")
	greeter := e.Module("greeter", "examples/plugins/greeter")
	extra := e.Module("extra", "testdata/plugins/seaflea")
	builds := map[string][]byte{
		"seaflea": harness.ReadFixture(t, "testdata/plugins/seaflea"),
		"hostile": harness.ReadFixture(t, "testdata/plugins/hostile"),
	}

	// state is what a configuration serves.
	type state struct {
		greeter     bool
		greeting    string
		timeout     string
		concurrency int
		extra       string // which build plugins/extra.wasm holds
		prefix      string // extra's
	}
	render := func(s state) []byte {
		items := []string{harness.Item("name: calculator", "path: "+harness.Q(calc),
			fmt.Sprintf("limits: {timeout: %s, concurrency: %d}", s.timeout, s.concurrency))}
		if s.greeter {
			items = append(items, harness.Item("name: greeter", "path: "+harness.Q(greeter), "config: {greeting: "+s.greeting+"}"))
		}
		items = append(items, harness.Item("name: extra", "path: "+harness.Q(extra), "prefix: "+s.prefix))
		return []byte(e.YAML("", items...))
	}
	// lists are the tools, resources and prompts a state exposes.
	lists := func(s state) [3][]string {
		var l [3][]string
		l[0] = []string{"calculate"}
		if s.greeter {
			l[0] = append(l[0], "say_hello")
			l[1] = append(l[1], "greeter://about")
			l[2] = append(l[2], "greeting_prompt")
		}
		switch s.extra {
		case "seaflea":
			l[0] = append(l[0], s.prefix+"_add")
			l[1] = append(l[1], "seaflea://"+s.prefix+"/logo", "seaflea://"+s.prefix+"/readme")
			l[2] = append(l[2], s.prefix+"_review_prompt")
		case "hostile":
			for _, n := range []string{"bomb", "crash", "echo", "flood", "sleep", "spin", "trap"} {
				l[0] = append(l[0], s.prefix+"_"+n)
			}
		}
		for i := range l {
			slices.Sort(l[i])
		}
		return l
	}

	applied := state{timeout: "5s", concurrency: 4, extra: "seaflea", prefix: "x", greeting: "Hello"}
	harness.WriteFile(t, e.Config, render(applied))
	g := bins.Start(t, harness.Options{Config: e.Config, Stdio: true})
	ctx := harness.Ctx(t, 4*time.Minute)

	type cl struct {
		name  string
		c     *client.Client
		notes *harness.Notes
		sid   string
	}
	var clients []*cl
	for i := range httpClients {
		c := g.SessionClient(t, transport.WithContinuousListening())
		clients = append(clients, &cl{name: fmt.Sprintf("http#%d", i), c: c, notes: harness.CountNotes(c), sid: c.GetSessionId()})
	}
	sc := g.StdioClient(t)
	clients = append(clients, &cl{name: "stdio", c: sc, notes: harness.CountNotes(sc)})
	connected := time.Now()
	control := clients[0].c
	harness.WaitTools(ctx, t, control, visible, lists(applied)[0]...)
	time.Sleep(300 * time.Millisecond) // GET streams open

	// The load: every session calls calculate back to back.
	var (
		stop     atomic.Bool
		calls    atomic.Int64
		failMu   sync.Mutex
		failures []string
		wg       sync.WaitGroup
	)
	for w, x := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				a, b := w*100000+i, i%97
				cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
				res, err := harness.CallToolErr(cctx, x.c, "calculate", map[string]any{"operation": "add", "a": a, "b": b})
				cancel()
				var bad string
				switch {
				case err != nil:
					bad = err.Error()
				case res.IsError || harness.ResultText(res) != fmt.Sprint(a+b):
					bad = fmt.Sprintf("%d+%d = %q (isError %v)", a, b, harness.ResultText(res), res.IsError)
				}
				calls.Add(1)
				if bad != "" {
					failMu.Lock()
					failures = append(failures, fmt.Sprintf("%s at %s: %s", x.name, time.Now().Format("15:04:05.000"), bad))
					failMu.Unlock()
				}
			}
		}()
	}
	defer func() {
		stop.Store(true)
		wg.Wait()
	}()

	// The reloads: a cycle of ten kinds of save, five times.
	var want [3]int // list_changed notifications every session should get
	var kinds = map[string]int{}
	var expFail float64 // broken saves so far
	brokenSaves := [][]byte{
		[]byte("server: [this is not\n  valid: yaml\n"),
		[]byte(strings.Replace(string(render(applied)), "plugins:", "plugins:\n  - {name: typo, path: \"x.wasm\", limitz: {}}", 1)),
	}
	// toolSaves are when each save that changed the tools was written,
	// for saying which list_changed a session lacks.
	var toolSaves []string
	start := time.Now()
	for n := range 50 {
		next := applied
		var save func()
		kind := ""
		switch n % 10 {
		case 0:
			kind = "add a plugin"
			next.greeter, next.greeting = true, fmt.Sprintf("Hi%d", n)
		case 1, 5:
			kind = "change limits"
			if next.timeout == "5s" {
				next.timeout = "6s"
			} else {
				next.timeout = "5s"
			}
			if n%10 == 5 {
				next.concurrency = 12 - next.concurrency // 4 <-> 8: a new pool
			}
		case 2:
			kind = "replace a module with another build"
			if next.extra == "seaflea" {
				next.extra = "hostile"
			} else {
				next.extra = "seaflea"
			}
			save = func() { harness.RenameOver(t, extra, builds[next.extra]) }
		case 3:
			kind = "change a config value"
			next.greeting = fmt.Sprintf("Greetings%d", n)
		case 4:
			kind = "no-op save"
		case 6:
			kind = "broken save"
			data := brokenSaves[(n/10)%2]
			save = func() { harness.RenameOver(t, e.Config, data) }
		case 7:
			kind = "remove a plugin"
			next.greeter = false
		case 9:
			kind = "change a prefix"
			next.prefix = map[string]string{"x": "y", "y": "x"}[next.prefix]
		case 8:
			kind = "comment-only save"
			save = func() {
				harness.RenameOver(t, e.Config, []byte(fmt.Sprintf("# save %d\n%s", n, render(next))))
			}
		}
		if save == nil {
			save = func() { harness.RenameOver(t, e.Config, render(next)) }
		}
		kinds[kind]++

		before := g.ReloadCount(t)
		savedAt := time.Since(start)
		save()
		_, fail := g.WaitReload(t, before, fmt.Sprintf("save %d (%s)", n, kind))
		if kind == "broken save" {
			expFail++
			if fail != expFail {
				t.Fatalf("save %d (%s): %v failed reloads, want %v", n, kind, fail, expFail)
			}
			if g.LastReloadOK(t) != 0 {
				t.Errorf("save %d (%s): last_reload_successful is not 0", n, kind)
			}
			continue // nothing applied
		}
		if fail != expFail {
			t.Fatalf("save %d (%s) failed:\n%s", n, kind, g.Stderr())
		}
		old, now := lists(applied), lists(next)
		for i := range want {
			if !slices.Equal(old[i], now[i]) {
				want[i]++
			}
		}
		if !slices.Equal(old[0], now[0]) {
			toolSaves = append(toolSaves, fmt.Sprintf("save %d (%s) at %v", n, kind, savedAt.Round(time.Millisecond)))
		}
		applied = next
		harness.WaitTools(ctx, t, control, visible, now[0]...)
		if applied.greeter {
			text, isErr := harness.CallTool(ctx, t, control, "say_hello", map[string]any{"name": "Ada"})
			if w := applied.greeting + ", Ada!"; isErr || text != w {
				t.Errorf("save %d (%s): say_hello = %q (isError %v), want %q", n, kind, text, isErr, w)
			}
		}
	}
	took := time.Since(start)
	// Every session's list_changed of the last saves, which can trail
	// the reload on a loaded machine (CI once missed one after a fixed
	// second); a count that never arrives still fails below.
	harness.WaitFor(30*time.Second, func() bool {
		for _, x := range clients {
			if x.notes.Lists() != want {
				return false
			}
		}
		return true
	})
	time.Sleep(settle) // and none more than want
	stop.Store(true)
	wg.Wait()

	t.Logf("50 reloads (%v) in %v under load; %d calls to calculate (%.0f/s)", kinds, took.Round(time.Millisecond), calls.Load(), float64(calls.Load())/took.Seconds())
	s, f := g.Reloads(t)
	t.Logf("reloads_total: success %v, failure %v; expected list_changed per session: %s", s, f, harness.Lists(want))
	if f != 5 {
		t.Errorf("%v failed reloads, want 5 (the broken saves)", f)
	}
	if len(failures) > 0 {
		t.Errorf("%d of %d calls to calculate failed during the reloads; first ones:\n%s",
			len(failures), calls.Load(), strings.Join(failures[:min(len(failures), 10)], "\n"))
	}
	if calls.Load() < 500 {
		t.Errorf("only %d calls ran during the reloads: not much of a load", calls.Load())
	}
	for _, x := range clients {
		if got := x.notes.Lists(); got != want {
			t.Errorf("%s received %s list_changed, want %s", x.name, harness.Lists(got), harness.Lists(want))
			if got[0] != want[0] {
				var at []string
				for _, when := range x.notes.Times(mcp.MethodNotificationToolsListChanged) {
					at = append(at, when.Sub(start).Round(time.Millisecond).String())
				}
				t.Logf("%s: tools list_changed arrived at %s; the saves that changed the tools:\n%s",
					x.name, strings.Join(at, ", "), strings.Join(toolSaves, "\n"))
			}
		}
		if x.sid != "" && x.c.GetSessionId() != x.sid {
			t.Errorf("%s: session id changed from %q to %q", x.name, x.sid, x.c.GetSessionId())
		}
		harness.Calc(ctx, t, x.c, 40, 2) // every session still works
	}

	// With no call left running to carry a notification on its response,
	// a save still reaches every session: over HTTP only its GET stream
	// can deliver it, now past the 30 s after which the harness's clients
	// once stopped reading that stream (see harness.InitErr).
	if wait := 35*time.Second - time.Since(connected); wait > 0 {
		time.Sleep(wait)
	}
	next := applied
	next.greeter, next.greeting = !applied.greeter, "Idle"
	base := make([]harness.Lists, len(clients))
	for i, x := range clients {
		base[i] = x.notes.Lists()
	}
	before := g.ReloadCount(t)
	harness.RenameOver(t, e.Config, render(next))
	if _, fail := g.WaitReload(t, before, "the save after the load"); fail != expFail {
		t.Fatalf("the save after the load failed:\n%s", g.Stderr())
	}
	old, now := lists(applied), lists(next)
	idleWant := func(i int) harness.Lists {
		w := base[i]
		for k := range w {
			if !slices.Equal(old[k], now[k]) {
				w[k]++
			}
		}
		return w
	}
	harness.WaitFor(30*time.Second, func() bool {
		for i, x := range clients {
			if x.notes.Lists() != idleWant(i) {
				return false
			}
		}
		return true
	})
	for i, x := range clients {
		if got, w := x.notes.Lists(), idleWant(i); got != w {
			t.Errorf("%s, idle %v after connecting: received %s list_changed in all, want %s", x.name, time.Since(connected).Round(time.Second), got, w)
		}
	}
}
