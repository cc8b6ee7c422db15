package toolresult

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

var seeds = []string{
	`{"content":[{"type":"text","text":"hello"}]}`,
	`{"content":[{"type":"text","text":"a <b> & \u2028 \"q\" \\ é \ud83d\ude00"},{"type":"text","text":""}],"isError":true}`,
	`{"content":[]}`,
	`{"content":null}`,
	`{}`,
	`{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"}]}`,
	`{"content":[{"type":"text","text":"x","annotations":{"audience":["user"],"priority":0.5}}]}`,
	`{"content":[{"type":"text","text":"x","_meta":{"k":1}}],"_meta":{"progressToken":3,"a":"b"}}`,
	`{"content":[{"type":"text","text":"x"}],"structuredContent":{"n":1,"s":[true,null]}}`,
	`{"content":[{"type":"text","text":"x"}],"structuredContent":null}`,
	`{"content":[{"type":"text","text":"x"}],"structuredContent":[1,2]}`,
	`{"content":[{"type":"text","text":"x"}],"resultType":"complete"}`,
	`{"content":[{"type":"text","text":"x"}],"extra":1}`,
	`{"content":[{"type":"text","text":"x","extra":1}]}`,
	`{"content":[{"type":"text"}]}`,
	`{"content":[{"text":"x"}]}`,
	`{"content":[{"type":7,"text":"x"}]}`,
	`{"content":[{"type":"text","text":3}]}`,
	`{"content":[{"TYPE":"text","Text":"x"}]}`,
	`{"content":[{"type":"text","text":"x","type":"image"}]}`,
	`{"content":[{"type":"text","text":"x"}]} `,
	`{"content":[{"type":"text","text":"x"}]} {}`,
	`{"content":[{"type":"text","text":"x"}]`,
	`{"content":{"type":"text"}}`,
	`{"content":[{"type":"resource_link","uri":"file:///a","name":"a"}]}`,
	`{"content":[{"type":"resource","resource":{"uri":"file:///a","text":"t"}}]}`,
	`{"isError":"yes","content":[]}`,
	`[]`,
	`null`,
	``,
	`{"content":[{"type":"text","text":"\xff\xfe"}]}`,
	" {\"isError\" : false ,\n\"content\":\t[ {\"text\":\"a\",\"type\":\"text\"} , {\"type\":\"text\",\"text\":\"é\"}\r] } ",
	`{"content":[{"type":"text","text":"x"}],"content":[{"type":"text","text":"y"}]}`,
	`{"content":[{"type":"text","text":"x","text":"y"}]}`,
	`{"content":[{"type":"text","text":"x"}],"isError":true,"isError":false}`,
	`{"content":[{"type":"text","text":"x"}],"isError":null}`,
	`{"content":[{"type":"text","text":"x"},]}`,
	`{"content":[{"type":"text","text":"x"}],}`,
	`{"content":[{}]}`,
	`{"content":[{"type":"text","text":"tab\tin"}]}`,
	`{"content":[{"type":"text","text":"x"}],"isError":truex}`,
	`{"conte\u006et":[{"type":"text","text":"x"}]}`,
}

// FuzzParse: Parse and mcp.ParseCallToolResult agree on every input,
// on the value and on whether it is an error.
func FuzzParse(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		raw := json.RawMessage(bytes.Clone(data))
		want, wantErr := mcp.ParseCallToolResult(&raw)
		got, err := Parse(json.RawMessage(bytes.Clone(data)))
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%q: error %v, mcp-go's %v", data, err, wantErr)
		}
		if err != nil {
			if err.Error() != wantErr.Error() {
				t.Fatalf("%q: error %q, mcp-go's %q", data, err, wantErr)
			}
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %#v\nwant %#v", data, got, want)
		}
	})
}

