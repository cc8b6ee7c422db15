package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzFloorPost: whatever a POST carries, the floor answers it with a
// status openSession knows (200 with one JSON-RPC message, 202 for a
// notification, 400 for what is not JSON, 404 for an unknown session),
// never panics, and creates a session only for initialize. The floor has
// no upstream here: a call is answered with an error, not forwarded.
func FuzzFloorPost(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"up_calculate","arguments":{"a":1}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"ping"}`,
		`{"id":null,"method":"initialize"}`,
		`[]`, `{`, ``,
	} {
		f.Add(seed, true)
		f.Add(seed, false)
	}
	f.Fuzz(func(t *testing.T, body string, known bool) {
		fl := newFloor("", 1)
		fl.sessions["s1"] = &floorSession{}
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		if known {
			req.Header.Set("Mcp-Session-Id", "s1")
		}
		rec := httptest.NewRecorder()
		fl.ServeHTTP(rec, req)
		var msg struct {
			JSONRPC string          `json:"jsonrpc"`
			Result  json.RawMessage `json:"result"`
			Error   json.RawMessage `json:"error"`
		}
		switch rec.Code {
		case http.StatusOK:
			if err := json.Unmarshal(rec.Body.Bytes(), &msg); err != nil || msg.JSONRPC != "2.0" || (msg.Result == nil) == (msg.Error == nil) {
				t.Fatalf("200 with %q (%v)", rec.Body.Bytes(), err)
			}
		case http.StatusAccepted, http.StatusBadRequest, http.StatusNotFound:
		default:
			t.Fatalf("status %d for %q", rec.Code, body)
		}
		want := 1
		if sid := rec.Header().Get("Mcp-Session-Id"); sid != "" {
			if msg.Result == nil {
				t.Fatalf("a session id without a result: %q", rec.Body.Bytes())
			}
			want = 2
		}
		if len(fl.sessions) != want {
			t.Fatalf("%d sessions after %q, want %d", len(fl.sessions), body, want)
		}
	})
}

// FuzzLastEventData: the data of an event stream's last event is what
// followed "data:" on one of its lines, trimmed, or an error; never a
// panic.
func FuzzLastEventData(f *testing.F) {
	for _, seed := range []string{
		"event: message\ndata: {\"result\":{}}\n\n",
		"data: {\"method\":\"notifications/progress\"}\n\ndata: {\"result\":1}\n\n",
		"data:\n\n", ": comment\n", "", "data: x\r\ndata: y",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		data, err := lastEventData(b)
		if err != nil {
			return
		}
		if bytes.ContainsAny(data, "\n") {
			t.Fatalf("data %q spans lines", data)
		}
		found := false
		for line := range bytes.Lines(b) {
			if v, ok := bytes.CutPrefix(line, []byte("data:")); ok && bytes.Equal(bytes.TrimSpace(v), data) {
				found = true
			}
		}
		if !found {
			t.Fatalf("data %q is on no data line of %q", data, b)
		}
	})
}
