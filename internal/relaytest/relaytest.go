// Package relaytest speaks the page's side of the browser relay protocol
// (docs/relay-protocol.md) over a real WebSocket, for the tests of package
// relay and the end-to-end tests that need exact control of the frames.
//
// It implements the protocol from the document, not from package relay
// (which it does not import), so that a test checks the package against
// the written protocol, and relay's own tests can use it.
package relaytest

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
	"testing"
	"time"

	"github.com/coder/websocket"
)

// Protocol is the protocol version a hello frame names.
const Protocol = "wasmgate-relay/1"

// Dial opens a WebSocket to url with origin ("" sends none), reading
// frames of up to 64 MiB. The connection is closed at the end of the test.
func Dial(t testing.TB, url, origin string) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	c, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		return nil, resp, err
	}
	c.SetReadLimit(64 << 20)
	t.Cleanup(func() { c.CloseNow() })
	return c, resp, nil
}

// Read reads one frame (15 s at most) and decodes it into a map.
func Read(c *websocket.Conn) (map[string]any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	_, data, err := c.Read(ctx)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// Write sends v as one JSON text frame.
func Write(c *websocket.Conn, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return WriteRaw(c, data)
}

// WriteRaw sends data as one text frame, as it is (10 s at most).
func WriteRaw(c *websocket.Conn, data []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.Write(ctx, websocket.MessageText, data)
}

// Closed reads until the connection ends and returns its close code and
// reason (-1 and the error if it ended without a close frame).
func Closed(c *websocket.Conn) (websocket.StatusCode, string) {
	for {
		_, err := Read(c)
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

// Proof is the handshake's proof (docs/relay-protocol.md): the unpadded
// base64url HMAC-SHA256, keyed with the site's token, of
// "wasmgate-relay/1 <who>\n<site>\n<gateway nonce>\n<page nonce>", where
// who is "page" or "gateway".
func Proof(token, who, site, gatewayNonce, pageNonce string) string {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte(Protocol + " " + who + "\n" + site + "\n" + gatewayNonce + "\n" + pageNonce))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// Nonce is a fresh page nonce: 32 random bytes, unpadded base64url.
func Nonce() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// AuthFrame is the auth frame answering hello for site with token and the
// page nonce nonce.
func AuthFrame(hello map[string]any, site, token, nonce string) map[string]any {
	gn, _ := hello["nonce"].(string)
	return map[string]any{"type": "auth", "nonce": nonce, "proof": Proof(token, "page", site, gn, nonce)}
}

// Handshake runs the page's side of the handshake for site with token. It
// returns the gateway's hello and the auth frame it sent (to replay it),
// and an error if the hello is not one for site in Protocol, the gateway
// did not welcome the page, or the gateway's proof is wrong.
func Handshake(c *websocket.Conn, site, token string) (hello, auth map[string]any, err error) {
	hello, err = Read(c)
	if err != nil {
		return nil, nil, fmt.Errorf("read hello: %w", err)
	}
	gn, _ := hello["nonce"].(string)
	if hello["type"] != "hello" || hello["protocol"] != Protocol || hello["site"] != site || gn == "" {
		return hello, nil, fmt.Errorf("first frame %v, want hello for %s", hello, site)
	}
	nonce := Nonce()
	auth = AuthFrame(hello, site, token, nonce)
	if err := Write(c, auth); err != nil {
		return hello, auth, err
	}
	w, err := Read(c)
	if err != nil {
		return hello, auth, fmt.Errorf("after auth: %w", err)
	}
	if w["type"] != "welcome" {
		return hello, auth, fmt.Errorf("after auth: %v, want welcome", w)
	}
	if want := Proof(token, "gateway", site, gn, nonce); w["proof"] != want {
		return hello, auth, fmt.Errorf("gateway proof %v, want %s", w["proof"], want)
	}
	return hello, auth, nil
}

// CalcTool is the calculator's tool as a page registers it.
func CalcTool() map[string]any {
	return map[string]any{
		"name": "calculate", "description": "Performs basic arithmetic",
		"inputSchema": json.RawMessage(`{"type":"object","properties":{"operation":{"type":"string","enum":["add","subtract","multiply","divide"]},"a":{"type":"number"},"b":{"type":"number"}},"required":["operation","a","b"]}`),
	}
}
