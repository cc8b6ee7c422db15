package intercept_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/wasmgate/wasmgate/pdk/intercept"
)

func parse(t *testing.T, s string) intercept.Result {
	t.Helper()
	r, err := intercept.ParseResult(json.RawMessage(s))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func encode(t *testing.T, r intercept.Result) string {
	t.Helper()
	out, err := intercept.ModifyResult(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(out.Result)
}

func TestParseResult(t *testing.T) {
	for _, bad := range []string{``, `null`, `[]`, `"x"`, `{`} {
		if _, err := intercept.ParseResult(json.RawMessage(bad)); err == nil {
			t.Errorf("ParseResult(%q): no error", bad)
		}
	}
	// Numbers and unknown members encode again as they came (members
	// in name order).
	in := `{"_meta":{"k":[1,2.50,12345678901234567890]},"content":[{"data":"AA==","mimeType":"image/png","type":"image"}],"isError":false}`
	if got := encode(t, parse(t, in)); got != in {
		t.Errorf("round trip:\n%s\nwant\n%s", got, in)
	}
}

func TestEachText(t *testing.T) {
	for _, c := range []struct {
		name, in string
		texts    []string
		want     string // after upper-casing every text
	}{
		{
			"CallToolResult",
			`{"content":[{"type":"text","text":"a"},{"type":"image","data":"b"},{"type":"resource","resource":{"uri":"file:///x","text":"c"}},{"type":"resource","resource":{"uri":"file:///y","blob":"ZA=="}}],"structuredContent":{"z":"d","a":["e",{"k":"f"},3,true]},"isError":false}`,
			[]string{"a", "c", "e", "f", "d"},
			`{"content":[{"text":"A","type":"text"},{"data":"b","type":"image"},{"resource":{"text":"C","uri":"file:///x"},"type":"resource"},{"resource":{"blob":"ZA==","uri":"file:///y"},"type":"resource"}],"isError":false,"structuredContent":{"a":["E",{"k":"F"},3,true],"z":"D"}}`,
		},
		{
			"ReadResourceResult",
			`{"contents":[{"uri":"a://1","text":"g"},{"uri":"a://2","blob":"AA=="}]}`,
			[]string{"g"},
			`{"contents":[{"text":"G","uri":"a://1"},{"blob":"AA==","uri":"a://2"}]}`,
		},
		{
			"GetPromptResult",
			`{"description":"desc","messages":[{"role":"user","content":{"type":"text","text":"h"}},{"role":"assistant","content":[{"type":"text","text":"i"}]}]}`,
			[]string{"h", "i"},
			`{"description":"desc","messages":[{"content":{"text":"H","type":"text"},"role":"user"},{"content":[{"text":"I","type":"text"}],"role":"assistant"}]}`,
		},
		{
			"list",
			`{"tools":[{"name":"x","description":"y"}]}`,
			nil,
			`{"tools":[{"description":"y","name":"x"}]}`,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := parse(t, c.in)
			if got := r.Texts(); !slices.Equal(got, c.texts) {
				t.Errorf("Texts() = %q, want %q", got, c.texts)
			}
			changed := r.EachText(strings.ToUpper)
			if changed != (len(c.texts) > 0) {
				t.Errorf("EachText reported changed %v", changed)
			}
			if got := encode(t, r); got != c.want {
				t.Errorf("after EachText:\n%s\nwant\n%s", got, c.want)
			}
			if r.EachText(strings.ToUpper) {
				t.Error("EachText changed nothing but reported a change")
			}
		})
	}
}

func TestPrependText(t *testing.T) {
	r := parse(t, `{"content":[{"type":"text","text":"b"}]}`)
	if !r.PrependText("a") {
		t.Fatal("PrependText to a CallToolResult: false")
	}
	if got, want := encode(t, r), `{"content":[{"text":"a","type":"text"},{"text":"b","type":"text"}]}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	r = parse(t, `{"messages":[]}`)
	if !r.PrependText("a") {
		t.Fatal("PrependText to a GetPromptResult: false")
	}
	if got, want := encode(t, r), `{"messages":[{"content":{"text":"a","type":"text"},"role":"user"}]}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	r = parse(t, `{"contents":[{"uri":"a://b","text":"c"}]}`)
	if r.PrependText("a") {
		t.Error("PrependText to a ReadResourceResult: true")
	}
}

func TestEntries(t *testing.T) {
	if key, e := parse(t, `{"content":[]}`).Entries(); key != "" || e != nil {
		t.Errorf("Entries of a CallToolResult: %q %v", key, e)
	}
	r := parse(t, `{"prompts":[{"name":"a"},7,{"name":"b","description":"x"}],"nextCursor":"c"}`)
	key, entries := r.Entries()
	if key != "prompts" || len(entries) != 2 {
		t.Fatalf("Entries: %q %v", key, entries)
	}
	entries[1]["description"] = "y"
	r.SetEntries(key, entries[1:])
	if got, want := encode(t, r), `{"nextCursor":"c","prompts":[{"description":"y","name":"b"}]}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
