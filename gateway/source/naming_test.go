package source

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/wire"
)

// One rule for every source's prefix: joined with "_" unless it already
// ends in "_", "-" or ".".
func TestExposedName(t *testing.T) {
	for _, c := range []struct{ prefix, name, want string }{
		{"", "calculate", "calculate"},
		{"pinned", "calculate", "pinned_calculate"},
		{"pinned_", "calculate", "pinned_calculate"}, // was pinned__calculate
		{"demo", "calculate", "demo_calculate"},      // a relay site's: was democalculate
		{"v2-", "calculate", "v2-calculate"},
		{"acme.", "calculate", "acme.calculate"},
		{"a__", "x", "a__x"},
		{"_", "x", "_x"},
		{"a-b", "x", "a-b_x"},
		{"p", "_x", "p__x"}, // the name is the source's own, kept whole
	} {
		if got := ExposedName(c.prefix, c.name); got != c.want {
			t.Errorf("ExposedName(%q, %q) = %q, want %q", c.prefix, c.name, got, c.want)
		}
	}
}

// A trailing separator stays in a resource URI's prefix segment, as it
// always did: the name rule does not apply to URIs.
func TestExposedURITrailingSeparator(t *testing.T) {
	for _, c := range []struct{ prefix, uri, want string }{
		{"pinned_", "storage://theme", "storage://pinned_/theme"},
		{"pinned", "storage://theme", "storage://pinned/theme"},
		{"v2-", "storage://{key}", "storage://v2-/{key}"},
		{"acme.", "urn:x:y", "urn:acme./x:y"},
	} {
		if got := ExposedURI(c.prefix, c.uri); got != c.want {
			t.Errorf("ExposedURI(%q, %q) = %q, want %q", c.prefix, c.uri, got, c.want)
		}
	}
}

func TestExposedURI(t *testing.T) {
	for _, c := range []struct{ prefix, uri, want string }{
		{"", "storage://{key}", "storage://{key}"},
		{"p", "storage://{key}", "storage://p/{key}"},
		{"p", "seaflea://readme", "seaflea://p/readme"},
		{"p", "https://h/a?q=1", "https://p/h/a?q=1"},
		{"p", "file:///etc/motd", "file://p//etc/motd"},
		{"p", "urn:x:y", "urn:p/x:y"},
		{"p", "relative/path", "p/relative/path"},
		{"p", "{scheme}://x", "p/{scheme}://x"},
	} {
		if got := ExposedURI(c.prefix, c.uri); got != c.want {
			t.Errorf("ExposedURI(%q, %q) = %q, want %q", c.prefix, c.uri, got, c.want)
		}
	}
}

// A concrete URI matching the exposed template maps back to the plugin's
// own URI through the template's variables.
func TestExposedTemplateRoundTrip(t *testing.T) {
	own, err := abi.ParseURITemplate("notes://{folder}/{id}")
	if err != nil {
		t.Fatal(err)
	}
	exposed, err := abi.ParseURITemplate(ExposedURI("b", own.Raw))
	if err != nil {
		t.Fatal(err)
	}
	vars, ok := exposed.Match("notes://b/work/7")
	if !ok {
		t.Fatal("no match")
	}
	if got := Expand(own, vars); got != "notes://work/7" {
		t.Errorf("own URI %q", got)
	}
	if _, ok := exposed.Match("notes://work/7"); ok {
		t.Error("the exposed template matched an unprefixed URI")
	}
}

// A tool that declares no annotations is listed without any; optional
// fields a plugin declares are passed on.
func TestToolDef(t *testing.T) {
	def, err := toolDef("t", wire.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(def)
	if strings.Contains(string(b), "annotations") {
		t.Errorf("tool without annotations listed as %s", b)
	}
	def, err = toolDef("t", wire.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`), Title: "T",
		Annotations: json.RawMessage(`{"readOnlyHint":true}`), OutputSchema: json.RawMessage(`{"type":"object"}`),
		Meta: json.RawMessage(`{"k":"v"}`)})
	if err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(def)
	for _, w := range []string{`"annotations":{"readOnlyHint":true}`, `"title":"T"`, `"outputSchema":{"type":"object"}`, `"_meta":{"k":"v"}`} {
		if !strings.Contains(string(b), w) {
			t.Errorf("%s does not contain %s", b, w)
		}
	}
	if _, err := toolDef("t", wire.Tool{Name: "t", InputSchema: json.RawMessage(`{}`), OutputSchema: json.RawMessage(`[1]`)}); err == nil {
		t.Error("an outputSchema that is not an object was accepted")
	}
	if _, err := toolDef("t", wire.Tool{Name: "t", InputSchema: json.RawMessage(`{}`), Annotations: json.RawMessage(`"x"`)}); err == nil {
		t.Error("annotations that are not an object were accepted")
	}
}
