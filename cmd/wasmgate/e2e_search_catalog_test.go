package main

// The tool-search catalog (issue 41): real MCP servers nobody here wrote,
// installed from the npm registry (tests/node, `make node-deps`), and the
// example plugins, served by one gateway. gateway/search/testdata holds
// what they list (catalog.json) and natural-language requests written for
// it (queries.json); TestSearchCatalog checks both against the servers.
//
// To regenerate catalog.json after a server's version changes in
// tests/node/package.json:
//
//	WASMGATE_WRITE_CATALOG=1 go test -race -count=1 -run TestSearchCatalog ./cmd/wasmgate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/gateway/search"
	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/internal/mcphttp"
)

// catalogSource is one source of the search catalog: a plugin (Plugin,
// the module relative to the repository, without .wasm) or an npm MCP
// server run by node (Script, its entry point relative to
// tests/node/node_modules, with Args and Env).
type catalogSource struct {
	Name   string
	Prefix string // upstreams only: the exposed names are Prefix_<tool>
	Plugin string
	Script string
	Args   []string
	Env    map[string]string
}

// searchCatalogSources are the catalog's sources in config order. The
// credentials are fake: these servers want one set to start, and list
// their tools without using it.
//
// server-postgres and server-puppeteer (installed in tests/node) are not
// in it: the gateway refuses to load either today. postgres declares
// resources and its resources/list fails without a live database;
// puppeteer declares resources but answers resources/templates/list with
// "method not found".
func searchCatalogSources(dir string) []catalogSource {
	mcpPkg := func(name string) string {
		return "@modelcontextprotocol/server-" + name + "/dist/index.js"
	}
	return []catalogSource{
		{Name: "calculator", Plugin: "examples/plugins/calculator"},
		{Name: "greeter", Plugin: "examples/plugins/greeter"},
		{Name: "storage", Plugin: "examples/plugins/storage"},
		{Name: "shout_v1", Plugin: "examples/plugins/shout_v1"},
		{Name: "everything", Prefix: "everything", Script: mcpPkg("everything"), Args: []string{"stdio"}},
		{Name: "filesystem", Prefix: "files", Script: mcpPkg("filesystem"), Args: []string{filepath.Join(dir, "files")}},
		{Name: "memory", Prefix: "memory", Script: mcpPkg("memory"),
			Env: map[string]string{"MEMORY_FILE_PATH": filepath.Join(dir, "memory.jsonl")}},
		{Name: "sequential-thinking", Prefix: "thinking", Script: mcpPkg("sequential-thinking"),
			Env: map[string]string{"DISABLE_THOUGHT_LOGGING": "true"}},
		{Name: "github", Prefix: "github", Script: mcpPkg("github"),
			Env: map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "fake-github-token"}},
		{Name: "gitlab", Prefix: "gitlab", Script: mcpPkg("gitlab"),
			Env: map[string]string{"GITLAB_PERSONAL_ACCESS_TOKEN": "fake-gitlab-token"}},
		{Name: "google-maps", Prefix: "maps", Script: mcpPkg("google-maps"),
			Env: map[string]string{"GOOGLE_MAPS_API_KEY": "fake-maps-key"}},
		{Name: "brave-search", Prefix: "brave", Script: mcpPkg("brave-search"),
			Env: map[string]string{"BRAVE_API_KEY": "fake-brave-key"}},
		{Name: "slack", Prefix: "slack", Script: mcpPkg("slack"),
			Env: map[string]string{"SLACK_BOT_TOKEN": "fake-slack-token", "SLACK_TEAM_ID": "T00000000"}},
		{Name: "notion", Prefix: "notion", Script: "@notionhq/notion-mcp-server/bin/cli.mjs"},
		{Name: "sentry", Prefix: "sentry", Script: "@sentry/mcp-server/dist/index.js",
			Env: map[string]string{"SENTRY_ACCESS_TOKEN": "fake-sentry-token"}},
		{Name: "playwright", Prefix: "playwright", Script: "@playwright/mcp/cli.js",
			Args: []string{"--headless", "--isolated", "--output-dir", filepath.Join(dir, "playwright")}},
	}
}

