package ops

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wasmgate/wasmgate/flow"
	"github.com/wasmgate/wasmgate/internal/netutil"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/metrics"
)

// POST /api/flows/reset is mounted only with a handler, and guarded as
// the other state-changing endpoints: the admin token when there is one,
// the admin header when there is none, and no cross-site request.
func TestAdminFlowsReset(t *testing.T) {
	var reset []string
	flows := flow.ResetHandler(func(_ context.Context, key string) (bool, error) {
		reset = append(reset, key)
		return true, nil
	})
	handler := func(token string, h http.Handler) http.Handler {
		return AdminHandler(AdminOptions{
			Metrics: metrics.New("test", "test"),
			Logger:  slog.New(slog.DiscardHandler),
			Current: func() (loader.Admin, string, bool) { return loader.Admin{Listen: "127.0.0.1:9090"}, token, true },
			Flows:   h,
		})
	}
	send := func(h http.Handler, header map[string]string) int {
		t.Helper()
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:9090/api/flows/reset", strings.NewReader(`{"session": "s1"}`))
		r.Header.Set("Content-Type", "application/json")
		for k, v := range header {
			r.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	deliberate := map[string]string{netutil.AdminHeader: "1"}

	if code := send(handler("", nil), deliberate); code != http.StatusNotFound {
		t.Errorf("without a handler: %d", code)
	}
	open := handler("", flows)
	if code := send(open, nil); code != http.StatusForbidden {
		t.Errorf("without the admin header: %d", code)
	}
	if code := send(open, map[string]string{netutil.AdminHeader: "1", "Origin": "http://evil.com"}); code != http.StatusForbidden {
		t.Errorf("cross-site: %d", code)
	}
	if len(reset) != 0 {
		t.Fatalf("a refused request reset %v", reset)
	}
	if code := send(open, deliberate); code != http.StatusOK || len(reset) != 1 || reset[0] != "session:s1" {
		t.Errorf("with the admin header: %d %v", code, reset)
	}
	guarded := handler("s3cret", flows)
	if code := send(guarded, deliberate); code != http.StatusUnauthorized {
		t.Errorf("without the token: %d", code)
	}
	if code := send(guarded, map[string]string{"Authorization": "Bearer s3cret"}); code != http.StatusOK || len(reset) != 2 {
		t.Errorf("with the token: %d %v", code, reset)
	}
}
