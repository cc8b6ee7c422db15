package main

// The Grafana dashboard (examples/grafana/wasmgate.json) and the alert
// rules (configs/prometheus/alerts.yml) against a real Prometheus:
// Debian's prometheus scrapes a gateway under a little load (calls that
// succeed, fail, are denied by policy and rate-limited, a refused token, a
// reload, a relay page), then every panel query and template variable is
// evaluated through the HTTP API: each must parse and return data (the
// load touches every panel); every alert rule must load and evaluate
// without error. `make check-dashboard` runs this test alone.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/internal/oauthtest"
	"github.com/wasmgate/wasmgate/internal/relaytest"
)

const prometheusBin = "/usr/bin/prometheus"

// promQuery is the answer of /api/v1/query.
type promQuery struct {
	Status    string `json:"status"`
	ErrorType string `json:"errorType"`
	Error     string `json:"error"`
	Data      struct {
		Result []json.RawMessage `json:"result"`
	} `json:"data"`
}

func promGet(t *testing.T, base, path string, q url.Values, out any) error {
	t.Helper()
	resp, err := http.Get(base + path + "?" + q.Encode())
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s: %d %.300s", path, resp.StatusCode, b)
	}
	return nil
}

// dashboardQueries are the dashboard's PromQL queries by panel title, with
// Grafana's variables filled in; a template variable's label_values(X, l)
// becomes X.
func dashboardQueries(t *testing.T) map[string][]string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(harness.RepoRoot(), "examples", "grafana", "wasmgate.json"))
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Name       string `json:"name"`
				Definition string `json:"definition"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatal(err)
	}
	fill := strings.NewReplacer(`"$job"`, `"wasmgate"`, `"$instance"`, `".*"`, `"$source"`, `".*"`, `"$endpoint"`, `".*"`, "$__rate_interval", "1m", "$__interval", "15s")
	out := map[string][]string{}
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			out[p.Title] = append(out[p.Title], fill.Replace(tg.Expr))
		}
	}
	labelValues := regexp.MustCompile(`^label_values\((.*), *\w+\)$`)
	for _, v := range dash.Templating.List {
		if m := labelValues.FindStringSubmatch(v.Definition); m != nil {
			out["variable "+v.Name] = []string{fill.Replace(m[1])}
		}
	}
	// A variable fill does not know would leave "$name" in the query, which
	// Prometheus matches against no series at all.
	for title, exprs := range out {
		for _, q := range exprs {
			if strings.Contains(q, `"$`) {
				t.Errorf("%s: a dashboard variable is not filled in: %s", title, q)
			}
		}
	}
	return out
}

