package gateway

import (
	"crypto/rand"
	"errors"
	"sync"
	"time"
)

// sessionIDs issues and tracks MCP session ids for Streamable HTTP. Ids are
// 128 random bits. Ended ids are remembered for endedTTL (so a late request
// gets "terminated" rather than "unknown"), then forgotten, so a long-running
// gateway does not keep every session it ever served.
type sessionIDs struct {
	mu    sync.Mutex
	live  map[string]struct{}
	ended map[string]time.Time
	now   func() time.Time
}

const endedTTL = time.Hour

func newSessionIDs() *sessionIDs {
	return &sessionIDs{live: map[string]struct{}{}, ended: map[string]time.Time{}, now: time.Now}
}

var errUnknownSession = errors.New("unknown session id")

// Generate returns a new live session id.
func (s *sessionIDs) Generate() string {
	id := "mcp-session-" + rand.Text()
	s.mu.Lock()
	s.live[id] = struct{}{}
	s.mu.Unlock()
	return id
}

// Validate reports whether id is live, ended, or unknown (an error).
func (s *sessionIDs) Validate(id string) (isTerminated bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.live[id]; ok {
		return false, nil
	}
	if _, ok := s.ended[id]; ok {
		return true, nil
	}
	return false, errUnknownSession
}

// Terminate ends a live session (a client's DELETE, or the idle sweeper).
func (s *sessionIDs) Terminate(id string) (isNotAllowed bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.live[id]; !ok {
		if _, ok := s.ended[id]; ok {
			return false, nil
		}
		return false, errUnknownSession
	}
	delete(s.live, id)
	now := s.now()
	s.ended[id] = now
	for k, at := range s.ended {
		if now.Sub(at) > endedTTL {
			delete(s.ended, k)
		}
	}
	return false, nil
}
