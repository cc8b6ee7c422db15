package flow

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestResetHandler(t *testing.T) {
	m := NewMemory()
	call := Call{Kind: "tool", Name: "read_notes", Source: "notes"}
	_ = m.Add(ctx, "session:s1", []string{Private}, call, 0)
	_ = m.Add(ctx, "principal:alice", []string{Private}, call, time.Hour)
	var keys []string
	h := ResetHandler(func(ctx context.Context, key string) (bool, error) {
		keys = append(keys, key)
		return m.Reset(ctx, key)
	})
	post := func(body string) (int, map[string]any) {
		t.Helper()
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, AdminResetPath, strings.NewReader(body)))
		if ct := w.Header().Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s: Content-Type %q", body, ct)
		}
		var out map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
			t.Errorf("%s: not JSON: %q", body, w.Body)
		}
		return w.Code, out
	}

	for _, c := range []struct {
		body, key string
		reset     bool
	}{
		{`{"session": "s1"}`, "session:s1", true},
		{`{"session": "s1"}`, "session:s1", false}, // already reset
		{`{"principal": " alice "}`, "principal:alice", true},
		{`{"principal": "bob", "session": ""}`, "principal:bob", false},
		{`{"session": "` + strings.Repeat("x", 512) + `"}`, "session:" + strings.Repeat("x", 512), false},
	} {
		code, out := post(c.body)
		if code != http.StatusOK || out["key"] != c.key || out["reset"] != c.reset {
			t.Errorf("%.40s: %d %v, want 200 key %q reset %v", c.body, code, out, c.key, c.reset)
		}
	}
	if left, _ := m.Get(context.Background(), "principal:alice", 0); left != nil {
		t.Error("the principal's taint is still there")
	}

	keys = nil
	for _, c := range []struct{ body, want string }{
		{``, "it is empty"},
		{`{"session": "s1", "principal": "alice"}`, `not both`},
		{`{}`, `give "session"`},
		{`{"session": "  "}`, `give "session"`},
		{`null`, `give "session"`},
		{`{"session": "` + strings.Repeat("x", 513) + `"}`, `"session" is longer than 512 bytes`},
		{`{"principal": "` + strings.Repeat("x", 513) + `"}`, `"principal" is longer than 512 bytes`},
		{`{"sesion": "s1"}`, `unknown field "sesion"`},
		{`{"session": 1}`, `session`},
		{`{"session": "s1"} {"session": "s2"}`, "data after the JSON object"},
		{`{"session": "s1"`, "not a reset"},
		{`{"session": "` + strings.Repeat("x", 5000) + `"}`, "larger than 4096 bytes"},
	} {
		code, out := post(c.body)
		msg, _ := out["error"].(string)
		if code != http.StatusBadRequest || !strings.Contains(msg, c.want) {
			t.Errorf("%.40s: %d %q, want 400 with %q", c.body, code, msg, c.want)
		}
	}
	if keys != nil {
		t.Errorf("a bad request reset %v", keys)
	}

	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, AdminResetPath, nil))
	if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != http.MethodPost {
		t.Errorf("GET: %d %v", w.Code, w.Header())
	}

	failing := ResetHandler(func(context.Context, string) (bool, error) {
		return false, errors.New("state.redis: Redis at redis://r:6379 is unavailable")
	})
	w = httptest.NewRecorder()
	failing.ServeHTTP(w, httptest.NewRequest(http.MethodPost, AdminResetPath, strings.NewReader(`{"session": "s1"}`)))
	var out map[string]string
	_ = json.Unmarshal(w.Body.Bytes(), &out)
	if w.Code != http.StatusServiceUnavailable || !strings.Contains(out["error"], "session:s1") || !strings.Contains(out["error"], "Redis at redis://r:6379 is unavailable") {
		t.Errorf("a failing reset: %d %q", w.Code, w.Body)
	}
}
