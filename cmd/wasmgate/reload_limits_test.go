package main

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// TestReloadAppliesLimits changes every per-plugin limit a test can see,
// and allowed_origins, with reloads that keep the same modules: each new
// value must be in force after the reload, whether or not the plugin's
// compiled module and pool are reused.
//
// The timeouts are 2s (a 3s sleep times out) and 10s (it finishes): the
// plugin's describe at start runs under limits.timeout too, and on a
// loaded machine (-race, parallel tests) 200ms was not always enough.
func TestReloadAppliesLimits(t *testing.T) {
	t.Parallel()
	e := bins.NewDir(t)
	calc := e.Module("calculator", "examples/plugins/calculator")
	storage := e.Module("storage", "examples/plugins/storage")
	hostile := e.Module("hostile", "testdata/plugins/hostile")
	render := func(quota, timeout, maxOutput, origin string) []byte {
		y := e.YAML(harness.NoWatch,
			harness.Item("name: calculator", "path: "+harness.Q(calc)),
			harness.Item("name: storage", "path: "+harness.Q(storage), "limits: {kv_quota: "+quota+"}"),
			harness.Item("name: hostile", "path: "+harness.Q(hostile), "limits: {timeout: "+timeout+", max_output: "+maxOutput+"}"),
		)
		return []byte(strings.Replace(y, "    listen: 127.0.0.1:0\n", "    listen: 127.0.0.1:0\n    allowed_origins: ["+harness.Q(origin)+"]\n", 1))
	}
	harness.WriteFile(t, e.Config, render("1KiB", "2s", "1KiB", "https://a.example"))
	g := bins.Start(t, harness.Options{Config: e.Config})
	c := g.SessionClient(t)
	ctx := harness.Ctx(t, time.Minute)

	big := strings.Repeat("v", 2000)
	origin := func(o string) int {
		resp := harness.PostJSON(t, g.MCPURL, `{}`, map[string]string{"Origin": o})
		resp.Body.Close()
		return resp.StatusCode
	}
	type check struct {
		name string
		run  func() (ok bool, detail string)
	}
	checks := func(quota, timeout, output, originA, originB bool) []check {
		call := func(tool string, args map[string]any) (bool, string) {
			text, isErr := harness.CallTool(ctx, t, c, tool, args)
			return !isErr, text
		}
		return []check{
			{"kv_quota", func() (bool, string) {
				ok, text := call("set-storage", map[string]any{"key": "k", "value": big})
				return ok == quota, text
			}},
			{"timeout", func() (bool, string) {
				ok, text := call("sleep", map[string]any{"ms": 3000})
				return ok == timeout, text
			}},
			{"max_output", func() (bool, string) {
				ok, text := call("echo", map[string]any{"data": big})
				return ok == output, fmt.Sprintf("%.80s", text)
			}},
			{"allowed_origins a", func() (bool, string) {
				code := origin("https://a.example")
				return (code != http.StatusForbidden) == originA, fmt.Sprint(code)
			}},
			{"allowed_origins b", func() (bool, string) {
				code := origin("https://b.example")
				return (code != http.StatusForbidden) == originB, fmt.Sprint(code)
			}},
		}
	}
	for _, ch := range checks(false, false, false, true, false) {
		if ok, detail := ch.run(); !ok {
			t.Fatalf("before the reload, %s is not enforced as configured: %s", ch.name, detail)
		}
	}

	harness.WriteFile(t, e.Config, render("1MiB", "10s", "1MiB", "https://b.example"))
	g.MustReload(t, "POST /-/reload")
	for _, ch := range checks(true, true, true, false, true) {
		if ok, detail := ch.run(); !ok {
			t.Errorf("after the reload, the new %s is not in force: %s", ch.name, detail)
		}
	}
	harness.Calc(ctx, t, c, 2, 2)

	// A reload that fails applies nothing: not even the kv_quota of a
	// plugin whose module is unchanged.
	garbage := filepath.Join(filepath.Dir(e.Config), "garbage.wasm")
	harness.WriteFile(t, garbage, []byte("not a module"))
	broken := string(render("1KiB", "10s", "1MiB", "https://b.example")) + "  - {name: garbage, path: " + harness.Q(garbage) + "}\n"
	harness.WriteFile(t, e.Config, []byte(broken))
	if code, body := g.PostReload(t); code == http.StatusOK {
		t.Fatalf("POST /-/reload of a config naming a module that does not compile: %d %s", code, body)
	}
	if text, isErr := harness.CallTool(ctx, t, c, "set-storage", map[string]any{"key": "k2", "value": big}); isErr {
		t.Errorf("after a failed reload that lowered kv_quota, storing a value the old quota allows failed: %s", text)
	}
}
