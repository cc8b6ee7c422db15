package interceptors_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmgate/wasmgate/gateway/intercept"
	"github.com/wasmgate/wasmgate/loader"
)

// The Rust redact example (redact-rs/) answers what the Go one (redact/)
// answers, byte for byte: both run through the gateway's own loader
// (loader.Compiler.CompileInterceptor, loader.Instance.Call) on the
// input the gateway writes (intercept.Input.AppendJSON).

// rustBuilt fails the test, with what to install, unless redact-rs.wasm
// is built: CI has a Rust toolchain, so a missing one is an error, not a
// skip.
func rustBuilt(t testing.TB) string {
	t.Helper()
	p, err := filepath.Abs("redact-rs.wasm")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is not built: scripts/build-plugins.sh builds it with rustc for wasm32-unknown-unknown "+
			"(Debian: apt-get install rustc libstd-rust-dev-wasm32): %v", p, err)
	}
	return p
}

// redactPair is the Go and the Rust redact examples, compiled by the
// gateway's loader with the same config: section.
type redactPair struct {
	goInst, rsInst *loader.Instance
}

// newRedactPair compiles both with config, a YAML flow mapping ("" for
// no config: section), each with one instance, closed at the test's end.
func newRedactPair(t testing.TB, config string) *redactPair {
	t.Helper()
	goPath, err := filepath.Abs("redact.wasm")
	if err != nil {
		t.Fatal(err)
	}
	skipUnbuilt(t, goPath)
	rsPath := rustBuilt(t)
	cfg := ""
	if config != "" {
		cfg = ", config: " + config
	}
	yaml := fmt.Sprintf("interceptors:\n"+
		"  - {name: redact-go, path: %q, on: [tools/call, resources/read, prompts/get, tools/list], phase: response, limits: {timeout: 30s}%s}\n"+
		"  - {name: redact-rs, path: %q, on: [tools/call, resources/read, prompts/get, tools/list], phase: response, limits: {timeout: 30s}%s}\n",
		goPath, cfg, rsPath, cfg)
	file := filepath.Join(t.TempDir(), "gateway.yaml")
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	lc, err := loader.Load(file, nil)
	if err != nil {
		t.Fatalf("load %s:\n%s\n%v", file, yaml, err)
	}
	ctx := context.Background()
	c, err := loader.NewCompiler(filepath.Join(os.TempDir(), "wasmgate-bench-cache"), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(ctx) })
	var insts [2]*loader.Instance
	for i, spec := range lc.Interceptors {
		mod, err := c.Fetch(ctx, spec.Plugin())
		if err != nil {
			t.Fatal(err)
		}
		p, inst, err := c.CompileInterceptor(ctx, spec.Plugin(), mod, spec.Exports()...)
		if err != nil {
			t.Fatalf("compile %s: %v", spec.Name, err)
		}
		t.Cleanup(func() { inst.Close(ctx); _ = p.Close(ctx) })
		insts[i] = inst
	}
	return &redactPair{goInst: insts[0], rsInst: insts[1]}
}

// compare runs both on in and fails the test unless they answer the same
// bytes, or both fail.
func (p *redactPair) compare(t testing.TB, in intercept.Input) {
	t.Helper()
	data := in.AppendJSON(nil)
	ctx := context.Background()
	goOut, goErr := p.goInst.Call(ctx, intercept.ExportResponse, data)
	rsOut, rsErr := p.rsInst.Call(ctx, intercept.ExportResponse, data)
	switch {
	case goErr != nil && rsErr != nil:
		return
	case goErr != nil || rsErr != nil:
		t.Errorf("input %s\n  Go:   %s %v\n  Rust: %s %v", shorten(data), goOut, goErr, rsOut, rsErr)
	case !bytes.Equal(goOut, rsOut):
		t.Errorf("input %s\n  Go:   %s\n  Rust: %s", shorten(data), goOut, rsOut)
	default:
		if _, err := intercept.ParseOutput(goOut); err != nil {
			t.Errorf("input %s: answer %s: %v", shorten(data), goOut, err)
		}
	}
}

func shorten(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "..."
	}
	return string(b)
}

