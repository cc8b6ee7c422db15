package source

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/wire"
)

// prefixed is a fake with a prefix.
type prefixed struct {
	fake
	prefix string
}

func (p *prefixed) Prefix() string { return p.prefix }

// granted is a prefixed fake whose Apps may reach hosts.
type granted struct {
	prefixed
	hosts []string
}

func (g *granted) AppConnectDomains() []string { return g.hosts }

// appServer describes what server-basic-vanillajs lists: get-time,
// pointing at its App, and the App.
func appServer(extraMeta string) abi.Descriptor {
	var d abi.Descriptor
	d.Tools = []wire.Tool{{Name: "get-time", InputSchema: json.RawMessage(`{"type":"object"}`),
		Meta: json.RawMessage(`{"ui":{"resourceUri":"ui://get-time/mcp-app.html","visibility":["model","app"]},"ui/resourceUri":"ui://get-time/mcp-app.html"` + extraMeta + `}`)}}
	d.Resources = []abi.Resource{{Resource: wire.Resource{URI: "ui://get-time/mcp-app.html", Name: "app", MimeType: AppMIME,
		Meta: json.RawMessage(`{"ui":{"csp":{"connectDomains":["https://evil.example"],"resourceDomains":["https://cdn.example"]},"prefersBorder":true}}`)}}}
	return d
}

// Two copies of one App server under two prefixes: each tool points at
// its own copy's App, the two Apps do not collide, and an App's call by
// the server's own name resolves to its own copy's tool.
func TestAppsUnderPrefixes(t *testing.T) {
	a := &prefixed{fake{name: "a", d: appServer(`,"other":"ui://x/y"`)}, "a"}
	b := &prefixed{fake{name: "b", d: appServer("")}, "b"}
	x, errs := index(nil, a, b)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	for _, p := range []string{"a", "b"} {
		tool := x.Tools[p+"_get-time"]
		if tool == nil {
			t.Fatalf("%s_get-time not published: %v", p, x.ToolNames())
		}
		want := "ui://" + p + "/get-time/mcp-app.html"
		meta := tool.Def.Meta.AdditionalFields
		if got := meta["ui"].(map[string]any)["resourceUri"]; got != want {
			t.Errorf("%s_get-time _meta.ui.resourceUri = %v, want %s", p, got, want)
		}
		if got := meta["ui/resourceUri"]; got != want {
			t.Errorf(`%s_get-time _meta["ui/resourceUri"] = %v, want %s`, p, got, want)
		}
		if vis := meta["ui"].(map[string]any)["visibility"]; !reflect.DeepEqual(vis, []any{"model", "app"}) {
			t.Errorf("visibility = %v, want it kept", vis)
		}
		if x.Resources[want] == nil {
			t.Errorf("App %s not published: %v", want, x.Resources)
		}
		got, err := x.AppTool(want, "get-time")
		if err != nil || got != tool {
			t.Errorf("AppTool(%s, get-time) = %v, %v; want %s_get-time", want, got, err, p)
		}
		if got, err := x.AppTool(want, p+"_get-time"); err != nil || got != tool {
			t.Errorf("AppTool(%s, %s_get-time) = %v, %v", want, p, got, err)
		}
		// A source without grants keeps its own csp.
		csp := x.Resources[want].Resource.Meta.AdditionalFields["ui"].(map[string]any)["csp"].(map[string]any)
		if !reflect.DeepEqual(csp["connectDomains"], []any{"https://evil.example"}) {
			t.Errorf("an upstream's csp changed: %v", csp)
		}
	}
	// Other _meta keys are not references of the extension: kept.
	if got := x.Tools["a_get-time"].Def.Meta.AdditionalFields["other"]; got != "ui://x/y" {
		t.Errorf("_meta.other = %v, want it as it was", got)
	}
	// An App calls only its own server's tools.
	if _, err := x.AppTool("ui://a/get-time/mcp-app.html", "b_get-time"); err == nil || !strings.Contains(err.Error(), "only the tools of its own server") {
		t.Errorf("App of a calling b_get-time: %v, want refused", err)
	}
	if _, err := x.AppTool("ui://get-time/mcp-app.html", "get-time"); err == nil || !strings.Contains(err.Error(), "not published") {
		t.Errorf("an unpublished App: %v, want refused", err)
	}
	if _, err := x.AppTool("ui://a/get-time/mcp-app.html", "nope"); err == nil || !strings.Contains(err.Error(), `publishes no tool "nope"`) {
		t.Errorf("an unknown tool: %v", err)
	}
}

// An endpoint that selects the tool but not its App: the reference is
// rewritten all the same (never to another resource) and stays
// unresolved; an App call naming it is refused.
func TestAppNotSelected(t *testing.T) {
	a := &prefixed{fake{name: "a", d: appServer("")}, "a"}
	x, _ := index(nil, a)
	v := x.Select(toolsOnly{})
	if v.Resources["ui://a/get-time/mcp-app.html"] != nil {
		t.Fatal("the selection kept the App")
	}
	if got := v.Tools["a_get-time"].Def.Meta.AdditionalFields["ui"].(map[string]any)["resourceUri"]; got != "ui://a/get-time/mcp-app.html" {
		t.Errorf("resourceUri = %v", got)
	}
	if _, err := v.AppTool("ui://a/get-time/mcp-app.html", "get-time"); err == nil {
		t.Error("an App the endpoint does not publish resolved a tool")
	}
}

type toolsOnly struct{}

func (toolsOnly) Source(string) bool   { return true }
func (toolsOnly) Tool(string) bool     { return true }
func (toolsOnly) Resource(string) bool { return false }
func (toolsOnly) Prompt(string) bool   { return false }

