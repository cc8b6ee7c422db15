package flow

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzResetHandler: whatever body POST /api/flows/reset gets, it answers
// 200 with the key of exactly one non-empty name it was given, or 400
// with a JSON error; it resets only on 200, and never panics.
func FuzzResetHandler(f *testing.F) {
	for _, s := range []string{`{"session":"abc"}`, `{"principal":"alice"}`, `{"session":"a","principal":"b"}`, `{}`, `{"session":""}`,
		`{"session":"a"}{"x":1}`, `{"Session":"a"}`, `{"session":"a","extra":1}`, `null`, `[]`, strings.Repeat(" ", 5000)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		resets := 0
		h := ResetHandler(func(_ context.Context, key string) (bool, error) {
			resets++
			if key == "" {
				t.Fatal("reset of an empty key")
			}
			return true, nil
		})
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, AdminResetPath, strings.NewReader(body)))
		switch w.Code {
		case http.StatusOK:
			var res ResetResult
			if err := json.Unmarshal(w.Body.Bytes(), &res); err != nil || res.Key == "" || resets != 1 {
				t.Fatalf("200 with %q (%v), %d resets", w.Body, err, resets)
			}
			if !strings.HasPrefix(res.Key, "session:") && !strings.HasPrefix(res.Key, "principal:") {
				t.Fatalf("key %q", res.Key)
			}
		case http.StatusBadRequest:
			var e struct{ Error string }
			if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Error == "" || resets != 0 {
				t.Fatalf("400 with %q (%v), %d resets", w.Body, err, resets)
			}
		default:
			t.Fatalf("status %d: %s", w.Code, w.Body)
		}
	})
}
