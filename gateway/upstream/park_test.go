package upstream

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// idSession is a downstream client session with an id.
type idSession struct {
	capsSession
	id string
}

func (s *idSession) SessionID() string { return s.id }

// supervisors counts the goroutines running a supervisor.
func supervisors(t *testing.T) int {
	t.Helper()
	var b bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&b, 2); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, g := range strings.Split(b.String(), "\n\n") {
		if strings.Contains(g, "upstream.(*supervisor)") || strings.Contains(g, "upstream.(*conn).supervise") {
			n++
		}
	}
	return n
}

// TestParkedSupervisors: per_client sessions that are up hold no
// goroutine (issue 46: an idle session costs no stack of its own); only
// the shared session's supervisor runs (its pings). A per_client session
// that ends is started again by its parked supervisor, one closed is not,
// and stopping the upstream returns with every supervisor gone.
func TestParkedSupervisors(t *testing.T) {
	up := mcpserver.NewMCPServer("up", "1")
	up.AddTool(mcp.NewTool("echo"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})
	srv := httptest.NewServer(mcpserver.NewStreamableHTTPServer(up))
	defer srv.Close()
	c, rec := supervised(t, fmt.Sprintf("  - name: up\n    url: %s/mcp\n    session: per_client\n", srv.URL))
	s := c.sources[0].srv
	down := mcpserver.NewMCPServer("down", "1")
	const sessions = 20
	conns := make([]*conn, sessions)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := range conns {
		dctx := down.WithContext(ctx, &idSession{id: fmt.Sprintf("s%d", i)})
		cn, err := s.connFor(dctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := cn.wait(ctx); err != nil {
			t.Fatalf("per_client session %d: %v\n%s", i, err, rec)
		}
		conns[i] = cn
	}
	if !harness.WaitFor(10*time.Second, func() bool { return supervisors(t) == 1 }) {
		t.Fatalf("%d goroutines in a supervisor with %d per_client sessions up, want 1 (the shared session's)", supervisors(t), sessions)
	}

	// One ends: its supervisor wakes, and starts it again after 100 ms.
	first, _, _ := conns[0].wait(ctx)
	conns[0].down(errors.New("broken for the test"))
	if !harness.WaitFor(10*time.Second, func() bool { cli := conns[0].current(); return cli != nil && cli != first }) {
		t.Fatalf("the per_client session that ended was not started again:\n%s", rec)
	}
	if n := len(rec.find("upstream session ended; restarting")); n != 1 {
		t.Errorf("%d warnings of an ended session, want 1:\n%s", n, rec)
	}
	if !harness.WaitFor(10*time.Second, func() bool { return supervisors(t) == 1 }) {
		t.Errorf("%d goroutines in a supervisor after the restart, want 1", supervisors(t))
	}

	// One closed (its downstream session ended): not started again.
	s.endSession("s1")
	if !harness.WaitFor(10*time.Second, func() bool { return conns[1].isClosed() && conns[1].current() == nil }) {
		t.Fatal("the closed per_client session is still up")
	}
	time.Sleep(300 * time.Millisecond) // past a restart's backoff
	if conns[1].current() != nil {
		t.Error("a closed per_client session was started again")
	}

	done := make(chan struct{})
	go func() { c.Cleanup(context.Background()); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("stopping the upstream did not return: a supervisor's count was lost")
	}
	if n := supervisors(t); n != 0 {
		t.Errorf("%d goroutines in a supervisor after the upstream stopped", n)
	}
}
