package host

import (
	"context"
	"fmt"

	extism "github.com/extism/go-sdk"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Host function results of wasmgate_kv_set.
const (
	kvStored        = 0
	kvQuotaExceeded = 1
)

// unavailable ends the running call with err, the shared store's failure
// (state.backend: redis and Redis unavailable): the functions have no way
// to tell the plugin, and a missing key or a full store would be a lie.
// The call's Call, if it is a StateReporter, hears of it first, so the
// call can fail as the tool's error rather than as a crash.
func unavailable(ctx context.Context, err error) {
	if err != nil {
		if r, ok := CallOf(ctx).(StateReporter); ok {
			r.StateUnavailable(err)
		}
		panic(fmt.Errorf("%w: %w", err, ErrStop))
	}
}

// Span starts a span named name, a child of the call's span in ctx (the
// "wasm call" span), for one host function; without a recording span in
// ctx it is a no-op that costs no allocation.
func Span(ctx context.Context, name string) (context.Context, trace.Span) {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return ctx, parent
	}
	return parent.TracerProvider().Tracer("github.com/wasmgate/wasmgate").Start(ctx, name, trace.WithSpanKind(trace.SpanKindInternal))
}

// endSpan ends a host function's span, failed when err is not nil.
func endSpan(span trace.Span, err error) {
	if err != nil {
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// StateReporter is a Call told that the shared state failed it.
type StateReporter interface{ StateUnavailable(err error) }

// kvFunctions are wasmgate_kv_get, wasmgate_kv_set and wasmgate_kv_delete
// (namespace extism:host/user) bound to one plugin's store. See
// docs/plugins.md for the contract.
func kvFunctions(store *Store) []extism.HostFunction {
	i64 := []extism.ValueType{extism.ValueTypeI64}
	get := extism.NewHostFunctionWithStack("wasmgate_kv_get",
		func(ctx context.Context, p *extism.CurrentPlugin, stack []uint64) {
			key, err := p.ReadString(stack[0])
			if err != nil {
				stack[0] = 0
				return
			}
			sctx, span := Span(ctx, "kv get")
			v, ok, err := store.Lookup(sctx, key)
			endSpan(span, err)
			unavailable(ctx, err)
			if !ok {
				stack[0] = 0
				return
			}
			buf := make([]byte, 1+len(v))
			buf[0] = 1
			copy(buf[1:], v)
			off, err := p.WriteBytes(buf)
			if err != nil {
				stack[0] = 0
				return
			}
			stack[0] = off
		}, i64, i64)
	set := extism.NewHostFunctionWithStack("wasmgate_kv_set",
		func(ctx context.Context, p *extism.CurrentPlugin, stack []uint64) {
			key, err := p.ReadString(stack[0])
			if err != nil {
				stack[0] = kvQuotaExceeded
				return
			}
			v, err := p.ReadBytes(stack[1])
			if err != nil {
				stack[0] = kvQuotaExceeded
				return
			}
			sctx, span := Span(ctx, "kv set")
			ok, err := store.Put(sctx, key, v)
			endSpan(span, err)
			unavailable(ctx, err)
			if ok {
				stack[0] = kvStored
			} else {
				stack[0] = kvQuotaExceeded
			}
		}, []extism.ValueType{extism.ValueTypeI64, extism.ValueTypeI64}, i64)
	del := extism.NewHostFunctionWithStack("wasmgate_kv_delete",
		func(ctx context.Context, p *extism.CurrentPlugin, stack []uint64) {
			if key, err := p.ReadString(stack[0]); err == nil {
				sctx, span := Span(ctx, "kv delete")
				err := store.Remove(sctx, key)
				endSpan(span, err)
				unavailable(ctx, err)
			}
			stack[0] = 0
		}, i64, i64)
	return []extism.HostFunction{get, set, del}
}