// redactTexts are the texts of the Go example's tests (redact_test.go's
// TestRedact and FuzzRedact seeds) and more edges of the patterns.
var redactTexts = []string{
	"Write to jane.doe+x@mail.example.co.uk today.",
	"IBAN DE89 3704 0044 0532 0130 00, thanks",
	"GB82WEST12345698765432 and GB82WEST12345698765433",
	"card 4111 1111 1111 1111 exp 12/29",
	"order 4111111111111112 is not a card",
	"a@b.io, 5500-0000-0000-0004 and DE89370400440532013000",
	"nothing here, 12 items at 3.50",
	"user@localhost has no domain",
	"a@b.io 4111111111111111",
	"card 4111 1111 1111 1111 exp 12/29 4111-1111-1111-1111-1111 1",
	"a@b@c.com x@y z@a.b..cd a@b.c1 q@-x.org.uk9 DE89370400440532013000A",
	"DE00 4111 1111 1111 1111 DE89 3704 0044 0532 0130 00 1",
	"Contact jane.doe@example.com or ops@corp.example.org.",
	"Pay to DE89 3704 0044 0532 0130 00 with card 4111 1111 1111 1111, order 4111111111111112.",
	"GB82WEST12345698765432; 5500-0000-0000-0004",
	"378282246310005",
	"12 files, 3.5 MB, no one at example.com",
	"x@y.com4111111111111111",
	"4111 1111 1111 1111a@b.io",
	"FR1420041010050500013M02606 FR14 2004 1010 0505 0001 3M02 606",
	"_4111111111111111 4111111111111111_ 4111-1111-1111-1111-",
	"GB82 WEST 1234 5698 7654 32 GB82WEST1234569876543299 GB82 WEST 1234 5698 7654 32 1",
	"a..b@c.d.ef x.@y.zz .@a.bb @a.bb a@.bb a@b..cc a@b.c-d.ee a@b.cc.d9",
	"mail: jane@example.com\u2028next: 4111111111111111\u00e9",
	"tab\there jane@example.com\"quoted\" back\\slash 5500 0000 0000 0004",
	"<b>jane@example.com</b> & 4111111111111111",
	"",
}

// redactResults are whole results: the Go example's TestRedactJSON,
// FuzzRedactJSON seeds and the results of TestRedact, and escapes of
// every kind.
var redactResults = []string{
	`{"content":[{"type":"text","text":"12 files"}]}`,
	`{"content":[{"type":"text","text":"mail a@b.io now"}]}`,
	`{"a@b.io":"x","k":["c@d.io", 4111111111111111]}`,
	`{"t":"line\njane@example.com\t4111 1111 1111 1111\"q\""}`,
	`{"t":"x\\nj@example.com"}`,
	`{"t":"jane\u0040example.com <b>"}`,
	`{"t":"\u00e9 nothing"}`,
	`{"s" : "DE89 3704 0044 0532 0130 00"}`,
	`{"content":[{"type":"text","text":"mail a@b.io now\n4111 1111 1111 1111"}]}`,
	`["jane\u0040example.com", {"k\"@x.io":"DE89370400440532013000"}]`,
	`{"content":[{"type":"text","text":"Contact jane.doe@example.com or ops@corp.example.org."},{"type":"image","data":"amFuZUBleGFtcGxlLmNvbQ==","mimeType":"image/png"},{"type":"resource","resource":{"uri":"file:///srv/a.txt","mimeType":"text/plain","text":"GB82WEST12345698765432; 5500-0000-0000-0004"}}],"structuredContent":{"owner":{"email":"jane.doe@example.com","cards":["378282246310005"]},"count":12345678901234567890},"isError":false}`,
	`{"contents":[{"uri":"file:///srv/a.txt","text":"mail ops@corp.example.org"}]}`,
	`{"description":"d","messages":[{"role":"user","content":{"type":"text","text":"card 5500 0000 0000 0004"}}]}`,
	`{"tools":[{"name":"mail","description":"Sends to jane@example.com"}]}`,
	// \u escapes: pairs, lone and reversed surrogates, U+2028, control
	// characters, <>&, an escaped solidus, characters that hide a match.
	`{"t":"jane\u0040example.com \ud83d\ude00 \ud83d x \ude00\ud83d \u2028 \u0001\u001f \u003c\u003e\u0026 \/ \b\f 4111\u00201111\u00201111\u00201111"}`,
	`{"t":"\u00e9t\u00e9 jane@example.com \"\\\/\t"}`,
	`{"t":"nothing \u00e9 here 1234567890123"}`,
	`{"u":"\u0034111111111111111","v":"DE89\u00203704\u00200044\u00200532\u00200130\u002000"}`,
	// The markers themselves, and text without anything to redact.
	`{"t":"[redacted email] [redacted iban] [redacted card]"}`,
	`{"content":[],"isError":true}`,
	`{"a":[1,2,3,4,5,6,7,8,9,10,11,12,13,14],"b":"x@y"}`,
	`"a top-level string jane@example.com"`,
	`[]`,
	`{}`,
}

