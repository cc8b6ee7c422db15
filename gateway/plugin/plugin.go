package plugin

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/gateway/tracing"
	"github.com/wasmgate/wasmgate/internal/toolresult"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/loader/host"
	"github.com/wasmgate/wasmgate/wire"
	"go.opentelemetry.io/otel/trace"
)

// Source is a plugin as one snapshot serves it: its current spec (limits
// such as timeout and max_output apply per snapshot) over a compiled module
// and pool that consecutive snapshots share when the module and the settings
// it was built with did not change. It is the Source of WASM plugins.
type Source struct {
	name   string
	spec   loader.PluginSpec
	plugin *loader.Plugin // == sh.plugin
	pool   *pool          // == sh.pool
	sh     *shared
	h      *Host
}

var (
	_ source.Source         = (*Source)(nil)
	_ source.Completer      = (*Source)(nil)
	_ source.Kinded         = (*Source)(nil)
	_ source.StatusReporter = (*Source)(nil)
	_ source.SessionEnder   = (*Source)(nil)
	_ source.SessionLister  = (*Source)(nil)
	_ source.Curated        = (*Source)(nil)
)

func (p *Source) Name() string               { return p.name }
func (p *Source) Key() string                { return p.spec.Key }
func (p *Source) Prefix() string             { return p.spec.Prefix }
func (p *Source) Descriptor() abi.Descriptor { return *p.sh.info.Load() }
func (p *Source) Timeout() time.Duration     { return time.Duration(p.spec.Limits.Timeout) }
func (p *Source) TaskTimeout() time.Duration { return time.Duration(p.spec.Limits.TaskTimeout) }
func (p *Source) RedactSecrets() bool        { return p.spec.RedactSecrets }
func (p *Source) Kind() string               { return "plugin" }
func (p *Source) MaxOutput() int64           { return int64(p.spec.Limits.MaxOutput) }

// SelfTraced: a call's trace has the plugin's "instance wait" (when it
// waited) and "wasm call" spans right under the call's span.
func (p *Source) SelfTraced() {}

// Curation is the plugin's tools: and overrides: (source.Curated).
func (p *Source) Curation() *config.Curation { return &p.spec.Curation }

// Status is what the status page shows of the plugin: its ABI, module
// and instances.
func (p *Source) Status() source.Status {
	return source.Status{ABI: p.plugin.ABI.Name(), Module: p.spec.Path, SHA256: p.plugin.SHA256,
		Instances: &source.InstanceStatus{Live: p.pool.live.Load(), InUse: len(p.pool.sem), Max: cap(p.pool.sem)}}
}

// EndSession closes the instances the session had (instances: session).
// and forgets what its instance listed.
func (p *Source) EndSession(ctx context.Context, session string) {
	p.pool.endSession(ctx, session)
	p.sh.forgetSession(session)
}

// CanComplete reports whether the plugin's ABI completes arguments.
func (p *Source) CanComplete() bool {
	_, ok := p.plugin.ABI.(abi.Completer)
	return ok
}

// CallTool runs the tool through the plugin's ABI: a sea-flea output
// becomes one text item, a hyper-mcp CallToolResult is passed on.
func (p *Source) CallTool(ctx context.Context, tool string, args json.RawMessage) (*mcp.CallToolResult, error) {
	var out abi.ToolResult
	err := p.run(ctx, func(ctx context.Context, inst *loader.Instance) (err error) {
		out, err = p.plugin.ABI.CallTool(ctx, inst, tool, args)
		return err
	})
	if err != nil {
		return nil, err
	}
	if max := p.spec.Limits.MaxOutput; int64(out.Size()) > int64(max) {
		return nil, &source.Failure{Kind: source.FailRejected, Msg: fmt.Sprintf("returned %d bytes, more than its plugin's limits.max_output (%s)", out.Size(), max)}
	}
	if out.Result == nil {
		return mcp.NewToolResultText(string(out.Text)), nil
	}
	res, err := toolresult.Parse(out.Result)
	if err != nil {
		return nil, fmt.Errorf("plugin %q returned a tool result that is not an MCP CallToolResult: %v", p.name, err)
	}
	// What only the gateway may ask of a client stays with the gateway.
	res.ResultType, res.InputRequests, res.RequestState = "", nil, ""
	if res.Content == nil {
		res.Content = []mcp.Content{}
	}
	return res, nil
}

// ReadResource reads the resource through the plugin's ABI.
func (p *Source) ReadResource(ctx context.Context, r abi.Resource, uri string, vars map[string]string) ([]mcp.ResourceContents, error) {
	var cs []wire.ResourceContent
	err := p.run(ctx, func(ctx context.Context, inst *loader.Instance) (err error) {
		cs, err = p.plugin.ABI.ReadResource(ctx, inst, r, uri, vars)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]mcp.ResourceContents, 0, len(cs))
	for _, c := range cs {
		if c.Blob != "" {
			if _, err := base64.StdEncoding.DecodeString(c.Blob); err != nil {
				return nil, fmt.Errorf("resource %q: plugin %q returned a blob that is not base64", uri, p.name)
			}
			out = append(out, mcp.BlobResourceContents{URI: c.URI, MIMEType: c.MimeType, Blob: c.Blob})
			continue
		}
		out = append(out, mcp.TextResourceContents{URI: c.URI, MIMEType: c.MimeType, Text: c.Text})
	}
	return out, nil
}

