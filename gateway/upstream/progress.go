package upstream

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"maps"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/loader/abi"
)

// kindProgressForeign is the dropped counter's kind for progress an
// upstream session sent for a token none of its own calls has: another
// session's call (of a per_client upstream), a guessed token, or a call
// that has ended.
const kindProgressForeign = "progress_foreign"

// progressTarget is where a call's progress goes: the downstream session
// and the token it sent, for progress from the upstream session c (the
// one the call runs on) only.
type progressTarget struct {
	ctx   context.Context // the call's, carrying its downstream session
	token any
	c     *conn
}

// progressToken registers the downstream progress token of ctx's request,
// if it sent one, under a token of the upstream session c's own: 128
// random bits, so that no upstream process can guess another call's (a
// per_client upstream runs one process per downstream session, and each
// must reach its own session's calls only). done forgets it.
func (s *shared) progressToken(ctx context.Context, c *conn) (tok any, done func()) {
	token := abi.RequestOf(ctx).ProgressToken()
	if token == nil || downstream(ctx) == nil {
		return nil, func() {}
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	t := "wasmgate-" + hex.EncodeToString(b[:])
	s.progress.Store(t, progressTarget{ctx: ctx, token: token, c: c})
	return t, func() { s.progress.Delete(t) }
}

// forwardProgress sends progress the upstream session c notified to the
// downstream call whose token it names, if that call runs on c; progress
// for any other token is dropped, counted and logged.
func (s *shared) forwardProgress(c *conn, params map[string]any) {
	tok, _ := params["progressToken"].(string)
	t, ok := s.progress.Load(tok)
	if !ok || t.(progressTarget).c != c {
		s.drop(kindProgressForeign)
		s.refusals.Warn(s.h.Logger, "upstream sent progress for a token no call of its session has (another session's, a guessed one, or a call that ended); dropped", "upstream", s.name(), "per_client", c.owner != "")
		return
	}
	if !s.notes.progress.Allow() {
		s.drop(kindProgress)
		return
	}
	pt := t.(progressTarget)
	out := maps.Clone(params)
	s.redactNotification(out)
	out["progressToken"] = pt.token
	_ = s.h.MCP.SendNotificationToClient(pt.ctx, string(mcp.MethodNotificationProgress), out)
}

type callConnKey struct{}

// withCallConn is ctx of a call running on c (Source.call).
func withCallConn(ctx context.Context, c *conn) context.Context {
	return context.WithValue(ctx, callConnKey{}, c)
}

// callConn is the upstream session the call of ctx runs on (nil outside
// Source.call).
func callConn(ctx context.Context) *conn {
	c, _ := ctx.Value(callConnKey{}).(*conn)
	return c
}
