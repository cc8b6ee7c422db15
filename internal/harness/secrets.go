package harness

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// Secrets are values (bearer tokens, signed JWTs) that must never appear
// in anything a gateway produces: its log, its /metrics, the errors and
// response bodies its clients get, the audit file.
type Secrets []string

// Check fails the test if text contains one of the secrets; what names
// the text in the failure (never the secret itself).
func (s Secrets) Check(t testing.TB, what, text string) {
	t.Helper()
	for i, v := range s {
		if len(v) < 8 {
			t.Fatalf("secret %d is shorter than 8 characters: checking for it proves nothing", i)
		}
		if strings.Contains(text, v) {
			t.Errorf("%s contains secret %d", what, i)
			for _, line := range strings.Split(text, "\n") {
				if strings.Contains(line, v) {
					t.Logf("  %s", strings.ReplaceAll(line, v, "<SECRET>"))
				}
			}
		}
	}
}

// Watch checks, when the test ends, g's /metrics (scraped while g still
// runs) and everything g logged (after stopping it, so that shutdown is
// included). Call it after Start: cleanups run in reverse order, so this
// one runs before Start's own.
func (s Secrets) Watch(t testing.TB, g *Gateway) {
	t.Helper()
	t.Cleanup(func() {
		if g.Alive() && g.AdminURL != "" {
			if resp, err := http.Get(g.AdminURL + "/metrics"); err == nil {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				s.Check(t, "/metrics", string(b))
			}
		}
		if err := g.Stop(t); err != nil {
			t.Errorf("wasmgate did not exit cleanly: %v", err)
		}
		s.Check(t, "the gateway's log", g.Stderr())
	})
}