// TestRedactRustSameAsGo runs both examples over the texts in a text
// content, in a resource, in structured content, and over the results,
// under the methods each sees, with each config.
func TestRedactRustSameAsGo(t *testing.T) {
	t.Parallel()
	var results []string
	for _, s := range redactTexts {
		results = append(results, textResults(s)...)
	}
	results = append(results, redactResults...)
	big := strings.Repeat("Contact jane.doe@example.com, IBAN DE89 3704 0044 0532 0130 00, card 4111 1111 1111 1111. "+
		strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 14), 10)
	results = append(results, textResults(big)...)
	for _, config := range []string{"", "{patterns: [email, iban, card]}", "{patterns: [card]}", "{patterns: [email]}",
		"{patterns: [iban]}", "{patterns: [' IBAN ', Card]}", "{patterns: []}", "{patterns: null}", "{other: 1}"} {
		t.Run(config, func(t *testing.T) {
			p := newRedactPair(t, config)
			for _, method := range []string{"tools/call", "resources/read", "prompts/get", "tools/list", "resources/templates/list"} {
				for _, r := range results {
					p.compare(t, response(method, "x", r))
				}
			}
			// No result at all, and a null one.
			p.compare(t, response("tools/call", "x", ""))
			p.compare(t, response("tools/call", "x", "null"))
		})
	}
	// A config that fails both, every call.
	for _, config := range []string{"{patterns: [ssn]}", "{patterns: email}", "{patterns: [[email]]}", "{patterns: [email, 7]}"} {
		t.Run(config, func(t *testing.T) {
			p := newRedactPair(t, config)
			for range 2 {
				p.compare(t, response("tools/call", "x", `{"content":[{"type":"text","text":"a@b.io"}]}`))
			}
		})
	}
	// A result that is not JSON (an unterminated string) fails both.
	p := newRedactPair(t, "")
	p.compare(t, response("tools/call", "x", `{"t":"a@b.io`))
}

// TestRedactRustErrors: the Rust example's error of an unknown pattern
// says what the Go one's says.
func TestRedactRustErrors(t *testing.T) {
	t.Parallel()
	p := newRedactPair(t, "{patterns: [email, ' SSN']}")
	in := response("tools/call", "x", `{"content":[]}`)
	for _, inst := range []*loader.Instance{p.goInst, p.rsInst} {
		_, err := inst.Call(context.Background(), intercept.ExportResponse, in.AppendJSON(nil))
		if err == nil || !strings.Contains(err.Error(), `redact: unknown pattern " SSN" (want email, iban or card)`) {
			t.Errorf("patterns [email, ' SSN']: %v", err)
		}
	}
}

// textResults are results that hold s: a text content as encoding/json
// writes it (\u escapes for control characters, <, > and &, invalid
// UTF-8 as \ufffd), a resource's text with only the escapes JSON needs
// (bytes as they are), and structured content.
func textResults(s string) []string {
	enc, _ := json.Marshal(s)
	min := minimalQuote(s)
	return []string{
		`{"content":[{"type":"text","text":` + string(enc) + `}],"isError":false}`,
		`{"contents":[{"uri":"file:///a.txt","mimeType":"text/plain","text":` + min + `}]}`,
		`{"content":[],"structuredContent":{"s":` + min + `,"n":[` + string(enc) + `,4111111111111111]}}`,
	}
}

// minimalQuote is s as a JSON string with the short escapes only (", \,
// \n, \r, \t, \b, \f), other control characters left out and invalid
// UTF-8 as it is: what a server that writes JSON by hand may send.
func minimalQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if c >= 0x20 {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// FuzzRedactRust feeds both examples random results: the fuzzed bytes
// as a text in each of textResults' results, and as a result of its
// own when they are JSON. The corpus is testdata/fuzz/FuzzRedactRust.
func FuzzRedactRust(f *testing.F) {
	for _, s := range redactTexts {
		f.Add(s)
	}
	for _, s := range redactResults {
		f.Add(s)
	}
	all := newRedactPair(f, "")
	numbers := newRedactPair(f, "{patterns: [iban, card]}")
	f.Fuzz(func(t *testing.T, s string) {
		results := textResults(s)
		if json.Valid([]byte(s)) {
			results = append(results, s)
		}
		for _, r := range results {
			all.compare(t, response("tools/call", "x", r))
			numbers.compare(t, response("tools/call", "x", r))
		}
	})
}

// BenchmarkRedactModules is each redact example's own call, through the
// gateway's loader, over the result of gateway's
// BenchmarkCallToolInterceptors/10KiB-redact: about 10 KiB of text with
// an address, an IBAN and a card number in each kilobyte.
func BenchmarkRedactModules(b *testing.B) {
	var big strings.Builder
	for big.Len() < 10<<10 {
		big.WriteString("Contact jane.doe@example.com, IBAN DE89 3704 0044 0532 0130 00, card 4111 1111 1111 1111. ")
		big.WriteString(strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 14))
	}
	raw, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": big.String()}}})
	in := response("tools/call", "say_hello", string(raw))
	data := in.AppendJSON(nil)
	p := newRedactPair(b, "")
	for _, m := range []struct {
		name string
		inst *loader.Instance
	}{{"go", p.goInst}, {"rust", p.rsInst}} {
		b.Run(m.name, func(b *testing.B) {
			ctx := context.Background()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				out, err := m.inst.Call(ctx, intercept.ExportResponse, data)
				if err != nil || !bytes.Contains(out, []byte(`"decision":"modify"`)) {
					b.Fatalf("%s %v", out, err)
				}
			}
		})
	}
}
