package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// ChromiumPath is the browser the browser tests drive: Debian's chromium
// (apt-get install chromium; .ci/run installs it).
const ChromiumPath = "/usr/bin/chromium"

// Browser is a headless Chromium driven over the DevTools protocol
// (chromedp), with a fresh profile, closed at the end of the test. Pages
// run in tabs of their own (Browser.Open, Browser.Eval), so a test can
// open pages on several origins.
type Browser struct {
	ctx context.Context // the browser's; every tab derives from it
}

// StartBrowser starts Chromium headless. A missing browser fails the test
// (it is part of what `make test` needs, like node).
func StartBrowser(t testing.TB) *Browser {
	t.Helper()
	if _, err := os.Stat(ChromiumPath); err != nil {
		t.Fatalf("chromium is not installed (apt-get install chromium; .ci/run does): %v", err)
	}
	profile, err := os.MkdirTemp("", "wasmgate-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(ChromiumPath),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.UserDataDir(profile),
	)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		bcancel()
		acancel() // waits for the browser process to exit
		// Chromium's children may still write in the profile briefly.
		for range 50 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	// The first Run starts the browser; it must not carry a timeout (that
	// would end the browser with it), so a watchdog bounds it instead.
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(bctx) }()
	select {
	case err := <-started:
		if err != nil {
			t.Fatalf("start %s: %v", ChromiumPath, err)
		}
	case <-time.After(60 * time.Second):
		bcancel()
		<-started
		t.Fatalf("%s did not start within 60s", ChromiumPath)
	}
	return &Browser{ctx: bctx}
}

// Tab is one page in the browser, with what its console said (the
// page's console calls and exceptions, and the browser's own messages
// such as a CORS refusal).
type Tab struct {
	t      testing.TB
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{} // closed when the console reader returns

	mu      sync.Mutex
	console []string
	last    time.Time // when the last console message came
}

// Open opens url in a new tab and waits for it to load. The tab closes
// at the end of the test, or before with Close; a failed test logs its
// console.
func (b *Browser) Open(t testing.TB, url string) *Tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(b.ctx)
	tb := &Tab{t: t, ctx: ctx, cancel: cancel, done: make(chan struct{}), last: time.Now()}
	t.Cleanup(func() {
		tb.Close()
		if t.Failed() {
			t.Logf("console of %s:\n%s", url, strings.Join(tb.Console(), "\n"))
		}
	})
	// Subscribing opens the tab: the first call on its context, which must
	// not carry a timeout (that would close the tab with it).
	messages := chromedp.Console(ctx)
	go func() {
		defer close(tb.done)
		for m, err := range messages {
			if err != nil || ctx.Err() != nil {
				return
			}
			tb.mu.Lock()
			tb.console = append(tb.console, fmt.Sprintf("%s: %s", m.Type, m.Text))
			tb.last = time.Now()
			tb.mu.Unlock()
		}
	}()
	if err := tb.Do(chromedp.Navigate(url)); err != nil {
		t.Fatalf("open %s: %v\nconsole: %q", url, err, tb.Settle())
	}
	return tb
}

// Ctx is the tab's context, for chromedp actions a test runs itself.
func (tb *Tab) Ctx() context.Context { return tb.ctx }

// Do runs a chromedp action in the tab, for at most 30 s.
func (tb *Tab) Do(a chromedp.Action[chromedp.Void]) error {
	ctx, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
	defer cancel()
	_, err := chromedp.Run(ctx, a)
	return err
}

// Console is what the page logged and threw so far, one line a message.
func (tb *Tab) Console() []string {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return append([]string(nil), tb.console...)
}

