package auth_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/auth"
	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/internal/harness"
)

// secrets captures the log of an Authenticator and every error a test
// produces, and checks at the end of the test that no registered token
// (or JWT signature) appears in any of them.
type secrets struct {
	t      *testing.T
	log    harness.SyncBuffer // the refresher goroutine and the test write at once
	logger *slog.Logger

	mu     sync.Mutex
	values []string
	errs   []string
}

func newSecrets(t *testing.T) *secrets {
	s := &secrets{t: t}
	s.logger = slog.New(slog.NewTextHandler(&s.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	t.Cleanup(s.check)
	return s
}

// add registers a token that must never be seen, and returns it. For a
// JWT the signature part is registered too.
func (s *secrets) add(token string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.values = append(s.values, token)
	if parts := strings.Split(token, "."); len(parts) == 3 && len(parts[2]) >= 16 {
		s.values = append(s.values, parts[2])
	}
	return token
}

// err records an error's text for the final check and returns err.
func (s *secrets) err(err error) error {
	if err != nil {
		s.mu.Lock()
		s.errs = append(s.errs, err.Error())
		s.mu.Unlock()
	}
	return err
}

func (s *secrets) check() {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.log.String()
	for _, v := range s.values {
		if strings.Contains(out, v) {
			s.t.Errorf("a token appears in the log:\n%s", out)
		}
		for _, e := range s.errs {
			if strings.Contains(e, v) {
				s.t.Errorf("a token appears in an error: %s", e)
			}
		}
	}
}

// fakeClock is a settable clock.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *fakeClock { return &fakeClock{now: time.Unix(1_800_000_000, 0)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// normalize runs c.Normalize as the loader would, for a gateway.yaml in
// dir, and returns the problems and the env.
func normalize(t testing.TB, dir string, c *auth.Config) ([]*config.Error, *config.Env) {
	t.Helper()
	var errs []error
	env := config.NewEnv(filepath.Join(dir, "gateway.yaml"), &errs)
	c.Normalize("auth", env)
	var out []*config.Error
	for _, err := range errs {
		var ce *config.Error
		if !errors.As(err, &ce) {
			t.Fatalf("Normalize reported %T %v, want *config.Error", err, err)
		}
		out = append(out, ce)
	}
	return out, env
}

// mustNormalize normalizes c and fails on any problem.
func mustNormalize(t testing.TB, c *auth.Config) {
	t.Helper()
	errs, _ := normalize(t, t.TempDir(), c)
	for _, e := range errs {
		t.Errorf("Normalize: %v", e)
	}
	if len(errs) > 0 {
		t.FailNow()
	}
}

// newAuth builds an Authenticator closed at the end of the test.
func newAuth(t *testing.T, s *secrets, c auth.Config, opts auth.Options) *auth.Authenticator {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = s.logger
	}
	a, err := auth.New(context.Background(), c, opts)
	if err := s.err(err); err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(a.Close)
	return a
}

// request returns a request carrying the given Authorization headers.
func request(authorization ...string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", nil)
	for _, v := range authorization {
		r.Header.Add("Authorization", v)
	}
	return r
}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
