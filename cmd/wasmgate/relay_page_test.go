package main

// A page of the browser relay written in Go (coder/websocket), speaking
// the protocol of docs/relay-protocol.md (internal/relaytest), for the end-to-end tests that
// need exact control of the frames: attacks, reloads, disconnections.
// The browser tests drive bridge.js in Chromium instead.

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/wasmgate/wasmgate/internal/relaytest"
)

// relayURL is the WebSocket URL of site on the gateway whose MCP
// endpoint is mcpURL (http://host:port/mcp).
func relayURL(mcpURL, site string) string {
	u := strings.TrimSuffix(strings.TrimPrefix(mcpURL, "http://"), "/mcp")
	return "ws://" + u + "/relay/" + site
}

// goPage is an authenticated page: its frames arrive on channels.
type goPage struct {
	t          testing.TB
	c          *websocket.Conn
	registered chan map[string]any
	refused    chan map[string]any // error frames
	calls      chan map[string]any
	cancels    chan map[string]any
	done       chan struct{}
	closeCode  websocket.StatusCode
	closeWhy   string
}

// startGoPage connects an authenticated page to site.
func startGoPage(t testing.TB, url, site, token string) *goPage {
	t.Helper()
	var c *websocket.Conn
	// A page that just left may still hold the site for a moment on the
	// gateway's side (its close is handled asynchronously): a handshake
	// refused as busy (4008) is tried again until the site is free.
	deadline := time.Now().Add(10 * time.Second)
	for {
		var err error
		c, _, err = relaytest.Dial(t, url, "http://127.0.0.1:3000")
		if err != nil {
			t.Fatalf("dial %s: %v", url, err)
		}
		_, _, err = relaytest.Handshake(c, site, token)
		if err == nil {
			break
		}
		if websocket.CloseStatus(err) != 4008 || time.Now().After(deadline) {
			t.Fatalf("handshake with %s: %v", url, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	p := &goPage{t: t, c: c, registered: make(chan map[string]any, 16), refused: make(chan map[string]any, 4096), calls: make(chan map[string]any, 1024),
		cancels: make(chan map[string]any, 1024), done: make(chan struct{})}
	go p.read()
	t.Cleanup(func() {
		c.CloseNow()
		<-p.done
	})
	return p
}

func (p *goPage) read() {
	defer close(p.done)
	for {
		f, err := relaytest.Read(p.c)
		if err != nil {
			var ce websocket.CloseError
			if errors.As(err, &ce) {
				p.closeCode, p.closeWhy = ce.Code, ce.Reason
			} else {
				p.closeCode, p.closeWhy = -1, err.Error()
			}
			return
		}
		switch f["type"] {
		case "registered":
			p.registered <- f
		case "error":
			p.refused <- f
		case "call":
			p.calls <- f
		case "cancel":
			p.cancels <- f
		}
	}
}

// register registers frame's tools (and more) and waits for the ack.
func (p *goPage) register(frame map[string]any) map[string]any {
	p.t.Helper()
	frame["type"] = "register"
	if err := relaytest.Write(p.c, frame); err != nil {
		p.t.Fatal(err)
	}
	select {
	case ack := <-p.registered:
		return ack
	case <-time.After(15 * time.Second):
		p.t.Fatal("no registered frame")
		return nil
	}
}

// nextCall waits for a call frame.
func (p *goPage) nextCall() map[string]any {
	p.t.Helper()
	select {
	case f := <-p.calls:
		return f
	case <-time.After(15 * time.Second):
		p.t.Fatal("no call frame")
		return nil
	}
}

// answer answers call with a text result.
func (p *goPage) answer(call map[string]any, text string) {
	_ = relaytest.Write(p.c, map[string]any{"type": "result", "id": call["id"],
		"result": map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}})
}

// serve answers every call with fn until the page closes.
func (p *goPage) serve(fn func(call map[string]any) string) {
	go func() {
		for {
			select {
			case f := <-p.calls:
				p.answer(f, fn(f))
			case <-p.done:
				return
			}
		}
	}()
}

// closed waits until the gateway closed the page and returns how.
func (p *goPage) closed() (websocket.StatusCode, string) {
	p.t.Helper()
	select {
	case <-p.done:
		return p.closeCode, p.closeWhy
	case <-time.After(15 * time.Second):
		p.t.Fatal("the page is still connected")
		return 0, ""
	}
}
