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
// initialize requests in flight, see admit) and GET streams, per session and
// in total (see openStream).
type SessionIDs struct {
	mu      sync.Mutex
	live    map[string]*liveSession
	ended   map[string]struct{}
	queue   []endedID // ended ids, oldest first, from queue[head]
	head    int
	pending int // initialize requests admitted and not finished
	streams int // GET streams open, all sessions
	now     func() time.Time
}

type liveSession struct {
	streams int // GET streams open on this session
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
	return &SessionIDs{live: map[string]*liveSession{}, ended: map[string]struct{}{}, now: time.Now}
}

var (
	errUnknownSession = errors.New("unknown session id")
	errSessionEnded   = errors.New("session terminated")
	errSessionStreams = errors.New("too many GET streams on this session")
	errStreamsFull    = errors.New("too many GET streams")
)

// Generate returns a new live session id.
func (s *SessionIDs) Generate() string {
	id := "mcp-session-" + rand.Text()
	s.mu.Lock()
	s.live[id] = &liveSession{}
	s.mu.Unlock()
	return id
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
	delete(s.live, id)
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

// admit reserves a place for one new session (an initialize request) when
// fewer than max sessions are live or being created; release gives the
// reservation back once the request is done (the session it created, if
// any, is live by then).
func (s *SessionIDs) admit(max int) (release func(), ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.live)+s.pending >= max {
		return nil, false
	}
	s.pending++
	return sync.OnceFunc(func() {
		s.mu.Lock()
		s.pending--
		s.mu.Unlock()
	}), true
}

// openStream counts one more GET stream on live session id, if that keeps
// it within perSession and all sessions within total; release ends it.
func (s *SessionIDs) openStream(id string, perSession, total int) (release func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ls, ok := s.live[id]
	if !ok {
		if ended, _ := s.lookup(id); ended {
			return nil, errSessionEnded
		}
		return nil, errUnknownSession
	}
	switch {
	case ls.streams >= perSession:
		return nil, errSessionStreams
	case s.streams >= total:
		return nil, errStreamsFull
	}
	ls.streams++
	s.streams++
	return sync.OnceFunc(func() {
		s.mu.Lock()
		ls.streams-- // also right when the session ended meanwhile
		s.streams--
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
