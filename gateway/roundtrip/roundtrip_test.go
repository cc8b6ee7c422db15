package roundtrip

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

func answers(id, text string) mcp.InputResponses {
	var r mcp.InputResponses
	_ = json.Unmarshal([]byte(`{"`+id+`":{"role":"assistant","content":{"type":"text","text":"`+text+`"},"model":"m"}}`), &r)
	return r
}

func sample(text string) mcp.InputRequest {
	return mcp.NewSamplingInputRequest(mcp.CreateMessageParams{Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.TextContent{Type: "text", Text: text}}}, MaxTokens: 5})
}

// TestRounds: two questions, two retries; the answers come back in order;
// a run that asks something else at the same point is refused.
func TestRounds(t *testing.T) {
	s := NewSigner(0)
	b := Binding{Principal: "alice", Tool: "t", Args: []byte(`{"a":1}`)}
	r := First()
	if _, err := r.Ask(sample("q1")); err != ErrNeedInput || r.Pending() == nil {
		t.Fatalf("first ask: %v", err)
	}
	tok, err := s.Seal(b, r)
	if err != nil {
		t.Fatal(err)
	}
	r, err = s.Open(context.Background(), tok, b, answers("wasmgate-0", "a1"))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := r.Ask(sample("q1")); err != nil || !strings.Contains(string(out), "a1") {
		t.Fatalf("replayed answer: %s %v", out, err)
	}
	if _, err := r.Ask(sample("q2")); err != ErrNeedInput {
		t.Fatalf("second question: %v", err)
	}
	tok, _ = s.Seal(b, r)
	r, err = s.Open(context.Background(), tok, b, answers("wasmgate-1", "a2"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Ask(sample("q1 changed")); err == nil || r.Err() == nil || !strings.Contains(r.Err().Error(), "differs") {
		t.Fatalf("a different first question: %v", err)
	}
}

// TestOpenRefuses: every way a token can be wrong has its message.
func TestOpenRefuses(t *testing.T) {
	s := NewSigner(2)
	now := time.Unix(1_000_000, 0)
	s.now = func() time.Time { return now }
	b := Binding{Principal: "alice", Tool: "t", Args: []byte(`{}`)}
	seal := func() string {
		r := First()
		_, _ = r.Ask(sample("q"))
		tok, err := s.Seal(b, r)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	tok := seal()
	for _, tc := range []struct {
		name, token string
		b           Binding
		resp        mcp.InputResponses
		want        string
	}{
		{"garbage", "garbage", b, answers("wasmgate-0", "x"), "not one the gateway issued"},
		{"bad base64", "!!!.???", b, answers("wasmgate-0", "x"), "not one the gateway issued"},
		{"forged", "eyJ2IjoxfQ.AAAA", b, answers("wasmgate-0", "x"), "bad signature"},
		{"other principal", tok, Binding{Principal: "bob", Tool: "t", Args: []byte(`{}`)}, answers("wasmgate-0", "x"), "another caller"},
		{"other arguments", tok, Binding{Principal: "alice", Tool: "t", Args: []byte(`{"a":2}`)}, answers("wasmgate-0", "x"), "another caller"},
		{"no answer", tok, b, nil, "no answer"},
		{"answer to another id", tok, b, answers("wasmgate-1", "x"), "no answer"},
		{"oversized", strings.Repeat("A", 2*MaxStateBytes+1) + ".AAAA", b, answers("wasmgate-0", "x"), "too large"},
	} {
		if _, err := s.Open(context.Background(), tc.token, tc.b, tc.resp); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := s.Open(context.Background(), tok, b, answers("wasmgate-0", "x")); err != nil {
		t.Fatalf("the good token: %v", err)
	}
	if _, err := s.Open(context.Background(), tok, b, answers("wasmgate-0", "x")); err == nil || !strings.Contains(err.Error(), "already used") {
		t.Errorf("replay: %v", err)
	}
	old := seal()
	now = now.Add(DefaultTTL + time.Second)
	if _, err := s.Open(context.Background(), old, b, answers("wasmgate-0", "x")); err == nil || !strings.Contains(err.Error(), "expired") {
		t.Errorf("expired: %v", err)
	}
	s.Set([]byte(strings.Repeat("n", 32)), 0)
	if _, err := s.Open(context.Background(), seal(), b, answers("wasmgate-0", "x")); err != nil {
		t.Errorf("a state of the new key: %v", err)
	}
	// The used set holds at most 2: it stays bounded.
	for range 5 {
		if _, err := s.Open(context.Background(), seal(), b, answers("wasmgate-0", "x")); err != nil {
			t.Fatal(err)
		}
	}
	if len(s.used) > 2 {
		t.Errorf("%d nonces kept, want at most 2", len(s.used))
	}
}

// FuzzOpen: whatever a client sends as requestState and inputResponses,
// Open returns an error or a Replay, never panics, and accepts nothing it
// did not seal.
func FuzzOpen(f *testing.F) {
	s := NewSigner(0)
	b := Binding{Principal: "p", Tool: "t", Args: []byte(`{}`)}
	r := First()
	_, _ = r.Ask(sample("q"))
	tok, _ := s.Seal(b, r)
	f.Add(tok, `{"wasmgate-0":{"role":"assistant","content":{"type":"text","text":"x"},"model":"m"}}`)
	f.Add("a.b", `{}`)
	f.Add(".", `null`)
	f.Add(strings.Repeat("A", 100)+"."+strings.Repeat("B", 43), `{"wasmgate-0":null}`)
	f.Fuzz(func(t *testing.T, token, responses string) {
		var resp mcp.InputResponses
		_ = json.Unmarshal([]byte(responses), &resp)
		rp, err := s.Open(context.Background(), token, b, resp)
		if err == nil && token != tok {
			t.Fatalf("Open accepted a token it did not seal: %q", token)
		}
		if err == nil && rp == nil {
			t.Fatal("no error and no Replay")
		}
	})
}

// TestParked: a parked call's state names it (signed with the rest), the
// retry resumes with the last answer only, and the next request is asked
// as a new round.
func TestParked(t *testing.T) {
	s := NewSigner(0)
	b := Binding{Principal: "alice", Tool: "t", Args: []byte(`{}`)}
	r := First()
	if _, err := r.Ask(sample("q1")); err != ErrNeedInput {
		t.Fatal(err)
	}
	r.Park("call-7")
	tok, err := s.Seal(b, r)
	if err != nil {
		t.Fatal(err)
	}
	r, err = s.Open(context.Background(), tok, b, answers("wasmgate-0", "a1"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Parked() != "call-7" {
		t.Fatalf("Parked = %q", r.Parked())
	}
	if out := r.Resume(); !strings.Contains(string(out), "a1") {
		t.Fatalf("Resume = %s", out)
	}
	// The parked call's next request is new: not compared with q1.
	if _, err := r.Ask(sample("q2")); err != ErrNeedInput || r.Err() != nil {
		t.Fatalf("the next request: %v %v", err, r.Err())
	}
	r.Park("call-7")
	tok, _ = s.Seal(b, r)
	r, err = s.Open(context.Background(), tok, b, answers("wasmgate-1", "a2"))
	if err != nil || r.Parked() != "call-7" || !strings.Contains(string(r.Resume()), "a2") {
		t.Fatalf("second round: %v %q", err, r.Parked())
	}
	if First().Parked() != "" {
		t.Fatal("a first run is parked")
	}
}
