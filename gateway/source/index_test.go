package source

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/wire"
)

// fake is a Source with a fixed descriptor.
type fake struct {
	name string
	d    abi.Descriptor
}

func (f *fake) Name() string               { return f.name }
func (f *fake) Key() string                { return "plugins[" + f.name + "]" }
func (f *fake) Prefix() string             { return "" }
func (f *fake) Descriptor() abi.Descriptor { return f.d }
func (f *fake) Timeout() time.Duration     { return time.Second }
func (f *fake) CallTool(context.Context, string, json.RawMessage) (*mcp.CallToolResult, error) {
	return nil, nil
}
func (f *fake) ReadResource(context.Context, abi.Resource, string, map[string]string) ([]mcp.ResourceContents, error) {
	return nil, nil
}
func (f *fake) GetPrompt(context.Context, string, map[string]string) ([]mcp.PromptMessage, error) {
	return nil, nil
}

func tools(names ...string) abi.Descriptor {
	var d abi.Descriptor
	for _, n := range names {
		d.Tools = append(d.Tools, wire.Tool{Name: n, InputSchema: json.RawMessage(`{"type":"object"}`)})
	}
	return d
}

// index adds srcs the way the gateway does: reserving prev's owners
// first when prev is given.
func index(prev *Index, srcs ...Source) (*Index, []error) {
	x := NewIndex()
	if prev != nil {
		x.Reserve(prev)
		for _, s := range srcs {
			x.Add("g.yaml", s)
		}
		x.Release()
	}
	var errs []error
	for _, s := range srcs {
		errs = append(errs, x.Add("g.yaml", s)...)
	}
	return x, errs
}

// A name owned before stays with its owner when another source, earlier
// in order, lists it later; the newcomer alone is refused.
func TestReserveKeepsOwners(t *testing.T) {
	a, b := &fake{name: "a", d: tools("a1")}, &fake{name: "b", d: tools("calculate")}
	prev, errs := index(nil, a, b)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	a.d = tools("a1", "calculate") // a relists with b's name
	x, errs := index(prev, a, b)
	if got := x.Tools["calculate"].Src.Name(); got != "b" {
		t.Errorf("calculate is served by %s, want its owner b", got)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), `plugins[a] (source "a"): tool "calculate" is also provided by plugins[b] (source "b")`) {
		t.Errorf("errors %v, want one refusal of a's claim", errs)
	}
	if x.Tools["a1"] == nil {
		t.Error("a's own tool was dropped")
	}
	// b gives the name up: a may take it now.
	b.d = tools()
	x, errs = index(x, a, b)
	if len(errs) != 0 || x.Tools["calculate"].Src.Name() != "a" {
		t.Errorf("after b let go: %v, calculate by %v", errs, x.Tools["calculate"])
	}
}

// A static URI inside another source's template is refused, in either
// order; the same source may have both.
func TestStaticInsideTemplate(t *testing.T) {
	tmpl, _ := abi.ParseURITemplate("storage://{key}")
	store := &fake{name: "storage", d: abi.Descriptor{Resources: []abi.Resource{{Resource: wire.Resource{URI: "storage://{key}", Name: "s"}, Template: tmpl}}}}
	evil := &fake{name: "evil", d: abi.Descriptor{Resources: []abi.Resource{{Resource: wire.Resource{URI: "storage://public", Name: "p"}}}}}
	for _, order := range [][]Source{{store, evil}, {evil, store}} {
		_, errs := index(nil, order...)
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), "storage://") {
			t.Errorf("order %s,%s: %v, want one overlap error", order[0].Name(), order[1].Name(), errs)
		}
	}
	own := &fake{name: "own", d: abi.Descriptor{Resources: append(store.d.Resources, abi.Resource{Resource: wire.Resource{URI: "storage://readme", Name: "r"}})}}
	if _, errs := index(nil, own); len(errs) != 0 {
		t.Errorf("one source's static URI inside its own template: %v", errs)
	}
}

// denyGate withholds the names it holds.
type denyGate map[string]bool

func (g denyGate) Admit(_ Source, kind, name string, def any) bool {
	if _, ok := def.(mcp.Tool); kind == "tool" && !ok {
		panic("a tool's definition is not an mcp.Tool")
	}
	return !g[name]
}

// TestGateWithholds: what the Gate withholds is neither published nor
// free for another source; in a session's view too.
func TestGateWithholds(t *testing.T) {
	a := &fake{name: "a", d: tools("x", "y")}
	b := &fake{name: "b", d: tools("x")}
	x := NewIndex()
	x.Gate = denyGate{"x": true}
	if errs := x.Add("f", a); len(errs) != 0 {
		t.Fatal(errs)
	}
	if _, ok := x.Tools["x"]; ok {
		t.Error("withheld x is published")
	}
	if _, ok := x.Tools["y"]; !ok {
		t.Error("y is not published")
	}
	if errs := x.Add("f", b); len(errs) != 1 || !strings.Contains(errs[0].Error(), `tool "x" is also provided by`) {
		t.Errorf("b's claim of a's withheld x: %v", errs)
	}
	v, errs := x.SessionView("f", a, tools("x", "z"))
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	if _, ok := v.Tools["x"]; ok {
		t.Error("withheld x is in the session's view")
	}
	if _, ok := v.Tools["z"]; !ok {
		t.Error("z is not in the session's view")
	}
}

