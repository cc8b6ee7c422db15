package main

// The status page on the admin listener, in a real browser (headless
// Debian chromium, internal/harness's browser): it shows what is loaded and, after
// a broken save, the failed reload's error, refreshing itself; its JSON
// twin /api/status says the same.

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/gateway"
	"github.com/wasmgate/wasmgate/gateway/ops"
	"github.com/wasmgate/wasmgate/internal/harness"
)

func apiStatus(t *testing.T, g *harness.Gateway) ops.Status {
	t.Helper()
	resp, err := http.Get(g.AdminURL + "/api/status")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET /api/status: %s", resp.Status)
	}
	var s ops.Status
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		t.Fatalf("decode /api/status: %v", err)
	}
	return s
}

func TestStatusPage(t *testing.T) {
	t.Parallel()
	b := harness.StartBrowser(t)
	e := bins.NewDir(t)
	calc := e.Module("calculator", "examples/plugins/calculator")
	greeter := e.Module("greeter", "examples/plugins/greeter")
	good := e.YAML("", harness.Item("name: calculator", "path: "+harness.Q(calc)), harness.Item("name: greeter", "path: "+harness.Q(greeter)))
	harness.WriteFile(t, e.Config, []byte(good))
	g := bins.Start(t, harness.Options{Config: e.Config})

	// A few calls, one of them failing, for the calls table.
	c := g.SessionClient(t)
	cctx := harness.Ctx(t, time.Minute)
	harness.CalcTool(cctx, t, c, "calculate", 2, 3)
	if _, isErr := harness.CallTool(cctx, t, c, "calculate", map[string]any{"operation": "divide", "a": 1, "b": 0}); !isErr {
		t.Fatalf("divide by zero did not fail")
	}

	tb := b.Open(t, g.AdminURL+"/")
	tb.WaitVisible("#plugins", 30*time.Second, "load the status page")
	title := tb.Title()
	plugins, calls, reload := tb.Text("#plugins"), tb.Text("#calls"), tb.Text("#last-reload")
	tb.Screenshot("status-loaded.png")
	if !strings.Contains(title, testVersion) {
		t.Errorf("title %q does not name the version %s", title, testVersion)
	}
	for _, want := range []string{"calculator", "greeter", "sea-flea", "calculate", "say_hello", "greeter://about", "greeting_prompt"} {
		if !strings.Contains(plugins, want) {
			t.Errorf("the plugins table does not show %q:\n%s", want, plugins)
		}
	}
	if !strings.Contains(calls, "calculate") || !strings.Contains(calls, "Division by zero") {
		t.Errorf("the calls table does not show calculate and its error:\n%s", calls)
	}
	if !strings.Contains(reload, "OK") || !strings.Contains(reload, "start") {
		t.Errorf("last reload at start: %q", reload)
	}

	// /api/status says the same.
	s := apiStatus(t, g)
	var names []string
	for _, src := range s.Sources {
		names = append(names, src.Name)
		if src.ABI != "sea-flea" || src.Instances == nil || src.Instances.Max < 1 {
			t.Errorf("/api/status source %+v: want ABI sea-flea and instances", src)
		}
	}
	if !slices.Equal(names, []string{"calculator", "greeter"}) {
		t.Errorf("/api/status sources %v, want calculator, greeter", names)
	}
	if s.Version != testVersion || !s.Ready || s.Sessions["http"] < 1 {
		t.Errorf("/api/status version %q ready %v sessions %v", s.Version, s.Ready, s.Sessions)
	}
	var calcStats *struct{ total, errors int64 }
	for _, cs := range s.Calls {
		if cs.Kind == "tool" && cs.Name == "calculate" {
			calcStats = &struct{ total, errors int64 }{cs.Total, cs.Errors}
		}
	}
	if calcStats == nil || calcStats.total != 2 || calcStats.errors != 1 {
		t.Errorf("/api/status calls for calculate: %+v, want 2 calls, 1 error", calcStats)
	}

	// A broken save: the page, refreshing itself, shows the failed reload
	// and its error, and still the plugins being served.
	harness.RenameOver(t, e.Config, []byte(good+"  - name: broken\n    path: "+harness.Q(filepath.Join(e.Plugins, "missing.wasm"))+"\n"))
	var errText string
	deadline := time.Now().Add(60 * time.Second)
	for {
		reload = tb.Text("#last-reload")
		if strings.Contains(reload, "FAILED") {
			errText = tb.Text("#reload-error")
			break
		}
		if time.Now().After(deadline) {
			tb.Screenshot("status-timeout.png")
			t.Fatalf("the page did not show the failed reload within 60s; last reload shows:\n%s", reload)
		}
		time.Sleep(500 * time.Millisecond)
	}
	plugins = tb.Text("#plugins")
	tb.Screenshot("status-failed-reload.png")
	if !strings.Contains(errText, "missing.wasm") {
		t.Errorf("the reload error on the page does not name the missing module: %q", errText)
	}
	if !strings.Contains(plugins, "calculator") || strings.Contains(plugins, "broken") {
		t.Errorf("after a failed reload the page should still show what is served:\n%s", plugins)
	}
	s = apiStatus(t, g)
	if s.LastReload == nil || s.LastReload.OK || s.LastReload.Trigger != gateway.TriggerFile || s.LastReload.Error == "" {
		t.Fatalf("/api/status last_reload = %+v, want a failed file save", s.LastReload)
	}
	if strings.TrimSpace(errText) != strings.TrimSpace(s.LastReload.Error) {
		t.Errorf("page error %q != /api/status error %q", errText, s.LastReload.Error)
	}

	// The gateway stops: the page says it is stale.
	if err := g.Stop(t); err != nil {
		t.Errorf("stop: %v", err)
	}
	// The banner shows after three refreshes without an answer (15 s).
	tb.WaitVisible("#stale", 90*time.Second, "wait for the stale banner")
	stale := tb.Text("#stale")
	tb.Screenshot("status-stale.png")
	if !strings.Contains(stale, "Stale") {
		t.Errorf("stale banner %q", stale)
	}
}

// TestStatusRefusesRebinding: a request for the status page naming a
// non-loopback Host while the admin listener is on loopback is refused,
// so a rebinding page cannot read it.
func TestStatusRefusesRebinding(t *testing.T) {
	t.Parallel()
	g := bins.Start(t, harness.Options{Config: harness.WriteConfig(t, bins.ExamplesYAML(t, ""))})
	for _, path := range []string{"/", "/api/status"} {
		req, _ := http.NewRequest("GET", g.AdminURL+path, nil)
		req.Host = "evil.example.com"
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("GET %s with Host evil.example.com: %s, want 403", path, resp.Status)
		}
	}
}
