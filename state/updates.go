package state

import (
	"context"
	"strings"
)

// Resource updates across replicas: a resource's notifications/resources/
// updated (a plugin's notify_resource_updated, an upstream's) reaches the
// sessions subscribed to it on every replica, not only on the one whose
// call caused it. The replica that hears of an update tells its own
// subscribers and publishes the URI on PREFIXupdates (Redis pub/sub:
// nothing is stored, a replica that is down misses what is published
// meanwhile, as a session whose stream is closed does); every other
// replica tells its own.

// OnUpdate sets what this replica does with an update published by
// another replica (tell its subscribers); nil drops them. The store
// listens from the first call on.
func (s *Store) OnUpdate(fn func(uri string)) {
	s.updMu.Lock()
	defer s.updMu.Unlock()
	s.onUpdate = fn
	if s.updStarted || fn == nil || s.cancel == nil {
		return
	}
	s.updStarted = true
	s.wg.Add(2)
	go s.listenUpdates(s.ctx)
	go s.publishUpdates(s.ctx)
}

// maxPendingUpdates is how many updates may wait to be published; more
// are dropped (and logged) rather than slow the calls that cause them.
const maxPendingUpdates = 1024

// PublishUpdate tells the other replicas that uri (as clients see it)
// was updated. It does not wait for Redis: the update is published in
// the background (publishUpdates), so a slow Redis never slows the
// plugin call that caused it. A failure is not the caller's: it is
// logged, and the replicas that missed it are like sessions whose
// stream was closed.
func (s *Store) PublishUpdate(uri string) {
	select {
	case s.pending <- uri:
	default:
		s.log.Debug("resource update not published to the other replicas: too many waiting", "waiting", maxPendingUpdates)
	}
}

// publishUpdates publishes the updates PublishUpdate queued until ctx
// ends.
func (s *Store) publishUpdates(ctx context.Context) {
	defer s.wg.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case uri := <-s.pending:
			pctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
			err := s.client.Publish(pctx, s.key("updates"), s.replicaID()+"\n"+uri).Err()
			cancel()
			if err != nil && ctx.Err() == nil {
				s.log.Debug("resource update not published to the other replicas", "err", err)
			}
		}
	}
}

// listenUpdates delivers the other replicas' updates until ctx ends.
// go-redis's PubSub reconnects and subscribes again by itself when Redis
// comes back.
func (s *Store) listenUpdates(ctx context.Context) {
	defer s.wg.Done()
	ps := s.client.Subscribe(ctx, s.key("updates"))
	defer ps.Close()
	ch := ps.Channel()
	for {
		select {
		case <-ctx.Done():
			return
		case m, ok := <-ch:
			if !ok {
				return
			}
			from, uri, ok := strings.Cut(m.Payload, "\n")
			if !ok || from == s.replicaID() {
				continue
			}
			s.updMu.Lock()
			fn := s.onUpdate
			s.updMu.Unlock()
			if fn != nil {
				fn(uri)
			}
		}
	}
}

// replicaID is this replica's id (SetReplica), or "" before it is set.
func (s *Store) replicaID() string {
	s.replicaMu.Lock()
	defer s.replicaMu.Unlock()
	if s.replica == nil {
		return ""
	}
	return s.replica.ID
}
