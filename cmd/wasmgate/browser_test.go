package main

// Headless Chromium for the browser relay tests: Debian's chromium driven
// with chromedp, pages served by a static file server on loopback.

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// chromiumPath is Debian's chromium (apt-get install chromium; .ci/run
// installs it).
const chromiumPath = "/usr/bin/chromium"

// staticServer serves examples/browser at / and the test pages of
// testdata/browser at /test/, on loopback, as any static server would.
func staticServer(t testing.TB) *httptest.Server {
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir(filepath.Join(harness.RepoRoot(), "examples", "browser"))))
	mux.Handle("/test/", http.StripPrefix("/test/", http.FileServer(http.Dir(filepath.Join(harness.RepoRoot(), "cmd", "wasmgate", "testdata", "browser")))))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// browser is one headless Chromium for a test.
type browser struct {
	t   testing.TB
	ctx context.Context // the first tab; it owns the browser
}

// startBrowser starts headless Chromium with a fresh profile; it stops at
// the end of the test.
func startBrowser(t testing.TB) *browser {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("the browser tests need Chromium at %s (apt-get install -y chromium; .ci/run installs it): %v", chromiumPath, err)
	}
	profile, err := os.MkdirTemp("", "wasmgate-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromiumPath),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.UserDataDir(profile),
	)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
		// Chromium's children may still write in the profile briefly.
		for range 50 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	// The first Run starts the browser, which lives as long as the context
	// of that call: no timeout on it, a watchdog instead.
	watchdog := time.AfterFunc(60*time.Second, cancel)
	defer watchdog.Stop()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[int](`1`)); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return &browser{t: t, ctx: ctx}
}

// tab is one page in the browser, with what its console said.
type tab struct {
	t      testing.TB
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	console []string
}

// open opens url in a new tab. A failed test logs the tab's console.
func (b *browser) open(url string) *tab {
	b.t.Helper()
	ctx, cancel := chromedp.NewContext(b.ctx)
	tb := &tab{t: b.t, ctx: ctx, cancel: cancel}
	b.t.Cleanup(func() {
		if b.t.Failed() {
			b.t.Logf("console of %s:\n%s", url, tb.Console())
		}
		cancel()
	})
	if err := chromedp.Listen(ctx, func(ev any) {
		var line string
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			var parts []string
			for _, a := range e.Args {
				if a.Value != nil {
					parts = append(parts, string(a.Value))
				} else {
					parts = append(parts, a.Description)
				}
			}
			line = fmt.Sprintf("console.%s %s", e.Type, strings.Join(parts, " "))
		case *runtime.EventExceptionThrown:
			line = "exception " + (&chromedp.ExceptionError{ExceptionDetails: e.ExceptionDetails}).Error()
		default:
			return
		}
		tb.mu.Lock()
		tb.console = append(tb.console, line)
		tb.mu.Unlock()
	}); err != nil {
		b.t.Fatalf("listen to the tab: %v", err)
	}
	if err := tb.do(chromedp.Navigate(url)); err != nil {
		b.t.Fatalf("open %s: %v", url, err)
	}
	return tb
}

// Console is what the page logged and threw.
func (tb *tab) Console() string {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return strings.Join(tb.console, "\n")
}

func (tb *tab) do(a chromedp.Action[chromedp.Void]) error {
	ctx, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
	defer cancel()
	_, err := chromedp.Run(ctx, a)
	return err
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](tb *tab, expr string) T {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		tb.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// waitJS polls a JavaScript expression until it is true, for at most d.
func (tb *tab) waitJS(expr string, d time.Duration) {
	tb.t.Helper()
	deadline := time.Now().Add(d)
	for {
		if eval[bool](tb, `Boolean(`+expr+`)`) {
			return
		}
		if time.Now().After(deadline) {
			tb.t.Fatalf("%s is still false after %v", expr, d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// close closes the tab, as a user closing it would.
func (tb *tab) close() { tb.cancel() }
