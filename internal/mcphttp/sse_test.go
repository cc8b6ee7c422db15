package mcphttp

import "testing"

func TestNextEvent(t *testing.T) {
	stream := []byte(": comment\r\n" +
		"id: 1\n\n" + // event without data
		"event: message\ndata: {\"a\":1}\n\n" +
		"data: line1\ndata:line2\ndata\n\n" +
		"data: tail")
	var want = []string{`{"a":1}`, "line1\nline2\n", "tail"}
	var scratch []byte
	rest := stream
	for i, w := range want {
		var data []byte
		var ok bool
		data, rest, scratch, ok = NextEvent(rest, scratch)
		if !ok || string(data) != w {
			t.Fatalf("event %d = %q, %v; want %q", i, data, ok, w)
		}
	}
	if _, _, _, ok := NextEvent(rest, scratch); ok {
		t.Fatal("found an event after the last one")
	}
}

func TestResponse(t *testing.T) {
	for _, tc := range []struct {
		name, contentType, body string
		want                    string // "" for an error
	}{
		{"json", "application/json", `{"id":1,"result":{}}`, `{"id":1,"result":{}}`},
		{"json with charset", "Application/JSON; charset=utf-8", `{"id":1}`, `{"id":1}`},
		{"stream", "text/event-stream", "event: message\ndata: {\"id\":1,\"result\":{}}\n\n", `{"id":1,"result":{}}`},
		{"notification first", "text/event-stream",
			"data: {\"method\":\"notifications/message\"}\n\nid: 7\n\ndata: {\"id\":2,\"result\":{}}\n\n", `{"id":2,"result":{}}`},
		{"stream without response", "text/event-stream", "data: {\"method\":\"x\"}\n\n", ""},
		{"other content type", "text/plain", "hello", ""},
	} {
		got, err := Response(tc.contentType, []byte(tc.body))
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("%s: Response = %q, want an error", tc.name, got)
		case tc.want != "" && (err != nil || string(got) != tc.want):
			t.Errorf("%s: Response = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}
