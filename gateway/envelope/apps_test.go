package envelope

import (
	"reflect"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/gateway/source"
)

// appSource is a source with a prefix, and grants when hosts is set.
type appSource struct {
	source.Source
	prefix string
}

func (s appSource) Prefix() string { return s.prefix }

type grantedSource struct {
	appSource
	hosts []string
}

func (s grantedSource) AppConnectDomains() []string { return s.hosts }

// A result's ui:// references follow its source's prefix.
func TestAppResult(t *testing.T) {
	res := &mcp.CallToolResult{Result: mcp.Result{Meta: &mcp.Meta{AdditionalFields: map[string]any{
		"ui":             map[string]any{"resourceUri": "ui://get-time/mcp-app.html"},
		"ui/resourceUri": "ui://get-time/mcp-app.html",
		"other":          "ui://kept",
	}}}}
	got, err := appResult(appSource{prefix: "a"})(res, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"ui":             map[string]any{"resourceUri": "ui://a/get-time/mcp-app.html"},
		"ui/resourceUri": "ui://a/get-time/mcp-app.html",
		"other":          "ui://kept",
	}
	if !reflect.DeepEqual(got.Meta.AdditionalFields, want) {
		t.Errorf("_meta = %v, want %v", got.Meta.AdditionalFields, want)
	}
	if r, _ := appResult(appSource{prefix: "a"})(nil, nil); r != nil {
		t.Error("nil result")
	}
}

// A granted source's App contents get the grants' csp; other contents
// and other sources' Apps are left as they are.
func TestAppContents(t *testing.T) {
	claimed := map[string]any{"ui": map[string]any{"csp": map[string]any{"connectDomains": []any{"https://*"}}, "prefersBorder": true}}
	g := grantedSource{appSource{prefix: "p"}, []string{"https://api.example.com"}}
	cs := appContents(g, "ui://probe/app.html", []mcp.ResourceContents{mcp.TextResourceContents{URI: "ui://probe/app.html", MIMEType: source.AppMIME, Text: "<p>", Meta: claimed}})
	ui := cs[0].(mcp.TextResourceContents).Meta["ui"].(map[string]any)
	if !reflect.DeepEqual(ui["csp"], map[string]any{"connectDomains": []any{"https://api.example.com"}}) || ui["prefersBorder"] != true {
		t.Errorf("_meta.ui = %v", ui)
	}
	if claimed["ui"].(map[string]any)["csp"].(map[string]any)["connectDomains"].([]any)[0] != "https://*" {
		t.Error("the source's own _meta was changed in place")
	}
	other := []mcp.ResourceContents{mcp.TextResourceContents{URI: "storage://x", Meta: claimed}}
	if got := appContents(g, "storage://x", other); !reflect.DeepEqual(got[0].(mcp.TextResourceContents).Meta, claimed) {
		t.Error("a resource that is not an App got a csp")
	}
	up := []mcp.ResourceContents{mcp.TextResourceContents{URI: "ui://x", Meta: claimed}}
	if got := appContents(appSource{prefix: "u"}, "ui://x", up); !reflect.DeepEqual(got[0].(mcp.TextResourceContents).Meta, claimed) {
		t.Error("a source without grants had its csp replaced")
	}
}
