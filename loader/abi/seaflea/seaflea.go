// Package seaflea adapts sea-flea's plugin ABI: optional
// tools_information, resources_information and prompts_information
// exports, and one export per tool, resource and prompt named after it.
// docs/plugins.md describes it for plugin authors.
package seaflea

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/wire"
)

// ABI is the sea-flea adapter.
type ABI struct{}

var _ abi.ABI = ABI{}

const maxInfoBytes = abi.MaxInfoBytes

// Name returns "sea-flea".
func (ABI) Name() string { return "sea-flea" }

// infoExports are the exports a sea-flea plugin declares itself with.
var infoExports = []string{"tools_information", "resources_information", "prompts_information"}

// Detect accepts a module exporting at least one of the information
// exports: without them a module provides nothing.
func (ABI) Detect(m abi.Exports) bool {
	for _, e := range infoExports {
		if m.Has(e) {
			return true
		}
	}
	return false
}

// Signature says what Detect looks for.
func (ABI) Signature() string {
	return "exports tools_information, resources_information or prompts_information"
}

// Describe calls the information exports the module has.
func (ABI) Describe(ctx context.Context, inst abi.Instance) (abi.Descriptor, error) {
	var d abi.Descriptor
	read := func(export string, v any) error {
		if !inst.Has(export) {
			return nil
		}
		return abi.Describe(ctx, inst, export, nil, v)
	}
	if err := read("tools_information", &d.Tools); err != nil {
		return d, err
	}
	if err := read("resources_information", &d.Resources); err != nil {
		return d, err
	}
	if err := read("prompts_information", &d.Prompts); err != nil {
		return d, err
	}
	seen := map[string]string{}
	// name checks an item's name; an item whose export is missing is kept
	// with a warning, and answers with an error when used.
	name := func(kind, name string) error {
		if name == "" {
			return fmt.Errorf("a %s has an empty name", kind)
		}
		if prev, ok := seen[name]; ok {
			return fmt.Errorf("%s %q has the same name as a %s", kind, name, prev)
		}
		seen[name] = kind
		if !inst.Has(name) {
			d.Warnings = append(d.Warnings, fmt.Sprintf("%s %q has no export of that name: it is listed, and using it fails", kind, name))
		}
		return nil
	}
	for i, t := range d.Tools {
		if err := name("tool", t.Name); err != nil {
			return d, fmt.Errorf("tools_information: %w", err)
		}
		if len(t.InputSchema) == 0 || string(t.InputSchema) == "null" {
			d.Tools[i].InputSchema = json.RawMessage(`{"type":"object"}`)
		}
	}
	for i, r := range d.Resources {
		if err := name("resource", r.Name); err != nil {
			return d, fmt.Errorf("resources_information: %w", err)
		}
		if r.URI == "" {
			return d, fmt.Errorf("resources_information: resource %q has an empty uri", r.Name)
		}
		if strings.Contains(r.URI, "{") {
			t, err := abi.ParseURITemplate(r.URI)
			if err != nil {
				return d, fmt.Errorf("resources_information: resource %q: %w", r.Name, err)
			}
			d.Resources[i].Template = t
		}
	}
	for _, p := range d.Prompts {
		if err := name("prompt", p.Name); err != nil {
			return d, fmt.Errorf("prompts_information: %w", err)
		}
	}
	return d, nil
}

// CallTool calls the tool's export with the arguments object as input;
// its output is the text of the result.
func (ABI) CallTool(ctx context.Context, inst abi.Instance, tool string, args json.RawMessage) (abi.ToolResult, error) {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	out, err := call(ctx, inst, "tool", tool, args)
	return abi.ToolResult{Text: out}, err
}

// ReadResource calls the resource's export: with empty input for a static
// resource, with a wire.ResourceRequest for a template.
func (ABI) ReadResource(ctx context.Context, inst abi.Instance, r abi.Resource, uri string, vars map[string]string) ([]wire.ResourceContent, error) {
	var input []byte
	if r.Template != nil {
		b, err := json.Marshal(wire.ResourceRequest{URI: uri, Arguments: vars})
		if err != nil {
			return nil, err
		}
		input = b
	}
	out, err := call(ctx, inst, "resource", r.Name, input)
	if err != nil {
		return nil, err
	}
	var c wire.ResourceContent
	if err := json.Unmarshal(out, &c); err != nil {
		return nil, &abi.CallError{Export: r.Name, Kind: abi.KindError, Msg: fmt.Sprintf("resource %q: export %s returned invalid JSON: %v", r.Name, r.Name, err)}
	}
	if c.URI == "" {
		c.URI = uri
	}
	if c.MimeType == "" {
		c.MimeType = r.MimeType
	}
	return []wire.ResourceContent{c}, nil
}

// GetPrompt calls the prompt's export with the arguments as a JSON object.
// A message's content is passed on whatever its type.
func (ABI) GetPrompt(ctx context.Context, inst abi.Instance, prompt string, args map[string]string) ([]abi.PromptMessage, error) {
	if args == nil {
		args = map[string]string{}
	}
	in, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	out, err := call(ctx, inst, "prompt", prompt, in)
	if err != nil {
		return nil, err
	}
	var msgs []abi.PromptMessage
	if err := json.Unmarshal(out, &msgs); err != nil {
		return nil, &abi.CallError{Export: prompt, Kind: abi.KindError, Msg: fmt.Sprintf("prompt %q: export returned invalid JSON: %v", prompt, err)}
	}
	return msgs, nil
}

// call runs the export of the item of kind named name: a sea-flea plugin
// may list an item it has no export for, which then fails this way.
func call(ctx context.Context, inst abi.Instance, kind, name string, input []byte) ([]byte, error) {
	if !inst.Has(name) {
		return nil, &abi.CallError{Export: name, Kind: abi.KindError,
			Msg: fmt.Sprintf("%s %q is listed by the plugin, but the plugin has no export of that name", kind, name)}
	}
	return inst.Call(ctx, name, input)
}
