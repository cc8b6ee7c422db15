package state_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/relay"
	"github.com/wasmgate/wasmgate/state"
)

// serving runs m.Serve with serve until the test ends; it returns once
// m listens on its channel.
func serving(t *testing.T, st *state.Store, m *state.RelayMesh, serve func(context.Context, []byte) []byte) context.CancelFunc {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		m.Serve(ctx, serve, func() {})
	}()
	t.Cleanup(func() { cancel(); <-done })
	// A call to itself answers once the subscription is up.
	if !harness.WaitFor(10*time.Second, func() bool {
		cctx, c := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer c()
		_, err := m.Forward(cctx, m.Replica(), []byte(`"ping"`))
		return err == nil
	}) {
		t.Fatal("the mesh does not answer on its channel")
	}
	return func() { cancel(); <-done }
}

// Claims across replicas: a live holder keeps its site; a holder that no
// longer listens loses it at once; Publish reports a site lost; Read
// shows who holds what, and leaves out a holder that no longer listens; a release by a replica that lost the site leaves
// it to the new holder.
func TestRelayMeshClaims(t *testing.T) {
	r := harness.StartRedis(t)
	st := open(t, r.URL())
	a, b := st.RelayMesh("a"), st.RelayMesh("b")
	ctx := context.Background()
	stopA := serving(t, st, a, func(context.Context, []byte) []byte { return []byte(`{}`) })

	if h, err := a.Claim(ctx, "demo"); err != nil || h != "" {
		t.Fatalf("a claims demo: %q %v", h, err)
	}
	if lost, err := a.Publish(ctx, "demo", []byte(`{"tools":[{"name":"x"}]}`)); err != nil || lost != "" {
		t.Fatalf("a publishes demo: %q %v", lost, err)
	}
	if h, err := b.Claim(ctx, "demo"); err != nil || h != "a" {
		t.Fatalf("b claims demo held by a live replica: holder %q %v, want a", h, err)
	}
	held, err := b.Read(ctx, []string{"demo", "other"})
	if err != nil || len(held) != 1 || held["demo"].Owner != "a" || string(held["demo"].Reg) != `{"tools":[{"name":"x"}]}` {
		t.Fatalf("Read = %v %v", held, err)
	}

	stopA() // a no longer listens: as if killed
	if !harness.WaitFor(10*time.Second, func() bool { held, err := b.Read(ctx, []string{"demo"}); return err == nil && len(held) == 0 }) {
		t.Error("Read still lists demo held by a replica that no longer listens")
	}
	if h, err := b.Claim(ctx, "demo"); err != nil || h != "" {
		t.Fatalf("b claims demo held by a replica gone: holder %q %v, want it taken", h, err)
	}
	if lost, err := a.Publish(ctx, "demo", []byte(`{}`)); err != nil || lost != "b" {
		t.Errorf("a refreshing a site b took: lost %q %v, want b", lost, err)
	}
	if _, err := a.Publish(ctx, "demo", nil); err != nil {
		t.Fatal(err)
	}
	if held, _ := b.Read(ctx, []string{"demo"}); held["demo"].Owner != "b" {
		t.Errorf("a's release removed b's claim: %v", held)
	}
	if _, err := b.Publish(ctx, "demo", nil); err != nil {
		t.Fatal(err)
	}
	if held, _ := b.Read(ctx, []string{"demo"}); len(held) != 0 {
		t.Errorf("demo still held after b released it: %v", held)
	}
}

