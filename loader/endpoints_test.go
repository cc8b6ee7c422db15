package loader

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestEndpointsDefaults: an endpoint that gives only its name is served
// at /mcp/<name> with every tool, resource and prompt of every source;
// the section is what EndpointList returns, in order, and stdio serves
// the first endpoint unless transports.stdio.endpoint says otherwise.
func TestEndpointsDefaults(t *testing.T) {
	p := writeFiles(t, `
plugins:
  - path: calc.wasm
  - path: files.wasm
endpoints:
  - name: dev
  - name: support
    path: /support
    title: Support desk
    instructions: Tickets only.
    sources: [files]
    tools: {exclude: ["*delete*"]}
    resources: {include: ["file:///tickets/*"]}
    prompts: {include: []}
    access: {principals: [local]}
`, "calc.wasm", "files.wasm")
	cfg, err := Load(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	list := cfg.EndpointList()
	if len(list) != 2 {
		t.Fatalf("EndpointList = %d endpoints, want the section's 2", len(list))
	}
	dev, sup := list[0], list[1]
	if dev.Name != "dev" || dev.Path != "/mcp/dev" || dev.Key != "endpoints[0]" {
		t.Errorf("dev = name %q, path %q, key %q; want dev, /mcp/dev, endpoints[0]", dev.Name, dev.Path, dev.Key)
	}
	for _, s := range []Selection{dev.Tools, dev.Resources, dev.Prompts, sup.Tools} {
		if !reflect.DeepEqual(s.Include, []string{"*"}) {
			t.Errorf("include = %q, want the default [*]", s.Include)
		}
	}
	if !dev.Access.Open() || sup.Access.Open() {
		t.Errorf("Access.Open: dev %v, support %v; want true, false", dev.Access.Open(), sup.Access.Open())
	}
	if sup.Path != "/support" || sup.Title != "Support desk" || sup.Instructions != "Tickets only." || sup.Key != "endpoints[1]" {
		t.Errorf("support = %+v", sup)
	}
	if len(sup.Prompts.Include) != 0 || sup.Prompts.Match("greet") {
		t.Errorf("prompts: {include: []} = %q, matches greet: %v; want no prompt at all", sup.Prompts.Include, sup.Prompts.Match("greet"))
	}
	for name, want := range map[string]bool{"calc": true, "files": true, "other": true} {
		if got := dev.SourceMatch(name); got != want {
			t.Errorf("dev.SourceMatch(%q) = %v, want %v (no sources: every source)", name, got, want)
		}
	}
	for name, want := range map[string]bool{"calc": false, "files": true, "files2": false} {
		if got := sup.SourceMatch(name); got != want {
			t.Errorf("support.SourceMatch(%q) = %v, want %v", name, got, want)
		}
	}
	if got := cfg.StdioEndpoint(); got != "dev" {
		t.Errorf("StdioEndpoint = %q, want the first endpoint, dev", got)
	}
}

// TestEndpointListWithoutSection: without endpoints there is one
// endpoint, default, at transports.http.path, with everything.
func TestEndpointListWithoutSection(t *testing.T) {
	cfg, err := Load(writeFiles(t, "transports: {http: {path: /rpc}}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	list := cfg.EndpointList()
	if len(list) != 1 {
		t.Fatalf("EndpointList = %+v, want one endpoint", list)
	}
	e := list[0]
	if e.Name != DefaultEndpoint || e.Path != "/rpc" || e.Key != "transports.http.path" || !e.Access.Open() || len(e.Sources) != 0 {
		t.Errorf("default endpoint = %+v", e)
	}
	for _, name := range []string{"calc_add", "a/b", "storage://{key}", "file:///x/y", ""} {
		if !e.Tools.Match(name) || !e.Resources.Match(name) || !e.Prompts.Match(name) || !e.SourceMatch(name) {
			t.Errorf("the default endpoint does not select %q", name)
		}
	}
	if got := cfg.StdioEndpoint(); got != DefaultEndpoint {
		t.Errorf("StdioEndpoint = %q, want %q", got, DefaultEndpoint)
	}
	cfg, err = Load(writeFiles(t, "transports: {stdio: {endpoint: default}}\n"), nil)
	if err != nil {
		t.Fatalf("transports.stdio.endpoint: default without endpoints: %v", err)
	}
	if got := cfg.StdioEndpoint(); got != DefaultEndpoint {
		t.Errorf("StdioEndpoint = %q, want %q", got, DefaultEndpoint)
	}
}

// TestStdioEndpoint: transports.stdio.endpoint picks any endpoint.
func TestStdioEndpoint(t *testing.T) {
	cfg, err := Load(writeFiles(t, `
transports: {stdio: {enabled: true, endpoint: agent-x}}
endpoints: [{name: dev}, {name: agent-x, path: /agent}]
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.StdioEndpoint(); got != "agent-x" {
		t.Errorf("StdioEndpoint = %q, want agent-x", got)
	}
}

// TestSelectionMatch: one pattern language for tools, prompts, resource
// URIs and templates ('*' crosses '/', '?' is one character, '\' quotes);
// an exclude wins over an include; a Selection built by hand matches as
// the loaded one does.
func TestSelectionMatch(t *testing.T) {
	cfg, err := Load(writeFiles(t, `
endpoints:
  - name: e
    tools: {include: ["calc_*", "greet", "?_x"], exclude: ["*delete*", 'calc_\*']}
    resources: {include: ["file:///docs/*", "storage://{key}"], exclude: ["*.secret"]}
    prompts: {exclude: ["admin_*"]}
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	e := cfg.Endpoints[0]
	cases := []struct {
		sel  Selection
		name string
		want bool
	}{
		{e.Tools, "calc_add", true},
		{e.Tools, "calc_", true},
		{e.Tools, "calc_delete_all", false}, // exclude wins
		{e.Tools, "calc_*", false},          // a literal star, excluded
		{e.Tools, "calc_a/b", true},         // '*' crosses '/'
		{e.Tools, "greet", true},
		{e.Tools, "greeting", false},
		{e.Tools, "Greet", false}, // case-sensitive
		{e.Tools, "a_x", true},
		{e.Tools, "é_x", true}, // '?' is one character, not one byte
		{e.Tools, "ab_x", false},
		{e.Resources, "file:///docs/a/b.md", true},
		{e.Resources, "file:///docs/a.secret", false},
		{e.Resources, "file:///etc/passwd", false},
		{e.Resources, "storage://{key}", true}, // a template, as written
		{e.Resources, "storage://k", false},    // braces are literal in a pattern
		{e.Prompts, "hello", true},
		{e.Prompts, "admin_reset", false},
	}
	for _, c := range cases {
		if got := c.sel.Match(c.name); got != c.want {
			t.Errorf("%q.Match(%q) = %v, want %v", c.sel.Include, c.name, got, c.want)
		}
		hand := Selection{Include: c.sel.Include, Exclude: c.sel.Exclude}
		if got := hand.Match(c.name); got != c.want {
			t.Errorf("by hand: %q.Match(%q) = %v, want %v", c.sel.Include, c.name, got, c.want)
		}
		if err := hand.Compile(); err != nil {
			t.Fatal(err)
		}
		if got := hand.Match(c.name); got != c.want {
			t.Errorf("compiled by hand: %q.Match(%q) = %v, want %v", c.sel.Include, c.name, got, c.want)
		}
	}
	if !(Selection{}).Match("anything") {
		t.Error("a Selection with no include does not match everything")
	}
	if (Selection{Include: []string{}}).Match("anything") {
		t.Error("a Selection with an empty include matches something")
	}
	bad := Selection{Include: []string{"ok", `a\`}}
	if err := bad.Compile(); err == nil || !strings.Contains(err.Error(), `"a\\": ends with a lone`) {
		t.Errorf("Compile of a bad pattern = %v", err)
	}
}

// TestSourceMatch: sources are names or globs of plugins, upstreams and
// relay sites.
func TestSourceMatch(t *testing.T) {
	cfg, err := Load(writeFiles(t, `
plugins: [{path: calc.wasm}, {path: calc2.wasm}, {path: files.wasm}]
relay:
  sites:
    - {name: page, token_env: E2E_PAGE}
upstreams:
  - {name: tickets, command: [/bin/sh]}
endpoints:
  - {name: dev, sources: ["calc*", tickets, page]}
`, "calc.wasm", "calc2.wasm", "files.wasm"), []string{"E2E_PAGE=0123456789abcdef0123456789abcdef"})
	if err != nil {
		t.Fatal(err)
	}
	e := cfg.Endpoints[0]
	for name, want := range map[string]bool{"calc": true, "calc2": true, "tickets": true, "page": true, "files": false, "tickets2": false} {
		if got := e.SourceMatch(name); got != want {
			t.Errorf("SourceMatch(%q) = %v, want %v", name, got, want)
		}
		hand := Endpoint{Sources: e.Sources}
		if got := hand.SourceMatch(name); got != want {
			t.Errorf("by hand: SourceMatch(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestEndpointAccessNames: the principals access may name are those that
// can call: auth.principals, bearer with transports.http.auth, the stdio
// principal, anonymous without authentication; with auth.jwt any name or
// group (tokens bring them).
func TestEndpointAccessNames(t *testing.T) {
	env := []string{"E2E_ALICE=0123456789abcdef0123456789abcdef", "E2E_TOKEN=fedcba9876543210fedcba9876543210"}
	for _, c := range []struct {
		name, yaml, want string // want: "" to load
	}{
		{"anonymous without auth", "endpoints: [{name: e, access: {principals: [anonymous, local]}}]", ""},
		{"anonymous with principals", `auth: {principals: [{name: alice, token_env: E2E_ALICE}]}
endpoints: [{name: e, access: {principals: [anonymous]}}]`, `"anonymous" is no principal (principals: alice, local;`},
		{"bearer with transports.http.auth", `transports: {http: {auth: {bearer_token_env: E2E_TOKEN}}}
endpoints: [{name: e, access: {principals: [bearer]}}]`, ""},
		{"bearer without it", "endpoints: [{name: e, access: {principals: [bearer]}}]", `"bearer" is no principal (principals: anonymous, local;`},
		{"a renamed stdio principal", `transports: {stdio: {principal: desk}}
endpoints: [{name: e, access: {principals: [desk]}}]`, ""},
		{"the default stdio principal once renamed", `transports: {stdio: {principal: desk}}
endpoints: [{name: e, access: {principals: [local]}}]`, `"local" is no principal`},
		{"a group of a principal", `auth: {principals: [{name: alice, token_env: E2E_ALICE, groups: [dev]}]}
endpoints: [{name: e, access: {groups: [dev], principals: [alice]}}]`, ""},
		{"no groups at all", "endpoints: [{name: e, access: {groups: [dev]}}]", `"dev" is the group of no principal (groups of auth.principals: none;`},
		{"everyone", `endpoints: [{name: e, access: {principals: ["*"]}}]`, "leave access out to let everyone in"},
		{"jwt: names and groups from tokens", `auth: {jwt: {issuer: "https://id.example.com", audience: mcp, jwks_url: "https://id.example.com/jwks"}}
endpoints: [{name: e, access: {principals: [someone@example.com], groups: [from-token]}}]`, ""},
		{"jwt: a group from a scope claim", `auth: {jwt: {issuer: "https://id.example.com", audience: mcp, jwks_url: "https://id.example.com/jwks", groups_claim: scope}}
endpoints: [{name: e, access: {groups: ["mcp:tools"]}}]`, ""},
		{"jwt: still a group's name", `auth: {jwt: {issuer: "https://id.example.com", audience: mcp, jwks_url: "https://id.example.com/jwks"}}
endpoints: [{name: e, access: {groups: [" dev"]}}]`, `endpoints[0].access.groups[0]: " dev": want a group's name`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load(writeFiles(t, c.yaml+"\n"), env)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("want it loaded: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("err = %v, want %q", err, c.want)
			case err != nil && strings.Contains(err.Error(), "\n"):
				t.Fatalf("more than one error:\n%v", err)
			}
		})
	}
}

// TestEndpointPaths: what the paths of endpoints may be beside the
// relay, the metadata and the admin listener, and what they may not.
func TestEndpointPaths(t *testing.T) {
	for path, want := range map[string]string{
		"/mcp":                                  "", // transports.http.path is not served with endpoints
		"/relayed":                              "", // beside /relay, not under it
		"/-x":                                   "",
		"/metrics/v2":                           "", // the admin listener serves /metrics alone
		"/a.b/~c_d-e":                           "",
		"/relay":                                `is under relay.path "/relay"`,
		"/relay/x/y":                            `is under relay.path "/relay"`,
		"/-":                                    "a path of the admin listener",
		"/-/lock":                               "a path of the admin listener",
		"/-/anything":                           "a path of the admin listener",
		"/healthz":                              "a path of the admin listener",
		"/readyz":                               "a path of the admin listener",
		"/api/status":                           "a path of the admin listener",
		"/debug/pprof/x":                        "a path of the admin listener",
		"/":                                     "the root would take every path",
		"/mcp/":                                 "must not end with /",
		"/mcp/./x":                              "not a clean path",
		"/mcp/../x":                             "not a clean path",
		"/mcp dev":                              "may not hold {, }, ?, #, *, % or spaces",
		"/mcp/*":                                "may not hold {, }, ?, #, *, % or spaces",
		"/mcp%2Fx":                              "may not hold {, }, ?, #, *, % or spaces",
		"/.well-known/oauth-protected-resource": "OAuth protected-resource metadata",
	} {
		_, err := Load(writeFiles(t, fmt.Sprintf("endpoints: [{name: e, path: %q}]\n", path)), nil)
		switch {
		case want == "" && err != nil:
			t.Errorf("path %q: %v", path, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "endpoints[0].path")):
			t.Errorf("path %q: err = %v, want endpoints[0].path and %q", path, err, want)
		}
	}
}

// TestRestartOnlyStdioEndpoint: the endpoint stdio serves cannot change
// on reload (its one session lives on it); every other change of the
// endpoints section can.
func TestRestartOnlyStdioEndpoint(t *testing.T) {
	load := func(yaml string) *Config {
		t.Helper()
		c, err := Load(writeFiles(t, yaml), nil)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	const two = "endpoints: [{name: dev}, {name: support}]\n"
	for _, c := range []struct {
		name, prev, next, want string // want: "" for a reload that applies
	}{
		{"the key changes", "transports: {stdio: {endpoint: dev}}\n" + two, "transports: {stdio: {endpoint: support}}\n" + two,
			"transports.stdio.endpoint: changed from dev to support; this takes a restart"},
		{"the key is set to another than the first", two, "transports: {stdio: {endpoint: support}}\n" + two,
			"transports.stdio.endpoint: changed from dev (not set: the first endpoint) to support"},
		{"the key is set to the first", "transports: {stdio: {enabled: true}}\n" + two, "transports: {stdio: {enabled: true, endpoint: dev}}\n" + two, ""},
		{"the first endpoint changes under stdio", "transports: {stdio: {enabled: true}}\n" + two,
			"transports: {stdio: {enabled: true}}\nendpoints: [{name: support}, {name: dev}]\n",
			"transports.stdio.endpoint: changed from dev (not set: the first endpoint) to support (not set: the first endpoint)"},
		{"the first endpoint changes without stdio", two, "endpoints: [{name: support}, {name: dev}]\n", ""},
		{"endpoints come", "{}\n", two, ""},
		{"endpoints go", two, "{}\n", ""},
		{"an endpoint changes", "transports: {stdio: {endpoint: dev}}\n" + two,
			"transports: {stdio: {endpoint: dev}}\nendpoints: [{name: dev, path: /d, tools: {exclude: [x]}, sources: []}, {name: agent-x}]\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := load(c.next).RestartOnly(load(c.prev), "")
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("want the reload applied: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("RestartOnly = %v, want %q", err, c.want)
			case err != nil && strings.Contains(err.Error(), "\n"):
				t.Fatalf("more than one error:\n%v", err)
			}
		})
	}
}

// FuzzSelection checks a Selection's Match against its definition: some
// include and no exclude matches (each pattern alone, through the glob
// package's own tests); a loaded Selection and one built by hand agree.
func FuzzSelection(f *testing.F) {
	f.Add("calc_*", "*delete*", "calc_delete", "calc_add")
	f.Add("file:///docs/*", "*.secret", "file:///docs/a/b.md", "file:///docs/x.secret")
	f.Add("?_x", `\*`, "é_x", "*")
	f.Add("storage://{key}", "", "storage://{key}", "storage://k")
	f.Add("*", "*", "", "a")
	f.Fuzz(func(t *testing.T, include, exclude, a, b string) {
		sel := Selection{Include: []string{include}}
		if exclude != "" {
			sel.Exclude = []string{exclude}
		}
		compiled := sel
		if err := compiled.Compile(); err != nil {
			return
		}
		in := Selection{Include: []string{include}}
		ex := Selection{Include: sel.Exclude}
		for _, name := range []string{a, b, include, exclude} {
			got := compiled.Match(name)
			if want := in.Match(name) && (exclude == "" || !ex.Match(name)); got != want {
				t.Fatalf("include %q exclude %q: Match(%q) = %v, want %v", include, exclude, name, got, want)
			}
			if sel.Match(name) != got {
				t.Fatalf("include %q exclude %q: by hand %v, compiled %v on %q", include, exclude, !got, got, name)
			}
			if !strings.ContainsAny(include, `*?\`) && got != (name == include && (exclude == "" || !ex.Match(name))) {
				t.Fatalf("literal include %q matches %q: %v", include, name, got)
			}
		}
		if include == "*" && exclude == "" && !compiled.Match(a) {
			t.Fatalf(`"*" does not match %q`, a)
		}
	})
}

// TestEndpointsDocExample loads the example of docs/endpoints.md as
// written (its module files and the upstream's program stand-ins), and
// checks what the page says of it.
func TestEndpointsDocExample(t *testing.T) {
	doc, err := os.ReadFile("../docs/endpoints.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(doc), "## An example: dev, support and agent-x")
	_, rest, _ = strings.Cut(rest, "```yaml\n")
	yaml, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatal("no yaml block in the example of docs/endpoints.md")
	}
	bin := filepath.Join(t.TempDir(), "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "mcp-server-filesystem"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	yaml = strings.ReplaceAll(yaml, "/opt/mcp/node_modules/.bin", bin)
	cfg, err := Load(writeFiles(t, yaml, "plugins/calculator.wasm", "plugins/storage.wasm"), []string{
		"ALICE_TOKEN=0123456789abcdef0123456789abcdef", "BOB_TOKEN=0123456789abcdef0123456789abcde0",
		"AGENT_X_TOKEN=0123456789abcdef0123456789abcde1", "TICKETS_TOKEN=t",
	})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range cfg.EndpointList() {
		paths = append(paths, e.Path)
	}
	if want := []string{"/mcp/dev", "/mcp/support", "/mcp/agent-x"}; !reflect.DeepEqual(paths, want) {
		t.Errorf("paths = %q, want %q", paths, want)
	}
	if got := cfg.StdioEndpoint(); got != "dev" {
		t.Errorf("stdio serves %q, want dev", got)
	}
	dev, support, agent := cfg.Endpoints[0], cfg.Endpoints[1], cfg.Endpoints[2]
	for _, c := range []struct {
		e      Endpoint
		source string
		want   bool
	}{
		{dev, "files", true}, {dev, "calculator", true}, {dev, "storage", false},
		{support, "tickets", true}, {support, "storage", true}, {support, "files", false},
		{agent, "calculator", true}, {agent, "storage", false},
	} {
		if got := c.e.SourceMatch(c.source); got != c.want {
			t.Errorf("%s.SourceMatch(%q) = %v, want %v", c.e.Name, c.source, got, c.want)
		}
	}
	if dev.Tools.Match("tickets_delete") || !dev.Tools.Match("tickets_find_ticket") || !dev.Tools.Match("files_read_text_file") {
		t.Error("dev: want every tool but those that delete")
	}
	if !support.Resources.Match("storage://notes/{key}") || support.Resources.Match("storage://{key}") {
		t.Error("support: want the notes template only")
	}
	n := 0
	for _, tool := range []string{"files_read_text_file", "files_list_directory", "tickets_find_ticket", "tickets_comment", "calculate",
		"files_write_file", "tickets_delete", "notes_set-storage"} {
		if agent.Tools.Match(tool) {
			n++
		}
	}
	if n != 5 || agent.Resources.Match("storage://notes/{key}") || agent.Prompts.Match("greeting_prompt") {
		t.Errorf("agent-x: %d of the tools, want its five and no resource or prompt", n)
	}
	for _, c := range []struct {
		e      Endpoint
		who    string
		groups []string
		want   bool
	}{
		{dev, "alice", []string{"dev"}, true}, {dev, "bob", []string{"support"}, false},
		{support, "alice", []string{"dev"}, true}, {support, "bob", []string{"support"}, true},
		{agent, "agent-x", nil, true}, {agent, "alice", []string{"dev"}, false},
	} {
		if got := c.e.Access.Allows(c.who, c.groups); got != c.want {
			t.Errorf("%s lets %s in: %v, want %v", c.e.Name, c.who, got, c.want)
		}
	}
}
