package envelope

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/metrics"
)

const testToken = "ghp_0123456789abcdefghijABCDEFGHIJ012345"

func testRedactor() *redactor {
	return &redactor{m: metrics.New("test", "test"), log: slog.New(slog.DiscardHandler), source: "src"}
}

// TestRedactTool: a result without a secret is the source's own value
// (its raw structuredContent sent as the source wrote it); one with a
// secret anywhere is a new value, decoded as mcp-go's client decodes it,
// with everything else kept.
func TestRedactTool(t *testing.T) {
	r := testRedactor()
	var clean mcp.CallToolResult
	if err := json.Unmarshal([]byte(`{"content":[{"type":"text","text":"42"}],"structuredContent":{"n":12345678901234567890}}`), &clean); err != nil {
		t.Fatal(err)
	}
	if got, err := r.tool(&clean, nil); got != &clean || err != nil {
		t.Errorf("a clean result: got %p (%v), want the same %p", got, err, &clean)
	}

	raw := `{"_meta":{"a":"` + testToken + `","progressToken":7},"content":[` +
		`{"type":"text","text":"ok","annotations":{"priority":0.5,"lastModified":"` + testToken + `"}},` +
		`{"type":"resource_link","uri":"https://x/?` + testToken + `","name":"n","size":12},` +
		`{"type":"image","data":"aGk=","mimeType":"image/png"}],` +
		`"structuredContent":{"\u0067hp_0123456789abcdefghijABCDEFGHIJ012345":[1.50,12345678901234567890]},"isError":true}`
	var res mcp.CallToolResult
	if err := json.Unmarshal([]byte(raw), &res); err != nil {
		t.Fatal(err)
	}
	got, err := r.tool(&res, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	out := string(b)
	if strings.Contains(out, "ghp_") {
		t.Errorf("a token is left in %s", out)
	}
	for _, want := range []string{
		`"isError":true`, `"priority":0.5`, `"size":12`, `"progressToken":7`, `"data":"aGk="`,
		`"structuredContent":{"[redacted github-token]":[1.50,12345678901234567890]}`,
		`"uri":"https://x/?[redacted github-token]"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the redacted result lacks %s:\n%s", want, out)
		}
	}
}

// TestRedactOthers: resource contents, prompt messages, completion
// values and a source's error; a nil redactor passes everything.
func TestRedactOthers(t *testing.T) {
	r := testRedactor()
	cs, err := r.contents([]mcp.ResourceContents{
		mcp.TextResourceContents{URI: "mem://a", Text: "t " + testToken, Meta: map[string]any{"k": testToken}},
		mcp.BlobResourceContents{URI: "mem://b", Blob: "aGk="},
	}, nil)
	if err != nil || len(cs) != 2 {
		t.Fatalf("contents: %v %v", cs, err)
	}
	if b, _ := json.Marshal(cs); strings.Contains(string(b), "ghp_") || !strings.Contains(string(b), `"blob":"aGk="`) {
		t.Errorf("contents redacted: %s", b)
	}
	msgs, err := r.messages([]mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(testToken))}, nil)
	if b, _ := json.Marshal(msgs); err != nil || strings.Contains(string(b), "ghp_") || !strings.Contains(string(b), `"role":"user"`) {
		t.Errorf("messages redacted: %s %v", b, err)
	}
	_, err = r.tool(nil, &source.Failure{Kind: source.FailTimeout, Msg: "slow " + testToken})
	var f *source.Failure
	if f, _ = err.(*source.Failure); f == nil || f.Kind != source.FailTimeout || strings.Contains(f.Msg, "ghp_") {
		t.Errorf("error redacted: %#v", err)
	}
	var none *redactor
	if _, err := none.messages(nil, &source.Failure{Msg: testToken}); !strings.Contains(err.Error(), testToken) {
		t.Errorf("a nil redactor changed an error: %v", err)
	}
}
