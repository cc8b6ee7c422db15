package endpoint

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/gateway/source"
)

// appCall resolves the tool an MCP App's own call names before mcp-go
// looks the name up: an App calls its server's tools by the server's own
// names (get-time), which the endpoint publishes under a prefix or an
// override (clock_get-time). A call whose _meta.ui.resourceUri names a
// published App (source.AppRef) gets the exposed name of the App's
// source's tool (source.Index.AppTool); anything else is left as it is,
// for mcp-go to find or not and the envelope to judge.
func (e *Endpoint) appCall(ctx context.Context, _ any, req *mcp.CallToolRequest) {
	app := source.AppRef(req.Params.Meta)
	if app == "" {
		return
	}
	p := e.cur.Load()
	if p == nil {
		return
	}
	if t, err := p.SessionIndex(ctx).AppTool(app, req.Params.Name); err == nil {
		req.Params.Name = t.Name
	}
}
