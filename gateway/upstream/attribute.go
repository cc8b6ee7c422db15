package upstream

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/loader"
)

// A shared session (session: shared) serves every caller's calls, so what
// its server sends outside a call's own stream says nothing of whose call
// it is for: the requests on its GET stream (mcp-go's server sends every
// sampling request there, and any request made outside a request's
// context), and log notifications that came on no call's stream (those
// that came on one go to its caller: onStreamNotification). The
// gateway attributes them to the one call in flight on the session, when
// there is exactly one; a request it cannot attribute is refused with an
// error that says why, a log notification it cannot attribute goes to the
// gateway's debug log only. Both are counted.

// Reasons a request is refused, the reason label of
// wasmgate_upstream_requests_refused_total.
const (
	refusedNoCall    = "no_call"   // no call in flight on the session
	refusedAmbiguous = "ambiguous" // several
)

// kindUnattributed is the kind label (of the dropped notifications'
// counter) of a shared session's log notification sent while not exactly
// one call was in flight on it.
const kindUnattributed = "message_unattributed"

// inflight is the downstream calls running on an upstream session (on a
// shared session, parked ones are the conn's), by a sequence number.
type inflight struct {
	mu    sync.Mutex
	seq   uint64
	calls map[uint64]context.Context
}

// add records a call made with ctx; done forgets it.
func (f *inflight) add(ctx context.Context) (done func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.calls == nil {
		f.calls = map[uint64]context.Context{}
	}
	f.seq++
	id := f.seq
	f.calls[id] = ctx
	return func() {
		f.mu.Lock()
		delete(f.calls, id)
		f.mu.Unlock()
	}
}

// newest is the context of the call added last of those running, or nil.
func (f *inflight) newest() context.Context {
	f.mu.Lock()
	defer f.mu.Unlock()
	var best uint64
	var out context.Context
	for id, ctx := range f.calls {
		if id > best {
			best, out = id, ctx
		}
	}
	return out
}

// soleCall is the one call in flight on c, the shared session, either
// running (ctx) or parked (p), and how many calls are in flight there.
func (s *shared) soleCall(c *conn) (ctx context.Context, p *parkedCall, n int) {
	c.mu.Lock()
	parked := len(c.parked)
	if parked == 1 {
		for q := range c.parked {
			p = q
		}
	}
	c.mu.Unlock()
	s.running.mu.Lock()
	n = parked + len(s.running.calls)
	if n == 1 && parked == 0 {
		for _, x := range s.running.calls {
			ctx = x
		}
	}
	s.running.mu.Unlock()
	if n != 1 {
		return nil, nil, n
	}
	return ctx, p, n
}

// attributing passes the requests a shared HTTP session's server makes
// of its client to the forwarder, those that came on no call's stream
// attributed to the one call in flight on the session.
type attributing struct{ f *forwarder }

func (a attributing) CreateMessage(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	ctx, done, err := a.f.attribute(ctx, "sampling")
	if err != nil {
		return nil, err
	}
	defer done()
	return a.f.CreateMessage(ctx, req)
}

func (a attributing) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	ctx, done, err := a.f.attribute(ctx, "elicitation")
	if err != nil {
		return nil, err
	}
	defer done()
	return a.f.Elicit(ctx, req)
}

func (a attributing) ListRoots(ctx context.Context, req mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	ctx, done, err := a.f.attribute(ctx, "roots")
	if err != nil {
		return nil, err
	}
	defer done()
	return a.f.ListRoots(ctx, req)
}

// attribute is the context a request (what: sampling, elicitation,
// roots) of the upstream made with ctx is answered in: ctx itself when it
// came on a call's stream; else that of the one call in flight on the
// session (its values, ended by either), or ctx naming the one parked
// call. With no call or several in flight the request is refused. done
// releases what the context holds.
func (f *forwarder) attribute(ctx context.Context, what string) (_ context.Context, done func(), _ error) {
	if downstream(ctx) != nil || parkedFrom(ctx) != nil {
		return ctx, func() {}, nil
	}
	s := f.s
	call, p, n := s.soleCall(f.c)
	switch {
	case p != nil:
		return context.WithValue(ctx, parkKey{}, p), func() {}, nil
	case call != nil:
		out, cancel := context.WithCancel(context.WithoutCancel(call))
		stopCall := context.AfterFunc(call, cancel)
		stopReq := context.AfterFunc(ctx, cancel)
		return out, func() { stopCall(); stopReq(); cancel() }, nil
	}
	reason, inFlight := refusedAmbiguous, fmt.Sprintf("%d calls in flight", n)
	if n == 0 {
		reason, inFlight = refusedNoCall, "no call in flight"
	}
	s.h.Metrics.UpstreamRequestsRefused.WithLabelValues(s.name(), reason).Inc()
	err := refusedRequest{fmt.Errorf("wasmgate: cannot tell which caller this %s request is for: %s on upstream %q (its session is shared; session: per_client gives each client its own)", what, inFlight, s.name())}
	s.refusals.Log(ctx, s.h.Logger, slog.LevelWarn, "upstream request refused", "upstream", s.name(), "request", what, "reason", reason, "error", err)
	return nil, nil, err
}