// A source with grants: its App's csp is what the grants allow, the
// rest of its ui metadata kept.
func TestGrantedCSP(t *testing.T) {
	g := &granted{prefixed{fake{name: "p", d: appServer("")}, "p"}, []string{"https://api.example.com"}}
	x, errs := index(nil, g)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	ui := x.Resources["ui://p/get-time/mcp-app.html"].Resource.Meta.AdditionalFields["ui"].(map[string]any)
	if want := map[string]any{"connectDomains": []any{"https://api.example.com"}}; !reflect.DeepEqual(ui["csp"], want) {
		t.Errorf("csp = %v, want %v", ui["csp"], want)
	}
	if ui["prefersBorder"] != true {
		t.Errorf("prefersBorder lost: %v", ui)
	}
	g.hosts = nil
	x, _ = index(nil, g)
	ui = x.Resources["ui://p/get-time/mcp-app.html"].Resource.Meta.AdditionalFields["ui"].(map[string]any)
	b, _ := json.Marshal(ui["csp"])
	if string(b) != `{"connectDomains":[]}` {
		t.Errorf("without grants csp = %s, want no domains", b)
	}
}

func TestAppRef(t *testing.T) {
	for _, c := range []struct {
		meta *mcp.Meta
		want string
	}{
		{nil, ""},
		{&mcp.Meta{}, ""},
		{&mcp.Meta{AdditionalFields: map[string]any{"ui": "x"}}, ""},
		{&mcp.Meta{AdditionalFields: map[string]any{"ui": map[string]any{"resourceUri": 7}}}, ""},
		{&mcp.Meta{AdditionalFields: map[string]any{"ui": map[string]any{"resourceUri": "ui://a/x"}}}, "ui://a/x"},
	} {
		if got := AppRef(c.meta); got != c.want {
			t.Errorf("AppRef(%v) = %q, want %q", c.meta, got, c.want)
		}
	}
}

// FuzzRewriteUIRefs: any _meta object. Only the extension's two
// references change, each to the prefixed form of what it was; the
// rest is kept; the input's ui object is never changed in place.
func FuzzRewriteUIRefs(f *testing.F) {
	f.Add("p", `{"ui":{"resourceUri":"ui://get-time/mcp-app.html"},"ui/resourceUri":"ui://x"}`)
	f.Add("a_", `{"ui":{"resourceUri":"https://x"},"k":1}`)
	f.Add("", `{"ui":{"resourceUri":"ui://x"}}`)
	f.Add("p", `{"ui":[1,2],"ui/resourceUri":5}`)
	f.Fuzz(func(t *testing.T, prefix, raw string) {
		var meta map[string]any
		if json.Unmarshal([]byte(raw), &meta) != nil || meta == nil {
			return
		}
		var orig map[string]any
		_ = json.Unmarshal([]byte(raw), &orig)
		origUI, _ := meta["ui"].(map[string]any)
		var before []byte
		if origUI != nil {
			before, _ = json.Marshal(origUI)
		}
		changed := RewriteUIRefs(prefix, meta)
		if origUI != nil {
			if after, _ := json.Marshal(origUI); string(after) != string(before) {
				t.Fatalf("the input's ui object changed in place: %s -> %s", before, after)
			}
		}
		if prefix == "" && changed {
			t.Fatal("changed without a prefix")
		}
		for k, v := range orig {
			got := meta[k]
			switch {
			case k == "ui/resourceUri":
				if s, ok := v.(string); ok && IsAppURI(s) && prefix != "" {
					if got != ExposedURI(prefix, s) {
						t.Fatalf("ui/resourceUri %q -> %v", s, got)
					}
					continue
				}
			case k == "ui":
				if ui, ok := v.(map[string]any); ok {
					if s, ok := ui["resourceUri"].(string); ok && IsAppURI(s) && prefix != "" {
						g := got.(map[string]any)
						if g["resourceUri"] != ExposedURI(prefix, s) || !strings.HasPrefix(g["resourceUri"].(string), UIScheme+prefix+"/") {
							t.Fatalf("ui.resourceUri %q -> %v", s, g["resourceUri"])
						}
						delete(g, "resourceUri")
						delete(ui, "resourceUri")
						if !reflect.DeepEqual(g, ui) {
							t.Fatalf("ui's other fields changed: %v -> %v", ui, g)
						}
						continue
					}
				}
			}
			if !reflect.DeepEqual(got, v) {
				t.Fatalf("%s changed: %v -> %v", k, v, got)
			}
		}
		if len(meta) != len(orig) {
			t.Fatalf("keys added or removed: %v -> %v", orig, meta)
		}
	})
}

// curatedApp is a prefixed fake with a curation.
type curatedApp struct {
	prefixed
	cur config.Curation
}

func (c *curatedApp) Curation() *config.Curation { return &c.cur }

// An override renames the tool; its App keeps its URI under the prefix,
// and the App's call by the server's own name reaches the renamed tool.
func TestAppToolRenamed(t *testing.T) {
	s := &curatedApp{prefixed{fake{name: "a", d: appServer("")}, "a"},
		config.Curation{Overrides: map[string]config.Override{"get-time": {Name: "clock"}}}}
	x, errs := index(nil, s)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	tool := x.Tools["a_clock"]
	if tool == nil {
		t.Fatalf("a_clock not published: %v", x.ToolNames())
	}
	if got := tool.Def.Meta.AdditionalFields["ui"].(map[string]any)["resourceUri"]; got != "ui://a/get-time/mcp-app.html" {
		t.Errorf("resourceUri = %v", got)
	}
	if got, err := x.AppTool("ui://a/get-time/mcp-app.html", "get-time"); err != nil || got != tool {
		t.Errorf("AppTool(get-time) = %v, %v; want a_clock", got, err)
	}
}
