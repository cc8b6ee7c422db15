package transport

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestSessionIDs(t *testing.T) {
	now := time.Unix(1000, 0)
	s := NewSessionIDs()
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
	if _, err := s.Terminate("mcp-session-forged"); err == nil {
		t.Fatal("unknown id terminated")
	}
	if _, err := s.Terminate(a); err != nil {
		t.Fatal(err)
	}
	if term, err := s.Validate(a); !term || err != nil {
		t.Fatalf("ended id: %v %v", term, err)
	}
	if _, err := s.Terminate(a); err != nil {
		t.Fatalf("ending an ended session: %v", err)
	}
	now = now.Add(2 * endedTTL)
	if _, err := s.Terminate(b); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Validate(a); err == nil {
		t.Fatal("ended id still remembered after endedTTL")
	}
	if len(s.ended) != 1 || len(s.live) != 0 || len(s.queue)-s.head != 1 {
		t.Fatalf("live %d ended %d queued %d", len(s.live), len(s.ended), len(s.queue)-s.head)
	}
	// Nothing a lookup is given is stored.
	for i := range 1000 {
		s.Validate(fmt.Sprintf("mcp-session-forged-%d", i))
		s.Terminate(fmt.Sprintf("mcp-session-forged-%d", i))
		s.openStream(fmt.Sprintf("mcp-session-forged-%d", i), Quota{Total: 1, PerSession: 1})
	}
	if len(s.ended) != 1 || len(s.live) != 0 {
		t.Fatalf("after forged lookups: live %d ended %d", len(s.live), len(s.ended))
	}
}

// TestSessionIDsEndedQueue: ended ids expire oldest first, by age and past
// endedMax, and the queue's storage is reused rather than growing.
func TestSessionIDsEndedQueue(t *testing.T) {
	now := time.Unix(1000, 0)
	s := NewSessionIDs()
	s.now = func() time.Time { return now }
	var first string
	for i := range endedMax + 100 {
		id := s.Generate()
		if i == 0 {
			first = id
		}
		s.Terminate(id)
	}
	if len(s.ended) != endedMax || len(s.queue)-s.head != endedMax {
		t.Fatalf("ended %d queued %d, want %d", len(s.ended), len(s.queue)-s.head, endedMax)
	}
	if _, err := s.Validate(first); !errors.Is(err, errUnknownSession) {
		t.Fatalf("the oldest ended id is still remembered past endedMax: %v", err)
	}
	// Sessions ending at a steady rate for many hours: only the last hour
	// is remembered, in bounded storage.
	for range 20000 {
		now = now.Add(time.Second)
		s.Terminate(s.Generate())
	}
	if want := int(endedTTL/time.Second) + 1; len(s.ended) != want || len(s.queue)-s.head != want {
		t.Fatalf("ended %d queued %d, want %d (one hour at one a second)", len(s.ended), len(s.queue)-s.head, want)
	}
	if cap(s.queue) > 4*endedMax {
		t.Fatalf("queue capacity %d grew past 4×endedMax", cap(s.queue))
	}
}

func TestSessionIDsCaps(t *testing.T) {
	s := NewSessionIDs()
	q := Quota{Total: 2}
	r1, err1 := s.admit(q)
	r2, err2 := s.admit(q)
	if _, err := s.admit(q); err1 != nil || err2 != nil || !errors.Is(err, errSessionsFull) {
		t.Fatalf("admit with max 2: %v %v, third %v", err1, err2, err)
	}
	a := s.Generate() // r1's session
	r1(a)
	r1(a) // releasing twice is harmless
	if _, err := s.admit(q); err == nil {
		t.Fatal("admitted a third session: one live, one pending")
	}
	r2("") // its initialize failed: no session
	r3, err := s.admit(q)
	if err != nil {
		t.Fatal("a released reservation was not given back")
	}
	r3("")

	sq := Quota{Total: 3, PerSession: 2}
	rel1, err := s.openStream(a, sq)
	if err != nil {
		t.Fatal(err)
	}
	rel2, err := s.openStream(a, sq)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.openStream(a, sq); !errors.Is(err, errSessionStreams) {
		t.Fatalf("third stream on a session with max 2: %v", err)
	}
	b := s.Generate()
	rel3, err := s.openStream(b, sq)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.openStream(b, sq); !errors.Is(err, errStreamsFull) {
		t.Fatalf("fourth stream with max 3 in total: %v", err)
	}
	if _, err := s.openListen(sq); !errors.Is(err, errStreamsFull) {
		t.Fatalf("a listen stream beyond max 3 in total: %v", err)
	}
	if _, err := s.openStream("mcp-session-forged", sq); !errors.Is(err, errUnknownSession) {
		t.Fatalf("stream on a forged id: %v", err)
	}
	s.Terminate(a)
	if _, err := s.openStream(a, sq); !errors.Is(err, errSessionEnded) {
		t.Fatalf("stream on an ended session: %v", err)
	}
	rel1()
	rel2()
	rel2()
	rel3()
	if s.streams != 0 || s.pending != 0 {
		t.Fatalf("streams %d pending %d after every release", s.streams, s.pending)
	}
}

// TestSessionIDsShares: a principal holds at most its share of sessions
// (live and being created) and of streams (GET and listen); others are
// not held back by it, anonymous callers ("") only by the totals; ending
// a session gives its place back.
func TestSessionIDsShares(t *testing.T) {
	s := NewSessionIDs()
	alice := Quota{Total: 10, PerSession: 5, PerPrincipal: 2, Who: "alice"}
	bob, anon := alice, alice
	bob.Who, anon.Who = "bob", ""
	ra, err := s.admit(alice)
	if err != nil {
		t.Fatal(err)
	}
	a1 := s.Generate()
	ra(a1)
	rb, err := s.admit(alice) // pending: counts in alice's share
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.admit(alice); !errors.Is(err, errPrincipalSessions) {
		t.Fatalf("alice's third session with a share of 2: %v", err)
	}
	rb("")
	if r, err := s.admit(bob); err != nil {
		t.Fatalf("bob held back by alice: %v", err)
	} else {
		r("")
	}
	for i := range 5 {
		r, err := s.admit(anon)
		if err != nil {
			t.Fatalf("anonymous session %d: %v", i, err)
		}
		r("")
	}
	r, err := s.admit(alice)
	if err != nil {
		t.Fatal(err)
	}
	a2 := s.Generate()
	r(a2)
	if _, err := s.admit(alice); !errors.Is(err, errPrincipalSessions) {
		t.Fatalf("alice's third session: %v", err)
	}
	s.Terminate(a2)
	r, err = s.admit(alice)
	if err != nil {
		t.Fatalf("an ended session's place was not given back: %v", err)
	}
	r("")

	st1, err := s.openStream(a1, alice)
	if err != nil {
		t.Fatal(err)
	}
	l1, err := s.openListen(alice)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.openListen(alice); !errors.Is(err, errPrincipalStreams) {
		t.Fatalf("alice's third stream: %v", err)
	}
	if _, err := s.openStream(a1, alice); !errors.Is(err, errPrincipalStreams) {
		t.Fatalf("alice's third stream (GET): %v", err)
	}
	l2, err := s.openListen(bob)
	if err != nil {
		t.Fatalf("bob held back by alice: %v", err)
	}
	st1()
	l1()
	l2()
	if len(s.streamsOf) != 0 || s.streams != 0 {
		t.Fatalf("streams left: %v %d", s.streamsOf, s.streams)
	}
	s.Terminate(a1)
	if len(s.sessionsOf) != 0 {
		t.Fatalf("sessions left by principal: %v", s.sessionsOf)
	}
}
