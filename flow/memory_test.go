package flow

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// clock is a settable time for a Memory.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// newTestMemory is a Memory whose time is c.
func newTestMemory(c *clock) *Memory {
	m := NewMemory()
	m.now = c.Now
	return m
}

var ctx = context.Background()

func mustGet(t *testing.T, m *Memory, key string, window time.Duration) *Taint {
	t.Helper()
	tt, err := m.Get(ctx, key, window)
	if err != nil {
		t.Fatal(err)
	}
	return tt
}

func TestMemoryAddGet(t *testing.T) {
	c := &clock{now: t0}
	m := newTestMemory(c)
	if tt := mustGet(t, m, "session:a", time.Hour); tt != nil {
		t.Fatalf("an unknown key: %v", tt)
	}
	notes := Call{Kind: "tool", Name: "read_notes", Source: "notes"}
	if err := m.Add(ctx, "session:a", []string{Private}, notes, 0); err != nil {
		t.Fatal(err)
	}
	tt := mustGet(t, m, "session:a", time.Hour)
	if got := tt.Labels[Private]; got.At != t0 || got.Name != "read_notes" {
		t.Errorf("a call without a time is given now: %+v", got)
	}
	if mustGet(t, m, "session:b", time.Hour) != nil {
		t.Error("another key sees the taint")
	}
	// What Get returned is a snapshot: a later write does not change it.
	_ = m.Add(ctx, "session:a", []string{Egress}, notes, 0)
	if tt.Has(Egress) || !mustGet(t, m, "session:a", 0).Has(Egress) {
		t.Error("a taint read before a write changed with it, or the write is lost")
	}
	// A later call replaces the call a label records; an explicit time is kept.
	later := Call{Kind: "resource", Name: "file:///notes/b", Source: "notes", At: t0.Add(time.Second)}
	_ = m.Add(ctx, "session:a", []string{Private, Untrusted}, later, 0)
	tt = mustGet(t, m, "session:a", 0)
	if tt.Labels[Private] != later || tt.Labels[Untrusted] != later {
		t.Errorf("after a later call: %+v", tt.Labels)
	}
}

// A label, and an approval, lasts window after the call that added it.
func TestMemoryWindow(t *testing.T) {
	c := &clock{now: t0}
	m := newTestMemory(c)
	_ = m.Add(ctx, "principal:bob", []string{Private}, Call{Kind: "tool", Name: "read_notes", Source: "notes"}, 0)
	_ = m.Approve(ctx, "principal:bob", "lethal-trifecta", "post", 0)
	c.Add(30 * time.Minute)
	_ = m.Add(ctx, "principal:bob", []string{Untrusted}, Call{Kind: "tool", Name: "fetch", Source: "web"}, 0)

	tt := mustGet(t, m, "principal:bob", time.Hour)
	if !tt.Has(Private, Untrusted) || !tt.IsApproved("lethal-trifecta", "post") {
		t.Errorf("within the window: %v %v", tt.Names(), tt.Approved)
	}
	c.Add(30*time.Minute + time.Second) // private and the approval are 1h1s old
	tt = mustGet(t, m, "principal:bob", time.Hour)
	if tt.Has(Private) || !tt.Has(Untrusted) || tt.IsApproved("lethal-trifecta", "post") {
		t.Errorf("past the window of the first call: %v %v", tt.Names(), tt.Approved)
	}
	// Window 0 keeps everything.
	tt = mustGet(t, m, "principal:bob", 0)
	if !tt.Has(Private, Untrusted) || !tt.IsApproved("lethal-trifecta", "post") {
		t.Errorf("with no window: %v %v", tt.Names(), tt.Approved)
	}
	// Calling again renews the label.
	_ = m.Add(ctx, "principal:bob", []string{Private}, Call{Kind: "tool", Name: "read_notes", Source: "notes"}, 0)
	if !mustGet(t, m, "principal:bob", time.Hour).Has(Private, Untrusted) {
		t.Error("a label added again is not renewed")
	}
}

