package intercept

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/loader/fetch"
)

// MaxOutput bounds what an interceptor module may return: a modified
// result is bounded again by the call's own output limit.
const MaxOutput = 16 << 20

// Module is a compiled interceptor module with its pool of instances: at
// most limits.concurrency run at once, and each call (waiting for an
// instance included) is bounded by limits.timeout (loader.Pool). Safe for
// concurrent use.
type Module struct {
	name    string
	timeout time.Duration
	pool    *loader.Pool
	// limit names limits.timeout in the messages of a timeout, written
	// once rather than on every call.
	limit string
}

var _ Interceptor = (*Module)(nil)

// NewModule compiles the interceptor module mod, fetched for spec, with
// c. slots, if not nil, are the gateway-wide WebAssembly call slots
// (server.max_concurrent_calls) each call takes one of.
func NewModule(ctx context.Context, c *loader.Compiler, spec loader.InterceptorSpec, mod fetch.Module, slots chan struct{}) (*Module, error) {
	ps := spec.Plugin()
	p, first, err := c.CompileInterceptor(ctx, ps, mod, spec.Exports()...)
	if err != nil {
		return nil, err
	}
	m := &Module{name: spec.Name, timeout: time.Duration(ps.Limits.Timeout),
		pool:  loader.NewPool(p, first, ps.Limits.Concurrency, slots),
		limit: fmt.Sprintf("limits.timeout %s", time.Duration(ps.Limits.Timeout))}
	return m, nil
}

// SHA256 is the digest of the module.
func (m *Module) SHA256() string { return m.pool.SHA256() }

// Close closes the idle instances and the compiled module. No call may
// be running or start.
func (m *Module) Close(ctx context.Context) error { return m.pool.Close(ctx) }

// Intercept runs the export of in's phase on an instance of the pool,
// within limits.timeout.
func (m *Module) Intercept(ctx context.Context, in *Input) (*Output, error) {
	export := ExportRequest
	if in.Phase == PhaseResponse {
		export = ExportResponse
	}
	limit := m.limit
	at := time.Now().Add(m.timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(at) {
		// The call's own deadline comes first: name it, not ours.
		limit = "the call's deadline (its source's limits.timeout)"
	}
	raw, err := m.call(ctx, at, export, in, limit)
	if err != nil {
		return nil, err
	}
	return ParseOutput(raw)
}

// ParseOutput reads an interceptor's answer: a JSON object whose
// decision is continue, deny or modify, within MaxOutput bytes.
func ParseOutput(raw []byte) (*Output, error) {
	if len(raw) > MaxOutput {
		return nil, fmt.Errorf("its answer is %d bytes, over the bound of %d", len(raw), MaxOutput)
	}
	if string(raw) == `{"decision":"continue"}` {
		// The common answer, as the PDKs write it: no decoding.
		return &Output{Decision: Continue}, nil
	}
	if out, ok := sliceOutput(raw); ok {
		return out, nil
	}
	return decodeOutput(raw)
}

// decodeOutput is ParseOutput by encoding/json.
func decodeOutput(raw []byte) (*Output, error) {
	var out Output
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf(`its answer is not a JSON object {"decision": ...}: %v`, err)
	}
	switch out.Decision {
	case Continue, Deny, Modify:
	default:
		return nil, fmt.Errorf(`its answer's decision is %q: want "continue", "deny" or "modify"`, out.Decision)
	}
	return &out, nil
}

// sliceOutput reads a modification as the PDKs write it,
// {"decision":"modify"[,"message":"..."],"result"|"arguments":VALUE},
// without reading VALUE: the check of a modification decodes it anyway
// (a result of 10 KiB was scanned three times more), and when VALUE is
// not one JSON value after all, apply decodes the whole answer (kept in
// Output.answer) and goes by that. ok is false for any other answer.
func sliceOutput(raw []byte) (_ *Output, ok bool) {
	rest, ok := bytes.CutPrefix(raw, []byte(`{"decision":"modify"`))
	if !ok {
		return nil, false
	}
	out := &Output{Decision: Modify, answer: raw}
	if m, ok := bytes.CutPrefix(rest, []byte(`,"message":`)); ok {
		n := stringEnd(m)
		if n < 0 || json.Unmarshal(m[:n], &out.Message) != nil {
			return nil, false
		}
		rest = m[n:]
	}
	t := bytes.TrimRight(rest, " \t\r\n")
	if len(t) == 0 || t[len(t)-1] != '}' {
		return nil, false
	}
	t = t[:len(t)-1]
	if v, ok := bytes.CutPrefix(t, []byte(`,"result":`)); ok {
		out.Result = v
	} else if v, ok := bytes.CutPrefix(t, []byte(`,"arguments":`)); ok {
		out.Arguments = v
	} else {
		return nil, false
	}
	return out, true
}

// stringEnd is the length of the JSON string b starts with, quotes
// included; -1 when b does not start with a whole one.
func stringEnd(b []byte) int {
	if len(b) == 0 || b[0] != '"' {
		return -1
	}
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// call runs export with in on an instance of the pool, until at.
func (m *Module) call(ctx context.Context, at time.Time, export string, in *Input, limit string) ([]byte, error) {
	out, err := m.pool.Call(ctx, at, export, in.AppendJSON)
	if err == nil {
		return out, nil
	}
	var ce *abi.CallError
	switch {
	case errors.Is(err, loader.ErrNoInstance):
		return nil, fmt.Errorf("timed out waiting for an instance (%s, limits.concurrency %d)", limit, m.pool.Size())
	case errors.As(err, &ce) && ce.Kind == abi.KindTimeout:
		return nil, fmt.Errorf("%s timed out (%s)", export, limit)
	case errors.As(err, &ce):
		return nil, fmt.Errorf("%s: %w", export, err)
	}
	return nil, err // ctx ended while it waited, or no instance could start
}
