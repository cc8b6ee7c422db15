package state_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/wasmgate/wasmgate/flow"
	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/state"
	"github.com/wasmgate/wasmgate/state/stateconfig"
)

// The taint in Redis: labels and approvals under the store's prefix, what
// one replica adds seen by another, labels and approvals older than the
// window dropped, the hash gone after its ttl, Reset and Scan, and an
// error that says what was unavailable when Redis is down.
func TestFlowsRedis(t *testing.T) {
	r := harness.StartRedis(t)
	a, b := open(t, r.URL()).Flows(), open(t, r.URL()).Flows() // two replicas
	ctx := context.Background()
	raw := redis.NewClient(&redis.Options{Addr: r.Addr})
	t.Cleanup(func() { _ = raw.Close() })

	if tt, err := b.Get(ctx, "session:s1", time.Hour); err != nil || tt != nil {
		t.Fatalf("an unknown key: %v %v", tt, err)
	}
	notes := flow.Call{Kind: "tool", Name: "read_notes", Source: "notes", At: time.Now().Add(-time.Minute).Truncate(time.Millisecond)}
	if err := a.Add(ctx, "session:s1", []string{flow.Private}, notes, time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := a.Add(ctx, "session:s1", []string{flow.Untrusted, flow.Egress}, flow.Call{Kind: "tool", Name: "fetch", Source: "web"}, time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := a.Approve(ctx, "session:s1", "lethal-trifecta", "post", time.Hour); err != nil {
		t.Fatal(err)
	}
	if ttl := raw.PTTL(ctx, "test:flows:session:s1").Val(); ttl <= 59*time.Minute || ttl > time.Hour {
		t.Errorf("the hash's TTL: %s", ttl)
	}
	fields := raw.HKeys(ctx, "test:flows:session:s1").Val()
	if len(fields) != 4 || !slices.Contains(fields, "l:private") || !slices.Contains(fields, "a:lethal-trifecta\x00post") {
		t.Errorf("the hash's fields: %q", fields)
	}

	tt, err := b.Get(ctx, "session:s1", time.Hour) // the other replica
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tt.Names(), ","); got != "egress,private,untrusted" {
		t.Errorf("labels seen by the other replica: %s", got)
	}
	if c := tt.Labels[flow.Private]; !c.At.Equal(notes.At) || c.Name != "read_notes" || c.Source != "notes" || c.Kind != "tool" {
		t.Errorf("the call that added private: %+v, want %+v", c, notes)
	}
	if c := tt.Labels[flow.Untrusted]; c.At.IsZero() || time.Since(c.At) > time.Minute {
		t.Errorf("a call without a time was not given now: %+v", c)
	}
	if !tt.IsApproved("lethal-trifecta", "post") || tt.IsApproved("lethal-trifecta", "fetch") {
		t.Errorf("approvals: %v", tt.Approved)
	}

	// The window drops the label added a minute ago and, written by
	// hand, an approval from two hours ago; 0 keeps everything.
	_ = raw.HSet(ctx, "test:flows:session:s1", "a:old\x00post", strconv.FormatInt(time.Now().Add(-2*time.Hour).UnixMilli(), 10))
	tt, _ = b.Get(ctx, "session:s1", 30*time.Second)
	if tt.Has(flow.Private) || !tt.Has(flow.Untrusted, flow.Egress) || tt.IsApproved("old", "post") || !tt.IsApproved("lethal-trifecta", "post") {
		t.Errorf("within 30s: %v %v", tt.Names(), tt.Approved)
	}
	tt, _ = b.Get(ctx, "session:s1", 0)
	if !tt.Has(flow.Private, flow.Untrusted, flow.Egress) || !tt.IsApproved("old", "post") {
		t.Errorf("with no window: %v %v", tt.Names(), tt.Approved)
	}

	// A later call replaces the call a label records.
	if err := b.Add(ctx, "session:s1", []string{flow.Private}, flow.Call{Kind: "resource", Name: "file:///notes/a", Source: "notes"}, time.Hour); err != nil {
		t.Fatal(err)
	}
	if tt, _ := a.Get(ctx, "session:s1", time.Hour); tt.Labels[flow.Private].Kind != "resource" {
		t.Errorf("the latest call: %+v", tt.Labels[flow.Private])
	}

	// ttl: the hash goes away; ttl 0 adds without one.
	if err := a.Add(ctx, "principal:bob", []string{flow.Private}, flow.Call{Kind: "tool", Name: "x", Source: "y"}, 150*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if tt, _ := b.Get(ctx, "principal:bob", 0); !tt.Has(flow.Private) {
		t.Error("not there before its ttl")
	}
	if !harness.WaitFor(5*time.Second, func() bool { tt, _ := b.Get(ctx, "principal:bob", 0); return tt == nil }) {
		t.Error("still there after its ttl")
	}
	if err := a.Add(ctx, "principal:carol", []string{flow.Private}, flow.Call{Kind: "tool", Name: "x", Source: "y"}, 0); err != nil {
		t.Fatal(err)
	}
	if ttl := raw.PTTL(ctx, "test:flows:principal:carol").Val(); ttl != -1 {
		t.Errorf("ttl 0 set an expiry: %s", ttl)
	}
	if err := a.Add(ctx, "principal:carol", nil, flow.Call{}, time.Hour); err != nil {
		t.Fatal(err)
	}

	// Scan sees both keys from the other replica, and stops at its limit.
	got := map[string]*flow.Taint{}
	complete, err := b.Scan(ctx, 10, time.Hour, func(k string, t *flow.Taint) { got[k] = t })
	if err != nil || !complete || len(got) != 2 || !got["session:s1"].Has(flow.Private, flow.Untrusted) || !got["principal:carol"].Has(flow.Private) {
		t.Errorf("Scan: %v %v %v", got, complete, err)
	}
	n := 0
	complete, err = b.Scan(ctx, 1, time.Hour, func(string, *flow.Taint) { n++ })
	if err != nil || complete || n != 1 {
		t.Errorf("Scan with limit 1: %d %v %v", n, complete, err)
	}

	// Reset, seen by the other replica; a second reset finds nothing.
	if ok, err := b.Reset(ctx, "session:s1"); err != nil || !ok {
		t.Errorf("Reset: %v %v", ok, err)
	}
	if tt, _ := a.Get(ctx, "session:s1", 0); tt != nil {
		t.Errorf("after Reset: %v", tt.Names())
	}
	if ok, err := b.Reset(ctx, "session:s1"); err != nil || ok {
		t.Errorf("Reset of nothing: %v %v", ok, err)
	}

	r.Stop()
	for name, err := range map[string]error{
		"Get":     func() error { _, err := a.Get(ctx, "session:s1", 0); return err }(),
		"Add":     a.Add(ctx, "session:s1", []string{flow.Private}, notes, time.Hour),
		"Approve": a.Approve(ctx, "session:s1", "r", "post", time.Hour),
		"Reset":   func() error { _, err := a.Reset(ctx, "session:s1"); return err }(),
		"Scan":    func() error { _, err := a.Scan(ctx, 10, 0, func(string, *flow.Taint) {}); return err }(),
	} {
		if err == nil || !strings.Contains(err.Error(), "state.redis") || !strings.Contains(err.Error(), "the flow-control taint is unavailable") {
			t.Errorf("%s with Redis down: %v", name, err)
		}
	}
}

// Scan walks more keys than one SCAN page returns, reads none twice, and
// finds only the keys of its own prefix, whatever characters that has.
func TestFlowsScanPages(t *testing.T) {
	r := harness.StartRedis(t)
	cfg := stateconfig.Config{Backend: "redis", Redis: stateconfig.Redis{URL: r.URL(), KeyPrefix: "t[e]st*:"}, OnUnavailable: "fail_closed"}
	store, err := state.Open(context.Background(), cfg, "", state.Options{File: "gateway.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.Release)
	st := store.Flows()
	ctx := context.Background()
	raw := redis.NewClient(&redis.Options{Addr: r.Addr})
	t.Cleanup(func() { _ = raw.Close() })
	const n = 250
	for i := range n {
		if err := st.Add(ctx, fmt.Sprintf("session:%03d", i), []string{flow.Private}, flow.Call{Kind: "tool", Name: "t", Source: "s"}, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	// Keys an unescaped pattern t[e]st*:flows:* would match.
	_ = raw.HSet(ctx, "test:flows:session:other", "l:private", `{"t":"2026-01-01T00:00:00Z"}`)
	_ = raw.HSet(ctx, "testX:flows:session:other", "l:private", `{"t":"2026-01-01T00:00:00Z"}`)
	_ = raw.HSet(ctx, "t[e]st*:kv", "x", "y")
	seen := map[string]int{}
	complete, err := st.Scan(ctx, -1, 0, func(k string, _ *flow.Taint) { seen[k]++ })
	if err != nil || !complete || len(seen) != n {
		t.Fatalf("Scan: %d keys, %v %v", len(seen), complete, err)
	}
	for k, c := range seen {
		if c != 1 || !strings.HasPrefix(k, "session:") {
			t.Errorf("%q seen %d times", k, c)
		}
	}
	m := 0
	complete, err = st.Scan(ctx, n, 0, func(string, *flow.Taint) { m++ })
	if err != nil || !complete || m != n {
		t.Errorf("Scan with limit = the count: %d %v %v", m, complete, err)
	}
	complete, err = st.Scan(ctx, n-1, 0, func(string, *flow.Taint) {})
	if err != nil || complete {
		t.Errorf("Scan with limit = the count - 1: %v %v", complete, err)
	}
}