// templ is a descriptor of resource templates.
func templ(t *testing.T, raws ...string) abi.Descriptor {
	t.Helper()
	var d abi.Descriptor
	for _, raw := range raws {
		tpl, err := abi.ParseURITemplate(raw)
		if err != nil {
			t.Fatal(err)
		}
		d.Resources = append(d.Resources, abi.Resource{Resource: wire.Resource{URI: raw, Name: raw}, Template: tpl})
	}
	return d
}

// Two sources' templates that some URI matches both are refused for
// the second in order at load, naming both templates and sources and a
// URI both match; one source may have overlapping templates of its own,
// and a template that overlaps nothing is published.
func TestTemplateOverlap(t *testing.T) {
	store := &fake{name: "storage", d: templ(t, "storage://{key}", "storage://{key}/meta")}
	evil := &fake{name: "evil", d: templ(t, "storage://{name}", "other://{x}")}
	x, errs := index(nil, store, evil)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), `plugins[evil] (source "evil"): resource template "storage://{name}": it overlaps resource template "storage://{key}" of plugins[storage] (source "storage"): both match "storage://x"`) {
		t.Errorf("errors %v, want one refusal of evil's storage://{name}", errs)
	}
	if x.Templates["storage://{name}"] != nil || x.Templates["other://{x}"] == nil {
		t.Errorf("templates %v: want evil's other://{x} alone", x.Templates)
	}
	if r := x.TemplateFor("storage://x"); r == nil || r.Src.Name() != "storage" {
		t.Errorf("storage://x is served by %v, want storage", r)
	}
	own := &fake{name: "own", d: templ(t, "users://{id}", "users://{a}", "users://{id}x")}
	x, errs = index(nil, own)
	if len(errs) != 0 {
		t.Fatalf("one source's own overlapping templates: %v", errs)
	}
	// The most literal text, then byte order: never map order.
	for range 20 {
		if r := x.TemplateFor("users://1x"); r.URI != "users://{id}x" {
			t.Fatalf("users://1x is served by %q", r.URI)
		}
		if r := x.TemplateFor("users://1"); r.URI != "users://{a}" {
			t.Fatalf("users://1 is served by %q", r.URI)
		}
	}
}

// Indexed again (a relist), the source that published a template first
// keeps it even when the newcomer comes first in order; the same for a
// static URI inside it; once the owner lets go, the newcomer gets it.
func TestTemplateOwnerKeepsIt(t *testing.T) {
	evil := &fake{name: "evil", d: templ(t, "other://{x}")}
	store := &fake{name: "storage", d: templ(t, "storage://{key}")}
	prev, errs := index(nil, evil, store)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	evil.d = templ(t, "other://{x}", "storage://{name}")
	evil.d.Resources = append(evil.d.Resources, abi.Resource{Resource: wire.Resource{URI: "storage://public", Name: "p"}})
	x, errs := index(prev, evil, store)
	if len(errs) != 2 {
		t.Errorf("errors %v, want two refusals of evil's claims", errs)
	}
	if r := x.TemplateFor("storage://x"); r == nil || r.Src.Name() != "storage" {
		t.Errorf("storage://x is served by %v, want its owner storage", r)
	}
	if x.Resources["storage://public"] != nil || x.Templates["storage://{key}"] == nil {
		t.Error("the newcomer took the owner's URIs")
	}
	store.d = abi.Descriptor{}
	x, errs = index(x, evil, store)
	if len(errs) != 0 || x.TemplateFor("storage://x") == nil || x.TemplateFor("storage://x").Src.Name() != "evil" {
		t.Errorf("after storage let go: %v", errs)
	}
}

// A session's view refuses a template overlapping another source's.
func TestSessionViewTemplateOverlap(t *testing.T) {
	store := &fake{name: "storage", d: templ(t, "storage://{key}")}
	sess := &fake{name: "sess", d: abi.Descriptor{}}
	x, errs := index(nil, store, sess)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	v, errs := x.SessionView("f", sess, templ(t, "storage://{k}", "sess://{k}"))
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "overlaps") {
		t.Errorf("errors %v, want one overlap", errs)
	}
	if r := v.TemplateFor("storage://x"); r == nil || r.Src.Name() != "storage" {
		t.Errorf("in the view storage://x is served by %v", r)
	}
}

// TestSchemasCompiledOnce: indexing the same sources again (a reload, a
// relist) reuses the compiled input schema of every tool whose name and
// schema are unchanged, and compiles a changed one anew; a session's
// view shares the index's.
func TestSchemasCompiledOnce(t *testing.T) {
	a := &fake{name: "a", d: tools("one", "two")}
	x, errs := index(nil, a)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	b := &fake{name: "a", d: tools("one", "two")}
	b.d.Tools[1].InputSchema = json.RawMessage(`{"type":"object","properties":{"n":{"type":"number"}}}`)
	y, errs := index(x, b)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if y.Tools["one"].Schema != x.Tools["one"].Schema {
		t.Error("an unchanged tool's schema was compiled again")
	}
	if y.Tools["two"].Schema == x.Tools["two"].Schema {
		t.Error("a changed schema kept the old compiled one")
	}
	if msg := ValidateArgs(y.Tools["two"].Schema, []byte(`{"n":"x"}`)); msg == "" {
		t.Error("the recompiled schema does not check the new property")
	}
	// The same schema under another name is compiled for that name.
	c := &fake{name: "c", d: tools("three")}
	z, _ := index(y, b, c)
	if z.Tools["three"].Schema == z.Tools["one"].Schema {
		t.Error("two tools share one compiled schema: its location names one of them")
	}
	v, errs := z.SessionView("g.yaml", c, tools("three"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if v.Tools["three"].Schema != z.Tools["three"].Schema {
		t.Error("a session's view compiled a schema the index had")
	}
}
