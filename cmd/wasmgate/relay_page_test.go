package main

// A page of the browser relay written in Go (coder/websocket), speaking
// the protocol of docs/relay-protocol.md, for the end-to-end tests that
// need exact control of the frames: attacks, reloads, disconnections.
// The browser tests drive bridge.js in Chromium instead.

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// relayURL is the WebSocket URL of site on the gateway whose MCP
// endpoint is mcpURL (http://host:port/mcp).
func relayURL(mcpURL, site string) string {
	u := strings.TrimSuffix(strings.TrimPrefix(mcpURL, "http://"), "/mcp")
	return "ws://" + u + "/relay/" + site
}

// wsDial opens a WebSocket to url with origin ("" sends none).
func wsDial(t testing.TB, url, origin string) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	c, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: h})
	if err == nil {
		t.Cleanup(func() { c.CloseNow() })
	}
	return c, resp, err
}

func wsRead(c *websocket.Conn) (map[string]any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	_, data, err := c.Read(ctx)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(data, &m)
}

func wsWrite(c *websocket.Conn, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.Write(ctx, websocket.MessageText, data)
}

// wsClosed reads until the connection ends and returns its close code
// and reason (-1 if it ended without a close frame).
func wsClosed(c *websocket.Conn) (websocket.StatusCode, string) {
	for {
		_, err := wsRead(c)
		if err == nil {
			continue
		}
		var ce websocket.CloseError
		if errors.As(err, &ce) {
			return ce.Code, ce.Reason
		}
		return -1, err.Error()
	}
}

func relayProof(token, who, site, gatewayNonce, pageNonce string) string {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte("wasmgate-relay/1 " + who + "\n" + site + "\n" + gatewayNonce + "\n" + pageNonce))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func relayNonce() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// relayAuth runs the page's side of the handshake; it returns the auth
// frame it sent (to replay it) and an error if the gateway did not
// welcome the page or its proof is wrong.
func relayAuth(c *websocket.Conn, site, token string) (map[string]any, error) {
	hello, err := wsRead(c)
	if err != nil {
		return nil, fmt.Errorf("read hello: %w", err)
	}
	if hello["type"] != "hello" || hello["site"] != site {
		return nil, fmt.Errorf("first frame %v", hello)
	}
	nonce := relayNonce()
	auth := map[string]any{"type": "auth", "nonce": nonce, "proof": relayProof(token, "page", site, hello["nonce"].(string), nonce)}
	if err := wsWrite(c, auth); err != nil {
		return auth, err
	}
	w, err := wsRead(c)
	if err != nil {
		return auth, fmt.Errorf("after auth: %w", err)
	}
	if w["type"] != "welcome" || w["proof"] != relayProof(token, "gateway", site, hello["nonce"].(string), nonce) {
		return auth, fmt.Errorf("welcome %v", w)
	}
	return auth, nil
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
	c, _, err := wsDial(t, url, "http://127.0.0.1:3000")
	if err != nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	if _, err := relayAuth(c, site, token); err != nil {
		t.Fatalf("handshake with %s: %v", url, err)
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
		f, err := wsRead(p.c)
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
	if err := wsWrite(p.c, frame); err != nil {
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
	_ = wsWrite(p.c, map[string]any{"type": "result", "id": call["id"],
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

var relayCalcTool = map[string]any{
	"name": "calculate", "description": "Performs basic arithmetic",
	"inputSchema": json.RawMessage(`{"type":"object","properties":{"operation":{"type":"string","enum":["add","subtract","multiply","divide"]},"a":{"type":"number"},"b":{"type":"number"}},"required":["operation","a","b"]}`),
}
