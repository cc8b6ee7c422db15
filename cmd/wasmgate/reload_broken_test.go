package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/gateway"
	"github.com/wasmgate/wasmgate/internal/harness"
)

// TestReloadBrokenSaves saves each kind of broken change and checks that
// the gateway keeps serving the previous configuration (calls succeed,
// tools/list unchanged), logs the error once with the file and the key or
// plugin at fault, says so in /metrics, and applies the next good save.
func TestReloadBrokenSaves(t *testing.T) {
	t.Parallel()
	bins.WarmCache(t, "testdata/plugins/badinfo") // badinfo compiled into the shared cache
	e := bins.NewDir(t)
	calc := e.Module("calculator", "examples/plugins/calculator")
	greeter := e.Module("greeter", "examples/plugins/greeter")
	calcBytes := harness.ReadFixture(t, "examples/plugins/calculator")
	greeterSum := sha256.Sum256(harness.ReadFixture(t, "examples/plugins/greeter"))

	calcItem := harness.Item("name: calculator", "path: "+harness.Q(calc))
	greeterItem := func(prefix string) string {
		return harness.Item("name: greeter", "path: "+harness.Q(greeter), "prefix: "+prefix)
	}
	good := func(prefix string, extra ...string) []byte {
		return []byte(e.YAML("", append([]string{calcItem, greeterItem(prefix)}, extra...)...))
	}
	harness.WriteFile(t, e.Config, good("g0"))
	g := bins.Start(t, harness.Options{Config: e.Config})
	c := g.SessionClient(t)
	sid := c.GetSessionId()
	ctx := harness.Ctx(t, 4*time.Minute)
	harness.WaitTools(ctx, t, c, visible, "calculate", "g0_say_hello")

	saveCfg := func(data []byte) func() { return func() { harness.RenameOver(t, e.Config, data) } }
	restoreCalc := func() { harness.RenameOver(t, calc, calcBytes) }
	garbage := func() []byte {
		// A module header, then noise: it fails in the decoder, not at
		// the magic number.
		r := rand.New(rand.NewPCG(1, 2))
		b := []byte("\x00asm\x01\x00\x00\x00")
		for range 64 << 10 {
			b = append(b, byte(r.UintN(256)))
		}
		return b
	}
	port := harness.FreePort(t)

	cases := []struct {
		name  string
		brk   func()
		want  []string // in the logged error, besides "reload failed"
		reset func()   // undoes what brk did to files other than gateway.yaml
	}{
		{
			name: "invalid YAML",
			brk:  saveCfg([]byte(string(good("x")) + "  - {name: broken, path: [unclosed\n")),
			want: []string{"invalid YAML", "gateway.yaml"},
		},
		{
			name: "validation error: unknown key",
			brk:  saveCfg(good("x", harness.Item("name: extra", "path: "+harness.Q(calc), "limitz: {timeout: 1s}"))),
			want: []string{"plugins[2].limitz", "unknown key"},
		},
		{
			name: "validation error: limit out of range",
			brk:  saveCfg(good("x", harness.Item("name: extra", "path: "+harness.Q(calc), "prefix: e", "limits: {timeout: 20m}"))),
			want: []string{"plugins[2].limits.timeout"},
		},
		{
			name: "two plugins provide the same tool",
			brk:  saveCfg(good("x", harness.Item("name: calc2", "path: "+harness.Q(calc)))),
			want: []string{`tool \"calculate\" is also provided by`, "calc2"},
		},
		{
			name: "missing .wasm",
			brk:  saveCfg(good("x", harness.Item("name: extra", "path: "+harness.Q(filepath.Join(e.Plugins, "missing.wasm"))))),
			want: []string{"plugins[2]", "missing.wasm"},
		},
		{
			name:  "truncated .wasm",
			brk:   func() { harness.WriteFile(t, calc, calcBytes[:1000]) },
			want:  []string{`plugin \"calculator\"`, "calculator.wasm"},
			reset: restoreCalc,
		},
		{
			name: "sha256 pin does not match",
			brk: saveCfg([]byte(e.YAML("", harness.Item("name: calculator", "path: "+harness.Q(calc),
				"sha256: "+hex.EncodeToString(greeterSum[:])), greeterItem("x")))),
			want: []string{`plugin \"calculator\"`, "plugins[0].sha256", "pinned " + hex.EncodeToString(greeterSum[:])},
		},
		{
			name: "sha256 pin is not a hash",
			brk: saveCfg([]byte(e.YAML("", harness.Item("name: calculator", "path: "+harness.Q(calc), "sha256: deadbeef"),
				greeterItem("x")))),
			want: []string{"plugins[0].sha256", "deadbeef"},
		},
		{
			name:  "module does not compile",
			brk:   func() { harness.WriteFile(t, calc, garbage()) },
			want:  []string{`plugin \"calculator\"`, "compile"},
			reset: restoreCalc,
		},
		{
			name: "information export traps",
			brk: func() {
				bad := e.Module("badinfo", "testdata/plugins/badinfo")
				harness.RenameOver(t, e.Config, good("x", harness.Item("name: badinfo", "path: "+harness.Q(bad))))
			},
			want: []string{`plugin \"badinfo\"`, "tools_information", "fails on purpose"},
		},
		{
			name: "restart-only change: transports.http.listen",
			brk: saveCfg([]byte(strings.Replace(string(good("x")),
				"listen: 127.0.0.1:0", "listen: "+port, 1))),
			want: []string{"transports.http.listen", port, "takes a restart (" + gateway.RestartHint(harness.CleanEnv()) + ")", "files=gateway.yaml"},
		},
		{
			name: "restart-only change: admin.listen",
			brk: saveCfg([]byte(strings.Replace(string(good("x")),
				"admin:\n  listen: 127.0.0.1:0", "admin:\n  listen: "+port, 1))),
			want: []string{"admin.listen", "takes a restart (" + gateway.RestartHint(harness.CleanEnv()) + ")"},
		},
	}

	for i, tc := range cases {
		ok := t.Run(tc.name, func(t *testing.T) {
			prev := fmt.Sprintf("g%d", i)
			okBefore, failBefore := g.Reloads(t)
			stamp, _ := g.Scrape(t).Value("wasmgate_config_last_reload_success_timestamp_seconds", nil)
			logAt := len(g.Stderr())

			tc.brk()
			_, fail := g.WaitReload(t, okBefore+failBefore, "broken save")
			time.Sleep(300 * time.Millisecond) // a second reload would show by now
			okNow, failNow := g.Reloads(t)
			if okNow != okBefore || failNow != failBefore+1 || fail != failBefore+1 {
				t.Errorf("reloads_total went from success %v, failure %v to success %v, failure %v; want one more failure",
					okBefore, failBefore, okNow, failNow)
			}
			m := g.Scrape(t)
			if v, _ := m.Value("wasmgate_config_last_reload_successful", nil); v != 0 {
				t.Errorf("wasmgate_config_last_reload_successful = %v after a failed reload, want 0", v)
			}
			if v, _ := m.Value("wasmgate_config_last_reload_success_timestamp_seconds", nil); v != stamp {
				t.Errorf("last_reload_success_timestamp_seconds moved from %v to %v on a failed reload", stamp, v)
			}
			logged := g.StderrSince(logAt)
			if n := strings.Count(logged, "reload failed"); n != 1 {
				t.Errorf("the failure is logged %d times, want once:\n%s", n, logged)
			}
			for _, w := range tc.want {
				if !strings.Contains(logged, w) {
					t.Errorf("the logged error does not mention %q:\n%s", w, logged)
				}
			}
			if !strings.Contains(logged, "level=ERROR") {
				t.Errorf("the failure is not logged at ERROR:\n%s", logged)
			}

			// The previous configuration keeps serving.
			harness.Calc(ctx, t, c, i, 1000)
			if got := harness.Tools(ctx, t, c); strings.Join(got, " ") != "calculate "+prev+"_say_hello" {
				t.Errorf("tools/list after a failed reload is %v, want the previous one", got)
			}
			if text, isErr := harness.CallTool(ctx, t, c, prev+"_say_hello", map[string]any{"name": "Ada"}); isErr || text != "Hello, Ada!" {
				t.Errorf("%s_say_hello = %q (isError %v)", prev, text, isErr)
			}

			// The next good save is applied.
			if tc.reset != nil {
				tc.reset()
			}
			next := fmt.Sprintf("g%d", i+1)
			harness.RenameOver(t, e.Config, good(next))
			harness.WaitTools(ctx, t, c, visible, "calculate", next+"_say_hello")
			if !harness.WaitFor(10*time.Second, func() bool { return g.LastReloadOK(t) == 1 }) {
				t.Errorf("wasmgate_config_last_reload_successful is not back to 1 after a good save")
			}
			harness.Calc(ctx, t, c, i, 2000)
			if s, _ := g.Reloads(t); s < okBefore+1 {
				t.Errorf("reloads_total{outcome=\"success\"} = %v after the good save, want > %v", s, okBefore)
			}
		})
		if !ok {
			// The cases build on each other's state.
			break
		}
	}
	if got := c.GetSessionId(); got != sid {
		t.Errorf("session id changed from %q to %q", sid, got)
	}
}

