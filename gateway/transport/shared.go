package transport

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/gateway/envelope"
)

// Sessions across replicas (state.backend: redis): every session id this
// replica issues is also written to a registry every replica reads, with
// its owner (the caller who initialized it) and an expiry of
// session_idle_timeout, refreshed as it is used. A replica that did not
// issue an id accepts it when the registry has it live and the caller is
// its owner, and serves the request on a session of the request's own (as
// mcp-go serves any request without a GET stream), so a 2025-11-25 client
// behind a round-robin balancer keeps its session. A GET stream, and the
// notifications sent on it, stay on the replica holding it. The idle
// sweeper and shutdown end a session on this replica only; a client's
// DELETE ends it everywhere.

// SharedSessions is the registry of session ids the replicas share.
type SharedSessions interface {
	// CreateSession records id as live, owned by owner, for ttl.
	CreateSession(ctx context.Context, id, owner string, ttl time.Duration) error
	// LookupSession says whether id is live (and whose) or ended, and
	// makes a live one last ttl more; neither: unknown.
	LookupSession(ctx context.Context, id string, ttl time.Duration) (owner string, live, ended bool, err error)
	// EndSession records id as ended.
	EndSession(ctx context.Context, id string) error
}

// ownerKey is whose a session is, as endpoint.Endpoint.Owns compares callers.
func ownerKey(c envelope.Caller) string {
	return strconv.FormatBool(c.JWT) + "|" + c.Principal.Name
}

// idResolver gives mcp-go a SessionIdManager per request: with a shared
// registry, one bound to the request's caller and context; without (and
// for the sweeper and shutdown, which have no request), the SessionIDs.
type idResolver struct {
	ids    *Scope
	shared func() SharedSessions
	ttl    time.Duration
}

func (r idResolver) ResolveSessionIdManager(req *http.Request) server.SessionIdManager {
	if req == nil || r.shared == nil {
		return r.ids
	}
	sh := r.shared()
	if sh == nil {
		return r.ids
	}
	caller, _ := envelope.CallerFrom(req.Context())
	return &boundIDs{ids: r.ids, sh: sh, ctx: req.Context(), owner: r.ids.owner(ownerKey(caller)), ttl: r.ttl}
}

// boundIDs is the SessionIDs for one request, with the shared registry.
type boundIDs struct {
	ids   *Scope
	sh    SharedSessions
	ctx   context.Context
	owner string
	ttl   time.Duration
}

// Generate issues an id here and records it in the registry; if Redis is
// unavailable the session is this replica's only (as with sticky routing).
func (b *boundIDs) Generate() string {
	id := b.ids.Generate()
	_ = b.sh.CreateSession(b.ctx, id, b.owner, b.ttl)
	b.ids.ids.touched(id, b.owner)
	return id
}

// Validate accepts an id live here (checking the registry again every few
// seconds: a DELETE on another replica ends it here too), or one the
// registry has live for this caller, which becomes live here as well.
func (b *boundIDs) Validate(id string) (isTerminated bool, err error) {
	t, err := b.ids.Validate(id)
	if err == nil && !t && !b.ids.ids.ownedBy(id, b.owner) {
		return false, errUnknownSession // someone else's: as if it did not exist
	}
	if err == nil && !t && !b.ids.ids.touchDue(id, b.ttl) {
		return false, nil
	}
	owner, live, ended, rerr := b.sh.LookupSession(b.ctx, id, b.ttl)
	switch {
	case rerr != nil: // Redis unavailable: what this replica knows
		if err != nil {
			return false, errUnknownSession
		}
		return t, nil
	case live && owner == b.owner:
		if !b.ids.mine(id) {
			return false, errUnknownSession
		}
		b.ids.ids.adopt(id, b.owner, b.ids.name)
		return false, nil
	case live:
		return false, errUnknownSession // someone else's: as if it did not exist
	case ended:
		_, _ = b.ids.Terminate(id)
		return true, nil
	case err == nil && !t:
		// Live here, gone from the registry (expired there, or Redis
		// restarted empty): recorded again.
		_ = b.sh.CreateSession(b.ctx, id, b.owner, b.ttl)
		return false, nil
	case err == nil:
		return t, nil
	}
	return false, errUnknownSession
}

// Terminate (a client's DELETE) ends the session here and everywhere.
func (b *boundIDs) Terminate(id string) (isNotAllowed bool, err error) {
	if t, err := b.Validate(id); err != nil || t {
		return false, err
	}
	_, _ = b.ids.Terminate(id)
	_ = b.sh.EndSession(b.ctx, id)
	return false, nil
}
