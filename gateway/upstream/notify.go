package upstream

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"golang.org/x/time/rate"
)

// What an upstream may notify, per kind, before its notifications are
// dropped (and counted in wasmgate_upstream_notifications_dropped_total):
// a server that floods costs the gateway a bounded rate of work and no
// memory beyond a bounded set of pending resource updates.
const (
	notifyRate  = 100 // per second, for each kind
	notifyBurst = 200
	// relistEvery is the shortest time between two relists a server's
	// list_changed cause; list_changed that come meanwhile are coalesced
	// into the next relist.
	relistEvery = 500 * time.Millisecond
	// maxPendingUpdates bounds the URIs whose resources/updated waits for
	// the rate limit (each is sent once, however often it was updated).
	maxPendingUpdates = 1024
)

// Kinds of notification, the kind label of the dropped counter.
const (
	kindProgress    = "progress"
	kindMessage     = "message"
	kindListChanged = "list_changed"
	kindUpdated     = "resource_updated"
)

// notifier bounds what one upstream server's notifications cost.
type notifier struct {
	progress, message, updated *rate.Limiter
	relist                     *rate.Limiter

	relistQueued atomic.Bool // a relist is waiting to run

	mu       sync.Mutex
	pending  map[string]struct{} // resources/updated over the rate, sent later
	flushing bool

	dropped atomic.Int64 // every kind, for the status page
}

func newNotifier() *notifier {
	lim := func() *rate.Limiter { return rate.NewLimiter(notifyRate, notifyBurst) }
	return &notifier{progress: lim(), message: lim(), updated: lim(),
		relist: rate.NewLimiter(rate.Every(relistEvery), 2), pending: map[string]struct{}{}}
}

func (s *shared) drop(kind string) {
	s.notes.dropped.Add(1)
	s.h.Metrics.UpstreamNotificationsDropped.WithLabelValues(s.name(), kind).Inc()
}

// onNotification handles what an upstream session notifies. It runs on
// the session's reading goroutine, so it never waits.
func (s *shared) onNotification(c *conn, n mcp.JSONRPCNotification) {
	params := n.Params.AdditionalFields
	switch mcp.MCPMethod(n.Method) {
	case mcp.MethodNotificationProgress:
		s.forwardProgress(c, params) // progress.go
	case "notifications/message":
		if !s.notes.message.Allow() {
			s.drop(kindMessage)
			return
		}
		s.redactNotification(params)
		if c.owner != "" {
			_ = s.h.MCP.SendNotificationToSpecificClient(c.owner, "notifications/message", params)
			return
		}
		s.forwardLog(c, params) // a shared session's: to the one caller in flight
	case mcp.MethodNotificationToolsListChanged, mcp.MethodNotificationResourcesListChanged, mcp.MethodNotificationPromptsListChanged:
		if c == s.main {
			s.relistLater()
		}
	case mcp.MethodNotificationResourceUpdated:
		if c != s.main || s.h.ResourceUpdated == nil {
			return
		}
		if uri, ok := params["uri"].(string); ok {
			s.resourceUpdated(uri)
		}
	}
}

// relistLater relists off the notification path: at most one relist
// runs and one waits, at most one every relistEvery (after a burst of
// two); a list_changed that finds one waiting is coalesced into it.
func (s *shared) relistLater() {
	if !s.notes.relistQueued.CompareAndSwap(false, true) {
		s.drop(kindListChanged)
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if s.notes.relist.Wait(s.ctx) != nil {
			s.notes.relistQueued.Store(false)
			return
		}
		// From here a list_changed queues the next relist: this one may
		// already have read the lists it changed.
		s.notes.relistQueued.Store(false)
		if err := s.relist(s.ctx, true); err != nil && s.ctx.Err() == nil {
			s.h.Logger.Warn("upstream said its lists changed, but listing them failed; serving the previous lists", "upstream", s.name(), "error", err)
		}
	}()
}

// resourceUpdated tells the subscribers of uri (the upstream's own) that
// it changed, within the rate limit; over it, uri waits (once, however
// often it changes meanwhile) in a bounded set sent at the rate.
func (s *shared) resourceUpdated(uri string) {
	nt := s.notes
	if nt.updated.Allow() {
		s.h.ResourceUpdated(exposedURI(*s.prefix.Load(), uri))
		return
	}
	nt.mu.Lock()
	defer nt.mu.Unlock()
	if _, ok := nt.pending[uri]; ok {
		s.drop(kindUpdated) // coalesced
		return
	}
	if len(nt.pending) >= maxPendingUpdates {
		s.drop(kindUpdated)
		return
	}
	nt.pending[uri] = struct{}{}
	if nt.flushing {
		return
	}
	nt.flushing = true
	s.wg.Add(1)
	go s.flushUpdates()
}

// flushUpdates sends the pending resource updates at the rate limit.
func (s *shared) flushUpdates() {
	defer s.wg.Done()
	nt := s.notes
	for {
		err := nt.updated.Wait(s.ctx)
		nt.mu.Lock()
		if err != nil || len(nt.pending) == 0 {
			clear(nt.pending)
			nt.flushing = false
			nt.mu.Unlock()
			return
		}
		var uri string
		for u := range nt.pending {
			uri = u
			break
		}
		delete(nt.pending, uri)
		nt.mu.Unlock()
		s.h.ResourceUpdated(exposedURI(*s.prefix.Load(), uri))
	}
}
