package source

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmgate/wasmgate/internal/secretscan"
	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/wire"
)

// redacting is a fake with redact_secrets on.
type redacting struct{ fake }

func (*redacting) RedactSecrets() bool { return true }

func TestIndexRedactsDefinitions(t *testing.T) {
	const tok = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	d := abi.Descriptor{
		Tools: []wire.Tool{{Name: "t", Description: "d " + tok, Title: "t " + tok,
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"a":{"type":"string","description":"` + tok + `"}}}`),
			OutputSchema: json.RawMessage(`{"type":"object","description":"` + tok + `"}`),
			Annotations:  json.RawMessage(`{"title":"` + tok + `"}`)}},
		Resources: []abi.Resource{{Resource: wire.Resource{URI: "mem://r", Name: "r " + tok, Description: tok}}},
		Prompts: []wire.Prompt{{Name: "p", Description: "p " + tok,
			Arguments: []wire.PromptArgument{{Name: "who", Description: "who " + tok}}}},
	}
	n := 0
	for _, src := range []Source{&redacting{fake{name: "on", d: d}}, &fake{name: "off", d: d}} {
		prev := NewIndex()
		for pass := range 2 { // the second as a relist does it: reserved, then again
			x := NewIndex()
			x.Redacted = func(s Source, k secretscan.Kind) {
				if s.Name() != "on" || k != "github-token" {
					t.Errorf("counted %s %s", s.Name(), k)
				}
				n++
			}
			if pass > 0 {
				x.Reserve(prev)
				x.Add("g.yaml", src)
				x.Release()
			}
			if errs := x.Add("g.yaml", src); errs != nil {
				t.Fatal(errs)
			}
			prev = x
			defs, _ := json.Marshal([]any{x.Tools["t"].Def, x.Resources["mem://r"].Resource, x.Prompts["p"].Def})
			if leaked := strings.Contains(string(defs), tok); leaked != (src.Name() == "off") {
				t.Errorf("%s: token in the definitions: %v\n%s", src.Name(), leaked, defs)
			}
			// What calls use stays the source's own.
			if x.Tools["t"].Export != "t" || x.Resources["mem://r"].Res.Name != "r "+tok || x.Prompts["p"].Export != "p" ||
				x.Prompts["p"].Def.Arguments[0].Name != "who" || !strings.Contains(string(d.Tools[0].Description), tok) {
				t.Errorf("%s: a name, URI or the source's own descriptor was changed", src.Name())
			}
			if _, ok := x.Tools["t"].Schema.Properties["a"]; !ok {
				t.Errorf("%s: the arguments' schema lost its property", src.Name())
			}
		}
	}
	// Tool: description, title, input and output schema, annotations;
	// resource: name, description; prompt: description, argument: each
	// indexing once (the reserved pass does not count again).
	if want := 2 * 9; n != want {
		t.Errorf("counted %d replacements, want %d", n, want)
	}
}
