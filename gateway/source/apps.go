package source

import (
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// MCP Apps (the ui extension, SEP-1865): a tool points at a ui://
// resource holding HTML (mime type AppMIME) that the host renders in a
// sandboxed frame. The gateway publishes a source's ui:// resources
// under its prefix (ExposedURI) like any other resource, so every
// reference to one is rewritten the same way (UIRefs): the tool's
// _meta.ui.resourceUri and the older _meta["ui/resourceUri"], in a
// tools/list entry and in a call's result. A reference is rewritten
// whether or not the endpoint publishes the resource: one it does not
// publish stays unresolved (a read of it is "not found"), never pointed
// at something else.

// AppMIME is the mime type of an MCP App's HTML.
const AppMIME = "text/html;profile=mcp-app"

// UIScheme starts the URI of every MCP App resource.
const UIScheme = "ui://"

// uiLegacyKey is the flat _meta key of the extension's first drafts,
// still read by hosts.
const uiLegacyKey = "ui/resourceUri"

// IsAppURI reports whether uri is an MCP App resource's (ui://).
func IsAppURI(uri string) bool { return strings.HasPrefix(uri, UIScheme) }

// RewriteUIRefs puts every ui:// reference of meta (a _meta object:
// ui.resourceUri and "ui/resourceUri") under prefix, in place, and
// reports whether it changed anything. Values that are not ui:// URIs
// and fields of any other shape are left as they are. ui is copied
// before it is changed: meta may share it with the source's own
// definition.
func RewriteUIRefs(prefix string, meta map[string]any) bool {
	if prefix == "" || meta == nil {
		return false
	}
	changed := false
	if s, ok := meta[uiLegacyKey].(string); ok && IsAppURI(s) {
		meta[uiLegacyKey] = ExposedURI(prefix, s)
		changed = true
	}
	if ui, ok := meta["ui"].(map[string]any); ok {
		if s, ok := ui["resourceUri"].(string); ok && IsAppURI(s) {
			cp := make(map[string]any, len(ui))
			for k, v := range ui {
				cp[k] = v
			}
			cp["resourceUri"] = ExposedURI(prefix, s)
			meta["ui"] = cp
			changed = true
		}
	}
	return changed
}

// AppRef is the App a tools/call request says it comes from: the
// resourceUri of the request's _meta.ui (the App's ui:// URI as the
// endpoint publishes it), "" when the request names none. A host that
// proxies an App's own tool call (the App's callServerTool) adds it, as
// docs/apps-and-skills.md describes, so that the gateway resolves the
// tool among the App's own source's and audits the call as the App's.
func AppRef(meta *mcp.Meta) string {
	if meta == nil {
		return ""
	}
	ui, ok := meta.AdditionalFields["ui"].(map[string]any)
	if !ok {
		return ""
	}
	s, _ := ui["resourceUri"].(string)
	return s
}

// AppTool is the tool an App at uri (an exposed ui:// URI) calls by
// name: Apps call their server's tools by the server's own names, which
// a prefix or an override changed. It is the tool of the App's source
// published as name, else the one whose own name is name. An App this
// index does not publish, or a tool of another source, is an error:
// an App calls its own server's tools only.
func (x *Index) AppTool(uri, name string) (*Tool, error) {
	r, ok := x.Resources[uri]
	if !ok || !IsAppURI(uri) {
		return nil, fmt.Errorf("the App %q is not published here", uri)
	}
	if t, ok := x.Tools[name]; ok {
		if t.Src.Name() != r.Src.Name() {
			return nil, fmt.Errorf("the App %q may call only the tools of its own server (%s), not %q", uri, Where(r.Src), name)
		}
		return t, nil
	}
	for _, t := range x.Tools {
		if t.Src.Name() == r.Src.Name() && t.Export == name {
			return t, nil
		}
	}
	return nil, fmt.Errorf("the App %q: its server (%s) publishes no tool %q here", uri, Where(r.Src), name)
}

// AppGranted is a source whose Apps may reach only what the source
// itself may (a plugin: its allowed_hosts). The index and the envelope
// give each of its ui:// resources the content-security metadata
// _meta.ui.csp = {connectDomains: AppConnectDomains()}, replacing
// whatever the source claimed.
type AppGranted interface {
	AppConnectDomains() []string
}

// GrantedCSP is the _meta.ui.csp of src's Apps, nil when src is not
// AppGranted.
func GrantedCSP(src Source) map[string]any {
	g, ok := src.(AppGranted)
	if !ok {
		return nil
	}
	domains := []any{}
	for _, d := range g.AppConnectDomains() {
		domains = append(domains, d)
	}
	return map[string]any{"connectDomains": domains}
}

// WithCSP is meta with ui.csp replaced by csp (a copy: meta is not
// changed).
func WithCSP(meta map[string]any, csp map[string]any) map[string]any {
	out := make(map[string]any, len(meta)+1)
	for k, v := range meta {
		out[k] = v
	}
	ui := map[string]any{}
	if old, ok := meta["ui"].(map[string]any); ok {
		for k, v := range old {
			ui[k] = v
		}
	}
	ui["csp"] = csp
	out["ui"] = ui
	return out
}
