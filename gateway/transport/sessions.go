package transport

import (
	"crypto/rand"
	"errors"
	"sync"
	"time"
)

// SessionIDs issues and tracks MCP session ids for Streamable HTTP. Ids are
// 128 random bits, and only ids it issued are ever stored: a client-supplied
// id is looked up, never kept. Ended ids are remembered for endedTTL (so a
// late request gets "terminated" rather than "unknown"), at most endedMax of
// them, in a time-ordered queue that is expired from its head, so ending a
// session costs O(1) however many ended before it.
//
// It also counts what the listener caps: sessions (live ones plus
// initialize requests in flight, see admit) in total and per principal,
// and long-lived streams (GET streams and subscriptions/listen POSTs) per
// session, per principal and in total (see openStream, openListen). A
// principal is a caller's key (see principalKey); "" is no one's share
// (anonymous callers share only the totals).
type SessionIDs struct {
	mu      sync.Mutex
	live    map[string]*liveSession
	ended   map[string]struct{}
	queue   []endedID // ended ids, oldest first, from queue[head]
	head    int
	pending int // initialize requests admitted and not finished
	streams int // long-lived streams open, all sessions
	// By principal: sessions live or being created, streams open.
	sessionsOf map[string]int
	streamsOf  map[string]int
	now        func() time.Time
	// When each live session last refreshed its expiry in the shared
	// registry (state.backend redis; see shared.go).
	touchedAt map[string]time.Time
}

type liveSession struct {
	scope     string // the endpoint it was issued for (Scope)
	streams   int    // GET streams open on this session
	principal string // whose share it counts in ("": none)
	owner     string // with a shared registry: who may use it (ownerKey)
}

type endedID struct {
	id string
	at time.Time
}

const (
	endedTTL = time.Hour
	endedMax = 1 << 16 // about 6 MB of remembered ids at most
)

func NewSessionIDs() *SessionIDs {
	return &SessionIDs{live: map[string]*liveSession{}, ended: map[string]struct{}{},
		sessionsOf: map[string]int{}, streamsOf: map[string]int{}, now: time.Now}
}

var (
	errUnknownSession = errors.New("unknown session id")
	errSessionEnded   = errors.New("session terminated")
	errSessionStreams = errors.New("too many GET streams on this session")
	errStreamsFull    = errors.New("too many GET streams")
	errSessionsFull   = errors.New("too many sessions")
	// A principal's share is spent.
	errPrincipalSessions = errors.New("too many sessions of this principal")
	errPrincipalStreams  = errors.New("too many streams of this principal")
)

// Quota is what one request may take: the totals, and the share of its
// principal Who ("": none).
type Quota struct {
	Total, PerSession, PerPrincipal int
	Who                             string
}

// add changes principal who's count in m by d, forgetting zeros. Callers
// hold mu.
func add(m map[string]int, who string, d int) {
	if who == "" {
		return
	}
	if m[who] += d; m[who] <= 0 {
		delete(m, who)
	}
}

// Generate returns a new live session id (of the scope "").
func (s *SessionIDs) Generate() string { return s.generate("") }

func (s *SessionIDs) generate(scope string) string {
	id := "mcp-session-" + rand.Text()
	s.mu.Lock()
	s.live[id] = &liveSession{scope: scope}
	s.mu.Unlock()
	return id
}

// Scope is the session ids of one endpoint: the ids of the one
// SessionIDs (its caps count every endpoint's sessions) that were
// issued for it. An id issued for another endpoint is unknown here, as
// if it did not exist.
type Scope struct {
	ids  *SessionIDs
	name string
}

// Scope is the ids issued for the endpoint called name ("": the default
// endpoint, the only one without an endpoints section).
func (s *SessionIDs) Scope(name string) *Scope { return &Scope{ids: s, name: name} }

// Generate returns a new live session id of the scope.
func (c *Scope) Generate() string { return c.ids.generate(c.name) }

// Validate reports whether id is live, ended, or unknown (an error):
// live in another scope is unknown.
func (c *Scope) Validate(id string) (isTerminated bool, err error) {
	s := c.ids
	s.mu.Lock()
	defer s.mu.Unlock()
	if ls, ok := s.live[id]; ok && ls.scope != c.name {
		return false, errUnknownSession
	}
	return s.lookup(id)
}

// Terminate ends a live session of the scope.
func (c *Scope) Terminate(id string) (isNotAllowed bool, err error) {
	if !c.mine(id) {
		return false, errUnknownSession
	}
	return c.ids.Terminate(id)
}

// mine reports whether id is not live in another scope.
func (c *Scope) mine(id string) bool {
	c.ids.mu.Lock()
	defer c.ids.mu.Unlock()
	ls, ok := c.ids.live[id]
	return !ok || ls.scope == c.name
}

// owner is the shared registry's owner of a session of the scope
// opened by caller key k: the scope's name goes with it, so that
// another replica serves the id on this endpoint only.
func (c *Scope) owner(k string) string {
	if c.name == "" {
		return k
	}
	return c.name + "\x00" + k
}

// ownedBy reports whether live id may be used by owner: its recorded
// owner, if any, is owner.
func (s *SessionIDs) ownedBy(id, owner string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	ls, ok := s.live[id]
	return !ok || ls.owner == "" || ls.owner == owner
}

// touched records that id, issued here for owner, was just recorded in
// the shared registry.
func (s *SessionIDs) touched(id, owner string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ls, ok := s.live[id]; ok {
		ls.owner = owner
	}
	if s.touchedAt == nil {
		s.touchedAt = map[string]time.Time{}
	}
	s.touchedAt[id] = s.now()
}

