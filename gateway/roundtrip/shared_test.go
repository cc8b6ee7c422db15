package roundtrip

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
	statestore "github.com/wasmgate/wasmgate/state"
	"github.com/wasmgate/wasmgate/state/stateconfig"
)

// TestSharedReplayRefused: two replicas (two Signers with the same key,
// each with its own connection to one Redis) refuse a state answered on
// the other; with Redis down a retry is refused, not let through, and
// the state still answers once Redis is back.
func TestSharedReplayRefused(t *testing.T) {
	r := harness.StartRedis(t)
	key := []byte(strings.Repeat("k", 32))
	replica := func() *Signer {
		cfg := stateconfig.Config{Backend: "redis", Redis: stateconfig.Redis{URL: r.URL(), KeyPrefix: "rs:"}, OnUnavailable: "fail_closed"}
		st, err := statestore.Open(context.Background(), cfg, "", statestore.Options{File: "gateway.yaml"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(st.Release)
		s := NewSigner(0)
		s.Set(key, 0)
		s.Share(st)
		return s
	}
	a, b := replica(), replica()
	bind := Binding{Principal: "alice", Tool: "t", Args: []byte(`{}`)}
	seal := func() string {
		rp := First()
		_, _ = rp.Ask(sample("q"))
		tok, err := a.Seal(bind, rp)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	ctx := context.Background()
	tok := seal()
	if _, err := a.Open(ctx, tok, bind, answers("wasmgate-0", "x")); err != nil {
		t.Fatalf("the state on replica a: %v", err)
	}
	if _, err := b.Open(ctx, tok, bind, answers("wasmgate-0", "x")); err == nil || !strings.Contains(err.Error(), "already used") {
		t.Fatalf("the same state replayed on replica b: %v, want already used", err)
	}
	if _, err := a.Open(ctx, tok, bind, answers("wasmgate-0", "x")); err == nil || !strings.Contains(err.Error(), "already used") {
		t.Fatalf("the same state replayed on replica a: %v, want already used", err)
	}

	other := seal()
	r.Stop()
	if _, err := b.Open(ctx, other, bind, answers("wasmgate-0", "x")); err == nil || !strings.Contains(err.Error(), "cannot be checked") || !strings.Contains(err.Error(), "state.redis") {
		t.Fatalf("a state opened with Redis down: %v, want refused, naming state.redis", err)
	}
	r.Start()
	if !harness.WaitFor(10*time.Second, func() bool {
		_, err := b.Open(ctx, other, bind, answers("wasmgate-0", "x"))
		return err == nil
	}) {
		_, err := b.Open(ctx, other, bind, answers("wasmgate-0", "x"))
		t.Fatalf("the state refused while Redis was down, once it is back: %v", err)
	}
}
