// Calls: tools/call, resources/read, prompts/get and completion/complete
// forwarded to the upstream within its limits, with the call's trace
// context, and what a call that failed says.

package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/gateway/roundtrip"
	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/loader/abi"
)

// call runs fn with the upstream client a call made with ctx goes to,
// within limits.concurrency; a failure becomes a source.Failure that names
// the upstream, without its credentials.
func (u *Source) call(ctx context.Context, fn func(ctx context.Context, cli *client.Client) error) (err error) {
	s := u.srv
	var tok config.Secret // the caller's token for the upstream, never shown
	defer func() { err = redactToken(s.redactFailure(err), tok) }()
	var c *conn
	var cerr error
	if s.ident != nil {
		var principal string
		if ctx, principal, err = s.identify(ctx); err != nil {
			return err
		}
		tok = ctx.Value(userTokenKey{}).(config.Secret)
		c, cerr = s.userConn(ctx, principal, tok)
	} else {
		c, cerr = s.connFor(ctx)
	}
	if cerr != nil {
		return &source.Failure{Kind: source.FailError, Msg: cerr.Error()}
	}
	release, err := s.acquire(ctx)
	if err != nil {
		return u.ctxFailure(ctx, "waiting for one of its limits.concurrency slots")
	}
	defer release()
	cli, ended, err := c.wait(ctx)
	if err != nil {
		if ctx.Err() != nil && !errors.Is(context.Cause(ctx), context.Canceled) {
			return &source.Failure{Kind: source.FailTimeout, Msg: fmt.Sprintf("timed out after %s: %v", u.Timeout(), err)}
		}
		return &source.Failure{Kind: source.FailCrash, Msg: "failed: " + err.Error()}
	}
	end := c.begin(ctx)
	c.calls.Add(1)
	lazy := c.lazy()
	if lazy {
		c.lastUsed.Store(time.Now().UnixNano())
	}
	ctx, long := tooLongMark(withCallConn(ctx, c))
	err = fn(ctx, cli)
	if lazy {
		c.lastUsed.Store(time.Now().UnixNano())
	}
	c.calls.Add(-1)
	end()
	if err == nil {
		return nil
	}
	if long.Load() {
		err = fmt.Errorf("%w (%v)", errTooLong, err)
	}
	return u.failure(ctx, c, ended, err)
}

// failure is the source.Failure of a call on c that failed with err,
// without the upstream's credentials.
func (u *Source) failure(ctx context.Context, c *conn, ended <-chan struct{}, err error) error {
	return u.srv.redactFailure(u.failed(ctx, c, ended, err))
}

func (u *Source) failed(ctx context.Context, c *conn, ended <-chan struct{}, err error) error {
	s := u.srv
	stdin, stalled := stdinFailure(s.name(), err)
	if ctx.Err() != nil {
		if stdin != "" {
			stdin = "while its request waited to be written: " + stdin
		}
		return u.ctxFailure(ctx, stdin)
	}
	if stalled {
		return &source.Failure{Kind: source.FailCrash, Msg: "failed: " + stdin}
	}
	var rr *redirectRefused
	if errors.As(err, &rr) {
		// A redirect the gateway did not follow: the session is fine.
		return &source.Failure{Kind: source.FailError, Msg: rr.Error()}
	}
	if !s.spec.Stdio() && (malformed(err) || errors.Is(err, errTooLong)) {
		// One bad answer over HTTP: the session itself is fine.
		if errors.Is(err, errTooLong) {
			return &source.Failure{Kind: source.FailError, Msg: fmt.Sprintf("upstream %q answered with a message longer than limits.max_message (%d bytes)", s.name(), int64(s.spec.Limits.MaxMessage))}
		}
		return &source.Failure{Kind: source.FailError, Msg: fmt.Sprintf("upstream %q answered with malformed JSON: %v", s.name(), err)}
	}
	if transportError(err) {
		if c.s.spec.Stdio() {
			// The process is gone or going: wait a moment for its exit
			// status, to say why.
			select {
			case <-ended:
			case <-time.After(time.Second):
			}
		} else {
			c.down(fmt.Errorf("connection failed: %w", err))
		}
		why := c.exitReason()
		if why == nil {
			why = err
		}
		return &source.Failure{Kind: source.FailCrash, Msg: fmt.Sprintf("failed: upstream %q %v", s.name(), why)}
	}
	return &source.Failure{Kind: source.FailError, Msg: fmt.Sprintf("upstream %q: %v", s.name(), rpcMessage(err))}
}

func (u *Source) ctxFailure(ctx context.Context, while string) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		msg := fmt.Sprintf("timed out after %s (upstream %q, limits.timeout)", u.Timeout(), u.srv.name())
		if while != "" {
			msg += " " + while
		}
		return &source.Failure{Kind: source.FailTimeout, Msg: msg}
	}
	return &source.Failure{Kind: source.FailCancelled, Msg: "was cancelled"}
}

