package source

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/internal/canon"
	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/wire"
)

// What a source provides, as clients see it: its prefix applied to the
// names of tools and prompts (config.PrefixedName: prefix_name, or
// prefix+name when the prefix ends in "_", "-" or ".") and to resource
// URIs and templates (scheme://prefix/rest), and the MCP definitions built
// from the ABI's shapes, optional fields included.

// ExposedName is a tool's or prompt's name under prefix: "calculate" under
// "pinned" or "pinned_" is "pinned_calculate", under "v2-" "v2-calculate".
func ExposedName(prefix, name string) string { return config.PrefixedName(prefix, name) }

// ExposedURI puts prefix at the head of what follows a URI's scheme:
// "storage://theme" becomes "storage://p/theme", "urn:x:y" becomes
// "urn:p/x:y", and a URI template "storage://{key}" becomes
// "storage://p/{key}". Two copies of a plugin with resources can then be
// served side by side, each with its own prefix. The prefix is the path
// segment as written: a trailing separator stays ("p_" gives
// "storage://p_/theme"), so URIs keep the form they always had; prefixes
// "p" and "p_" give the same names, which the Index refuses as a clash.
func ExposedURI(prefix, uri string) string {
	if prefix == "" {
		return uri
	}
	if i := strings.Index(uri, "://"); i > 0 && !strings.ContainsAny(uri[:i], "{/?#") {
		return uri[:i+3] + prefix + "/" + uri[i+3:]
	}
	if i := strings.Index(uri, ":"); i > 0 && !strings.ContainsAny(uri[:i], "{/?#") {
		return uri[:i+1] + prefix + "/" + uri[i+1:]
	}
	return prefix + "/" + uri
}

// Expand fills a level-1 URI template with vars: the plugin's own URI of
// a concrete URI that matched the exposed template.
func Expand(t *abi.URITemplate, vars map[string]string) string {
	out := t.Raw
	for _, v := range t.Vars {
		out = strings.Replace(out, "{"+v+"}", vars[v], 1)
	}
	return out
}

// toolDef is the MCP definition of t under the exposed name. Its
// schemas reach clients as they were written, so one that repeats a key
// is refused (canon.ErrDuplicate): clients may read either occurrence,
// the lock file's digest only the last.
func toolDef(name string, t wire.Tool) (mcp.Tool, error) {
	def := mcp.NewToolWithRawSchema(name, t.Description, t.InputSchema)
	if err := canon.Unique(t.InputSchema, "inputSchema"); err != nil {
		return def, err
	}
	if len(t.OutputSchema) > 0 {
		if err := canon.Unique(t.OutputSchema, "outputSchema"); err != nil {
			return def, err
		}
	}
	def.Title = t.Title
	if len(t.OutputSchema) > 0 && string(t.OutputSchema) != "null" {
		if !isJSONObject(t.OutputSchema) {
			return def, fmt.Errorf("outputSchema must be a JSON object")
		}
		def.RawOutputSchema = t.OutputSchema
	}
	if err := optional("annotations", t.Annotations, &def.Annotations); err != nil {
		return def, err
	}
	if err := optional("icons", t.Icons, &def.Icons); err != nil {
		return def, err
	}
	if len(t.Meta) > 0 && string(t.Meta) != "null" {
		def.Meta = &mcp.Meta{}
		if err := optional("_meta", t.Meta, def.Meta); err != nil {
			return def, err
		}
	}
	return def, nil
}

// resourceDef is the MCP definition of a static resource at uri.
func resourceDef(uri string, r wire.Resource) (mcp.Resource, error) {
	def := mcp.NewResource(uri, r.Name, mcp.WithResourceDescription(r.Description), mcp.WithMIMEType(r.MimeType))
	def.Title = r.Title
	def.Size = r.Size
	return def, resourceExtras(r, &def.Annotated, &def.Icons, &def.Meta)
}

// templateDef is the MCP definition of a resource template raw.
func templateDef(raw string, r wire.Resource) (mcp.ResourceTemplate, error) {
	def := mcp.NewResourceTemplate(raw, r.Name, mcp.WithTemplateDescription(r.Description), mcp.WithTemplateMIMEType(r.MimeType))
	def.Title = r.Title
	return def, resourceExtras(r, &def.Annotated, &def.Icons, &def.Meta)
}

func resourceExtras(r wire.Resource, a *mcp.Annotated, icons *[]mcp.Icon, meta **mcp.Meta) error {
	if len(r.Annotations) > 0 && string(r.Annotations) != "null" {
		a.Annotations = &mcp.Annotations{}
		if err := optional("annotations", r.Annotations, a.Annotations); err != nil {
			return err
		}
	}
	if err := optional("icons", r.Icons, icons); err != nil {
		return err
	}
	if len(r.Meta) > 0 && string(r.Meta) != "null" {
		*meta = &mcp.Meta{}
		return optional("_meta", r.Meta, *meta)
	}
	return nil
}

// promptDef is the MCP definition of p under the exposed name.
func promptDef(name string, p wire.Prompt) (mcp.Prompt, error) {
	opts := []mcp.PromptOption{mcp.WithPromptDescription(p.Description)}
	for _, a := range p.Arguments {
		aopts := []mcp.ArgumentOption{mcp.ArgumentDescription(a.Description)}
		if a.Required {
			aopts = append(aopts, mcp.RequiredArgument())
		}
		if a.Title != "" {
			aopts = append(aopts, mcp.ArgumentTitle(a.Title))
		}
		opts = append(opts, mcp.WithArgument(a.Name, aopts...))
	}
	def := mcp.NewPrompt(name, opts...)
	def.Title = p.Title
	if err := optional("icons", p.Icons, &def.Icons); err != nil {
		return def, err
	}
	if len(p.Meta) > 0 && string(p.Meta) != "null" {
		def.Meta = &mcp.Meta{}
		return def, optional("_meta", p.Meta, def.Meta)
	}
	return def, nil
}

// optional decodes an optional field of a definition, if present.
func optional(key string, raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("invalid %s: %v", key, err)
	}
	return nil
}

func isJSONObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil
}
