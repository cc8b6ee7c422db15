package canon

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/wasmgate/wasmgate/pdk/args"
)

// FuzzArgs checks Args against the decoders a plugin uses: whatever it
// accepts, encoding/json (what policy decodes) and pdk/args (Parse and the
// accessors, Unmarshal into a struct) read the same members with the same
// values from its output, whose keys do not collide at any depth; its
// output is a fixed point; and it never accepts what encoding/json calls
// invalid.
func FuzzArgs(f *testing.F) {
	for _, s := range []string{
		`{}`, ``, `{"path":"/public/ok","PATH":"/secret/x"}`, `{"path":"/public/ok","\u0050ATH":"/secret/x"}`,
		`{"a":1,"a":2}`, `{"a":{"b":[{"k":1,"\u212a":2}]}}`, `{"s":"\ud800","n":-0.0e-1}`, "{\"x\":\"\xff\"}",
		`{"path":"/public/../secret","nested":{"Path":1}}`, `[{"a":1}]`, `{"a":[[[[]]]],"b":null,"c":true}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := Args(in)
		if err != nil {
			if json.Valid(in) && !errors.Is(err, ErrNotObject) && !errors.Is(err, ErrDuplicate) &&
				!errors.Is(err, ErrCollision) && !errors.Is(err, ErrTooDeep) {
				t.Fatalf("valid JSON %q refused: %v", in, err)
			}
			return
		}
		if len(bytes.TrimSpace(in)) > 0 && !json.Valid(in) {
			t.Fatalf("invalid JSON %q accepted as %s", in, out)
		}
		if !json.Valid(out) {
			t.Fatalf("output %q is not valid JSON", out)
		}
		again, err := Args(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("not a fixed point: %q -> %q -> %q, %v", in, out, again, err)
		}
		// policy's view: encoding/json into a map, of the input and of the output.
		var fromIn, fromOut map[string]any
		if len(bytes.TrimSpace(in)) > 0 {
			if err := json.Unmarshal(in, &fromIn); err != nil {
				t.Fatalf("encoding/json on accepted input %q: %v", in, err)
			}
		} else {
			fromIn = map[string]any{}
		}
		if err := json.Unmarshal(out, &fromOut); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fromIn, fromOut) {
			t.Fatalf("encoding/json reads %q and its canonical form %q differently", in, out)
		}
		noCollisions(t, fromOut)
		// the plugin's view: pdk/args on the output.
		o, err := args.Parse(out)
		if err != nil {
			t.Fatalf("args.Parse(%q): %v", out, err)
		}
		if o.Len() != len(fromOut) {
			t.Fatalf("args.Parse sees %d members, encoding/json %d, in %q", o.Len(), len(fromOut), out)
		}
		for _, name := range o.Names() {
			want, ok := fromOut[name]
			if !ok {
				t.Fatalf("args.Parse names %q, encoding/json does not, in %q", name, out)
			}
			raw, _ := o.Raw(name)
			var got any
			if err := json.Unmarshal(raw, &got); err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("member %q: args %s, encoding/json %v", name, raw, want)
			}
			if s, ok := o.String(name); ok && !reflect.DeepEqual(s, want) {
				t.Fatalf("String(%q) = %q, encoding/json %q", name, s, want)
			}
		}
		// A plugin decoding into a struct with pdk.Args gets the exact members.
		var st struct {
			Path   any `json:"path"`
			Nested *struct {
				Path any `json:"path"`
			} `json:"nested"`
		}
		if err := args.Unmarshal(out, &st); err == nil {
			if !reflect.DeepEqual(st.Path, fromOut["path"]) {
				t.Fatalf("Unmarshal path = %v, policy sees %v in %q", st.Path, fromOut["path"], out)
			}
			if n, ok := fromOut["nested"].(map[string]any); ok && st.Nested != nil && !reflect.DeepEqual(st.Nested.Path, n["path"]) {
				t.Fatalf("Unmarshal nested.path = %v, policy sees %v in %q", st.Nested.Path, n["path"], out)
			}
		}
	})
}

// noCollisions fails when an object in v has keys equal under case folding.
func noCollisions(t *testing.T, v any) {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k, e := range v {
			for _, o := range keys {
				if strings.EqualFold(o, k) {
					t.Fatalf("keys %q and %q collide", o, k)
				}
			}
			keys = append(keys, k)
			noCollisions(t, e)
		}
	case []any:
		for _, e := range v {
			noCollisions(t, e)
		}
	}
}
