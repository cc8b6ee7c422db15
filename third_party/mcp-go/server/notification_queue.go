package server

import (
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
)

// notificationQueueSize is how many notifications a streamable HTTP
// session holds for its streams before it drops new ones, as upstream's
// buffered channel of 100 did.
const notificationQueueSize = 100

// notificationQueue holds a streamable HTTP session's notifications until
// one of its streams (the GET stream, a POST's event stream, the resumable
// listening pump) takes them.
//
// wasmgate patch: upstream gave every session a channel buffered for 100
// notifications, 4.8 KiB allocated when the session was made and held for
// its whole life, though an idle session holds none. The queue holds its
// memory only while it holds notifications: an idle session keeps a mutex,
// an empty slice and a one-token channel. Order, the bound and dropping
// when full are the channel's.
type notificationQueue struct {
	mu    sync.Mutex
	items []mcp.JSONRPCNotification
	// woken is closed, and forgotten, when something may have become
	// ready to take: every stream waiting on it wakes and takes, or waits
	// again on the next one. It is made when a stream waits on an empty
	// queue.
	woken chan struct{}
	// legacy is the channel NotificationChannel returns, made on its first
	// call (nothing in this module calls it for these sessions): streams
	// take from it as well.
	legacy atomic.Pointer[chan mcp.JSONRPCNotification]
}

// closedChan is ready at once: wait returns it while the queue holds
// notifications.
var closedChan = func() chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}()

// wait returns a channel that is ready when the queue may hold something
// to take; it does not block.
func (q *notificationQueue) wait() <-chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) > 0 {
		return closedChan
	}
	if q.woken == nil {
		q.woken = make(chan struct{})
	}
	return q.woken
}

// wake wakes the streams waiting; q.mu is held.
func (q *notificationQueue) wake() {
	if q.woken != nil {
		close(q.woken)
		q.woken = nil
	}
}

// offer adds nt unless the queue is full; it never blocks.
func (q *notificationQueue) offer(nt mcp.JSONRPCNotification) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) >= notificationQueueSize {
		return false
	}
	q.items = append(q.items, nt)
	q.wake()
	return true
}

// putBack is offer for a stream that took a notification it cannot
// deliver; like the channel it replaces, it drops nt when the queue is full.
func (q *notificationQueue) putBack(nt mcp.JSONRPCNotification) {
	q.offer(nt)
}

// take removes the oldest notification, or the oldest sent on the legacy
// channel when the queue is empty; it never blocks.
func (q *notificationQueue) take() (mcp.JSONRPCNotification, bool) {
	q.mu.Lock()
	if len(q.items) > 0 {
		nt := q.items[0]
		q.items[0] = mcp.JSONRPCNotification{}
		q.items = q.items[1:]
		if len(q.items) == 0 {
			q.items = nil // the memory goes with the last one
		}
		q.mu.Unlock()
		return nt, true
	}
	q.mu.Unlock()
	select {
	case nt := <-q.legacyChan():
		return nt, true
	default:
		return mcp.JSONRPCNotification{}, false
	}
}

// legacyChan returns the legacy channel, nil (never ready) until
// NotificationChannel is first called.
func (q *notificationQueue) legacyChan() <-chan mcp.JSONRPCNotification {
	if ch := q.legacy.Load(); ch != nil {
		return *ch
	}
	return nil
}

// channel makes the legacy channel on its first call, and wakes the
// streams waiting already, so that their next wait includes it.
func (q *notificationQueue) channel() chan mcp.JSONRPCNotification {
	if ch := q.legacy.Load(); ch != nil {
		return *ch
	}
	ch := make(chan mcp.JSONRPCNotification, notificationQueueSize)
	if !q.legacy.CompareAndSwap(nil, &ch) {
		return *q.legacy.Load()
	}
	q.mu.Lock()
	q.wake()
	q.mu.Unlock()
	return ch
}

// offerNotification hands nt to session without blocking, and reports
// false when the session cannot take it now (its queue or channel is full).
func offerNotification(session ClientSession, nt mcp.JSONRPCNotification) bool {
	if q, ok := session.(interface {
		offerNotification(mcp.JSONRPCNotification) bool
	}); ok {
		return q.offerNotification(nt)
	}
	select {
	case session.NotificationChannel() <- nt:
		return true
	default:
		return false
	}
}