// searchCatalog is the plugins: and upstreams: sections (top-level YAML)
// of a gateway serving the whole catalog, for a test's gateway.yaml. It
// fails the test when node, the npm servers or the plugins are missing
// (`make node-deps plugins`; make test runs both).
func searchCatalog(t *testing.T) (yaml string) {
	t.Helper()
	p := searchCatalogParts(t)
	return "plugins:\n" + p.Plugins + p.Sections
}

// searchCatalogParts is searchCatalog as harness.Parts (Plugins and the
// upstreams: section in Sections), for bins.YAML.
func searchCatalogParts(t *testing.T) harness.Parts {
	t.Helper()
	node := harness.Node(t)
	modules := harness.NodeModules()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "files"), 0o755); err != nil {
		t.Fatal(err)
	}
	var plugins, upstreams strings.Builder
	for _, s := range searchCatalogSources(dir) {
		if s.Plugin != "" {
			fmt.Fprintf(&plugins, "  - name: %s\n    path: %q\n", s.Name, harness.Wasm(t, s.Plugin))
			continue
		}
		script := filepath.Join(modules, s.Script)
		if _, err := os.Stat(script); err != nil {
			t.Fatalf("upstream %s is not installed: run `make node-deps` (make test does): %v", s.Name, err)
		}
		cmd := []string{fmt.Sprintf("%q", node), fmt.Sprintf("%q", script)}
		for _, a := range s.Args {
			cmd = append(cmd, fmt.Sprintf("%q", a))
		}
		fmt.Fprintf(&upstreams, "  - name: %s\n    command: [%s]\n    prefix: %s\n", s.Name, strings.Join(cmd, ", "), s.Prefix)
		if len(s.Env) > 0 {
			var kv []string
			for _, k := range slices.Sorted(maps.Keys(s.Env)) {
				kv = append(kv, fmt.Sprintf("%s: %q", k, s.Env[k]))
			}
			fmt.Fprintf(&upstreams, "    env: {%s}\n", strings.Join(kv, ", "))
		}
		// A dozen node processes start at once on a loaded machine.
		upstreams.WriteString("    limits: {timeout: 60s, start_timeout: 120s}\n")
	}
	return harness.Parts{Plugins: plugins.String(), Sections: "upstreams:\n" + upstreams.String()}
}

// searchCatalogFile is gateway/search/testdata/catalog.json: each source's
// tools as the gateway lists them (exposed names), sources in config
// order, tools sorted by name.
type searchCatalogFile struct {
	Sources []searchCatalogFileSource `json:"sources"`
}

type searchCatalogFileSource struct {
	Name  string            `json:"name"`
	Tools []json.RawMessage `json:"tools"`
}

// searchQuery is one entry of gateway/search/testdata/queries.json.
type searchQuery struct {
	Query string `json:"query"`
	Tool  string `json:"tool"`
}

const minCatalogTools = 150

// regenerateCatalog is the command that writes catalog.json anew.
const regenerateCatalog = "WASMGATE_WRITE_CATALOG=1 go test -race -count=1 -run TestSearchCatalog ./cmd/wasmgate"

