package canon

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

// FuzzAppendString: AppendJSONString writes what json.Marshal writes of
// every string, and AppendString what slog's JSON handler writes of it
// (escapes, controls, invalid UTF-8, U+2028 and U+2029 included, at every
// position against plain's word-at-a-time scan).
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain ascii text, longer than a word", "a\"b\\c</x>&\u2028\u2029\b\f\n\r\t\x00\x1f\x7f", "caf\xc3\xa9 \xff\xfe tail", strings.Repeat("12345678", 3) + "<"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := AppendJSONString([]byte("x"), s); !bytes.Equal(got[1:], want) {
			t.Fatalf("AppendJSONString(%q):\n got %s\nwant %s", s, got[1:], want)
		}
		want = slogQuoted(t, s)
		if got := AppendString([]byte("x"), s); !bytes.Equal(got[1:], want) {
			t.Fatalf("AppendString(%q):\n got %s\nwant %s", s, got[1:], want)
		}
	})
}

// slogQuoted is s as slog's JSON handler quotes an attribute's value.
func slogQuoted(t *testing.T, s string) []byte {
	var buf bytes.Buffer
	h := slog.NewJSONHandler(&buf, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key != "k" {
			return slog.Attr{}
		}
		return a
	}})
	slog.New(h).Info("", "k", s)
	line := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	v, ok := bytes.CutPrefix(line, []byte(`{"k":`))
	if !ok || !bytes.HasSuffix(v, []byte("}")) {
		t.Fatalf("slog wrote %q", line)
	}
	return v[:len(v)-1]
}

// BenchmarkAppendString: a 10 KiB text, plain ASCII and with characters
// JSON escapes (a line break, '<', '&', an accent), each way.
//
//	go test -run '^$' -bench AppendString ./internal/canon
func BenchmarkAppendString(b *testing.B) {
	text := strings.Repeat("Contact jane.doe@example.com, IBAN DE89 3704 0044 0532 0130 00. Lorem ipsum dolor sit amet. ", 110)
	for _, c := range []struct{ name, text string }{
		{"plain", text},
		{"escaped", text + "\n<b>café & co</b>"},
	} {
		for _, way := range []struct {
			name   string
			append func([]byte, string) []byte
		}{{"json", AppendJSONString}, {"slog", AppendString}} {
			b.Run(c.name+"/"+way.name, func(b *testing.B) {
				b.SetBytes(int64(len(c.text)))
				b.ReportAllocs()
				buf := make([]byte, 0, 16<<10)
				for b.Loop() {
					buf = way.append(buf[:0], c.text)
				}
			})
		}
	}
}