// An entry is gone ttl after its last change; ttl 0 leaves it as it was.
func TestMemoryTTL(t *testing.T) {
	c := &clock{now: t0}
	m := newTestMemory(c)
	call := Call{Kind: "tool", Name: "x", Source: "s"}
	_ = m.Add(ctx, "session:a", []string{Private}, call, 10*time.Minute)
	c.Add(9 * time.Minute)
	_ = m.Approve(ctx, "session:a", "r", "post", 10*time.Minute) // renews
	c.Add(9 * time.Minute)
	_ = m.Add(ctx, "session:a", []string{Untrusted}, call, 0) // does not renew
	if tt := mustGet(t, m, "session:a", 0); !tt.Has(Private, Untrusted) {
		t.Errorf("18m after its first change, 9m after its last renewal: %v", tt.Names())
	}
	c.Add(time.Minute + time.Second)
	if tt := mustGet(t, m, "session:a", 0); tt != nil {
		t.Errorf("past its ttl: %v", tt.Names())
	}
	if ok, _ := m.Reset(ctx, "session:a"); ok {
		t.Error("Reset found an expired entry")
	}
	// An expired entry starts again empty.
	_ = m.Add(ctx, "session:a", []string{Egress}, call, time.Minute)
	if tt := mustGet(t, m, "session:a", 0); tt.Has(Private) || !tt.Has(Egress) {
		t.Errorf("an entry written after it expired: %v", tt.Names())
	}
}

// A write drops every expired entry, at most once a sweepEvery.
func TestMemorySweep(t *testing.T) {
	c := &clock{now: t0}
	m := newTestMemory(c)
	call := Call{Kind: "tool", Name: "x", Source: "s"}
	for i := range 10 {
		_ = m.Add(ctx, fmt.Sprintf("session:%d", i), []string{Private}, call, time.Minute)
	}
	_ = m.Add(ctx, "session:kept", []string{Private}, call, 0)
	if n := len(m.m); n != 11 {
		t.Fatalf("%d entries", n)
	}
	c.Add(30 * time.Second)
	_ = m.Add(ctx, "session:other", []string{Private}, call, time.Minute)
	c.Add(31 * time.Second) // the ten expired; the last sweep was 61s ago
	_ = m.Add(ctx, "session:other", []string{Private}, call, time.Minute)
	if n := len(m.m); n != 2 {
		t.Errorf("after a sweep: %d entries, want 2", n)
	}
	_ = m.Add(ctx, "session:short", []string{Private}, call, time.Second)
	c.Add(2 * time.Second)
	_ = m.Add(ctx, "session:other", []string{Private}, call, time.Minute)
	if _, ok := m.m["session:short"]; !ok {
		t.Error("swept again within sweepEvery")
	}
}

func TestMemoryResetEnd(t *testing.T) {
	c := &clock{now: t0}
	m := newTestMemory(c)
	call := Call{Kind: "tool", Name: "x", Source: "s"}
	_ = m.Add(ctx, "session:a", []string{Private}, call, 0)
	_ = m.Approve(ctx, "session:a", "r", "post", 0)
	_ = m.Add(ctx, "session:b", []string{Private}, call, 0)
	if ok, err := m.Reset(ctx, "session:a"); err != nil || !ok {
		t.Errorf("Reset: %v %v", ok, err)
	}
	if tt := mustGet(t, m, "session:a", 0); tt != nil {
		t.Errorf("after Reset: %v %v", tt.Names(), tt.Approved)
	}
	if ok, _ := m.Reset(ctx, "session:a"); ok {
		t.Error("a second Reset found something")
	}
	m.End("session:b")
	if tt := mustGet(t, m, "session:b", 0); tt != nil {
		t.Errorf("after End: %v", tt.Names())
	}
	m.End("session:none") // nothing to end: no panic
}

