package source

import (
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/config"
)

// Curated is a source whose tools the config curates: tools.include and
// tools.exclude choose what is published, overrides rename a tool and
// replace its description and annotations (config.Curation). The index
// applies it wherever it publishes the source's tools, at load, after a
// relist or a page's registration and in a session's view: a tool left
// out is neither listed nor callable (answered like an unknown name); a
// renamed one is published as ExposedName(prefix, override.name), policy,
// metrics and audit see that name, and the call still goes to the
// source's own (Tool.Export).
type Curated interface {
	Curation() *config.Curation
}

// curationOf is src's curation, nil when it has none.
func curationOf(src Source) *config.Curation {
	if c, ok := src.(Curated); ok {
		if cur := c.Curation(); !cur.Empty() {
			return cur
		}
	}
	return nil
}

// override applies c's override of the tool own, if any, to def: its
// title and description replaced, its annotations merged (a field the override
// sets wins).
func override(c *config.Curation, own string, def *mcp.Tool) {
	if c == nil {
		return
	}
	o, ok := c.Overrides[own]
	if !ok {
		return
	}
	if o.Title != "" {
		def.Title = o.Title
	}
	if o.Description != "" {
		def.Description = o.Description
	}
	if a := o.Annotations; a != nil {
		if a.Title != "" {
			def.Annotations.Title = a.Title
		}
		for _, f := range []struct{ from, to **bool }{
			{&a.ReadOnlyHint, &def.Annotations.ReadOnlyHint},
			{&a.DestructiveHint, &def.Annotations.DestructiveHint},
			{&a.IdempotentHint, &def.Annotations.IdempotentHint},
			{&a.OpenWorldHint, &def.Annotations.OpenWorldHint},
		} {
			if *f.from != nil {
				v := **f.from
				*f.to = &v
			}
		}
	}
}