// onStreamNotification takes a log notification of c, the shared
// session, that came on the stream of a call (its POST's response,
// over Streamable HTTP): it goes to that call's caller, whatever else is
// in flight. It reports false for anything else (onNotification's).
func (s *shared) onStreamNotification(ctx context.Context, c *conn, n mcp.JSONRPCNotification) bool {
	if c.owner != "" || n.Method != string(mcp.MethodNotificationMessage) || downstream(ctx) == nil {
		return false
	}
	if !s.notes.message.Allow() {
		s.drop(kindMessage)
		return true
	}
	s.redactNotification(n.Params.AdditionalFields)
	sendLog(ctx, s.h.MCP, n.Params.AdditionalFields)
	return true
}

// forwardLog passes a log notification of c, a shared session, that came
// on no call's stream to the caller of the one call in flight on it.
func (s *shared) forwardLog(c *conn, params map[string]any) {
	call, _, n := s.soleCall(c)
	if call == nil {
		// None, several, or a parked call (whose client is between two
		// rounds): whose line it is cannot be told.
		s.drop(kindUnattributed)
		s.h.Logger.Debug("upstream log message not forwarded: not exactly one call in flight on its shared session",
			"upstream", s.name(), "calls_in_flight", n, "level", params["level"], "data", params["data"])
		return
	}
	sendLog(call, s.h.MCP, params)
}

// sendLog sends a log notification to the caller of the call in ctx, if
// it is at or above the level that caller set (the gateway filters: a
// shared session has one level for every caller).
func sendLog(ctx context.Context, srv source.Clients, params map[string]any) {
	level, _ := params["level"].(string)
	logger, _ := params["logger"].(string)
	_ = srv.SendLogMessageToClient(ctx, mcp.NewLoggingMessageNotification(mcp.LoggingLevel(level), logger, params["data"]))
}

// levelRank orders the MCP logging levels, debug (0) first; -1 for a
// level that is none of them.
func levelRank(l mcp.LoggingLevel) int {
	return slices.Index(levels(), l)
}

func levels() []mcp.LoggingLevel {
	return []mcp.LoggingLevel{mcp.LoggingLevelDebug, mcp.LoggingLevelInfo, mcp.LoggingLevelNotice, mcp.LoggingLevelWarning,
		mcp.LoggingLevelError, mcp.LoggingLevelCritical, mcp.LoggingLevelAlert, mcp.LoggingLevelEmergency}
}

// SetLogLevel is a downstream client's logging/setLevel. The gateway
// keeps each client's level and filters what it forwards; the upstream's
// shared session is asked for the most verbose level any client asked
// for (never less verbose again while it lives), so that every caller
// can get what it asked for. It returns once the upstream answered (or
// limits.timeout passed), so a call after it sees the level.
func (u *Source) SetLogLevel(ctx context.Context, level mcp.LoggingLevel) {
	s := u.srv
	r := levelRank(level)
	if s.spec.Session == loader.SessionPerClient || r < 0 {
		return
	}
	for {
		cur := s.logLevel.Load()
		if cur != 0 && int(cur)-1 <= r {
			return // as verbose already
		}
		if s.logLevel.CompareAndSwap(cur, int32(r+1)) {
			break
		}
	}
	if cli := s.main.current(); cli != nil {
		s.sendLevel(ctx, cli)
	}
}

// sendLevel asks the shared session cli for the level clients asked for,
// if any did and the upstream declared logging.
func (s *shared) sendLevel(ctx context.Context, cli *client.Client) {
	if s.logLevel.Load() == 0 || cli.GetServerCapabilities().Logging == nil {
		return
	}
	s.levelMu.Lock() // in order: the last one sent is the most verbose
	defer s.levelMu.Unlock()
	level := levels()[s.logLevel.Load()-1]
	ctx, cancel := context.WithTimeout(ctx, time.Duration(s.spec.Limits.Timeout))
	defer cancel()
	if err := cli.SetLevel(ctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: level}}); err != nil && s.ctx.Err() == nil {
		s.h.Logger.Warn("upstream: logging/setLevel failed; its log notifications stay at its own level", "upstream", s.name(), "level", level, "error", err)
	}
}

// relevel asks a new shared session for the level clients asked of the
// last one, off the connecting path.
func (s *shared) relevel(cli *client.Client) {
	if s.logLevel.Load() == 0 {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.sendLevel(s.ctx, cli)
	}()
}

// refusedRequest is the gateway's answer to an upstream's request that it
// refused as documented, and already logged (rate limited) and counted:
// the transport that sends it does not log it again (warnOnly).
type refusedRequest struct{ error }

func (r refusedRequest) Unwrap() error { return r.error }
