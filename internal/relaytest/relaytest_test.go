package relaytest

import "testing"

// TestProofMatchesTheDocument checks Proof against the worked example of
// docs/relay-protocol.md.
func TestProofMatchesTheDocument(t *testing.T) {
	const (
		token = "correct horse battery staple 42"
		gn    = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
		pn    = "ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8"
	)
	if got, want := Proof(token, "page", "demo", gn, pn), "GoblaB-My6llAo265mce9v7NgoYrqW6w1UFQuUV4Dec"; got != want {
		t.Errorf("page proof %s, want %s", got, want)
	}
	if got, want := Proof(token, "gateway", "demo", gn, pn), "50jb5yUHAwcKc0sWOhpBy1piTu4E3zTKq0ZfinKUc1c"; got != want {
		t.Errorf("gateway proof %s, want %s", got, want)
	}
	auth := AuthFrame(map[string]any{"type": "hello", "nonce": gn}, "demo", token, pn)
	if auth["type"] != "auth" || auth["nonce"] != pn || auth["proof"] != "GoblaB-My6llAo265mce9v7NgoYrqW6w1UFQuUV4Dec" {
		t.Errorf("auth frame %v", auth)
	}
}