// TestSearchCatalog runs the gateway with the whole catalog and checks
// that it lists at least 150 tools, that they are the tools of
// gateway/search/testdata/catalog.json (source by source, by name and
// definition), and that every request of queries.json names one of them.
// With WASMGATE_WRITE_CATALOG=1 it writes catalog.json from the live
// listing instead of comparing.
func TestSearchCatalog(t *testing.T) {
	t.Parallel()
	parts := searchCatalogParts(t)
	sources := searchCatalogSources("")
	// One endpoint with everything at the usual path, and one per source,
	// so the listing says which source each tool is of.
	var eps strings.Builder
	eps.WriteString("endpoints:\n  - name: all\n    path: /mcp\n")
	eps.WriteString("  - name: search\n    path: /mcp/search\n    discovery: {mode: search}\n")
	for _, s := range sources {
		fmt.Fprintf(&eps, "  - name: src-%s\n    path: /mcp/src/%s\n    sources: [%s]\n", s.Name, s.Name, s.Name)
	}
	parts.Sections += eps.String()
	cfg := harness.WriteConfig(t, bins.YAML(parts))

	start := time.Now()
	g := bins.Start(t, harness.Options{Config: cfg})
	t.Logf("gateway with %d sources ready in %v", len(sources), time.Since(start).Round(time.Millisecond))
	ctx := harness.Ctx(t, 3*time.Minute)

	// The whole catalog through mcp-go's client.
	c := g.SessionClient(t)
	var live []string
	var cursor mcp.Cursor
	for {
		req := mcp.ListToolsRequest{}
		req.Params.Cursor = cursor
		res, err := c.ListTools(ctx, req)
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		for _, tl := range res.Tools {
			live = append(live, tl.Name)
		}
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	sort.Strings(live)
	if d := dupes(live); len(d) > 0 {
		t.Fatalf("tools/list names %v more than once", d)
	}
	if len(live) < minCatalogTools {
		t.Fatalf("the catalog lists %d tools, want at least %d: %v", len(live), minCatalogTools, live)
	}

	// Each source's tools, as the gateway lists them.
	base := strings.TrimSuffix(g.MCPURL, "/mcp")
	var file searchCatalogFile
	var bySource []string
	counts := map[string]int{}
	for _, s := range sources {
		tools := listRawTools(ctx, t, base+"/mcp/src/"+s.Name)
		if len(tools) == 0 {
			t.Errorf("source %s lists no tools", s.Name)
		}
		counts[s.Name] = len(tools)
		for _, tl := range tools {
			bySource = append(bySource, toolName(t, tl))
		}
		file.Sources = append(file.Sources, searchCatalogFileSource{Name: s.Name, Tools: tools})
	}
	sort.Strings(bySource)
	if !slices.Equal(bySource, live) {
		t.Fatalf("the sources' endpoints list %d tools, the whole catalog %d:\n%v\n%v", len(bySource), len(live), bySource, live)
	}
	var summary []string
	for _, s := range sources {
		summary = append(summary, fmt.Sprintf("%s %d", s.Name, counts[s.Name]))
	}
	t.Logf("%d tools: %s", len(live), strings.Join(summary, ", "))

	path := filepath.Join(harness.RepoRoot(), "gateway", "search", "testdata", "catalog.json")
	if os.Getenv("WASMGATE_WRITE_CATALOG") == "1" {
		data, err := json.MarshalIndent(file, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", path)
	} else {
		committed := readSearchCatalog(t, path)
		for i, s := range file.Sources {
			var want []string
			if i < len(committed.Sources) && committed.Sources[i].Name == s.Name {
				for _, tl := range committed.Sources[i].Tools {
					want = append(want, toolName(t, tl))
				}
			}
			var got []string
			for _, tl := range s.Tools {
				got = append(got, toolName(t, tl))
			}
			if !slices.Equal(got, want) {
				t.Errorf("source %s lists %v,\n%s has %v;\nregenerate it: %s", s.Name, got, path, want, regenerateCatalog)
				continue
			}
			// Same names: the definitions (descriptions, schemas) too.
			for j, tl := range s.Tools {
				var buf bytes.Buffer
				if err := json.Compact(&buf, committed.Sources[i].Tools[j]); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(buf.Bytes(), tl) {
					t.Errorf("tool %s is listed as\n%s\n%s has\n%s\nregenerate it: %s", got[j], tl, path, buf.Bytes(), regenerateCatalog)
				}
			}
		}
		if len(committed.Sources) != len(file.Sources) {
			t.Errorf("%s has %d sources, the catalog %d; regenerate it: %s", path, len(committed.Sources), len(file.Sources), regenerateCatalog)
		}
	}

	// Every request names a tool the catalog lists.
	queries := readSearchQueries(t, filepath.Join(harness.RepoRoot(), "gateway", "search", "testdata", "queries.json"))
	for _, q := range queries {
		if !slices.Contains(live, q.Tool) {
			t.Errorf("queries.json: %q wants %q, which the catalog does not list", q.Query, q.Tool)
		}
	}
	checkCatalogSearch(ctx, t, g, base, file, queries)
}

// checkCatalogSearch checks the search endpoint of TestSearchCatalog's
// gateway over the real catalog: its tools/list is at least 10x smaller
// than the whole catalog's; every request finds, over HTTP, exactly what
// the search package finds in-process over catalog.json (the gateway
// adds scoping, never another order); mcp-go's client finds a tool of a
// real npm server and calls it by name and through call_tool in both
// protocol eras, and the TypeScript SDK does too in its session.
func checkCatalogSearch(ctx context.Context, t *testing.T, g *harness.Gateway, base string, file searchCatalogFile, queries []searchQuery) {
	t.Helper()
	all, searched := listBytes(ctx, t, base+"/mcp"), listBytes(ctx, t, base+"/mcp/search")
	t.Logf("tools/list: mode all %d bytes (~%d tokens), mode search %d bytes (~%d tokens): %.0fx smaller",
		all, all/4, searched, searched/4, float64(all)/float64(searched))
	if searched*10 > all {
		t.Errorf("tools/list of the search endpoint is %d bytes, the whole catalog's %d: want at least 10x smaller", searched, all)
	}

	var docs []search.Doc
	for _, src := range file.Sources {
		for _, raw := range src.Tools {
			var tl mcp.Tool
			if err := json.Unmarshal(raw, &tl); err != nil {
				t.Fatal(err)
			}
			docs = append(docs, search.DocOf(src.Name, tl))
		}
	}
	x := search.Build(docs)
	c, _ := harness.HTTPClient(t, base+"/mcp/search", harness.ProtoStateless)
	in5, first := 0, 0
	for _, q := range queries {
		got := foundTools(ctx, t, c, q.Query, 5)
		var want []string
		for _, h := range x.Search(q.Query, 5, nil) {
			want = append(want, x.Doc(h.Doc).Name)
		}
		if !slices.Equal(got, want) {
			t.Errorf("find_tools(%q) over HTTP = %v; in-process over catalog.json = %v", q.Query, got, want)
		}
		if i := slices.Index(got, q.Tool); i >= 0 {
			in5++
			if i == 0 {
				first++
			}
		}
	}
	n := float64(len(queries))
	t.Logf("over HTTP, %d requests: recall@5 %.3f, top-1 %.3f", len(queries), float64(in5)/n, float64(first)/n)

	// A real npm server's tool, found and called both ways.
	const query, want = "read the entire knowledge graph", "memory_read_graph"
	for _, era := range []string{harness.ProtoSessions, harness.ProtoStateless} {
		c, _ := harness.HTTPClient(t, base+"/mcp/search", era)
		if got := foundTools(ctx, t, c, query, 0); len(got) == 0 || got[0] != want {
			t.Errorf("%s: find_tools(%q) = %v, want %s first", era, query, got, want)
			continue
		}
		for _, call := range []struct {
			name string
			args map[string]any
		}{{want, map[string]any{}}, {"call_tool", map[string]any{"name": want, "arguments": map[string]any{}}}} {
			if text, isErr := harness.CallTool(ctx, t, c, call.name, call.args); isErr || !strings.Contains(text, "entities") {
				t.Errorf("%s: %s: %q (isError %v), want the graph's JSON", era, call.name, text, isErr)
			}
		}
	}
	r := runSearchClient(t, base+"/mcp/search", query, map[string]any{})
	checkSearchRun(t, r, []string{"call_tool", "find_tools"}, want, "entities")
}

// listBytes is the size of the tools/list result of the endpoint at url
// (every page), as sent.
func listBytes(ctx context.Context, t *testing.T, url string) int {
	t.Helper()
	n := 0
	for _, tl := range listRawTools(ctx, t, url) {
		n += len(tl)
	}
	return n
}

// listRawTools lists the tools of the endpoint at url (every page) as the
// JSON objects it sends, sorted by name.
func listRawTools(ctx context.Context, t *testing.T, url string) []json.RawMessage {
	t.Helper()
	s, err := mcphttp.Initialize(ctx, url, mcphttp.Options{ProtocolVersion: harness.ProtoSessions, ClientName: "catalog"})
	if err != nil {
		t.Fatalf("initialize %s: %v", url, err)
	}
	defer s.Close(context.WithoutCancel(ctx))
	if err := s.Notify(ctx, "notifications/initialized", nil); err != nil {
		t.Fatalf("notifications/initialized %s: %v", url, err)
	}
	var tools []json.RawMessage
	cursor := ""
	for {
		var params any
		if cursor != "" {
			params = map[string]string{"cursor": cursor}
		}
		raw, err := s.Call(ctx, "tools/list", params)
		if err != nil {
			t.Fatalf("tools/list %s: %v", url, err)
		}
		var page struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			t.Fatalf("tools/list %s: %v", url, err)
		}
		for _, tl := range page.Tools {
			var buf bytes.Buffer
			if err := json.Compact(&buf, tl); err != nil {
				t.Fatal(err)
			}
			tools = append(tools, buf.Bytes())
		}
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	slices.SortFunc(tools, func(a, b json.RawMessage) int { return strings.Compare(toolName(t, a), toolName(t, b)) })
	return tools
}

func toolName(t *testing.T, tool json.RawMessage) string {
	t.Helper()
	var v struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(tool, &v); err != nil || v.Name == "" {
		t.Fatalf("a tool without a name: %s (%v)", tool, err)
	}
	return v.Name
}

func dupes(sorted []string) []string {
	var d []string
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] && !slices.Contains(d, sorted[i]) {
			d = append(d, sorted[i])
		}
	}
	return d
}

