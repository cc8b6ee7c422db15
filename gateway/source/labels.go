package source

import (
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/flow"
)

// labelCuration is src's curation with its flow labels, nil when it has
// none (a source that is not Curated).
func labelCuration(src Source) *config.Curation {
	if c, ok := src.(Curated); ok {
		return c.Curation()
	}
	return nil
}

// labelsFor is the flow labels of one of src's tools, prompts or
// resources, known to the source by names (its own name; a resource's
// URI and name); ann are a tool's annotations (nil for the others). The
// first that applies: an override's labels, the source's labels, a
// tool's annotations (flows.from_annotations), the labels derived from
// the source's grants.
func labelsFor(cur *config.Curation, ann *mcp.ToolAnnotation, names ...string) []string {
	if cur == nil {
		return nil
	}
	for _, n := range names {
		if o, ok := cur.Overrides[n]; ok && o.Labels != nil {
			return o.Labels
		}
	}
	if cur.Labels != nil {
		return cur.Labels
	}
	if cur.FromAnnotations && ann != nil {
		return AnnotationLabels(*ann)
	}
	return cur.DefaultLabels
}

// AnnotationLabels are the flow labels MCP tool annotations imply
// (flows.from_annotations; docs/flows.md): a tool of the open world
// (openWorldHint true, or unset: MCP's default) brings in untrusted
// content, and can send data out unless it is read-only; a tool of a
// closed world (openWorldHint false) reads the user's own data.
// destructiveHint says what a tool may destroy, not where data goes: it
// adds no label.
func AnnotationLabels(a mcp.ToolAnnotation) []string {
	if a.OpenWorldHint != nil && !*a.OpenWorldHint {
		return []string{flow.Private}
	}
	if a.ReadOnlyHint != nil && *a.ReadOnlyHint {
		return []string{flow.Untrusted}
	}
	return []string{flow.Untrusted, flow.Egress}
}
