package source

import (
	"encoding/json"
	"slices"

	"github.com/wasmgate/wasmgate/internal/secretscan"
	"github.com/wasmgate/wasmgate/wire"
)

// WhereDefinition is the where label of wasmgate_secrets_redacted_total
// for a secret replaced in a definition the index publishes.
const WhereDefinition = "definition"

// redacting counts each secret replaced in a definition of src (Index.
// Redacted); nil when src has redact_secrets off, whose definitions are
// published as they are.
func (x *Index) redacting(src Source) func(secretscan.Kind) {
	if !RedactsSecrets(src) {
		return nil
	}
	return func(k secretscan.Kind) {
		if x.Redacted != nil {
			x.Redacted(src, k)
		}
	}
}

// redactTool is t as clients see it from a source with redact_secrets:
// the secrets of its description, title, schemas, annotations, icons and
// _meta replaced. Its name, which calls use, stays.
func (x *Index) redactTool(src Source, t wire.Tool) wire.Tool {
	found := x.redacting(src)
	if found == nil {
		return t
	}
	t.Description = secretscan.Redact(t.Description, found)
	t.Title = secretscan.Redact(t.Title, found)
	for _, raw := range []*json.RawMessage{&t.InputSchema, &t.OutputSchema, &t.Annotations, &t.Icons, &t.Meta} {
		*raw = redactRaw(*raw, found)
	}
	return t
}

// redactResource is r (a resource or template) as clients see it from a
// source with redact_secrets: the secrets of its name, description,
// title, annotations, icons and _meta replaced. Its URI stays (reads
// use it), and the source's own copy (Resource.Res, whose name a
// sea-flea read calls) is not changed.
func (x *Index) redactResource(src Source, r wire.Resource) wire.Resource {
	found := x.redacting(src)
	if found == nil {
		return r
	}
	r.Name = secretscan.Redact(r.Name, found)
	r.Description = secretscan.Redact(r.Description, found)
	r.Title = secretscan.Redact(r.Title, found)
	for _, raw := range []*json.RawMessage{&r.Annotations, &r.Icons, &r.Meta} {
		*raw = redactRaw(*raw, found)
	}
	return r
}

// redactPrompt is p as clients see it from a source with
// redact_secrets: the secrets of its description, title, icons, _meta
// and its arguments' descriptions and titles replaced. The names of the
// prompt and its arguments stay.
func (x *Index) redactPrompt(src Source, p wire.Prompt) wire.Prompt {
	found := x.redacting(src)
	if found == nil {
		return p
	}
	p.Description = secretscan.Redact(p.Description, found)
	p.Title = secretscan.Redact(p.Title, found)
	p.Icons = redactRaw(p.Icons, found)
	p.Meta = redactRaw(p.Meta, found)
	p.Arguments = slices.Clone(p.Arguments)
	for i, a := range p.Arguments {
		p.Arguments[i].Description = secretscan.Redact(a.Description, found)
		p.Arguments[i].Title = secretscan.Redact(a.Title, found)
	}
	return p
}

// redactRaw is the JSON text raw with the secrets of its strings
// replaced; raw itself when it has none, or is not JSON (which the
// definition's own checks then refuse).
func redactRaw(raw json.RawMessage, found func(secretscan.Kind)) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	out, _, err := secretscan.JSON(raw, found)
	if err != nil {
		return raw
	}
	return out
}
