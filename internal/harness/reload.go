package harness

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/internal/netutil"
)

// Reloads returns wasmgate_config_reloads_total by outcome. The initial
// load counts as one success.
func (g *Gateway) Reloads(t testing.TB) (success, failure float64) {
	t.Helper()
	m := g.Scrape(t)
	success, _ = m.Value("wasmgate_config_reloads_total", map[string]string{"outcome": "success"})
	failure, _ = m.Value("wasmgate_config_reloads_total", map[string]string{"outcome": "failure"})
	return success, failure
}

// ReloadCount is the number of reloads attempted, the initial load
// included.
func (g *Gateway) ReloadCount(t testing.TB) float64 {
	t.Helper()
	s, f := g.Reloads(t)
	return s + f
}

// WaitReload waits up to 60 s until the gateway has attempted more than
// before reloads in total (see ReloadCount), and returns the new
// (success, failure) counts. what names the change in the failure.
func (g *Gateway) WaitReload(t testing.TB, before float64, what string) (success, failure float64) {
	t.Helper()
	if !WaitFor(60*time.Second, func() bool {
		success, failure = g.Reloads(t)
		return success+failure > before
	}) {
		t.Fatalf("%s: no reload within 60s (reloads_total stays %v)", what, before)
	}
	return success, failure
}

// LastReloadOK is wasmgate_config_last_reload_successful.
func (g *Gateway) LastReloadOK(t testing.TB) float64 {
	t.Helper()
	v, ok := g.Metric(t, "wasmgate_config_last_reload_successful", nil)
	if !ok {
		t.Fatal("/metrics has no wasmgate_config_last_reload_successful")
	}
	return v
}

// PostReload POSTs /-/reload (with the Wasmgate-Admin header, as
// `curl -X POST -H 'Wasmgate-Admin: 1'` does) and returns the status and
// body.
func (g *Gateway) PostReload(t testing.TB) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, g.AdminURL+"/-/reload", nil)
	if err != nil {
		t.Fatalf("POST /-/reload: %v", err)
	}
	req.Header.Set(netutil.AdminHeader, "1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST /-/reload: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// MustReload POSTs /-/reload and fails t unless the reload succeeds
// (200), with what (naming the reload), the status and the body.
func (g *Gateway) MustReload(t testing.TB, what string) {
	t.Helper()
	if code, body := g.PostReload(t); code != http.StatusOK {
		t.Fatalf("%s: %d %s", what, code, body)
	}
}

// ReloadRefused POSTs /-/reload and fails t unless the reload is
// refused (500) with a body holding each of wants, naming the status,
// the first want missing and the body. It returns the body.
func (g *Gateway) ReloadRefused(t testing.TB, wants ...string) string {
	t.Helper()
	code, body := g.PostReload(t)
	if code != http.StatusInternalServerError && len(wants) == 0 {
		t.Fatalf("reload (%d) was not refused:\n%s", code, body)
	}
	for _, want := range wants {
		if code != http.StatusInternalServerError || !strings.Contains(body, want) {
			t.Fatalf("reload (%d) does not say %q:\n%s", code, want, body)
		}
	}
	return body
}

// Notes keeps when each notification a client receives arrived, by
// method: how many came, and when (for a test to say which one is
// missing).
type Notes struct {
	mu sync.Mutex
	at map[string][]time.Time
}

// CountNotes counts the notifications c receives from now on.
func CountNotes(c *client.Client) *Notes {
	n := &Notes{at: map[string][]time.Time{}}
	c.OnNotification(func(x mcp.JSONRPCNotification) {
		now := time.Now()
		n.mu.Lock()
		n.at[x.Method] = append(n.at[x.Method], now)
		n.mu.Unlock()
	})
	return n
}

// Count is how many notifications of method arrived.
func (n *Notes) Count(method string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.at[method])
}

// Times are when the notifications of method arrived, in order.
func (n *Notes) Times(method string) []time.Time {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.at[method])
}

// Lists are the counts of the tools, resources and prompts list_changed
// notifications, in that order.
func (n *Notes) Lists() Lists {
	n.mu.Lock()
	defer n.mu.Unlock()
	return Lists{
		len(n.at[mcp.MethodNotificationToolsListChanged]),
		len(n.at[mcp.MethodNotificationResourcesListChanged]),
		len(n.at[mcp.MethodNotificationPromptsListChanged]),
	}
}

// Lists are counts of tools, resources and prompts list_changed
// notifications.
type Lists [3]int

func (l Lists) String() string {
	return fmt.Sprintf("tools %d, resources %d, prompts %d", l[0], l[1], l[2])
}