// GetPrompt gets the prompt through the plugin's ABI. Message content of
// every MCP type is passed on.
func (p *Source) GetPrompt(ctx context.Context, prompt string, args map[string]string) ([]mcp.PromptMessage, error) {
	var msgs []abi.PromptMessage
	err := p.run(ctx, func(ctx context.Context, inst *loader.Instance) (err error) {
		msgs, err = p.plugin.ABI.GetPrompt(ctx, inst, prompt, args)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]mcp.PromptMessage, 0, len(msgs))
	for i, m := range msgs {
		role := mcp.Role(m.Role)
		if role != mcp.RoleUser && role != mcp.RoleAssistant {
			return nil, fmt.Errorf("prompt %q: plugin %q returned role %q (want user or assistant)", prompt, p.name, m.Role)
		}
		c, err := mcp.UnmarshalContent(m.Content)
		if err != nil {
			return nil, fmt.Errorf("prompt %q: plugin %q returned message %d with invalid content: %v", prompt, p.name, i, err)
		}
		out = append(out, mcp.NewPromptMessage(role, c))
	}
	return out, nil
}

// Complete completes an argument of a prompt or resource template
// through the plugin's ABI, which must be an abi.Completer.
func (p *Source) Complete(ctx context.Context, req abi.CompleteRequest) (abi.Completion, error) {
	var out abi.Completion
	err := p.run(ctx, func(ctx context.Context, inst *loader.Instance) (err error) {
		out, err = p.plugin.ABI.(abi.Completer).Complete(ctx, inst, req)
		return err
	})
	return out, err
}

// waitSpanMin is the shortest wait for an instance that gets its own span
// ("instance wait") in a call's trace.
const waitSpanMin = 100 * time.Microsecond

// run borrows an instance for one export call; ctx carries the deadline.
func (p *Source) run(ctx context.Context, fn func(context.Context, *loader.Instance) error) error {
	var session string
	if cs := server.ClientSessionFromContext(ctx); cs != nil {
		session = cs.SessionID()
	}
	tr := trace.SpanFromContext(ctx).TracerProvider().Tracer(tracing.Name)
	began := time.Now()
	inst, release, waited, err := p.pool.acquire(ctx, session)
	if waited {
		// A span only for a wait worth seeing: most calls find an
		// instance at once, and a span costs more than that. A call that
		// found everything free but was descheduled meanwhile (16
		// callers on 2 cores) did not wait for an instance.
		if took := time.Since(began); err != nil || took >= waitSpanMin {
			_, wait := tr.Start(ctx, "instance wait", trace.WithTimestamp(began))
			wait.End(trace.WithTimestamp(began.Add(took)))
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return p.failure(&abi.CallError{Kind: abi.KindTimeout, Msg: "timed out waiting for a free instance"})
		}
		return p.failure(&abi.CallError{Kind: abi.KindTrap, Msg: fmt.Sprintf("could not start an instance: %v", err)})
	}
	defer release()
	call := p.newCall(ctx)
	wctx, span := ctx, tracing.Off()
	if trace.SpanFromContext(ctx).IsRecording() {
		wctx, span = tr.Start(ctx, "wasm call")
	}
	err = fn(host.WithCall(wctx, call), inst)
	if err != nil {
		tracing.Fail(span, err.Error())
	}
	span.End()
	if call.changed != [3]bool{} && !inst.Dead() {
		p.relist(inst, session)
	}
	if err != nil && call.unavailable != nil {
		return &source.Failure{Kind: source.FailError, Msg: call.unavailable.Error()}
	}
	return p.failure(err)
}

// failure turns a failed export call into a source.Failure a person can act on.
func (p *Source) failure(err error) error {
	if err == nil { // before ce, which errors.As makes escape: no allocation per call
		return nil
	}
	var ce *abi.CallError
	if !errors.As(err, &ce) {
		return err
	}
	limits := p.spec.Limits
	switch ce.Kind {
	case abi.KindError:
		return &source.Failure{Kind: source.FailError, Msg: ce.Msg}
	case abi.KindCancelled:
		return &source.Failure{Kind: source.FailCancelled, Msg: "was cancelled"}
	case abi.KindRejected:
		return &source.Failure{Kind: source.FailRejected, Msg: fmt.Sprintf("was refused: %s (plugin %q)", ce.Msg, p.name)}
	case abi.KindTimeout:
		msg := fmt.Sprintf("timed out after %s (plugin %q, limits.timeout)", limits.Timeout, p.name)
		if ce.Msg != "timed out" {
			msg += ": " + ce.Msg
		}
		return &source.Failure{Kind: source.FailTimeout, Msg: msg}
	}
	msg := ce.Msg
	if strings.Contains(msg, "out of memory") {
		msg += fmt.Sprintf(" (limits.memory is %s)", limits.Memory)
	}
	return &source.Failure{Kind: source.FailCrash, Msg: fmt.Sprintf("failed: plugin %q crashed: %s", p.name, msg)}
}

// Grants are what the plugin may reach, as the lock file records them
// (docs/trust.md): its allowed_hosts (sorted), allowed_paths, instance
// scope and the host functions its module imports.
func (p *Source) Grants() map[string]any {
	g := SpecGrants(p.spec)
	g["host_functions"] = append([]string{}, p.plugin.Imports...)
	return g
}

// SpecGrants are the grants of Grants that spec alone says, known before
// its module is compiled: all but host_functions.
func SpecGrants(spec loader.PluginSpec) map[string]any {
	hosts := append([]string{}, spec.AllowedHosts...)
	slices.Sort(hosts)
	paths := map[string]string{}
	maps.Copy(paths, spec.AllowedPaths)
	return map[string]any{"allowed_hosts": hosts, "allowed_paths": paths, "instances": spec.Instances}
}