func readSearchCatalog(t *testing.T, path string) searchCatalogFile {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v; generate it: %s", err, regenerateCatalog)
	}
	var f searchCatalogFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return f
}

func readSearchQueries(t *testing.T, path string) []searchQuery {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var qs []searchQuery
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&qs); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(qs) == 0 {
		t.Fatalf("%s has no requests", path)
	}
	for i, q := range qs {
		if strings.TrimSpace(q.Query) == "" || q.Tool == "" {
			t.Errorf("%s: entry %d has no query or no tool: %+v", path, i, q)
		}
	}
	return qs
}

// TestUpstreamOptionalListsFail: two npm servers that announce resources
// but cannot list them (server-postgres's resources/list needs a live
// database; server-puppeteer answers resources/templates/list "method
// not found") are served with their tools; what they could not list is
// a warning naming the upstream and the list, not a refused config.
func TestUpstreamOptionalListsFail(t *testing.T) {
	t.Parallel()
	node := harness.Node(t)
	modules := filepath.Join(harness.NodeModules(), "@modelcontextprotocol")
	up := fmt.Sprintf(`upstreams:
  - name: postgres
    command: [%q, %q, "postgresql://nobody@127.0.0.1:1/none"]
    prefix: pg
    limits: {timeout: 60s, start_timeout: 120s}
  - name: puppeteer
    command: [%q, %q]
    prefix: pup
    env: {PUPPETEER_SKIP_DOWNLOAD: "1"}
    limits: {timeout: 60s, start_timeout: 120s}
`, node, filepath.Join(modules, "server-postgres", "dist", "index.js"), node, filepath.Join(modules, "server-puppeteer", "dist", "index.js"))
	g := bins.Start(t, harness.Options{Config: harness.WriteConfig(t, bins.YAML(harness.Parts{Sections: up}))})
	ctx := harness.Ctx(t, time.Minute)
	tools := harness.Tools(ctx, t, g.SessionClient(t))
	for _, want := range []string{"pg_query", "pup_puppeteer_navigate", "pup_puppeteer_screenshot"} {
		if !slices.Contains(tools, want) {
			t.Errorf("tools/list %v lacks %s", tools, want)
		}
	}
	for _, want := range []string{`no resources served: resources/list`, `no resource templates served: resources/templates/list`} {
		if !strings.Contains(g.Stderr(), want) {
			t.Errorf("the log does not warn %q:\n%s", want, g.Stderr())
		}
	}
}