func TestMemoryScan(t *testing.T) {
	c := &clock{now: t0}
	m := newTestMemory(c)
	call := Call{Kind: "tool", Name: "x", Source: "s"}
	_ = m.Add(ctx, "session:old", []string{Private}, call, 0)
	c.Add(2 * time.Hour)
	for i := range 3 {
		_ = m.Add(ctx, fmt.Sprintf("session:%d", i), []string{Private, Untrusted}, call, 0)
	}
	_ = m.Add(ctx, "session:gone", []string{Private}, call, time.Minute)
	c.Add(2 * time.Minute)

	got := map[string]*Taint{}
	complete, err := m.Scan(ctx, 10, time.Hour, func(k string, t *Taint) { got[k] = t })
	if err != nil || !complete || len(got) != 4 {
		t.Fatalf("Scan: %d %v %v", len(got), complete, err)
	}
	if _, ok := got["session:gone"]; ok {
		t.Error("Scan saw an expired entry")
	}
	if tt := got["session:old"]; tt == nil || tt.Has(Private) {
		t.Errorf("Scan did not apply the window: %v", tt.Names())
	}
	if !got["session:1"].Has(Private, Untrusted) {
		t.Errorf("Scan: %v", got["session:1"].Names())
	}
	for _, c := range []struct {
		limit    int
		n        int
		complete bool
	}{{4, 4, true}, {3, 3, false}, {0, 0, false}, {-1, 4, true}} {
		n := 0
		complete, err := m.Scan(ctx, c.limit, 0, func(string, *Taint) { n++ })
		if err != nil || n != c.n || complete != c.complete {
			t.Errorf("Scan with limit %d: %d %v %v, want %d %v", c.limit, n, complete, err, c.n, c.complete)
		}
	}
}

// Every method is safe for concurrent use (run with -race).
func TestMemoryConcurrent(t *testing.T) {
	m := NewMemory()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			key := fmt.Sprintf("session:%d", i%3)
			for j := range 200 {
				_ = m.Add(ctx, key, []string{Private}, Call{Kind: "tool", Name: "x", Source: "s"}, time.Minute)
				_ = m.Approve(ctx, key, "r", "post", time.Minute)
				_, _ = m.Get(ctx, key, time.Hour)
				_, _ = m.Scan(ctx, 2, time.Hour, func(string, *Taint) {})
				if j%50 == 0 {
					_, _ = m.Reset(ctx, key)
					m.End(key)
				}
			}
		})
	}
	wg.Wait()
}

// TestMemoryAddUnchanged: a label added again within a second by a call
// with a time stores nothing new (the first call stays on record); later,
// the latest call replaces it.
func TestMemoryAddUnchanged(t *testing.T) {
	ctx := context.Background()
	m := NewMemory()
	t0 := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	first := Call{Kind: "tool", Name: "a", Source: "s", At: t0}
	again := Call{Kind: "tool", Name: "b", Source: "s", At: t0.Add(500 * time.Millisecond)}
	later := Call{Kind: "tool", Name: "c", Source: "s", At: t0.Add(2 * time.Second)}
	for _, c := range []Call{first, again} {
		if err := m.Add(ctx, "session:x", []string{Private}, c, 0); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := m.Get(ctx, "session:x", 0); got.Labels[Private].Name != "a" {
		t.Errorf("after a repeat within a second: %+v", got.Labels)
	}
	_ = m.Add(ctx, "session:x", []string{Private, Egress}, again, 0) // a new label is written
	if got, _ := m.Get(ctx, "session:x", 0); !got.Has(Egress) {
		t.Errorf("a new label was not added: %+v", got.Labels)
	}
	_ = m.Add(ctx, "session:x", []string{Private}, later, 0)
	if got, _ := m.Get(ctx, "session:x", 0); got.Labels[Private].Name != "c" {
		t.Errorf("after a later call: %+v", got.Labels)
	}
	_ = m.Add(ctx, "session:new", []string{Private}, first, 0) // an unknown key with a timed call
	if got, _ := m.Get(ctx, "session:new", 0); !got.Has(Private) {
		t.Error("a new key was not written")
	}
}
