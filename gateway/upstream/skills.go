package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"path"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/loader/skill"
	"github.com/wasmgate/wasmgate/wire"
)

// skillsExtension is the skills extension's identifier (SEP-2640).
const skillsExtension = "io.modelcontextprotocol/skills"

// skillsPage is a page of skills/list.
type skillsPage struct {
	Skills     []json.RawMessage `json:"skills"`
	NextCursor mcp.Cursor        `json:"nextCursor"`
}

// upstreamSkill is a Skill entry as an upstream sends it.
type upstreamSkill struct {
	URI         string          `json:"uri"`
	FrontMatter json.RawMessage `json:"frontmatter"`
	Resources   json.RawMessage `json:"resources"`
}

// describeSkills adds to d the skills an upstream that declares the
// skills extension lists (skills/list, every page), and each file of
// their manifests that its resources/list left out, as a resource read
// through the upstream. An entry the extension calls invalid is left
// out with a warning; the index checks the rest (names, paths, limits).
func describeSkills(ctx context.Context, cli *client.Client, d *abi.Descriptor) error {
	if _, ok := cli.GetServerCapabilities().Extensions[skillsExtension]; !ok {
		return nil
	}
	entries, err := listed(ctx, "skills/list", "skills", loader.MaxUpstreamListed, "", func(ctx context.Context, c mcp.Cursor) ([]json.RawMessage, mcp.Cursor, error) {
		params := map[string]any{}
		if c != "" {
			params["cursor"] = c
		}
		raw, err := cli.Request(ctx, "skills/list", params)
		if err != nil {
			return nil, "", err
		}
		var p skillsPage
		if err := json.Unmarshal(*raw, &p); err != nil {
			return nil, "", fmt.Errorf("skills/list: %w", err)
		}
		return p.Skills, p.NextCursor, nil
	})
	if err != nil {
		if optional(d, err, "skills") {
			return nil
		}
		return err
	}
	listedURIs := map[string]bool{}
	for _, r := range d.Resources {
		if r.Template == nil {
			listedURIs[r.URI] = true
		}
	}
	for _, raw := range entries {
		var e upstreamSkill
		if err := json.Unmarshal(raw, &e); err != nil || e.URI == "" {
			d.Warnings = append(d.Warnings, fmt.Sprintf("a skill left out: not a skill entry: %.200s", raw))
			continue
		}
		s := abi.Skill{URI: e.URI, FrontMatter: e.FrontMatter}
		var dynamic string
		if json.Unmarshal(e.Resources, &dynamic) == nil && dynamic == "dynamic" {
			s.Dynamic = true
		} else if err := json.Unmarshal(e.Resources, &s.Files); err != nil || s.Files == nil {
			d.Warnings = append(d.Warnings, fmt.Sprintf("skill %q left out: its resources are neither a list of files nor \"dynamic\"", e.URI))
			continue
		}
		d.Skills = append(d.Skills, s)
		add := func(uri string) {
			if listedURIs[uri] {
				return
			}
			listedURIs[uri] = true
			mt := skill.MIMEType(uri, nil)
			if path.Base(uri) == skill.FileName {
				mt = "text/markdown"
			}
			d.Resources = append(d.Resources, abi.Resource{Resource: wire.Resource{URI: uri, Name: path.Base(uri), MimeType: mt}})
		}
		add(s.URI)
		for _, f := range s.Files {
			add(f.URI)
		}
	}
	return nil
}
