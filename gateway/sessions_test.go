package gateway

import (
	"testing"
	"time"
)

func TestSessionIDs(t *testing.T) {
	now := time.Unix(1000, 0)
	s := newSessionIDs()
	s.now = func() time.Time { return now }
	a, b := s.Generate(), s.Generate()
	if a == b || len(a) < len("mcp-session-")+20 {
		t.Fatalf("ids %q %q", a, b)
	}
	if term, err := s.Validate(a); term || err != nil {
		t.Fatalf("live id: %v %v", term, err)
	}
	if _, err := s.Validate("mcp-session-forged"); err == nil {
		t.Fatal("unknown id validated")
	}
	if _, err := s.Terminate(a); err != nil {
		t.Fatal(err)
	}
	if term, err := s.Validate(a); !term || err != nil {
		t.Fatalf("ended id: %v %v", term, err)
	}
	now = now.Add(2 * endedTTL)
	if _, err := s.Terminate(b); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Validate(a); err == nil {
		t.Fatal("ended id still remembered after endedTTL")
	}
	if len(s.ended) != 1 || len(s.live) != 0 {
		t.Fatalf("live %d ended %d", len(s.live), len(s.ended))
	}
}
