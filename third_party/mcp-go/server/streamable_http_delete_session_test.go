package server

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// refusingSessionIdManager issues ids and refuses to terminate any other.
type refusingSessionIdManager struct {
	mu     sync.Mutex
	issued map[string]bool
}

func (m *refusingSessionIdManager) Generate() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	id := (&StatelessGeneratingSessionIdManager{}).Generate()
	if m.issued == nil {
		m.issued = map[string]bool{}
	}
	m.issued[id] = true
	return id
}

func (m *refusingSessionIdManager) Validate(sessionID string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.issued[sessionID] {
		return false, errors.New("unknown session id")
	}
	return false, nil
}

func (m *refusingSessionIdManager) Terminate(sessionID string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.issued[sessionID] {
		return false, errors.New("unknown session id")
	}
	delete(m.issued, sessionID)
	return false, nil
}

func deleteSession(t *testing.T, url, sessionID string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodDelete, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(HeaderKeySessionID, sessionID)
	req.Header.Set(mcp.HeaderProtocolVersion, mcp.ProtocolVersion20251125)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("DELETE with session id %q: %v", sessionID, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestStreamableHTTP_DELETERefusedSessionID(t *testing.T) {
	manager := &refusingSessionIdManager{}
	ts := httptest.NewServer(NewStreamableHTTPServer(NewMCPServer("test", "1.0.0"), WithSessionIdManager(manager)))
	defer ts.Close()

	// The manager refuses to terminate an id it does not know: the
	// client named no session, 404, not a server error.
	const unknown = "mcp-session-4f2b6a3e-1c8d-4e1f-9a57-0d6b2c3e4f5a"
	if got := deleteSession(t, ts.URL, unknown); got != http.StatusNotFound {
		t.Errorf("DELETE of unknown session id: status %d, want %d", got, http.StatusNotFound)
	}

	// A session it issued ends with 200, and is then unknown.
	id := manager.Generate()
	if got := deleteSession(t, ts.URL, id); got != http.StatusOK {
		t.Errorf("DELETE of the session: status %d, want %d", got, http.StatusOK)
	}
	if got := deleteSession(t, ts.URL, id); got != http.StatusNotFound {
		t.Errorf("second DELETE of the session: status %d, want %d", got, http.StatusNotFound)
	}
}
