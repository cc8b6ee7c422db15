package envelope

import (
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/gateway/source"
)

// appResult puts the ui:// references of a tool result's _meta under
// src's prefix, as the tool's own definition's are (source.RewriteUIRefs).
func appResult(src source.Source) func(*mcp.CallToolResult, error) (*mcp.CallToolResult, error) {
	return func(res *mcp.CallToolResult, err error) (*mcp.CallToolResult, error) {
		if res != nil && res.Meta != nil {
			source.RewriteUIRefs(src.Prefix(), res.Meta.AdditionalFields)
		}
		return res, err
	}
}

// appContents gives the contents of an App (a ui:// resource, own is the
// source's URI) of a source with grants the content-security metadata
// those grants allow (source.GrantedCSP), replacing what the source
// wrote. Hosts read _meta.ui.csp from the contents first.
func appContents(src source.Source, own string, contents []mcp.ResourceContents) []mcp.ResourceContents {
	csp := source.GrantedCSP(src)
	if csp == nil || !source.IsAppURI(own) {
		return contents
	}
	for i, c := range contents {
		switch c := c.(type) {
		case mcp.TextResourceContents:
			c.Meta = source.WithCSP(c.Meta, csp)
			contents[i] = c
		case mcp.BlobResourceContents:
			c.Meta = source.WithCSP(c.Meta, csp)
			contents[i] = c
		}
	}
	return contents
}