// redactFailure is err (a *source.Failure) without the upstream's
// credentials in its message.
func (s *shared) redactFailure(err error) error {
	if _, ok := err.(*source.ConnectFailure); ok {
		return err // a link to the gateway's own page, nothing of the upstream's
	}
	var f *source.Failure
	if !errors.As(err, &f) {
		if err != nil {
			return errors.New(s.redact(err.Error()))
		}
		return nil
	}
	if m := s.redact(f.Msg); m != f.Msg {
		g := *f
		g.Msg = m
		return &g
	}
	return err
}

// rpcMessage is the message of an error the upstream answered with.
func rpcMessage(err error) string {
	return err.Error()
}

// CallTool forwards the call; the result (content, structuredContent,
// _meta, isError) is passed on as the upstream returned it.
func (u *Source) CallTool(ctx context.Context, tool string, args json.RawMessage) (*mcp.CallToolResult, error) {
	if rp := roundtrip.From(ctx); rp != nil && u.srv.parkable(ctx) {
		return u.callParkable(ctx, rp, tool, args)
	}
	var res *mcp.CallToolResult
	err := u.call(ctx, func(ctx context.Context, cli *client.Client) error {
		req := mcp.CallToolRequest{}
		req.Params.Name = tool
		req.Params.Arguments = args
		tok, done := u.srv.progressToken(ctx, callConn(ctx))
		defer done()
		if tok != nil {
			req.Params.Meta = &mcp.Meta{ProgressToken: tok}
		}
		req.Params.Meta = withTrace(ctx, req.Params.Meta)
		var err error
		res, err = cli.CallTool(ctx, req)
		return err
	})
	if err != nil {
		return nil, err
	}
	if res.Content == nil {
		res.Content = []mcp.Content{}
	}
	return res, nil
}

// ReadResource reads the upstream's own URI.
func (u *Source) ReadResource(ctx context.Context, _ abi.Resource, uri string, _ map[string]string) ([]mcp.ResourceContents, error) {
	var out []mcp.ResourceContents
	err := u.call(ctx, func(ctx context.Context, cli *client.Client) error {
		req := mcp.ReadResourceRequest{}
		req.Params.URI = uri
		req.Params.Meta = withTrace(ctx, nil)
		res, err := cli.ReadResource(ctx, req)
		if err == nil {
			out = res.Contents
		}
		return err
	})
	return out, err
}

// GetPrompt gets the upstream's prompt.
func (u *Source) GetPrompt(ctx context.Context, prompt string, args map[string]string) ([]mcp.PromptMessage, error) {
	var out []mcp.PromptMessage
	err := u.call(ctx, func(ctx context.Context, cli *client.Client) error {
		req := mcp.GetPromptRequest{}
		req.Params.Name = prompt
		req.Params.Arguments = args
		req.Params.Meta = withTrace(ctx, nil)
		res, err := cli.GetPrompt(ctx, req)
		if err == nil {
			out = res.Messages
		}
		return err
	})
	return out, err
}

// Complete forwards completion/complete.
func (u *Source) Complete(ctx context.Context, r abi.CompleteRequest) (abi.Completion, error) {
	var out abi.Completion
	err := u.call(ctx, func(ctx context.Context, cli *client.Client) error {
		req := mcp.CompleteRequest{}
		if r.Prompt != "" {
			req.Params.Ref = mcp.PromptReference{Type: "ref/prompt", Name: r.Prompt}
		} else {
			req.Params.Ref = mcp.ResourceReference{Type: "ref/resource", URI: r.URI}
		}
		req.Params.Argument = mcp.CompleteArgument{Name: r.Argument, Value: r.Value}
		req.Params.Context = mcp.CompleteContext{Arguments: r.Arguments}
		res, err := cli.Complete(ctx, req)
		if err != nil {
			return err
		}
		out = abi.Completion{Values: res.Completion.Values, HasMore: res.Completion.HasMore}
		if res.Completion.Total > 0 {
			t := res.Completion.Total
			out.Total = &t
		}
		return nil
	})
	return out, err
}

// withTrace is m with the call's trace context as _meta.traceparent (and
// tracestate), the 2026-07-28 revision's way to carry it, which works
// over stdio too (HTTP upstreams also get it as a header, traceHeaders).
// Without a trace in ctx it is m.
func withTrace(ctx context.Context, m *mcp.Meta) *mcp.Meta {
	carrier := traceHeaders(ctx)
	if carrier == nil {
		return m
	}
	if m == nil {
		m = &mcp.Meta{}
	}
	if m.AdditionalFields == nil {
		m.AdditionalFields = make(map[string]any, len(carrier))
	}
	for k, v := range carrier {
		m.AdditionalFields[k] = v
	}
	return m
}

// traceHeaders are the W3C trace context headers of the call in ctx, for
// each HTTP request to an upstream (nil without a trace).
func traceHeaders(ctx context.Context) map[string]string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return nil
	}
	carrier := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, carrier)
	return carrier
}
