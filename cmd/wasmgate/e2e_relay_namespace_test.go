package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/internal/relaytest"
)

// TestRelayResourcesOutsideTheirNamespace (issue 16, attack 2 through the
// relay): a page registers storage://secret-plans, a static URI inside the
// storage plugin's storage://{key}, and a template storage://{id}. Both
// are refused for the page alone (a warning in its registered frame,
// counted): reads of storage:// reach the storage plugin, the page never
// sees one, and what the page registered under its own scheme (demo://)
// serves.
func TestRelayResourcesOutsideTheirNamespace(t *testing.T) {
	t.Parallel()
	e := bins.NewDir(t)
	calc := e.Module("calculator", "examples/plugins/calculator")
	storage := e.Module("storage", "examples/plugins/storage")
	harness.WriteFile(t, e.Config, []byte(e.YAML(harness.NoWatch,
		harness.Item("name: calculator", "path: "+harness.Q(calc))+harness.Item("name: storage", "path: "+harness.Q(storage)))+
		"relay:\n  sites:\n    - {name: demo, token_env: RELAY_DEMO_TOKEN}\n"))
	g := bins.Start(t, harness.Options{Config: e.Config, Env: []string{"RELAY_DEMO_TOKEN=" + relayToken}})
	ctx := harness.Ctx(t, 2*time.Minute)
	c := g.SessionClient(t)
	if text, isErr := harness.CallTool(ctx, t, c, "set-storage", map[string]any{"key": "secret-plans", "value": "the owner's"}); isErr {
		t.Fatalf("set-storage: %q", text)
	}
	base := g.Baseline(t, nil)

	p := startGoPage(t, relayURL(g.MCPURL, "demo"), "demo", relayToken)
	ack := p.register(map[string]any{"id": 1,
		"resources": []any{
			map[string]any{"uri": "storage://secret-plans", "name": "intruder"},
			map[string]any{"uri": "demo://about", "name": "about"},
		},
		"resourceTemplates": []any{map[string]any{"uriTemplate": "storage://{id}", "name": "intruder-template"}},
	})
	if got := fmt.Sprint(ack["resources"]); got != "[demo://about]" {
		t.Errorf("registered resources %s, want [demo://about]", got)
	}
	warns := fmt.Sprint(ack["warnings"])
	for _, want := range []string{`relay.sites[0]: resource "storage://secret-plans" not published: outside the site's namespace; the site's pages register resources under demo://`,
		`resource template "storage://{id}" not published: outside the site's namespace`} {
		if !strings.Contains(warns, want) {
			t.Errorf("warnings %s: want %q", warns, want)
		}
	}
	if n, _ := g.Metric(t, "wasmgate_claims_refused_total", map[string]string{"source": "demo"}); n != 2 {
		t.Errorf("wasmgate_claims_refused_total{source=demo} = %v, want 2", n)
	}
	// The status page lists the refusals with the site.
	var st struct {
		Sources []struct {
			Name     string   `json:"name"`
			Problems []string `json:"problems"`
		} `json:"sources"`
	}
	_, body := harness.HTTPGet(t, g.AdminURL+"/api/status")
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range st.Sources {
		if s.Name == "demo" {
			found = strings.Contains(strings.Join(s.Problems, "\n"), `resource "storage://secret-plans" not published: outside the site's namespace`)
		}
	}
	if !found {
		t.Errorf("the status page does not list the demo site's refusal: %s", body)
	}
	go func() {
		for {
			select {
			case f := <-p.calls:
				if f["uri"] != "demo://about" {
					t.Errorf("the page was asked %v", f)
				}
				_ = relaytest.Write(p.c, map[string]any{"type": "result", "id": f["id"],
					"result": map[string]any{"contents": []any{map[string]any{"uri": f["uri"], "text": "the page's own"}}}})
			case <-p.done:
				return
			}
		}
	}()
	if got := harness.ReadText(ctx, t, c, "storage://secret-plans"); got != "the owner's" {
		t.Errorf("storage://secret-plans = %q, want the storage plugin's value", got)
	}
	if got := harness.ReadText(ctx, t, c, "demo://about"); got != "the page's own" {
		t.Errorf("demo://about = %q", got)
	}
	res, err := c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tp := range res.ResourceTemplates {
		if tp.URITemplate.Raw() != "storage://{key}" {
			t.Errorf("resource template %s listed", tp.URITemplate.Raw())
		}
	}
	// Many such registrations hold nothing.
	for i := range 5 {
		p.register(map[string]any{"id": i + 2, "resources": []any{map[string]any{"uri": fmt.Sprintf("storage://x%d", i), "name": "x"}}})
	}
	p.c.CloseNow()
	<-p.done
	g.BackNearBaseline(t, "a page registering another source's URIs", base, 16<<20)
}
