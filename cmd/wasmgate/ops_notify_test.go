package main

// systemd's notify protocol, against a NOTIFY_SOCKET the test reads:
// READY=1 once serving, RELOADING=1 (with MONOTONIC_USEC) then READY=1
// around every reload whatever triggered it, STATUS= lines, WATCHDOG=1 at
// half of WATCHDOG_USEC, STOPPING=1 on SIGTERM.

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// notifySocket listens on a unixgram socket like systemd's and delivers
// each datagram. Unix socket paths are short, so it lives under /tmp.
func notifySocket(t *testing.T) (string, <-chan string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "wgn")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "notify")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	msgs := make(chan string, 1024)
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 64<<10)
		for {
			n, err := conn.Read(buf)
			if err != nil {
				return
			}
			msgs <- string(buf[:n])
		}
	}()
	t.Cleanup(func() { conn.Close(); <-done })
	return path, msgs
}

// notifications reads what the gateway sends and lets a test wait for a
// message with a given field, skipping watchdog pings unless asked for.
type notifications struct {
	t     *testing.T
	msgs  <-chan string
	pings []time.Time
}

// next returns the next message that is not a watchdog ping.
func (n *notifications) next(what string) map[string]string {
	n.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case m := <-n.msgs:
			f := fields(m)
			if _, ok := f["WATCHDOG"]; ok && len(f) == 1 {
				n.pings = append(n.pings, time.Now())
				continue
			}
			return f
		case <-deadline:
			n.t.Fatalf("no notification within 30s; waiting for %s", what)
		}
	}
}

func fields(m string) map[string]string {
	f := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(m), "\n") {
		k, v, _ := strings.Cut(line, "=")
		f[k] = v
	}
	return f
}

// reloadSequence checks that the next notifications are RELOADING=1 with
// a plausible MONOTONIC_USEC, then READY=1 whose STATUS= contains status.
func (n *notifications) reloadSequence(trigger, status string) {
	n.t.Helper()
	r := n.next("RELOADING=1 (" + trigger + ")")
	if r["RELOADING"] != "1" {
		n.t.Fatalf("%s: first notification %v, want RELOADING=1", trigger, r)
	}
	usec, err := strconv.ParseInt(r["MONOTONIC_USEC"], 10, 64)
	if err != nil || usec <= 0 {
		n.t.Errorf("%s: RELOADING=1 without a valid MONOTONIC_USEC: %v", trigger, r)
	}
	// CLOCK_MONOTONIC now is after the gateway's stamp.
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts) == nil {
		if now := ts.Nano() / 1000; usec > now {
			n.t.Errorf("%s: MONOTONIC_USEC %d is in the future (now %d)", trigger, usec, now)
		}
	}
	if !strings.Contains(r["STATUS"], trigger) {
		n.t.Errorf("%s: STATUS while reloading = %q, want the trigger named", trigger, r["STATUS"])
	}
	ready := n.next("READY=1 after " + trigger)
	if ready["READY"] != "1" {
		n.t.Fatalf("%s: after RELOADING=1 came %v, want READY=1", trigger, ready)
	}
	if !strings.Contains(ready["STATUS"], status) {
		n.t.Errorf("%s: STATUS = %q, want it to contain %q", trigger, ready["STATUS"], status)
	}
}

