package upstream

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/gateway/roundtrip"
	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/loader"
)

// A 2026-07-28 client takes no server-initiated requests, and an
// upstream call cannot be run again from the start (it has effects the
// gateway cannot replay). So when the upstream asks for sampling,
// elicitation or roots during such a client's call, the call is parked:
// the upstream request stays open and the client gets input_required
// with the upstream's request and a signed requestState naming the
// parked call. The retry with the client's answer (to the same gateway
// process) resumes the call by answering the upstream. A parked call
// that is not resumed within the state's TTL is cancelled (the upstream
// request too); a retry after that, or one that reaches another
// process, is refused.
//
// While parked a call holds none of the upstream's limits.concurrency
// slots (it waits for its client, not for the upstream): a resumed call
// takes one again before the upstream hears the answer. Instead each
// principal may have at most limits.concurrency calls parked on an
// upstream at once; a call that would park beyond that is ended and
// refused (wasmgate_upstream_calls_refused_total{reason=
// "parked_per_principal"}). So one principal's unanswered calls cannot
// keep another principal's calls from the upstream (issue 39).

// parkedCall is an upstream tools/call of a 2026-07-28 client.
type parkedCall struct {
	id     string
	s      *shared
	ctx    context.Context // the upstream request's; ends with the call
	cancel context.CancelFunc
	asks   chan *inputAsk     // the upstream's requests of the client
	done   chan parkedOutcome // the upstream's answer to the call (buffered)

	mu       sync.Mutex
	waiting  *inputAsk   // while parked: the request the client is asked
	timer    *time.Timer // ends a parked call nobody resumes
	finished bool
	release  func() // frees its limits.concurrency slot; nil while parked (it holds none)
	progress string // the upstream progress token of the call, if its client sent one
	unprog   func() // forgets it

	principal string // whose call it is, for the bound on parked calls
	parkedNow bool   // waiting for its client now (guarded by s.parkedMu)
	// client is the session of the call's client (its capabilities):
	// it is asked only what it declared.
	client server.ClientSession
}

type inputAsk struct {
	req    mcp.InputRequest
	answer chan json.RawMessage // buffered
}

type parkedOutcome struct {
	res *mcp.CallToolResult
	err error
}

// refusedParked is the reason label of a call refused because its
// principal has limits.concurrency calls parked on the upstream already.
const refusedParked = "parked_per_principal"

type parkKey struct{}

// parkedFrom is the parked call whose upstream request ctx belongs to
// (an upstream request on the HTTP stream of that call), or nil.
func parkedFrom(ctx context.Context) *parkedCall {
	p, _ := ctx.Value(parkKey{}).(*parkedCall)
	return p
}

// parkable reports whether a 2026-07-28 client's calls park when the
// upstream asks something: the sessions that declare sampling,
// elicitation and roots to the upstream (session: per_client, and
// session: shared over HTTP; see clientOptions).
func (s *shared) parkable(ctx context.Context) bool {
	if s.ident != nil {
		// Reached as each caller: a call runs on its principal's own
		// session, never the gateway's (identity.go).
		return false
	}
	if s.spec.Session != loader.SessionPerClient && s.spec.Stdio() {
		return false
	}
	ds := downstream(ctx)
	return ds == nil || ds.SessionID() == "" // served by the gateway's own session (connFor)
}

func (s *shared) parkTTL() time.Duration {
	if s.h.ParkTTL != nil {
		if d := s.h.ParkTTL(); d > 0 {
			return d
		}
	}
	return roundtrip.DefaultTTL
}

// finish ends p for good: its upstream request, its slot, its entry.
func (p *parkedCall) finish() {
	p.mu.Lock()
	if p.finished {
		p.mu.Unlock()
		return
	}
	p.finished = true
	p.waiting = nil
	if p.timer != nil {
		p.timer.Stop()
	}
	release, unprog := p.release, p.unprog
	p.release = nil
	p.mu.Unlock()
	p.cancel()
	unprog()
	p.s.parkedMu.Lock()
	delete(p.s.parked, p.id)
	p.parkedNow = false
	p.s.parkedMu.Unlock()
	if release != nil {
		release()
	}
}

// park marks p as waiting for its client, unless its principal already
// has limits.concurrency calls parked on s; then it reports how many.
func (s *shared) park(p *parkedCall) (held int, ok bool) {
	s.parkedMu.Lock()
	defer s.parkedMu.Unlock()
	for _, q := range s.parked {
		if q != p && q.parkedNow && q.principal == p.principal {
			held++
		}
	}
	if held >= s.spec.Limits.Concurrency {
		return held, false
	}
	p.parkedNow = true
	return held, true
}

// unpark marks p as no longer waiting for its client (it is resumed).
func (s *shared) unpark(p *parkedCall) {
	s.parkedMu.Lock()
	p.parkedNow = false
	s.parkedMu.Unlock()
}

// principal is the name of the principal making the call of ctx.
func (s *shared) principal(ctx context.Context) string {
	if s.h.Principal == nil {
		return ""
	}
	return s.h.Principal(ctx)
}