// Settle waits until the console has been quiet for 300 ms (3 s at
// most) and returns it: the browser reports some messages (a CORS
// refusal) a moment after the script sees the failure.
func (tb *Tab) Settle() []string {
	tb.mu.Lock()
	tb.last = time.Now()
	tb.mu.Unlock()
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); {
		tb.mu.Lock()
		quiet := time.Since(tb.last)
		tb.mu.Unlock()
		if quiet >= 300*time.Millisecond {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	return tb.Console()
}

// Close closes the tab, as a user closing it would, and waits for the
// console reader to end.
func (tb *Tab) Close() {
	tb.cancel()
	<-tb.done
}

// Evaluate evaluates a JavaScript expression in the tab (for at most
// 30 s) and returns its value.
func Evaluate[T any](tb *Tab, expr string) T {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		tb.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// WaitJS polls a JavaScript expression until it is true, for at most d.
func (tb *Tab) WaitJS(expr string, d time.Duration) {
	tb.t.Helper()
	deadline := time.Now().Add(d)
	for {
		if Evaluate[bool](tb, `Boolean(`+expr+`)`) {
			return
		}
		if time.Now().After(deadline) {
			tb.t.Fatalf("%s is still false after %v", expr, d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Eval opens url in a new tab, waits for the page to load, evaluates the
// JavaScript expression script in it (a promise is awaited) and decodes
// its value, which must be JSON, into out. It returns what the console
// said (Tab.Settle), for the test to check or log. The tab closes before
// Eval returns; the script is bounded by 60 s.
func (b *Browser) Eval(t testing.TB, url, script string, out any) (console []string) {
	t.Helper()
	tb := b.Open(t, url)
	defer tb.Close()
	ctx, cancel := context.WithTimeout(tb.ctx, 60*time.Second)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](script, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluate the script on %s: %v\nconsole: %q", url, err, tb.Settle())
	}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("the script on %s returned %s: %v\nconsole: %q", url, raw, err, tb.Settle())
	}
	return tb.Settle()
}

// Text is the rendered text of the element matching the CSS selector
// sel (waiting up to 30 s for it to exist); failing to read it fails the
// test.
func (tb *Tab) Text(sel string) string {
	tb.t.Helper()
	s, err := tb.text(sel, 30*time.Second)
	if err != nil {
		tb.t.Fatalf("read %s on the page: %v", sel, err)
	}
	return s
}

// TryText is Text for a page that replaces its content as it refreshes:
// false when sel cannot be read within 5 s.
func (tb *Tab) TryText(sel string) (string, bool) {
	s, err := tb.text(sel, 5*time.Second)
	return s, err == nil
}

// text reads sel's text within d. A node found and then replaced before
// its text was read (a page that re-renders as it refreshes: "No node
// with given id found") is looked up again.
func (tb *Tab) text(sel string, d time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(tb.ctx, d)
	defer cancel()
	for {
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err == nil || ctx.Err() != nil || !strings.Contains(err.Error(), "No node with given id") {
			return s, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Title is the page's title.
func (tb *Tab) Title() string {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
	defer cancel()
	title, err := chromedp.Run(ctx, chromedp.Title())
	if err != nil {
		tb.t.Fatalf("read the page's title: %v", err)
	}
	return title
}

// WaitVisible waits up to d for an element matching the CSS selector sel
// to be visible; when none is, the test fails, naming what it waited for
// (what).
func (tb *Tab) WaitVisible(sel string, d time.Duration, what string) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, d)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(sel))); err != nil {
		tb.t.Fatalf("%s: %s is not visible after %v: %v", what, sel, d, err)
	}
}

// Screenshot saves a PNG of the whole page as name in the test's
// artifact directory (go test -artifacts keeps it) and logs where. A
// screenshot that fails is an error of the test, not the end of it.
func (tb *Tab) Screenshot(name string) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(90))
	if err != nil {
		tb.t.Errorf("screenshot %s: %v", name, err)
		return
	}
	p := filepath.Join(tb.t.ArtifactDir(), name)
	if err := os.WriteFile(p, png, 0o644); err != nil {
		tb.t.Errorf("screenshot %s: %v", name, err)
		return
	}
	tb.t.Logf("screenshot: %s", p)
}
