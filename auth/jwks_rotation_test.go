package auth_test

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"

	"github.com/wasmgate/wasmgate/auth"
	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/internal/jwttest"
)

// A JWKS server rotates its key (k1 out, k2 in) while telling caches to
// keep the old set for a day: the refresher fetches again every refresh
// all the same (a constant interval, as before httprc ran it), k2's
// tokens are accepted and k1's refused without a token ever causing a
// fetch (the clock stands still, so MinRefetch never allows one), and
// Close stops every goroutine the refresher started.
func TestJWKSRotationOnTimer(t *testing.T) {
	s := newSecrets(t)
	clock := newClock()
	k1, k2 := rsaKey(t, "k1"), rsaKey(t, "k2")
	var mu sync.Mutex
	body := jwttest.SetJSON(t, k1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		b := body
		mu.Unlock()
		w.Header().Set("Cache-Control", "public, max-age=86400")
		w.Header().Set("Connection", "close") // no idle connection outlives the test's goroutine count
		w.Header().Set("Content-Type", "application/jwk-set+json")
		w.Write(b)
	}))
	t.Cleanup(srv.Close)

	before := runtime.NumGoroutine()
	c := jwtConfig(t, srv.URL+"/jwks.json", nil)
	c.JWT.Refresh = config.Duration(50 * time.Millisecond) // below the config minimum, for the test
	a, err := auth.New(t.Context(), c, auth.Options{Now: clock.Now, Logger: s.logger})
	if err != nil {
		t.Fatal(s.err(err))
	}
	defer a.Close()
	old := mint(t, s, k1, jwa.RS256(), claims(clock.Now()))
	if _, err := a.Authenticate(bearer(old)); err != nil {
		t.Fatalf("k1 before the rotation: %v", s.err(err))
	}

	mu.Lock()
	body = jwttest.SetJSON(t, k2)
	mu.Unlock()
	tok := mint(t, s, k2, jwa.RS256(), claims(clock.Now()))
	waitFor(t, "k2 accepted after the rotation", func() bool {
		_, err := a.Authenticate(bearer(tok))
		return err == nil
	})
	if _, err := a.Authenticate(bearer(old)); err == nil || !strings.Contains(err.Error(), "no key in the JWKS has the token's kid") {
		t.Errorf("k1 after the rotation: %v, want refused for its kid", err)
	}
	if out := s.log.String(); !strings.Contains(out, "JWKS keys changed") || !strings.Contains(out, "kids=[k2] previous=[k1]") {
		t.Errorf("no log line for the change of keys:\n%s", out)
	}

	a.Close()
	waitFor(t, "the refresher's goroutines to end", func() bool { return runtime.NumGoroutine() <= before })
}