// Forwarded calls: an answer comes back; a replica that does not listen
// is ErrGone at once; a call cancelled by its client is cancelled on the
// owner; no Redis is an error naming state.redis.
func TestRelayMeshForward(t *testing.T) {
	r := harness.StartRedis(t)
	st := open(t, r.URL())
	a, b := st.RelayMesh("a"), st.RelayMesh("b")
	cancelled := make(chan error, 4)
	serving(t, st, a, func(ctx context.Context, call []byte) []byte {
		if string(call) == `"wait"` {
			<-ctx.Done()
			cancelled <- ctx.Err()
			return []byte(`"late"`)
		}
		return append([]byte(`"echo `), call[1:]...)
	})
	serving(t, st, b, func(context.Context, []byte) []byte { return []byte(`"b"`) })
	ctx := context.Background()

	out, err := b.Forward(ctx, "a", []byte(`"hi"`))
	if err != nil || string(out) != `"echo hi"` {
		t.Fatalf("Forward = %s %v", out, err)
	}
	if _, err := b.Forward(ctx, "nobody", []byte(`"hi"`)); !errors.Is(err, relay.ErrGone) {
		t.Errorf("Forward to a replica gone: %v, want ErrGone", err)
	}

	cctx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	if _, err := b.Forward(cctx, "a", []byte(`"wait"`)); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled Forward: %v", err)
	}
	select {
	case err := <-cancelled:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the owner's call ended with %v, want cancelled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the owner's call was not cancelled")
	}

	r.Stop()
	if !harness.WaitFor(10*time.Second, func() bool { return !st.Up() }) {
		t.Fatal("the store is still up with Redis stopped")
	}
	if _, err = b.Forward(ctx, "a", []byte(`"hi"`)); err == nil || !strings.Contains(err.Error(), "state.redis") {
		t.Errorf("Forward with Redis down: %v, want an error naming state.redis", err)
	}
}

// A call forwarded to a replica that dies with it running ends as soon
// as a Read sees the replica gone, not at its deadline.
func TestRelayMeshOwnerDies(t *testing.T) {
	r := harness.StartRedis(t)
	st := open(t, r.URL())
	a, b := st.RelayMesh("a"), st.RelayMesh("b")
	release := make(chan struct{})
	running := make(chan struct{}, 1)
	stopA := serving(t, st, a, func(ctx context.Context, call []byte) []byte {
		if string(call) == `"hang"` {
			running <- struct{}{}
			<-release // a dead replica never answers
		}
		return []byte(`"ok"`)
	})
	t.Cleanup(func() { close(release) })
	ctx := context.Background()
	if h, err := a.Claim(ctx, "demo"); err != nil || h != "" {
		t.Fatalf("a claims demo: %q %v", h, err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := b.Forward(ctx, "a", []byte(`"hang"`))
		done <- err
	}()
	<-running
	go stopA() // a stops listening, its call still running
	if !harness.WaitFor(10*time.Second, func() bool {
		held, err := b.Read(ctx, []string{"demo"})
		return err == nil && len(held) == 0
	}) {
		t.Fatal("Read still lists demo held by a replica gone")
	}
	select {
	case err := <-done:
		if !errors.Is(err, relay.ErrGone) {
			t.Errorf("the call to a replica that died: %v, want ErrGone", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call to a replica that died still waits")
	}
}

// An answer published while the forwarder's inbox has no listener (its
// subscription not back yet after Redis came back, the owner's already
// is) is published again until it is received, instead of leaving the
// call to wait for its whole timeout.
func TestRelayMeshReplyWaitsForListener(t *testing.T) {
	r := harness.StartRedis(t)
	st := open(t, r.URL())
	a, b := st.RelayMesh("a"), st.RelayMesh("b")
	served := make(chan struct{}, 1)
	serving(t, st, a, func(ctx context.Context, call []byte) []byte {
		served <- struct{}{}
		return []byte(`"answer"`)
	})
	// b forwards before it listens on its own inbox.
	type result struct {
		out []byte
		err error
	}
	got := make(chan result, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		out, err := b.Forward(ctx, "a", []byte(`"hi"`))
		got <- result{out, err}
	}()
	select {
	case <-served:
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not reach its owner")
	}
	time.Sleep(300 * time.Millisecond) // the first answer is published to nobody
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.Serve(ctx, func(context.Context, []byte) []byte { return nil }, func() {})
	}()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case r := <-got:
		if r.err != nil || string(r.out) != `"answer"` {
			t.Fatalf("Forward = %s %v, want the answer", r.out, r.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the answer published while the forwarder did not listen was lost")
	}
}
