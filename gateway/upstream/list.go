// Lists: everything an upstream lists, read page by page within bounds,
// as the abi.Descriptor the index serves.

package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/wire"
)

// maxPages bounds the pages of one list (a server that answers every
// page with another cursor).
const maxPages = 1000

// listed reads a paginated list page by page, refusing more than max
// entries (what: the method, for the error).
func listed[T any](ctx context.Context, what, noun string, max int, limitKey string, page func(ctx context.Context, cursor mcp.Cursor) ([]T, mcp.Cursor, error)) ([]T, error) {
	var out []T
	var cursor mcp.Cursor
	seen := map[mcp.Cursor]bool{}
	for n := 0; ; n++ {
		items, next, err := page(ctx, cursor)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, items...)
		if len(out) > max {
			count := fmt.Sprintf("%d %s", len(out), noun)
			if next != "" {
				count = "at least " + count
			}
			if limitKey != "" {
				return nil, fmt.Errorf("%s: it lists %s, more than %s (%d); raise %s (at most %d) if that many are meant", what, count, limitKey, max, limitKey, loader.MaxUpstreamListed)
			}
			return nil, fmt.Errorf("%s: it lists %s, more than the %d the gateway takes", what, count, max)
		}
		if next == "" {
			return out, nil
		}
		if seen[next] || n >= maxPages {
			return nil, fmt.Errorf("%s: the server's pages do not end (cursor %.40q again, or more than %d pages)", what, next, maxPages)
		}
		seen[next] = true
		cursor = next
	}
}

// describe reads everything an upstream lists, as an abi.Descriptor: at
// most maxTools tools (limits.max_tools) and loader.MaxUpstreamListed of
// each other list.
func describe(ctx context.Context, cli *client.Client, maxTools int) (abi.Descriptor, error) {
	var d abi.Descriptor
	caps := cli.GetServerCapabilities()
	if caps.Tools != nil {
		tools, err := listed(ctx, "tools/list", "tools", maxTools, "limits.max_tools", func(ctx context.Context, c mcp.Cursor) ([]mcp.Tool, mcp.Cursor, error) {
			req := mcp.ListToolsRequest{}
			req.Params.Cursor = c
			r, err := cli.ListToolsByPage(ctx, req)
			if err != nil {
				return nil, "", err
			}
			d.Cache.Tools = d.Cache.Tools.Merge(r.TTLMs, string(r.CacheScope))
			return r.Tools, r.NextCursor, nil
		})
		if err != nil {
			return d, err
		}
		for _, t := range tools {
			var w wire.Tool
			if err := recode(t, &w); err != nil {
				d.Warnings = append(d.Warnings, fmt.Sprintf("tool %q left out: %v", t.Name, err))
				continue
			}
			if len(w.InputSchema) == 0 || string(w.InputSchema) == "null" {
				w.InputSchema = json.RawMessage(`{"type":"object"}`)
			}
			d.Tools = append(d.Tools, w)
		}
	}
	if caps.Resources != nil {
		res, err := listed(ctx, "resources/list", "resources", loader.MaxUpstreamListed, "", func(ctx context.Context, c mcp.Cursor) ([]mcp.Resource, mcp.Cursor, error) {
			req := mcp.ListResourcesRequest{}
			req.Params.Cursor = c
			r, err := cli.ListResourcesByPage(ctx, req)
			if err != nil {
				return nil, "", err
			}
			d.Cache.Resources = d.Cache.Resources.Merge(r.TTLMs, string(r.CacheScope))
			return r.Resources, r.NextCursor, nil
		})
		if err != nil && !optional(&d, err, "resources") {
			return d, err
		}
		for _, r := range res {
			var w wire.Resource
			if err := recode(r, &w); err != nil {
				d.Warnings = append(d.Warnings, fmt.Sprintf("resource %q left out: %v", r.URI, err))
				continue
			}
			d.Resources = append(d.Resources, abi.Resource{Resource: w})
		}
		tpls, err := listed(ctx, "resources/templates/list", "resource templates", loader.MaxUpstreamListed, "", func(ctx context.Context, c mcp.Cursor) ([]mcp.ResourceTemplate, mcp.Cursor, error) {
			req := mcp.ListResourceTemplatesRequest{}
			req.Params.Cursor = c
			r, err := cli.ListResourceTemplatesByPage(ctx, req)
			if err != nil {
				return nil, "", err
			}
			d.Cache.Templates = d.Cache.Templates.Merge(r.TTLMs, string(r.CacheScope))
			return r.ResourceTemplates, r.NextCursor, nil
		})
		if err != nil && !optional(&d, err, "resource templates") {
			return d, err
		}
		for _, t := range tpls {
			var w wire.Resource
			if err := recode(t, &w); err != nil {
				continue
			}
			raw := ""
			if t.URITemplate != nil {
				raw = t.URITemplate.Raw()
			}
			tpl, err := abi.ParseURITemplate(raw)
			if err != nil {
				d.Warnings = append(d.Warnings, fmt.Sprintf("resource template %q left out: %v", raw, err))
				continue
			}
			w.URI = raw
			d.Resources = append(d.Resources, abi.Resource{Resource: w, Template: tpl})
		}
	}
	if caps.Resources != nil {
		if err := describeSkills(ctx, cli, &d); err != nil {
			return d, err
		}
	}
	if caps.Prompts != nil {
		ps, err := listed(ctx, "prompts/list", "prompts", loader.MaxUpstreamListed, "", func(ctx context.Context, c mcp.Cursor) ([]mcp.Prompt, mcp.Cursor, error) {
			req := mcp.ListPromptsRequest{}
			req.Params.Cursor = c
			r, err := cli.ListPromptsByPage(ctx, req)
			if err != nil {
				return nil, "", err
			}
			d.Cache.Prompts = d.Cache.Prompts.Merge(r.TTLMs, string(r.CacheScope))
			return r.Prompts, r.NextCursor, nil
		})
		if err != nil && !optional(&d, err, "prompts") {
			return d, err
		}
		for _, p := range ps {
			var w wire.Prompt
			if err := recode(p, &w); err != nil {
				d.Warnings = append(d.Warnings, fmt.Sprintf("prompt %q left out: %v", p.Name, err))
				continue
			}
			d.Prompts = append(d.Prompts, w)
		}
	}
	return d, nil
}

// optional reports whether err, a failed list of resources, templates
// or prompts, leaves the upstream's other lists served: the server
// answered the request with a JSON-RPC error (it announced the
// capability but has no such method, or cannot list without something
// it lacks, such as a database it cannot reach). Its tools are what
// clients come for; that list is then empty, with a warning (the
// upstream's status and the reload's log line show it). An error of the
// connection itself (closed, timed out) fails the whole list as before.
func optional(d *abi.Descriptor, err error, noun string) bool {
	for _, answered := range []error{mcp.ErrMethodNotFound, mcp.ErrInternalError, mcp.ErrInvalidParams,
		mcp.ErrInvalidRequest, mcp.ErrResourceNotFound} {
		if errors.Is(err, answered) {
			d.Warnings = append(d.Warnings, fmt.Sprintf("no %s served: %v", noun, err))
			return true
		}
	}
	return false
}

// recode converts between two JSON shapes of the same thing.
func recode(from, to any) error {
	b, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, to)
}