func TestSystemdNotify(t *testing.T) {
	// Not parallel: it times the watchdog pings as the test receives them.
	sock, msgs := notifySocket(t)
	e := bins.NewDir(t)
	calc := e.Module("calculator", "examples/plugins/calculator")
	item := harness.Item("name: calculator", "path: "+harness.Q(calc))
	harness.WriteFile(t, e.Config, []byte(e.YAML("", item)))
	const watchdogUsec = 600_000 // pings every 300 ms
	g := bins.Start(t, harness.Options{Config: e.Config, Env: []string{
		"NOTIFY_SOCKET=" + sock, "WATCHDOG_USEC=" + strconv.Itoa(watchdogUsec),
	}})
	n := &notifications{t: t, msgs: msgs}

	ready := n.next("READY=1")
	if ready["READY"] != "1" {
		t.Fatalf("first notification %v, want READY=1", ready)
	}
	if !strings.Contains(ready["STATUS"], "serving 1 plugin, 1 tool") {
		t.Errorf("STATUS at start = %q", ready["STATUS"])
	}

	// SIGHUP.
	if err := g.Cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	n.reloadSequence("SIGHUP", "last reload ok")

	// A save (the watcher).
	harness.RenameOver(t, e.Config, []byte(e.YAML("", harness.Item("name: calculator", "path: "+harness.Q(calc), "prefix: s1"))))
	n.reloadSequence("file save", "last reload ok")

	// POST /-/reload.
	g.MustReload(t, "POST /-/reload")
	n.reloadSequence("POST /-/reload", "last reload ok")

	// A broken save still ends in READY=1, and STATUS says it failed.
	harness.RenameOver(t, e.Config, []byte("plugins: [\n"))
	n.reloadSequence("file save", "last reload FAILED")

	// Watchdog pings, at about half of WATCHDOG_USEC.
	deadline := time.After(30 * time.Second)
	for len(n.pings) < 6 {
		select {
		case m := <-msgs:
			if f := fields(m); f["WATCHDOG"] == "1" {
				n.pings = append(n.pings, time.Now())
			} else {
				t.Fatalf("unexpected notification %v while waiting for pings", f)
			}
		case <-deadline:
			t.Fatalf("%d WATCHDOG=1 pings in 30s", len(n.pings))
		}
	}
	half := time.Duration(watchdogUsec) * time.Microsecond / 2
	// The times are when this test read each ping: one read late on a
	// busy machine makes the next gap look short, so the pings are not
	// early on average over the last four gaps; each one late is fine as
	// long as it is well within WATCHDOG_USEC.
	last := n.pings[len(n.pings)-5:]
	if mean := last[4].Sub(last[0]) / 4; mean < half*8/10 {
		t.Errorf("the last four watchdog pings came %v apart on average, want about %v", mean, half)
	}
	for i := 1; i < len(last); i++ {
		if gap := last[i].Sub(last[i-1]); gap > 5*half {
			t.Errorf("watchdog ping %d came %v after the previous one, want about %v", len(n.pings)-5+i, gap, half)
		}
	}

	// SIGTERM: STOPPING=1.
	if err := g.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if f := n.next("STOPPING=1"); f["STOPPING"] != "1" {
		t.Errorf("after SIGTERM came %v, want STOPPING=1", f)
	}
	if err, ok := g.Wait(30 * time.Second); !ok || err != nil {
		t.Errorf("exit after SIGTERM: %v (exited: %v)", err, ok)
	}
}

// TestWatchdogOffWithoutWatchdogUsec: no WATCHDOG_USEC, no pings, and no
// NOTIFY_SOCKET means nothing is sent and nothing breaks.
func TestWatchdogOffWithoutWatchdogUsec(t *testing.T) {
	t.Parallel()
	sock, msgs := notifySocket(t)
	g := bins.Start(t, harness.Options{Config: harness.WriteConfig(t, bins.ExamplesYAML(t, "")), Env: []string{"NOTIFY_SOCKET=" + sock}})
	n := &notifications{t: t, msgs: msgs}
	if f := n.next("READY=1"); f["READY"] != "1" {
		t.Fatalf("first notification %v, want READY=1", f)
	}
	select {
	case m := <-msgs:
		t.Errorf("unexpected notification without a reload: %q", m)
	case <-time.After(1500 * time.Millisecond):
	}
	if strings.Contains(g.Stderr(), "watchdog on") {
		t.Errorf("watchdog on without WATCHDOG_USEC")
	}
}
