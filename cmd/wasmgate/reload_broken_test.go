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
)

// TestReloadBrokenSaves saves each kind of broken change and checks that
// the gateway keeps serving the previous configuration (calls succeed,
// tools/list unchanged), logs the error once with the file and the key or
// plugin at fault, says so in /metrics, and applies the next good save.
func TestReloadBrokenSaves(t *testing.T) {
	rlWarmExtra(t) // badinfo compiled into the shared cache
	e := newRLEnv(t)
	calc := e.module("calculator", "examples/plugins/calculator")
	greeter := e.module("greeter", "examples/plugins/greeter")
	calcBytes := rlReadFixture(t, "examples/plugins/calculator")
	greeterSum := sha256.Sum256(rlReadFixture(t, "examples/plugins/greeter"))

	calcItem := rlItem("name: calculator", "path: "+rlQ(calc))
	greeterItem := func(prefix string) string {
		return rlItem("name: greeter", "path: "+rlQ(greeter), "prefix: "+prefix)
	}
	good := func(prefix string, extra ...string) []byte {
		return []byte(e.yaml("", append([]string{calcItem, greeterItem(prefix)}, extra...)...))
	}
	rlWriteFile(t, e.cfg, good("g0"))
	g := startGateway(t, e.cfg, nil)
	c := sessionClient(t, g)
	sid := c.GetSessionId()
	ctx := ctxTimeout(t, 4*time.Minute)
	rlWaitTools(ctx, t, c, visible, "calculate", "g0_say_hello")

	saveCfg := func(data []byte) func() { return func() { rlSaveAtomic(t, e.cfg, data) } }
	restoreCalc := func() { rlSaveAtomic(t, calc, calcBytes) }
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
	port := freePort(t)

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
			brk:  saveCfg(good("x", rlItem("name: extra", "path: "+rlQ(calc), "limitz: {timeout: 1s}"))),
			want: []string{"plugins[2].limitz", "unknown key"},
		},
		{
			name: "validation error: limit out of range",
			brk:  saveCfg(good("x", rlItem("name: extra", "path: "+rlQ(calc), "prefix: e", "limits: {timeout: 20m}"))),
			want: []string{"plugins[2].limits.timeout"},
		},
		{
			name: "two plugins provide the same tool",
			brk:  saveCfg(good("x", rlItem("name: calc2", "path: "+rlQ(calc)))),
			want: []string{`tool \"calculate\" is also provided by`, "calc2"},
		},
		{
			name: "missing .wasm",
			brk:  saveCfg(good("x", rlItem("name: extra", "path: "+rlQ(filepath.Join(e.plugins, "missing.wasm"))))),
			want: []string{"plugins[2]", "missing.wasm"},
		},
		{
			name:  "truncated .wasm",
			brk:   func() { rlWriteFile(t, calc, calcBytes[:1000]) },
			want:  []string{`plugin \"calculator\"`, "calculator.wasm"},
			reset: restoreCalc,
		},
		{
			name: "sha256 pin does not match",
			brk: saveCfg([]byte(e.yaml("", rlItem("name: calculator", "path: "+rlQ(calc),
				"sha256: "+hex.EncodeToString(greeterSum[:])), greeterItem("x")))),
			want: []string{`plugin \"calculator\"`, "plugins[0].sha256", "pinned " + hex.EncodeToString(greeterSum[:])},
		},
		{
			name: "sha256 pin is not a hash",
			brk: saveCfg([]byte(e.yaml("", rlItem("name: calculator", "path: "+rlQ(calc), "sha256: deadbeef"),
				greeterItem("x")))),
			want: []string{"plugins[0].sha256", "deadbeef"},
		},
		{
			name:  "module does not compile",
			brk:   func() { rlWriteFile(t, calc, garbage()) },
			want:  []string{`plugin \"calculator\"`, "compile"},
			reset: restoreCalc,
		},
		{
			name: "information export traps",
			brk: func() {
				bad := e.module("badinfo", "testdata/plugins/badinfo")
				rlSaveAtomic(t, e.cfg, good("x", rlItem("name: badinfo", "path: "+rlQ(bad))))
			},
			want: []string{`plugin \"badinfo\"`, "tools_information", "fails on purpose"},
		},
		{
			name: "restart-only change: transports.http.listen",
			brk: saveCfg([]byte(strings.Replace(string(good("x")),
				"listen: 127.0.0.1:0", "listen: "+port, 1))),
			want: []string{"transports.http.listen", "restart", port},
		},
		{
			name: "restart-only change: admin.listen",
			brk: saveCfg([]byte(strings.Replace(string(good("x")),
				"admin:\n  listen: 127.0.0.1:0", "admin:\n  listen: "+port, 1))),
			want: []string{"admin.listen", "restart"},
		},
	}

	for i, tc := range cases {
		ok := t.Run(tc.name, func(t *testing.T) {
			prev := fmt.Sprintf("g%d", i)
			okBefore, failBefore := rlReloads(t, g)
			stamp, _ := metricValue(g.scrape(t), "wasmgate_config_last_reload_success_timestamp_seconds", nil)
			logAt := len(g.Stderr())

			tc.brk()
			_, fail := rlWaitReloads(t, g, okBefore+failBefore, "broken save")
			time.Sleep(300 * time.Millisecond) // a second reload would show by now
			okNow, failNow := rlReloads(t, g)
			if okNow != okBefore || failNow != failBefore+1 || fail != failBefore+1 {
				t.Errorf("reloads_total went from success %v, failure %v to success %v, failure %v; want one more failure",
					okBefore, failBefore, okNow, failNow)
			}
			m := g.scrape(t)
			if v, _ := metricValue(m, "wasmgate_config_last_reload_successful", nil); v != 0 {
				t.Errorf("wasmgate_config_last_reload_successful = %v after a failed reload, want 0", v)
			}
			if v, _ := metricValue(m, "wasmgate_config_last_reload_success_timestamp_seconds", nil); v != stamp {
				t.Errorf("last_reload_success_timestamp_seconds moved from %v to %v on a failed reload", stamp, v)
			}
			logged := rlStderrSince(g, logAt)
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
			rlCalc(ctx, t, c, i, 1000)
			if got := rlTools(ctx, t, c); strings.Join(got, " ") != "calculate "+prev+"_say_hello" {
				t.Errorf("tools/list after a failed reload is %v, want the previous one", got)
			}
			if text, isErr := callTool(ctx, t, c, prev+"_say_hello", map[string]any{"name": "Ada"}); isErr || text != "Hello, Ada!" {
				t.Errorf("%s_say_hello = %q (isError %v)", prev, text, isErr)
			}

			// The next good save is applied.
			if tc.reset != nil {
				tc.reset()
			}
			next := fmt.Sprintf("g%d", i+1)
			rlSaveAtomic(t, e.cfg, good(next))
			rlWaitTools(ctx, t, c, visible, "calculate", next+"_say_hello")
			if !waitFor(10*time.Second, func() bool { return rlLastOK(t, g) == 1 }) {
				t.Errorf("wasmgate_config_last_reload_successful is not back to 1 after a good save")
			}
			rlCalc(ctx, t, c, i, 2000)
			if s, _ := rlReloads(t, g); s < okBefore+1 {
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
	e := newRLEnv(t)
	calc := e.module("calculator", "examples/plugins/calculator")
	later := filepath.Join(e.plugins, "later.wasm")
	rlWriteFile(t, e.cfg, []byte(e.yaml("", rlItem("name: calculator", "path: "+rlQ(calc)))))
	g := startGateway(t, e.cfg, nil)
	c := sessionClient(t, g)
	ctx := ctxTimeout(t, time.Minute)

	before := rlReloadCount(t, g)
	rlSaveAtomic(t, e.cfg, []byte(e.yaml("",
		rlItem("name: calculator", "path: "+rlQ(calc)),
		rlItem("name: later", "path: "+rlQ(later), "prefix: later"))))
	if _, f := rlWaitReloads(t, g, before, "save naming a missing module"); f != 1 {
		t.Fatalf("saving a config whose module is missing: %v failed reloads, want 1", f)
	}
	rlSaveAtomic(t, later, rlReadFixture(t, "testdata/plugins/seaflea"))
	var got []string
	if !waitFor(5*time.Second, func() bool {
		got, _ = rlToolsErr(ctx, c)
		return strings.Join(got, " ") == "calculate later_add"
	}) {
		t.Errorf("the module the saved config names was created, but the gateway did not reload: tools/list is %v (a failed reload leaves the watcher on the previous config's files)", got)
	}
}