// TestParseTakesTheFastPath: plain text results are decoded in one pass
// (else the package would be mcp-go's decoder under another name).
func TestParseTakesTheFastPath(t *testing.T) {
	for _, s := range seeds[:3] {
		if _, ok := parseText(json.RawMessage(s)); !ok {
			t.Errorf("%s: not decoded in one pass", s)
		}
	}
	// The commonest shape is scanned, without encoding/json.
	big := `{"content":[{"type":"text","text":"` + strings.Repeat("Contact [email], é. ", 500) + `"}],"isError":true}`
	for _, s := range []string{seeds[0], seeds[31], big} {
		if _, ok := scanText([]byte(s)); !ok {
			t.Errorf("%.80s: not scanned", s)
		}
	}
	for _, s := range []string{seeds[1], seeds[2], seeds[4], seeds[12], seeds[32], seeds[34], seeds[35], seeds[39], seeds[41]} {
		if _, ok := scanText([]byte(s)); ok {
			t.Errorf("%s: scanned, which must be left to encoding/json", s)
		}
	}
	for _, s := range []string{seeds[3], seeds[5], seeds[12], seeds[21]} {
		if _, ok := parseText(json.RawMessage(s)); ok {
			t.Errorf("%s: decoded in one pass, which must be left to mcp-go", s)
		}
	}
}

// FuzzAppend: Append writes what json.Marshal writes of every result it
// takes, and leaves b as it was for the ones it does not.
func FuzzAppend(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, ptr bool) {
		raw := json.RawMessage(data)
		res, err := mcp.ParseCallToolResult(&raw)
		if err != nil {
			return
		}
		if ptr { // items as pointers, as some sources build them
			for i, c := range res.Content {
				if tc, ok := c.(mcp.TextContent); ok {
					res.Content[i] = &tc
				}
			}
		}
		want, err := json.Marshal(res)
		if err != nil {
			return
		}
		prefix := []byte("prefix")
		got, ok := Append(bytes.Clone(prefix), res)
		if !ok {
			if !bytes.Equal(got, prefix) {
				t.Fatalf("%q: declined but changed b to %q", data, got)
			}
			return
		}
		if !bytes.Equal(got[len(prefix):], want) {
			t.Fatalf("%q:\n got %s\nwant %s", data, got[len(prefix):], want)
		}
	})
}

func TestAppendTakesText(t *testing.T) {
	res := mcp.NewToolResultText(strings.Repeat("<a&b>\n", 100))
	res.IsError = true
	got, ok := Append(nil, res)
	want, _ := json.Marshal(res)
	if !ok || !bytes.Equal(got, want) {
		t.Fatalf("Append = %s, %v; json.Marshal = %s", got, ok, want)
	}
	if _, ok := Append(nil, mcp.NewToolResultImage("x", "AAAA", "image/png")); ok {
		t.Fatal("an image result was taken as text")
	}
}

// BenchmarkParse: a 10 KiB text result, as a redacting interceptor
// answers it, by each of Parse's decoders.
//
//	go test -run '^$' -bench Parse ./internal/toolresult
func BenchmarkParse(b *testing.B) {
	raw := json.RawMessage(`{"content":[{"type":"text","text":"` + strings.Repeat("Contact [email], IBAN [iban]. Lorem ipsum dolor sit amet. ", 180) + "é" + `"}]}`)
	for _, d := range []struct {
		name  string
		parse func(json.RawMessage) bool
	}{
		{"scan", func(r json.RawMessage) bool { _, ok := scanText(r); return ok }},
		{"decode", func(r json.RawMessage) bool { _, ok := parseText(r); return ok }},
		{"mcp-go", func(r json.RawMessage) bool { _, err := mcp.ParseCallToolResult(&r); return err == nil }},
	} {
		b.Run(d.name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				if !d.parse(raw) {
					b.Fatal("not parsed")
				}
			}
		})
	}
}

// BenchmarkAppend: a 10 KiB text result, as make bench-interceptors's
// greeter answers it, encoded for an interceptor: plain ASCII, and the
// same with characters JSON escapes (a line break, '<', '&', an accent).
//
//	go test -run '^$' -bench Append ./internal/toolresult
func BenchmarkAppend(b *testing.B) {
	text := strings.Repeat("Contact jane.doe@example.com, IBAN DE89 3704 0044 0532 0130 00. Lorem ipsum dolor sit amet. ", 110)
	for _, c := range []struct{ name, text string }{
		{"plain", text},
		{"escaped", text + "\n<b>café & co</b>"},
	} {
		res := mcp.NewToolResultText(c.text)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			b.ReportAllocs()
			buf := make([]byte, 0, 16<<10)
			for b.Loop() {
				if _, ok := Append(buf[:0], res); !ok {
					b.Fatal("not taken")
				}
			}
		})
	}
}