// ask is the upstream's request req of the client, answered when the
// client retries the call (or an error once the call ended).
func (p *parkedCall) ask(ctx context.Context, req mcp.InputRequest) (json.RawMessage, error) {
	// A request of a kind the client left out of the capabilities it
	// declared is refused to the upstream, not sent (a stdio server's
	// roots/list, say, that came while the call of a client declaring
	// sampling and elicitation only was parked). A 2026-07-28 client that
	// declared nothing is asked: input_required is how it learns.
	if what := inputKind(req); what != "" && declaredSome(p.client) {
		if _, has := source.ClientDeclares(p.client, what); !has {
			return nil, fmt.Errorf("the downstream client does not support %s (it did not declare the capability)", what)
		}
	}
	a := &inputAsk{req: req, answer: make(chan json.RawMessage, 1)}
	select {
	case p.asks <- a:
	case <-p.ctx.Done():
		return nil, fmt.Errorf("the call ended before the client was asked")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case raw := <-a.answer:
		return raw, nil
	case <-p.ctx.Done():
		return nil, fmt.Errorf("the client did not answer (the call ended, or its requestState expired)")
	case <-ctx.Done():
		return nil, fmt.Errorf("the client did not answer in time: %w", ctx.Err())
	}
}

// callParkable is CallTool for a 2026-07-28 client (rp) on an upstream
// whose requests of a client park the call.
func (u *Source) callParkable(ctx context.Context, rp *roundtrip.Replay, tool string, args json.RawMessage) (*mcp.CallToolResult, error) {
	s := u.srv
	if id := rp.Parked(); id != "" {
		s.parkedMu.Lock()
		p := s.parked[id]
		s.parkedMu.Unlock()
		gone := &source.Failure{Kind: source.FailError, Msg: fmt.Sprintf("upstream %q: the call this requestState continues is not waiting in this gateway process: it ended, waited longer than server.request_state.ttl (%s), or was parked in another replica; call the tool again without requestState", s.name(), s.parkTTL())}
		if p == nil {
			return nil, gone
		}
		// Parked, the call held no slot: it takes one again before the
		// upstream hears the answer and goes on working.
		release, err := s.acquire(ctx)
		if err != nil {
			p.finish() // its requestState is spent: nobody can resume it now
			return nil, u.ctxFailure(ctx, "waiting for one of its limits.concurrency slots to resume a parked call")
		}
		p.mu.Lock()
		a := p.waiting
		if a != nil {
			p.waiting = nil
			p.release = release
			if p.timer != nil {
				p.timer.Stop()
			}
		}
		p.mu.Unlock()
		if a == nil {
			release()
			return nil, gone
		}
		s.unpark(p)
		if p.progress != "" {
			// The upstream's progress now goes to this round's stream.
			if t, ok := s.progress.Load(p.progress); ok {
				s.progress.Store(p.progress, progressTarget{ctx: ctx, token: t.(progressTarget).token, c: t.(progressTarget).c})
			}
		}
		a.answer <- rp.Resume()
		return u.await(ctx, rp, p)
	}

	c := s.main
	release, err := s.acquire(ctx)
	if err != nil {
		return nil, u.ctxFailure(ctx, "waiting for one of its limits.concurrency slots")
	}
	cli, ended, err := c.wait(ctx)
	if err != nil {
		release()
		if ctx.Err() != nil && !errors.Is(context.Cause(ctx), context.Canceled) {
			return nil, &source.Failure{Kind: source.FailTimeout, Msg: fmt.Sprintf("timed out after %s: %v", u.Timeout(), err)}
		}
		return nil, &source.Failure{Kind: source.FailCrash, Msg: "failed: " + err.Error()}
	}
	var idb [16]byte
	_, _ = rand.Read(idb[:])
	p := &parkedCall{id: hex.EncodeToString(idb[:]), s: s, asks: make(chan *inputAsk), done: make(chan parkedOutcome, 1), release: release,
		principal: s.principal(ctx), client: server.ClientSessionFromContext(ctx)}
	tok, unprog := s.progressToken(ctx, c)
	p.unprog = unprog
	if tok != nil {
		p.progress = tok.(string)
	}
	// The upstream request outlives this round's request: it ends when
	// the call does (finish), or with the server.
	pctx, cancel := context.WithCancel(context.WithValue(s.ctx, parkKey{}, p))
	pctx, long := tooLongMark(pctx)
	p.ctx, p.cancel = pctx, cancel
	s.parkedMu.Lock()
	s.parked[p.id] = p
	s.parkedMu.Unlock()
	c.addParked(p)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer c.removeParked(p)
		req := mcp.CallToolRequest{}
		req.Params.Name = tool
		req.Params.Arguments = args
		if tok != nil {
			req.Params.Meta = &mcp.Meta{ProgressToken: tok}
		}
		res, err := cli.CallTool(pctx, req)
		if err != nil && long.Load() {
			err = fmt.Errorf("%w (%v)", errTooLong, err)
		}
		if err != nil && pctx.Err() == nil {
			err = u.failure(pctx, c, ended, err)
		}
		p.done <- parkedOutcome{res, err}
	}()
	return u.await(ctx, rp, p)
}