// TestReloadMissingModuleAppears saves a config naming a module that does
// not exist yet, then creates the module without touching the config: the
// watcher should follow the files the newest config names, so creating it
// is the save that fixes the reload.
func TestReloadMissingModuleAppears(t *testing.T) {
	t.Parallel()
	e := bins.NewDir(t)
	calc := e.Module("calculator", "examples/plugins/calculator")
	later := filepath.Join(e.Plugins, "later.wasm")
	harness.WriteFile(t, e.Config, []byte(e.YAML("", harness.Item("name: calculator", "path: "+harness.Q(calc)))))
	g := bins.Start(t, harness.Options{Config: e.Config})
	c := g.SessionClient(t)
	ctx := harness.Ctx(t, time.Minute)

	before := g.ReloadCount(t)
	harness.RenameOver(t, e.Config, []byte(e.YAML("",
		harness.Item("name: calculator", "path: "+harness.Q(calc)),
		harness.Item("name: later", "path: "+harness.Q(later), "prefix: later"))))
	if _, f := g.WaitReload(t, before, "save naming a missing module"); f != 1 {
		t.Fatalf("saving a config whose module is missing: %v failed reloads, want 1", f)
	}
	harness.RenameOver(t, later, harness.ReadFixture(t, "testdata/plugins/seaflea"))
	var got []string
	if !harness.WaitFor(5*time.Second, func() bool {
		got, _ = harness.ToolsErr(ctx, c)
		return strings.Join(got, " ") == "calculate later_add"
	}) {
		t.Errorf("the module the saved config names was created, but the gateway did not reload: tools/list is %v (a failed reload leaves the watcher on the previous config's files)", got)
	}
}

// TestRestartOnlyUnderSystemd: under systemd (INVOCATION_ID set, as the
// service manager sets it) a restart-only refusal suggests systemctl.
func TestRestartOnlyUnderSystemd(t *testing.T) {
	t.Parallel()
	e := bins.NewDir(t)
	calc := e.Module("calculator", "examples/plugins/calculator")
	good := e.YAML("", harness.Item("name: calculator", "path: "+harness.Q(calc)))
	harness.WriteFile(t, e.Config, []byte(good))
	g := bins.Start(t, harness.Options{Config: e.Config, Env: []string{"INVOCATION_ID=0123456789abcdef0123456789abcdef"}})
	ok, fail := g.Reloads(t)
	logAt := len(g.Stderr())
	harness.RenameOver(t, e.Config, []byte(strings.Replace(good, "listen: 127.0.0.1:0", "listen: 127.0.0.1:1", 1)))
	g.WaitReload(t, ok+fail, "restart-only save")
	if logged := g.StderrSince(logAt); !strings.Contains(logged, "takes a restart (systemctl restart wasmgate)") {
		t.Errorf("the refusal under systemd does not suggest systemctl:\n%s", logged)
	}
}