func TestDashboardQueries(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(prometheusBin); err != nil {
		t.Skipf("%s is missing (apt-get install -y prometheus; .ci/run installs it): the dashboard and alerts are not evaluated", prometheusBin)
	}
	const ciToken, aliceToken = "dashboard-ci-token-0123456789", "dashboard-alice-token-0123456789"
	// Upstreams reached as each caller: token exchange at a real provider
	// (tokens issued and refused), and one with user_oauth nobody has
	// connected (its calls answer the connect link).
	idp := oauthtest.StartProvider(t, oauthtest.ProviderOptions{})
	const upstreamAud = "https://tickets.example.test"
	who := oauthtest.StartWhoami(t, idp.JWKSURL, upstreamAud)
	publicURL := "http://" + harness.FreePort(t)
	cfg := bins.YAML(harness.Parts{Plugins: harness.ExamplePlugins(t), Server: "  public_url: " + publicURL + "\n", Sections: fmt.Sprintf(`auth:
  principals:
    - {name: ci, token_env: E2E_CI_TOKEN}
    - {name: alice, token_env: E2E_ALICE_TOKEN}
  jwt: {issuer: %[1]s, audience: %[2]s, jwks_url: %[3]s}
credentials: {key_env: VAULT_KEY}
upstreams:
  - name: tickets
    prefix: tickets
    url: %[4]s
    auth:
      token_exchange: {token_url: %[5]s, client_id: %[6]s, client_secret_env: IDP_SECRET, audience: %[7]s}
  - name: notes
    prefix: notes
    url: %[4]s
    auth:
      user_oauth: {authorization_url: %[1]s/authorize, token_url: %[5]s, client_id: notes}
`, idp.Issuer, identityAudience, idp.JWKSURL, who.URL, idp.TokenURL, oauthtest.ClientID, upstreamAud) + `policy:
  rules:
    - principals: [ci]
      allow: {tools: [calculate]}
      rate_limit: {rate: 20/s, burst: 5}
    - principals: [alice, mallory]
      allow: {tools: ["*"], resources: ["*"], prompts: ["*"]}
relay:
  sites:
    - {name: demo, token_env: RELAY_DEMO_TOKEN}
`})
	g := bins.Start(t, harness.Options{Config: harness.WriteConfig(t, cfg),
		Env: []string{"E2E_CI_TOKEN=" + ciToken, "E2E_ALICE_TOKEN=" + aliceToken, "RELAY_DEMO_TOKEN=" + relayToken,
			"IDP_SECRET=" + oauthtest.ClientSecret, "VAULT_KEY=" + testVaultKey}})

	// Prometheus, scraping the gateway every second, with the shipped rules.
	dir := t.TempDir()
	promAddr := harness.FreePort(t)
	admin := strings.TrimPrefix(g.AdminURL, "http://")
	harness.WriteFile(t, filepath.Join(dir, "prometheus.yml"), []byte(fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - %q
scrape_configs:
  - job_name: wasmgate
    static_configs:
      - targets: [%q]
`, filepath.Join(harness.RepoRoot(), "configs", "prometheus", "alerts.yml"), admin)))
	prom := exec.Command(prometheusBin, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+promAddr)
	var promLog strings.Builder
	prom.Stdout, prom.Stderr = &promLog, &promLog
	if err := prom.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		prom.Process.Signal(os.Interrupt)
		prom.Wait()
		if t.Failed() {
			t.Logf("prometheus:\n%s", promLog.String())
		}
	})
	base := "http://" + promAddr

	// The load: ok, isError, invalid arguments, denied, rate-limited calls;
	// a resource read and a prompt; a refused token; a reload; a relay
	// page with a call, a refused handshake and a rejected frame.
	ctx := harness.Ctx(t, 2*time.Minute)
	bearer := func(tok string) transport.StreamableHTTPCOption {
		return transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + tok})
	}
	ci, alice := g.Client(t, bearer(ciToken)), g.Client(t, bearer(aliceToken))
	jwtAlice := g.Client(t, bearer(idp.AccessToken(t, "alice", identityAudience)))
	mallory := g.Client(t, bearer(idp.AccessToken(t, "mallory", identityAudience))) // unknown to the provider: refused
	page := startGoPage(t, relayURL(g.MCPURL, "demo"), "demo", relayToken)
	page.register(map[string]any{"id": "r1", "tools": []any{relaytest.CalcTool()}})
	page.serve(func(map[string]any) string { return "8" })
	if c, _, err := relaytest.Dial(t, relayURL(g.MCPURL, "demo"), "http://127.0.0.1:3000"); err == nil {
		relaytest.Handshake(c, "demo", "not-the-relay-token-at-all")
		c.CloseNow()
	}
	_ = relaytest.Write(page.c, map[string]any{"type": "result", "id": "no-such-call", "result": map[string]any{"content": []any{}}})
	harness.PostInitialize(t, g.MCPURL, map[string]string{"Authorization": "Bearer wrong-token-0123456789"})
	g.MustReload(t, "POST /-/reload")
	deadline := time.Now().Add(8 * time.Second)
	for time.Now().Before(deadline) {
		for range 10 { // a burst: some are rate-limited
			harness.CallToolErr(ctx, ci, "calculate", map[string]any{"operation": "add", "a": 1, "b": 2})
		}
		harness.CallToolErr(ctx, ci, "say_hello", map[string]any{"name": "x"}) // denied
		harness.CallToolErr(ctx, alice, "calculate", map[string]any{"operation": "divide", "a": 1, "b": 0})
		harness.CallToolErr(ctx, alice, "calculate", map[string]any{"operation": "pow"})
		harness.CallToolErr(ctx, alice, "say_hello", map[string]any{"name": "Ada"})
		harness.CallToolErr(ctx, alice, "demo_calculate", map[string]any{"operation": "add", "a": 5, "b": 3})
		harness.ReadResourceErr(ctx, alice, "greeter://about")
		harness.GetPrompt(ctx, alice, "greeting_prompt", map[string]string{"name": "Ada"})
		harness.CallToolErr(ctx, jwtAlice, "tickets_whoami", nil) // a token exchanged (then cached)
		harness.CallToolErr(ctx, mallory, "tickets_whoami", nil)  // an exchange refused
		harness.CallToolErr(ctx, jwtAlice, "notes_whoami", nil)   // not connected
		time.Sleep(200 * time.Millisecond)
	}
	// Prometheus has scraped the load a few times.
	if !harness.WaitFor(30*time.Second, func() bool {
		var r promQuery
		err := promGet(t, base, "/api/v1/query", url.Values{"query": {`count_over_time(wasmgate_build_info{job="wasmgate"}[1m]) >= 5`}}, &r)
		return err == nil && len(r.Data.Result) > 0
	}) {
		t.Fatalf("prometheus at %s did not scrape the gateway at %s", base, admin)
	}

	queries := dashboardQueries(t)
	n := 0
	for title, exprs := range queries {
		for _, q := range exprs {
			n++
			var r promQuery
			if err := promGet(t, base, "/api/v1/query", url.Values{"query": {q}}, &r); err != nil {
				t.Errorf("%s: %v", title, err)
				continue
			}
			if r.Status != "success" {
				t.Errorf("%s: %s\n  %s: %s", title, q, r.ErrorType, r.Error)
				continue
			}
			if len(r.Data.Result) == 0 {
				t.Errorf("%s: no data under load:\n  %s", title, q)
			}
		}
	}
	if n < 30 {
		t.Errorf("only %d dashboard queries", n)
	}

	// Every alert rule loaded, and evaluates without error.
	var rules struct {
		Status string `json:"status"`
		Data   struct {
			Groups []struct {
				Rules []struct {
					Name      string `json:"name"`
					Query     string `json:"query"`
					Health    string `json:"health"`
					LastError string `json:"lastError"`
				} `json:"rules"`
			} `json:"groups"`
		} `json:"data"`
	}
	nRules := 0
	if !harness.WaitFor(10*time.Second, func() bool {
		nRules = 0
		if promGet(t, base, "/api/v1/rules", url.Values{}, &rules) != nil {
			return false
		}
		for _, gr := range rules.Data.Groups {
			for _, r := range gr.Rules {
				if r.Health != "ok" {
					return false
				}
				nRules++
			}
		}
		return nRules > 0
	}) {
		for _, gr := range rules.Data.Groups {
			for _, r := range gr.Rules {
				if r.Health != "ok" {
					t.Errorf("alert %s: health %q: %s\n  %s", r.Name, r.Health, r.LastError, r.Query)
				}
			}
		}
		if nRules == 0 {
			t.Errorf("prometheus loaded no alert rules")
		}
	}
	t.Logf("%d dashboard queries (%d panels and variables) and %d alert rules evaluated", n, len(queries), nRules)
}
