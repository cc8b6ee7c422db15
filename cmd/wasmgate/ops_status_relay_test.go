package main

// The status page in headless Chromium with relay sites configured: every
// site is listed while no page is connected, with the last refusal (a
// wrong proof), then connected with its page's origin and since when;
// what is in force (authentication, policy) and the latency quantiles
// of the calls are shown, with plurals right.

import (
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/internal/relaytest"
)

func TestStatusPageRelaySites(t *testing.T) {
	t.Parallel()
	b := harness.StartBrowser(t)
	e := bins.NewDir(t)
	const ciToken = "status page e2e bearer token, long enough"
	harness.WriteFile(t, e.Config, relayConfig(t, e, `  sites:
    - {name: demo, token_env: RELAY_DEMO_TOKEN}
    - {name: other, token_env: RELAY_DEMO_TOKEN, prefix: o_}
auth:
  principals:
    - {name: ci, token_env: STATUS_CI_TOKEN}
policy:
  default: deny
  rules:
    - principals: [ci]
      allow: {tools: ["*"]}
`))
	g := bins.Start(t, harness.Options{Config: e.Config, Env: []string{"RELAY_DEMO_TOKEN=" + relayToken, "STATUS_CI_TOKEN=" + ciToken}})
	ctx := harness.Ctx(t, 3*time.Minute)
	c := g.SessionClient(t, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + ciToken}))
	for range 5 {
		harness.CalcTool(ctx, t, c, "calculate", 2, 3)
	}

	tb := b.Open(t, g.AdminURL+"/")
	tb.WaitVisible("#relay-sites", 30*time.Second, "the status page's relay sites table")
	// waitRow waits until the page (refreshing itself) shows site's
	// state ("connected" or "no page connected") and, in its row, every
	// one of want.
	waitRow := func(site, state string, want ...string) string {
		t.Helper()
		var row string
		sel := `tr.relay-site[data-name="` + site + `"]`
		if !harness.WaitFor(45*time.Second, func() bool {
			st, ok := tb.TryText(sel + " td.relay-state")
			if !ok || strings.TrimSpace(st) != state {
				return false
			}
			if row, ok = tb.TryText(sel); !ok {
				return false
			}
			cells := strings.SplitN(row, "\t", 3)
			if len(cells) < 2 || !strings.HasPrefix(strings.TrimSpace(cells[1]), state) {
				return false // the page refreshed in between
			}
			for _, w := range want {
				if !strings.Contains(row, w) {
					return false
				}
			}
			return true
		}) {
			tb.Screenshot("status-relay-timeout.png")
			t.Fatalf("site %s's row does not show %s and %q:\n%s", site, state, want, row)
		}
		return row
	}

	// read is tb.Text, retried while the page replaces its content.
	read := func(sel string) string {
		t.Helper()
		for range 20 {
			if s, ok := tb.TryText(sel); ok {
				return s
			}
			time.Sleep(100 * time.Millisecond)
		}
		return tb.Text(sel)
	}

	// No page: both sites are listed, not connected.
	waitRow("demo", "no page connected", "relay.sites[0]", "none")
	waitRow("other", "no page connected", "relay.sites[1]")
	inForce := read("#in-force")
	for _, want := range []string{"on: 1 principal (static tokens)", "on: 1 rule, default deny"} {
		if !strings.Contains(inForce, want) {
			t.Errorf("the in-force table does not say %q:\n%s", want, inForce)
		}
	}
	if h := read("h2:nth-of-type(2)"); !strings.Contains(h, "1 plugin (calculator), 1 tool, 0 resources") || !strings.Contains(h, "auth: 1 principal; policy: 1 rule, default deny; relay: 2 sites (demo, other)") {
		t.Errorf("the summary heading: %q", h)
	}
	calls := read("#calls")
	if !strings.Contains(calls, "calculate") || !strings.Contains(calls, " / ") {
		t.Errorf("the calls table has no quantiles for calculate:\n%s", calls)
	}
	s := apiStatus(t, g)
	if len(s.RelaySites) != 2 || s.RelaySites[0].Name != "demo" || s.RelaySites[0].Connected || s.RelaySites[1].Connected {
		t.Fatalf("/api/status relay_sites = %+v, want demo and other, not connected", s.RelaySites)
	}
	if a, p := s.InForce.Auth, s.InForce.Policy; !a.Enabled || a.Principals != 1 || !p.Enabled || p.Default != "deny" || p.Rules != 1 {
		t.Errorf("/api/status in_force = %+v", s.InForce)
	}
	for _, cs := range s.Calls {
		if cs.Name == "calculate" && (cs.P50MS <= 0 || cs.P99MS < cs.P50MS) {
			t.Errorf("/api/status calculate: p50 %v p95 %v p99 %v", cs.P50MS, cs.P95MS, cs.P99MS)
		}
	}
	tb.Screenshot("status-relay-disconnected.png")

	// A page that does not know the token: the site's last refusal.
	demoURL := relayURL(g.MCPURL, "demo")
	conn, _, err := relaytest.Dial(t, demoURL, "http://127.0.0.1:3000")
	if err != nil {
		t.Fatal(err)
	}
	hello, err := relaytest.Read(conn)
	if err != nil {
		t.Fatal(err)
	}
	if err := relaytest.Write(conn, relaytest.AuthFrame(hello, "demo", "not the token, but long enough too", relaytest.Nonce())); err != nil {
		t.Fatal(err)
	}
	relaytest.Closed(conn)
	row := waitRow("demo", "no page connected", "bad_proof", "http://127.0.0.1:3000")
	t.Logf("refused: %s", row)

	// The page connects: connected, its origin, since when.
	connected := time.Now()
	p := startGoPage(t, demoURL, "demo", relayToken)
	p.register(map[string]any{"tools": []any{relaytest.CalcTool()}})
	row = waitRow("demo", "connected", "http://127.0.0.1:3000", "bad_proof")
	t.Logf("connected: %s", row)
	waitRow("other", "no page connected")
	tb.Screenshot("status-relay-connected.png")
	s = apiStatus(t, g)
	d := s.RelaySites[0]
	if !d.Connected || d.Origin != "http://127.0.0.1:3000" || d.Since.Before(connected.Add(-time.Second)) || d.LastRefusal == nil || d.LastRefusal.Outcome != "bad_proof" {
		t.Errorf("/api/status demo after connecting: %+v", d)
	}
	if len(s.Sections) != 0 {
		t.Logf("sections: %+v", s.Sections)
	}
}
