package main

// List caching (issue 45, SEP-2549) end to end with the built binary:
// a 2026-07-28 client's list results carry ttlMs (the smallest of the
// endpoint's lists.ttl and the hints of the sources in the list) and
// cacheScope (private when the list was filtered for its caller, or a
// source said private); a 2025-11-25 session's lists carry neither.

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/internal/mcphttp"
)

// listHints is a list result's caching hints and entry names.
type listHints struct {
	TTL   *int64 // nil: no ttlMs
	Scope string
	Names []string
}

// statelessList posts a 2026-07-28 list request (method) to u and
// returns its hints and names.
func statelessList(t *testing.T, u, method string) listHints {
	t.Helper()
	code, body := harness.PostStateless(t, u, map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": map[string]any{}}, method, "")
	if code != http.StatusOK {
		t.Fatalf("%s at %s: %d %.300s", method, u, code, body)
	}
	return parseList(t, method, body)
}

// parseList reads the hints and the names of a list response.
func parseList(t *testing.T, method, body string) listHints {
	t.Helper()
	var resp struct {
		Result map[string]json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal([]byte(body), &resp); err != nil || resp.Result == nil {
		t.Fatalf("%s: not a result: %.300s", method, body)
	}
	var h listHints
	if raw, ok := resp.Result["ttlMs"]; ok {
		var n int64
		if err := json.Unmarshal(raw, &n); err != nil {
			t.Fatalf("%s: ttlMs %s: %v", method, raw, err)
		}
		h.TTL = &n
	}
	if raw, ok := resp.Result["cacheScope"]; ok {
		_ = json.Unmarshal(raw, &h.Scope)
	}
	field := map[string]string{"tools/list": "tools", "prompts/list": "prompts", "resources/list": "resources",
		"resources/templates/list": "resourceTemplates"}[method]
	var entries []struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(resp.Result[field], &entries); err != nil {
		t.Fatalf("%s: %s: %v in %.300s", method, field, err, body)
	}
	for _, e := range entries {
		h.Names = append(h.Names, e.Name)
	}
	return h
}

// wantHints checks h against ttl (ms) and scope.
func wantHints(t *testing.T, where string, h listHints, ttl int64, scope string) {
	t.Helper()
	if h.TTL == nil || *h.TTL != ttl || h.Scope != scope {
		got := "no ttlMs"
		if h.TTL != nil {
			got = "ttlMs " + listJSON(*h.TTL)
		}
		t.Errorf("%s: %s, cacheScope %q (names %v); want ttlMs %d, cacheScope %q", where, got, h.Scope, h.Names, ttl, scope)
	}
}

func listJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

// TestListCacheHints: without a policy, a list of the example plugins
// is public with the endpoint's lists.ttl; an upstream's smaller ttl is
// honoured and its private kept, its longer ttl never raises the
// gateway's, and a list mixing it with a plugin takes its hints; a
// 2025-11-25 session gets no hints. With a policy that filters the
// caller's tools, the list is private.
func TestListCacheHints(t *testing.T) {
	t.Parallel()
	hinted := bins.GoFixture(t, "testdata/upstreams/cachehints")
	upstream := "upstreams:\n  - name: hinted\n    command: [" + harness.Q(hinted) + "]\n    prefix: hinted\n"

	t.Run("unfiltered", func(t *testing.T) {
		t.Parallel()
		sections := upstream + `lists: {ttl: 30s}
endpoints:
  - name: plain
    path: /mcp/plain
    sources: [calculator, greeter]
  - name: hinted
    path: /mcp/hinted
    sources: [hinted]
    lists: {ttl: 45s}
  - name: mixed
    path: /mcp/mixed
    sources: [calculator, hinted]
  - name: restricted
    path: /mcp/restricted
    sources: [calculator]
    access: {principals: [anonymous]}
`
		g := bins.Start(t, harness.Options{Config: harness.WriteConfig(t, epYAML(t, "", sections))})
		plain, hint, mixed := epURL(t, g, "/mcp/plain"), epURL(t, g, "/mcp/hinted"), epURL(t, g, "/mcp/mixed")

		wantHints(t, "plain tools/list", statelessList(t, plain, "tools/list"), 30000, "public")
		wantHints(t, "plain prompts/list", statelessList(t, plain, "prompts/list"), 30000, "public")
		wantHints(t, "plain resources/list", statelessList(t, plain, "resources/list"), 30000, "public")

		// The upstream's hints: tools 5 s private, prompts 2 h public,
		// resources 3 s public; the endpoint's ceiling is 45 s.
		tools := statelessList(t, hint, "tools/list")
		if strings.Join(tools.Names, ",") != "hinted_echo" {
			t.Fatalf("hinted tools/list = %v, want [hinted_echo]", tools.Names)
		}
		wantHints(t, "hinted tools/list (upstream: 5000 private)", tools, 5000, "private")
		wantHints(t, "hinted prompts/list (upstream: 2h public)", statelessList(t, hint, "prompts/list"), 45000, "public")
		wantHints(t, "hinted resources/list (upstream: 3000 public)", statelessList(t, hint, "resources/list"), 3000, "public")

		// A list with a plugin's tools and the upstream's takes the
		// smaller ttl and the private scope; its prompts are only the
		// upstream's (the calculator has none).
		mt := statelessList(t, mixed, "tools/list")
		if len(mt.Names) != 2 {
			t.Fatalf("mixed tools/list = %v, want calculate and hinted_echo", mt.Names)
		}
		wantHints(t, "mixed tools/list", mt, 5000, "private")

		// An endpoint open only to some is private, even unfiltered.
		wantHints(t, "restricted tools/list (access)", statelessList(t, epURL(t, g, "/mcp/restricted"), "tools/list"), 30000, "private")

		// The 2025-11-25 era has no such fields.
		s := harness.OpenSession(t, plain)
		resp := harness.Send(t, s, http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, nil)
		raw, _ := listReadAll(resp)
		msg, err := mcphttp.Response(resp.Header.Get("Content-Type"), raw)
		if err != nil {
			t.Fatalf("tools/list in a session: %v: %s", err, raw)
		}
		if h := parseList(t, "tools/list", string(msg)); h.TTL != nil || h.Scope != "" || len(h.Names) != 2 {
			t.Errorf("a 2025-11-25 session's tools/list: ttlMs %v, cacheScope %q, names %v; want no hints and [calculate say_hello]", h.TTL, h.Scope, h.Names)
		}
	})

	t.Run("filtered", func(t *testing.T) {
		t.Parallel()
		sections := `policy:
  default: allow
  rules:
    - principals: ["*"]
      deny: {tools: [say_hello]}
`
		cfg := harness.WriteConfig(t, epYAML(t, "", sections))
		g := bins.Start(t, harness.Options{Config: cfg})
		tools := statelessList(t, g.MCPURL, "tools/list")
		if strings.Contains(strings.Join(tools.Names, ","), "say_hello") {
			t.Fatalf("tools/list = %v: say_hello is denied by policy", tools.Names)
		}
		wantHints(t, "tools/list filtered by policy (default lists.ttl)", tools, time.Minute.Milliseconds(), "private")
		wantHints(t, "prompts/list with a policy", statelessList(t, g.MCPURL, "prompts/list"), time.Minute.Milliseconds(), "private")
		tpl := statelessList(t, g.MCPURL, "resources/templates/list")
		if len(tpl.Names) != 1 {
			t.Errorf("resources/templates/list = %v, want the storage plugin's template", tpl.Names)
		}
		wantHints(t, "resources/templates/list with a policy", tpl, time.Minute.Milliseconds(), "private")

		// A bad lists.ttl is refused, naming the key, and changes
		// nothing; a good one applies on the next list.
		before := g.ReloadCount(t)
		offset := len(g.Stderr())
		harness.RenameOver(t, cfg, []byte(epYAML(t, "", sections+"lists: {ttl: -5s}\n")))
		if _, failure := g.WaitReload(t, before, "lists.ttl -5s"); failure < 1 {
			t.Fatalf("a reload with lists.ttl -5s succeeded")
		}
		if _, ok := g.WaitLog(offset, "lists.ttl: -5s is out of range", 10*time.Second); !ok {
			t.Errorf("the refused reload's log does not name lists.ttl:\n%s", g.StderrSince(offset))
		}
		after := statelessList(t, g.MCPURL, "tools/list")
		wantHints(t, "tools/list after the refused reload", after, time.Minute.Milliseconds(), "private")
		if strings.Join(after.Names, ",") != strings.Join(tools.Names, ",") {
			t.Errorf("tools/list after the refused reload = %v, want %v as before", after.Names, tools.Names)
		}
		before = g.ReloadCount(t)
		harness.RenameOver(t, cfg, []byte(epYAML(t, "", sections+"lists: {ttl: 10s}\n")))
		if success, _ := g.WaitReload(t, before, "lists.ttl 10s"); g.LastReloadOK(t) != 1 {
			t.Fatalf("the reload with lists.ttl 10s failed (successes %v):\n%s", success, g.StderrSince(offset))
		}
		wantHints(t, "tools/list after lists.ttl: 10s", statelessList(t, g.MCPURL, "tools/list"), 10000, "private")
	})
}

// listReadAll reads and closes resp's body.
func listReadAll(resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}
