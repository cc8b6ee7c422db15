package wire

import (
	"encoding/json"
	"testing"
)

// The JSON the host and the guest exchange, as docs/plugins.md shows it.
func TestJSONShapes(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{ResourceRequest{URI: "storage://theme", Arguments: map[string]string{"key": "theme"}},
			`{"uri":"storage://theme","arguments":{"key":"theme"}}`},
		{ResourceRequest{}, `{"uri":""}`},
		{Tool{Name: "add", Description: "Adds", InputSchema: json.RawMessage(`{"type":"object"}`)},
			`{"name":"add","description":"Adds","inputSchema":{"type":"object"}}`},
		{Resource{URI: "a://b", Name: "b", MimeType: "image/png", Blob: "AA=="},
			`{"uri":"a://b","name":"b","mimeType":"image/png","blob":"AA=="}`},
		{ResourceContent{URI: "a://b", Text: "hi"}, `{"uri":"a://b","text":"hi"}`},
		{Prompt{Name: "p", Description: "d", Arguments: []PromptArgument{{Name: "code", Description: "c", Required: true}, {Name: "x"}}},
			`{"name":"p","description":"d","arguments":[{"name":"code","description":"c","required":true},{"name":"x","description":""}]}`},
		{PromptMessage{Role: "user", Content: TextContent{Type: "text", Text: "hi"}},
			`{"role":"user","content":{"type":"text","text":"hi"}}`},
	} {
		b, err := json.Marshal(c.v)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != c.want {
			t.Errorf("%T encodes as\n%s\nwant\n%s", c.v, b, c.want)
		}
	}
}
