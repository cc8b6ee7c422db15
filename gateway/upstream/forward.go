// Forwarding: the upstream's requests to its client (sampling,
// elicitation, roots) answered by asking a downstream client, or the
// client of a parked call.

package upstream

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/gateway/source"
)

// forwarder answers an upstream session's requests to its client
// (sampling, elicitation, roots) by asking a downstream client: the one
// that owns the session (session: per_client), or, byCall (a shared
// session over HTTP), the one whose call's stream the request came on.
type forwarder struct {
	s      *shared
	c      *conn
	byCall bool
}

func (f *forwarder) ctx(ctx context.Context, what string) (context.Context, error) {
	ds := f.c.ds
	if f.byCall {
		// ctx is the upstream request's, made on the HTTP stream of one
		// downstream call: that call's context, its client's session.
		if ds = downstream(ctx); ds == nil {
			return nil, fmt.Errorf("refused: %s from upstream %q outside any call (session: shared cannot tell whose client to ask)", what, f.s.name())
		}
	} else if ds == nil {
		return nil, fmt.Errorf("refused: %s from upstream %q on the gateway's own session, which no downstream client owns", what, f.s.name())
	}
	if !ds.Initialized() {
		return nil, fmt.Errorf("the downstream client is gone")
	}
	known, has := source.ClientDeclares(ds, what)
	if !known {
		return nil, fmt.Errorf("the downstream client's capabilities are unknown, so it cannot be asked for %s", what)
	}
	if !has {
		return nil, fmt.Errorf("the downstream client does not support %s (it did not declare the capability)", what)
	}
	if f.byCall {
		return ctx, nil // on the stream of the call that caused it
	}
	if call := f.c.callContext(); call != nil {
		// On the stream of the call that caused it, which the client
		// reads; it ends with that call.
		return call, nil
	}
	return f.s.h.MCP.WithContext(ctx, ds), nil
}

func (f *forwarder) CreateMessage(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	in, err := f.s.redactRequest(mcp.NewSamplingInputRequest(req.CreateMessageParams))
	if err != nil {
		return nil, err
	}
	req.CreateMessageParams = *in.Sampling
	if p, err := f.parkedFor(ctx); err != nil {
		return nil, err
	} else if p != nil {
		raw, err := p.ask(ctx, in)
		if err != nil {
			return nil, err
		}
		return decodeAnswer[mcp.CreateMessageResult]("sampling/createMessage", raw)
	}
	ctx, err = f.ctx(ctx, "sampling")
	if err != nil {
		return nil, err
	}
	return f.s.h.MCP.RequestSampling(ctx, req)
}

func (f *forwarder) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	in, err := f.s.redactRequest(mcp.NewElicitationInputRequest(req.Params))
	if err != nil {
		return nil, err
	}
	req.Params = *in.Elicitation
	if p, err := f.parkedFor(ctx); err != nil {
		return nil, err
	} else if p != nil {
		raw, err := p.ask(ctx, in)
		if err != nil {
			return nil, err
		}
		return decodeAnswer[mcp.ElicitationResult]("elicitation/create", raw)
	}
	ctx, err = f.ctx(ctx, "elicitation")
	if err != nil {
		return nil, err
	}
	return f.s.h.MCP.RequestElicitation(ctx, req)
}

func (f *forwarder) ListRoots(ctx context.Context, req mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	if p, err := f.parkedFor(ctx); err != nil {
		return nil, err
	} else if p != nil {
		raw, err := p.ask(ctx, mcp.NewRootsInputRequest())
		if err != nil {
			return nil, err
		}
		return decodeAnswer[mcp.ListRootsResult]("roots/list", raw)
	}
	ctx, err := f.ctx(ctx, "roots")
	if err != nil {
		return nil, err
	}
	return f.s.h.MCP.RequestRoots(ctx, req)
}
