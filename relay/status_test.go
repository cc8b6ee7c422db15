package relay

import (
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/internal/relaytest"
)

// TestSiteStatus: every applied site is listed, in configuration order,
// with no page; a wrong proof is its last refusal; a connected page shows
// its origin and since when; when it leaves the site is disconnected
// again, since then, and keeps the last refusal.
func TestSiteStatus(t *testing.T) {
	f := newFixture(t, demo(), SiteConfig{Name: "other"})
	st := f.r.SiteStatus()
	if len(st) != 2 || st[0].Name != "demo" || st[1].Name != "other" {
		t.Fatalf("SiteStatus = %+v, want demo and other", st)
	}
	for _, s := range st {
		if s.Connected || s.Origin != "" || s.Since.IsZero() || s.LastRefusal != nil || s.Declared == "" || s.Protocol != ProtocolWasmgate {
			t.Errorf("before any page: %+v", s)
		}
	}

	p := mustDial(t, f.url("demo"))
	p.send(relaytest.AuthFrame(p.read(), "demo", "not the token, but long enough", relaytest.Nonce()))
	if code, _ := p.closed(); code != closeAuthFailed {
		t.Errorf("closed with %d, want %d", code, closeAuthFailed)
	}
	var demo SiteStatus
	if !harness.WaitFor(5*time.Second, func() bool { demo = f.r.SiteStatus()[0]; return demo.LastRefusal != nil }) {
		t.Fatal("no refusal recorded after a wrong proof")
	}
	if r := demo.LastRefusal; r.Outcome != "bad_proof" || r.Origin != testOrigin || r.At.IsZero() || r.Error == "" || demo.Connected {
		t.Errorf("after a wrong proof: %+v %+v", demo, r)
	}

	before := time.Now()
	page := f.connect("demo")
	demo = f.r.SiteStatus()[0]
	if !demo.Connected || demo.Origin != testOrigin || demo.Since.Before(before) {
		t.Errorf("connected: %+v", demo)
	}
	if other := f.r.SiteStatus()[1]; other.Connected || other.LastRefusal != nil {
		t.Errorf("the other site: %+v", other)
	}
	page.c.CloseNow()
	left := time.Now()
	if !harness.WaitFor(5*time.Second, func() bool { demo = f.r.SiteStatus()[0]; return !demo.Connected }) {
		t.Fatal("still connected after the page left")
	}
	if demo.Origin != "" || demo.Since.Before(left.Add(-time.Second)) || demo.LastRefusal == nil || demo.LastRefusal.Outcome != "bad_proof" {
		t.Errorf("after the page left: %+v", demo)
	}

	f.apply(SiteConfig{Name: "other"})
	if st := f.r.SiteStatus(); len(st) != 1 || st[0].Name != "other" {
		t.Errorf("after removing demo: %+v", st)
	}
}