// await waits for what the upstream does next in call p: answer it (the
// result), or ask the client something (p parks; the caller answers
// input_required).
func (u *Source) await(ctx context.Context, rp *roundtrip.Replay, p *parkedCall) (*mcp.CallToolResult, error) {
	select {
	case out := <-p.done:
		p.finish()
		if out.err != nil {
			var f *source.Failure
			if errors.As(out.err, &f) {
				return nil, f
			}
			return nil, u.failure(ctx, u.srv.main, nil, out.err)
		}
		if out.res.Content == nil {
			out.res.Content = []mcp.Content{}
		}
		return out.res, nil
	case a := <-p.asks:
		s := u.srv
		if held, ok := s.park(p); !ok {
			p.finish()
			s.h.Metrics.UpstreamCallsRefused.WithLabelValues(s.name(), refusedParked).Inc()
			s.refusals.Warn(s.h.Logger, "upstream: refused a parked call: its principal has limits.concurrency calls parked on the upstream already",
				"upstream", s.name(), "principal", p.principal, "parked", held)
			return nil, &source.Failure{Kind: source.FailError, Msg: fmt.Sprintf("upstream %q: refused: principal %q already has %d calls parked on upstream %q, waiting for their client's answers (at most limits.concurrency per principal); answer those, or let them expire (server.request_state.ttl, %s), then call again", s.name(), p.principal, held, s.name(), s.parkTTL())}
		}
		if _, err := rp.Ask(a.req); !errors.Is(err, roundtrip.ErrNeedInput) {
			p.finish()
			if err == nil {
				err = errors.New("the upstream's request was already answered")
			}
			return nil, &source.Failure{Kind: source.FailError, Msg: fmt.Sprintf("upstream %q: %v", s.name(), err)}
		}
		rp.Park(p.id)
		ttl := s.parkTTL()
		p.mu.Lock()
		p.waiting = a
		p.timer = time.AfterFunc(ttl, p.finish)
		release := p.release
		p.release = nil // parked, it holds no slot
		p.mu.Unlock()
		if release != nil {
			release()
		}
		return nil, roundtrip.ErrNeedInput
	case <-ctx.Done():
		p.finish()
		return nil, u.ctxFailure(ctx, "")
	}
}

// addParked and removeParked track the parked calls running on c, for
// the requests of a stdio upstream, which carry nothing that says whose
// call they are.
func (c *conn) addParked(p *parkedCall) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.parked == nil {
		c.parked = map[*parkedCall]struct{}{}
	}
	c.parked[p] = struct{}{}
}

func (c *conn) removeParked(p *parkedCall) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.parked, p)
}

// soleParked is the call a request of c's upstream belongs to when c
// runs exactly one call, a parked one; otherwise nil, and how many run.
func (c *conn) soleParked() (*parkedCall, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(c.parked) + int(c.calls.Load())
	if n != 1 || len(c.parked) != 1 {
		return nil, n
	}
	for p := range c.parked {
		return p, 1
	}
	return nil, n
}

// parkedFor is the parked call a request of c's upstream made with ctx
// belongs to: the one whose HTTP stream it came on, or over stdio the
// one call running on c. nil, nil: no parked call is involved; an error:
// one may be, but which cannot be told.
func (f *forwarder) parkedFor(ctx context.Context) (*parkedCall, error) {
	if p := parkedFrom(ctx); p != nil {
		return p, nil
	}
	c := f.c
	if c.owner != "" || !f.s.spec.Stdio() {
		return nil, nil
	}
	p, n := c.soleParked()
	if p == nil && n > 1 {
		c.mu.Lock()
		k := len(c.parked)
		c.mu.Unlock()
		if k > 0 {
			return nil, fmt.Errorf("refused: upstream %q asked a client while %d calls run on its session, and a stdio server's request does not say whose call it is", f.s.name(), n)
		}
	}
	return p, nil
}

// declaredSome reports whether the client of session declared any of
// the capabilities a server may ask it for.
func declaredSome(session server.ClientSession) bool {
	ci, ok := session.(server.SessionWithClientInfo)
	if !ok {
		return false
	}
	c := ci.GetClientCapabilities()
	return c.Sampling != nil || c.Elicitation != nil || c.Roots != nil
}

// inputKind is the capability an input request needs: sampling,
// elicitation or roots.
func inputKind(req mcp.InputRequest) string {
	switch {
	case req.Sampling != nil:
		return "sampling"
	case req.Elicitation != nil:
		return "elicitation"
	case req.Method == mcp.MethodListRoots:
		return "roots"
	}
	return ""
}

// decodeAnswer is a client's answer to an upstream request, as the
// result type the upstream client wants.
func decodeAnswer[T any](what string, raw json.RawMessage) (*T, error) {
	var out T
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("the client's answer to %s: %v", what, err)
	}
	return &out, nil
}