// adopt makes id, live in the shared registry, live here too (a session
// another replica issued; ended here by the idle sweeper, used again).
func (s *SessionIDs) adopt(id, owner, scope string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ls, ok := s.live[id]; ok {
		ls.owner = owner
	} else {
		s.live[id] = &liveSession{owner: owner, scope: scope}
		delete(s.ended, id) // its queue entry expires by itself
	}
	if s.touchedAt == nil {
		s.touchedAt = map[string]time.Time{}
	}
	s.touchedAt[id] = s.now()
}

// touchDue reports whether live id is due a look at the shared registry
// (a quarter of ttl, at most 5s, has passed since the last), and if so
// counts it as looked at.
func (s *SessionIDs) touchDue(id string, ttl time.Duration) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.live[id]; !ok {
		return false
	}
	now := s.now()
	every := min(ttl/4, 5*time.Second)
	if ttl <= 0 {
		every = 5 * time.Second
	}
	if t, ok := s.touchedAt[id]; ok && now.Sub(t) < every {
		return false
	}
	if s.touchedAt == nil {
		s.touchedAt = map[string]time.Time{}
	}
	s.touchedAt[id] = now
	return true
}

// Validate reports whether id is live, ended, or unknown (an error).
func (s *SessionIDs) Validate(id string) (isTerminated bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lookup(id)
}

func (s *SessionIDs) lookup(id string) (isTerminated bool, err error) {
	if _, ok := s.live[id]; ok {
		return false, nil
	}
	s.expire()
	if _, ok := s.ended[id]; ok {
		return true, nil
	}
	return false, errUnknownSession
}

// Terminate ends a live session (a client's DELETE, the idle sweeper or
// shutdown). Ending an ended session is not an error.
func (s *SessionIDs) Terminate(id string) (isNotAllowed bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.live[id]; !ok {
		if _, err := s.lookup(id); err != nil {
			return false, err
		}
		return false, nil
	}
	add(s.sessionsOf, s.live[id].principal, -1)
	delete(s.live, id)
	delete(s.touchedAt, id)
	s.ended[id] = struct{}{}
	s.queue = append(s.queue, endedID{id, s.now()})
	s.expire()
	return false, nil
}

// expire forgets ended ids older than endedTTL or beyond endedMax, oldest
// first. Callers hold mu.
func (s *SessionIDs) expire() {
	now := s.now()
	for s.head < len(s.queue) {
		e := s.queue[s.head]
		if len(s.queue)-s.head <= endedMax && now.Sub(e.at) <= endedTTL {
			break
		}
		delete(s.ended, e.id)
		s.queue[s.head] = endedID{}
		s.head++
	}
	// Reuse the front of the slice once half of it is spent: amortized O(1).
	if s.head > 64 && s.head*2 >= len(s.queue) {
		n := copy(s.queue, s.queue[s.head:])
		clear(s.queue[n:])
		s.queue = s.queue[:n]
		s.head = 0
	}
}

// admit reserves a place for one new session (an initialize request)
// when fewer than q.Total sessions are live or being created, and fewer
// than q.PerPrincipal of them are q.Who's; release gives the reservation
// back once the request is done, binding the session it created (id, ""
// if none) to q.Who.
func (s *SessionIDs) admit(q Quota) (release func(id string), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case len(s.live)+s.pending >= q.Total:
		return nil, errSessionsFull
	case q.Who != "" && s.sessionsOf[q.Who] >= q.PerPrincipal:
		return nil, errPrincipalSessions
	}
	s.pending++
	add(s.sessionsOf, q.Who, 1)
	var once sync.Once
	return func(id string) {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.pending--
			if ls, ok := s.live[id]; ok && ls.principal == "" && q.Who != "" {
				ls.principal = q.Who // the reservation becomes the session's
				return
			}
			add(s.sessionsOf, q.Who, -1)
		})
	}, nil
}

// openStream counts one more GET stream on live session id, if that keeps
// it within q.PerSession, its principal within q.PerPrincipal and all
// streams within q.Total; release ends it.
func (s *SessionIDs) openStream(id string, q Quota) (release func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ls, ok := s.live[id]
	if !ok {
		if ended, _ := s.lookup(id); ended {
			return nil, errSessionEnded
		}
		return nil, errUnknownSession
	}
	if ls.streams >= q.PerSession {
		return nil, errSessionStreams
	}
	rel, err := s.hold(q)
	if err != nil {
		return nil, err
	}
	ls.streams++
	return sync.OnceFunc(func() {
		s.mu.Lock()
		ls.streams-- // also right when the session ended meanwhile
		s.mu.Unlock()
		rel()
	}), nil
}

// openListen counts one more stream that belongs to no session (a
// 2026-07-28 subscriptions/listen POST) within q.Total and q.PerPrincipal.
func (s *SessionIDs) openListen(q Quota) (release func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hold(q)
}

// hold counts a stream in the total and q.Who's share. Callers hold mu.
func (s *SessionIDs) hold(q Quota) (release func(), err error) {
	switch {
	case s.streams >= q.Total:
		return nil, errStreamsFull
	case q.Who != "" && s.streamsOf[q.Who] >= q.PerPrincipal:
		return nil, errPrincipalStreams
	}
	s.streams++
	add(s.streamsOf, q.Who, 1)
	return sync.OnceFunc(func() {
		s.mu.Lock()
		s.streams--
		add(s.streamsOf, q.Who, -1)
		s.mu.Unlock()
	}), nil
}

// Live lists the live session ids (for tests and the status page).
func (s *SessionIDs) Live() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.live))
	for id := range s.live {
		out = append(out, id)
	}
	return out
}

// Held is how many GET streams are open and initialize requests admitted
// and not finished: both are 0 when no request is under way.
func (s *SessionIDs) Held() (streams, pending int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.streams, s.pending
}
