package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// Issue 48 (item 7): `wasmgate lock` shows what it approves (the diff
// and the digest of the lock it would write) and asks on the terminal
// before it writes, unless --yes; with nobody to ask it writes nothing.
// Writing reloads the gateway once, not once more for the watcher.

// openPTY opens a pseudo-terminal: the test types into ptm what the
// command reads from pts (its stdin).
func openPTY(t *testing.T) (ptm, pts *os.File) {
	t.Helper()
	ptm, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() { ptm.Close() })
	fd := int(ptm.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil { // unlockpt
		t.Fatalf("unlock the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN) // ptsname
	if err != nil {
		t.Fatalf("name the pseudo-terminal: %v", err)
	}
	pts, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open /dev/pts/%d: %v", n, err)
	}
	t.Cleanup(func() { pts.Close() })
	return ptm, pts
}

// lockTyping runs `wasmgate lock` against g with its stdin a terminal on
// which answer is typed.
func lockTyping(t *testing.T, g *harness.Gateway, cfg, answer string) harness.Result {
	t.Helper()
	ptm, pts := openPTY(t)
	if _, err := ptm.WriteString(answer); err != nil {
		t.Fatal(err)
	}
	return bins.Run(t, harness.RunOptions{Timeout: 2 * time.Minute, Setup: func(c *exec.Cmd) { c.Stdin = pts }},
		"lock", "--config", cfg, "--admin", g.AdminURL)
}

// noLockFile fails the test if path exists.
func noLockFile(t *testing.T, path, when string) {
	t.Helper()
	if _, err := os.Stat(path); err == nil {
		t.Errorf("%s: %s was written", when, path)
	}
}

var shownDigest = regexp.MustCompile(`gateway\.lock: (\d+) changes? to approve \(sha256 ([0-9a-f]{64})\)`)

// TestLockAsksBeforeWriting: `wasmgate lock` prints every change and
// the digest of what it would write, then: with stdin not a terminal
// and no --yes it refuses (exit 1, saying to pass --yes) and writes
// nothing; on a terminal, "n" writes nothing and "y" writes exactly the
// lock whose digest it showed; --yes writes without asking; with
// nothing to approve it neither asks nor writes.
func TestLockAsksBeforeWriting(t *testing.T) {
	t.Parallel()
	yaml := calculatorYAML(t, harness.NoWatch)
	cfg := harness.WriteConfig(t, yaml())
	lockPath := filepath.Join(filepath.Dir(cfg), "gateway.lock")
	g := bins.Start(t, harness.Options{Config: cfg})
	const newCalc = `plugin "calculator": tool "calculate": new, not in the lock`
	reloads := g.ReloadCount(t)

	// Stdin not a terminal (the harness gives /dev/null), no --yes.
	r := lockRun(t, g, cfg)
	if r.Code != 1 || !strings.Contains(r.Stdout, newCalc) || !shownDigest.MatchString(r.Stdout) {
		t.Errorf("lock with stdin not a terminal: exit %d, want 1 after the changes and the digest\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if !strings.Contains(r.Stderr, "stdin is not a terminal") || !strings.Contains(r.Stderr, "pass --yes") || strings.Contains(r.Stdout, "[y/N]") {
		t.Errorf("lock with stdin not a terminal: want a refusal naming --yes on stderr and no question\nstdout: %s\nstderr: %s", r.Stdout, r.Stderr)
	}
	noLockFile(t, lockPath, "after lock refused for want of a terminal")

	// A terminal, answered "n".
	r = lockTyping(t, g, cfg, "n\n")
	if r.Code != 1 || !strings.Contains(r.Stdout, newCalc) || !strings.Contains(r.Stdout, "write gateway.lock? [y/N]") || !strings.Contains(r.Stdout, "not written") {
		t.Errorf("lock answered n: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	noLockFile(t, lockPath, `after lock answered "n"`)
	if n := g.ReloadCount(t); n != reloads {
		t.Errorf("reloads went from %v to %v with nothing written", reloads, n)
	}

	// A terminal, answered "y": it writes the lock whose digest it showed.
	r = lockTyping(t, g, cfg, "y\n")
	if r.Code != 0 || !strings.Contains(r.Stdout, "write gateway.lock? [y/N]") || !strings.Contains(r.Stdout, "written, 2 changes approved") {
		t.Fatalf("lock answered y: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	m := shownDigest.FindStringSubmatch(r.Stdout)
	data, err := os.ReadFile(lockPath)
	if err != nil {
		t.Fatalf(`after lock answered "y": %v`, err)
	}
	if sum := sha256.Sum256(data); m == nil || m[1] != "2" || m[2] != hex.EncodeToString(sum[:]) {
		t.Errorf("lock showed %q; the lock file written has sha256 %x", m, sum)
	}
	g.WaitReload(t, reloads, "wasmgate lock answered y")

	// Nothing to approve: no question, nothing written, no reload.
	reloads = g.ReloadCount(t)
	r = lockRun(t, g, cfg)
	if r.Code != 0 || !strings.Contains(r.Stdout, "up to date, nothing to approve") || strings.Contains(r.Stdout, "[y/N]") {
		t.Errorf("lock with nothing to approve: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}

	// --yes, stdin not a terminal: written without a question.
	harness.RenameOver(t, cfg, []byte(yaml("instances: single")))
	r = lockRun(t, g, cfg, "--yes")
	if r.Code != 0 || !strings.Contains(r.Stdout, "grants.instances") || !strings.Contains(r.Stdout, "written, 1 change approved") || strings.Contains(r.Stdout, "[y/N]") {
		t.Errorf("lock --yes: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if now, _ := os.ReadFile(lockPath); string(now) == string(data) {
		t.Error("lock --yes left the lock file as it was")
	}
	g.WaitReload(t, reloads, "wasmgate lock --yes")
}

// TestLockReloadsOnce: with the file watcher on (the default), `wasmgate
// lock --yes` against the running gateway reloads it once: the reload
// it asks for (trigger "wasmgate lock"), and not a second one when the
// watcher sees gateway.lock change. The watcher still reloads on a save
// afterwards.
func TestLockReloadsOnce(t *testing.T) {
	t.Parallel()
	yaml := calculatorYAML(t, "")
	cfg := harness.WriteConfig(t, yaml())
	g := bins.Start(t, harness.Options{Config: cfg})
	reloaded := func(log string) int { return strings.Count(log, "configuration reloaded") }

	for i, extra := range [][]string{nil, {"instances: single"}} {
		if extra != nil {
			// A change to approve: saved with the watcher on, the save
			// reloads (refused: the lock does not hold it); lock after it.
			before := g.ReloadCount(t)
			harness.RenameOver(t, cfg, []byte(yaml(extra...)))
			g.WaitReload(t, before, "gateway.yaml saved")
		}
		before, offset := g.ReloadCount(t), len(g.Stderr())
		if r := lockRun(t, g, cfg, "--yes"); r.Code != 0 || !strings.Contains(r.Stdout, "written") {
			t.Fatalf("lock %d: exit %d\n%s%s", i+1, r.Code, r.Stdout, r.Stderr)
		}
		g.WaitReload(t, before, "wasmgate lock")
		time.Sleep(time.Second) // 20 debounces of the watcher: a second reload would have come
		if n := g.ReloadCount(t); n != before+1 {
			t.Errorf("lock %d: wasmgate_config_reloads_total went from %v to %v, want one reload\n%s", i+1, before, n, g.StderrSince(offset))
		}
		log := g.StderrSince(offset)
		if reloaded(log) != 1 || !strings.Contains(log, `trigger="wasmgate lock"`) {
			t.Errorf("lock %d: the log has %d \"configuration reloaded\", want 1 (trigger \"wasmgate lock\"):\n%s", i+1, reloaded(log), log)
		}
		if g.LastReloadOK(t) != 1 {
			t.Errorf("lock %d: the reload failed:\n%s", i+1, log)
		}
	}

	// The watcher still reloads on a save.
	before := g.ReloadCount(t)
	harness.RenameOver(t, cfg, []byte(yaml("instances: single")+"# saved again\n"))
	g.WaitReload(t, before, "gateway.yaml saved after the locks")
	if g.LastReloadOK(t) != 1 {
		t.Errorf("the save after the locks did not reload:\n%s", g.Stderr())
	}
}
