package envelope

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/internal/secretscan"
	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/metrics"
)

// redactor replaces secrets for one call of a source with
// redact_secrets, counting each in wasmgate_secrets_redacted_total. A nil
// redactor does nothing.
//
// A result is redacted as the client would receive it: encoded, every
// string of the JSON scanned (internal/secretscan.JSON), and, when one
// was replaced, decoded again as mcp-go's client decodes that kind of
// result. What is sent is then the redacted value, whatever the source's
// result held: structured content (which mcp-go would otherwise send as
// the upstream's raw bytes), _meta, resource links, annotations,
// embedded resources, prompt messages, resource contents.
type redactor struct {
	m      *metrics.Metrics
	log    *slog.Logger
	source string
}

// redactorFor is the redactor of a call of src, nil unless src has
// redact_secrets.
func (e *Envelope) redactorFor(src source.Source) *redactor {
	if !source.RedactsSecrets(src) {
		return nil
	}
	return &redactor{m: e.o.Metrics, log: e.o.Logger, source: src.Name()}
}

func (r *redactor) found(where string) func(secretscan.Kind) {
	return func(k secretscan.Kind) { r.m.SecretsRedacted.WithLabelValues(r.source, string(k), where).Inc() }
}

// args is the canonical arguments with their secrets replaced, decoded
// too, and whether anything was.
func (r *redactor) args(raw json.RawMessage) (json.RawMessage, map[string]any, bool) {
	var v map[string]any
	if json.Unmarshal(raw, &v) != nil {
		return raw, nil, false
	}
	n := 0
	found := r.found("arguments")
	secretscan.Value(v, func(k secretscan.Kind) { n++; found(k) })
	if n == 0 {
		return raw, nil, false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return raw, nil, false
	}
	return b, v, true
}

// tool redacts a tools/call result and the error that came with it.
func (r *redactor) tool(res *mcp.CallToolResult, err error) (*mcp.CallToolResult, error) {
	if r == nil {
		return res, err
	}
	err = r.err(err)
	if res == nil {
		return res, err
	}
	red, rerr := redactValue(r, res, mcp.ParseCallToolResult)
	if rerr != nil {
		return nil, rerr
	}
	return red, err
}

// contents redacts what a resources/read returned.
func (r *redactor) contents(cs []mcp.ResourceContents, err error) ([]mcp.ResourceContents, error) {
	if r == nil {
		return cs, err
	}
	if err != nil || len(cs) == 0 {
		return cs, r.err(err)
	}
	red, rerr := redactValue(r, &mcp.ReadResourceResult{Contents: cs}, mcp.ParseReadResourceResult)
	if rerr != nil {
		return nil, rerr
	}
	return red.Contents, nil
}

// messages redacts what a prompts/get returned.
func (r *redactor) messages(msgs []mcp.PromptMessage, err error) ([]mcp.PromptMessage, error) {
	if r == nil {
		return msgs, err
	}
	if err != nil || len(msgs) == 0 {
		return msgs, r.err(err)
	}
	red, rerr := redactValue(r, &mcp.GetPromptResult{Messages: msgs}, mcp.ParseGetPromptResult)
	if rerr != nil {
		return nil, rerr
	}
	return red.Messages, nil
}

// completion redacts the values a completion/complete returned.
func (r *redactor) completion(c abi.Completion, err error) (abi.Completion, error) {
	if r == nil {
		return c, err
	}
	if err != nil {
		return c, r.err(err)
	}
	found := r.found("result")
	for i, v := range c.Values {
		c.Values[i] = secretscan.Redact(v, found)
	}
	return c, nil
}

// err is err with the secrets in its message replaced (counted where
// "error"): a source's error reaches the client, the log and the audit
// line. An error without one is returned as it is.
func (r *redactor) err(err error) error {
	if r == nil || err == nil {
		return err
	}
	msg := err.Error()
	red := secretscan.Redact(msg, r.found("error"))
	if red == msg {
		return err
	}
	f := &source.Failure{Kind: source.FailError}
	if errors.As(err, &f) {
		f = &source.Failure{Kind: f.Kind}
	}
	f.Msg = red
	return f
}

// redactValue encodes v as the client would receive it, replaces the
// secrets of every string in it, and when it replaced any decodes the
// result with parse (mcp-go's own decoder of that kind of result), so
// that what is sent is the redacted value. A result that cannot be
// scanned is withheld.
func redactValue[T any](r *redactor, v *T, parse func(*json.RawMessage) (*T, error)) (*T, error) {
	red, err := secretscan.RecodedWith(v, r.found("result"), func(b []byte) (*T, error) {
		raw := json.RawMessage(b)
		return parse(&raw)
	})
	if err == nil {
		return red, nil
	}
	// Unreachable while mcp-go decodes what it encodes. What the error
	// quotes of the result (a content type, a character) is of the
	// redacted text.
	r.log.Warn("result withheld: it could not be checked for secrets (redact_secrets)", "source", r.source, "error", err)
	return nil, &source.Failure{Kind: source.FailRejected,
		Msg: fmt.Sprintf("returned a result that could not be checked for secrets (redact_secrets): %v", err)}
}
