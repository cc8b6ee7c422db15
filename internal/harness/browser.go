package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
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
// run in tabs of their own (Browser.Eval), so a test can open pages on
// several origins.
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
	actx, acancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(ChromiumPath),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.UserDataDir(t.TempDir()),
	)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		bcancel()
		acancel() // waits for the browser process to exit
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

// Eval opens url in a new tab, waits for the page to load, evaluates the
// JavaScript expression script in it (a promise is awaited) and decodes
// its value, which must be JSON, into out. It returns what the page wrote
// to the console (the browser's own messages too, such as a CORS refusal,
// waited for until the console is quiet for 300 ms), for the test to
// check or log. The tab closes before Eval returns; the whole run is
// bounded by 60 s.
func (b *Browser) Eval(t testing.TB, url, script string, out any) (console []string) {
	t.Helper()
	tctx, cancelTab := chromedp.NewContext(b.ctx)
	defer cancelTab()
	ctx, cancel := context.WithTimeout(tctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil { // opens the tab
		t.Fatalf("open a tab: %v", err)
	}

	var mu sync.Mutex
	last := time.Now() // when the last console message came
	messages := chromedp.Console(ctx)
	reading, stopReading := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil || reading.Err() != nil {
				return
			}
			mu.Lock()
			console = append(console, fmt.Sprintf("%s: %s", m.Type, m.Text))
			last = time.Now()
			mu.Unlock()
		}
	}()
	finish := func() []string {
		// The browser reports some messages (a CORS refusal) a moment
		// after the script sees the failure: wait until 300 ms have
		// passed without one since the script ended (3 s at most).
		mu.Lock()
		last = time.Now()
		mu.Unlock()
		for end := time.Now().Add(3 * time.Second); time.Now().Before(end); {
			mu.Lock()
			quiet := time.Since(last)
			mu.Unlock()
			if quiet >= 300*time.Millisecond {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		stopReading()
		cancel() // ends the subscription, so the reader returns
		<-done
		mu.Lock()
		defer mu.Unlock()
		return console
	}

	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatalf("open %s: %v\nconsole: %q", url, err, finish())
	}
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](script, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluate the script on %s: %v\nconsole: %q", url, err, finish())
	}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("the script on %s returned %s: %v\nconsole: %q", url, raw, err, finish())
	}
	return finish()
}
