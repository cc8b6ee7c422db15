package args

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	o, err := Parse([]byte(` { "operation" : "add", "a": 5, "b":-3.5e1, "ok": true, "no": false, "nil": null,
		"nested": {"x": [1, {"y": "}"}]}, "esc\u0061ped": "line\nnext \u00e9\ud83d\ude00", "a": 6 } `))
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := o.String("operation"); !ok || s != "add" {
		t.Errorf("operation = %q, %v", s, ok)
	}
	if f, ok := o.Number("a"); !ok || f != 6 { // the last a counts
		t.Errorf("a = %v, %v", f, ok)
	}
	if n, ok := o.Int("a"); !ok || n != 6 {
		t.Errorf("Int(a) = %v, %v", n, ok)
	}
	if f, ok := o.Number("b"); !ok || f != -35 {
		t.Errorf("b = %v, %v", f, ok)
	}
	if _, ok := o.Int("b"); ok {
		t.Error("Int(b) of -3.5e1 succeeded")
	}
	if v, ok := o.Bool("ok"); !ok || !v {
		t.Errorf("ok = %v, %v", v, ok)
	}
	if v, ok := o.Bool("no"); !ok || v {
		t.Errorf("no = %v, %v", v, ok)
	}
	if !o.IsNull("nil") || !o.Has("nil") || o.IsNull("ok") {
		t.Error("IsNull/Has")
	}
	if _, ok := o.String("nil"); ok {
		t.Error("String(nil) succeeded")
	}
	if raw, ok := o.Raw("nested"); !ok || string(raw) != `{"x": [1, {"y": "}"}]}` {
		t.Errorf("nested = %s, %v", raw, ok)
	}
	if s, ok := o.String("escaped"); !ok || s != "line\nnext é😀" {
		t.Errorf("escaped = %q, %v", s, ok)
	}
	if o.Has("Operation") || o.Has("missing") {
		t.Error("Has matched a name that is not there")
	}
	if _, ok := o.Number("operation"); ok {
		t.Error("Number of a string succeeded")
	}
	if got := strings.Join(o.Names(), ","); got != "operation,a,b,ok,no,nil,nested,escaped,a" {
		t.Errorf("Names = %s", got)
	}
	if f, ok := mustParse(t, `{"big":1e400,"small":-1e400,"tiny":1e-400}`).Number("big"); !ok || !math.IsInf(f, 1) {
		t.Errorf("1e400 = %v, %v", f, ok)
	}
	if f, ok := mustParse(t, `{"big":1e400,"small":-1e400,"tiny":1e-400}`).Number("small"); !ok || !math.IsInf(f, -1) {
		t.Errorf("-1e400 = %v, %v", f, ok)
	}
	if o := mustParse(t, `{}`); o.Len() != 0 {
		t.Errorf("{} has %d members", o.Len())
	}
}

func mustParse(t *testing.T, s string) Object {
	t.Helper()
	o, err := Parse([]byte(s))
	if err != nil {
		t.Fatalf("Parse(%s): %v", s, err)
	}
	return o
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{``, ` `, `[1,2]`, `null`, `"x"`, `5`} {
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("Parse(%q) succeeded", in)
		} else if json.Valid([]byte(in)) && !errors.Is(err, ErrNotObject) {
			t.Errorf("Parse(%q) = %v, want ErrNotObject", in, err)
		}
	}
	for _, in := range []string{`{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":1}x`, `{a:1}`, `{"a":01}`, `{"a":1.}`, `{"a":.5}`,
		`{"a":-}`, `{"a":1e}`, `{"a":tru}`, `{"a":"\x"}`, `{"a":"\u12"}`, "{\"a\":\"\x01\"}", `{"a":[1,2}`, `{"a":{"b":1]}`, `{"a":"}`} {
		if _, err := Parse([]byte(in)); err == nil || errors.Is(err, ErrNotObject) {
			t.Errorf("Parse(%q) = %v, want an invalid-JSON error", in, err)
		}
	}
	deep := `{"a":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`
	if _, err := Parse([]byte(deep)); err == nil {
		t.Error("Parse accepted 10001 levels of nesting")
	}
}

// FuzzParse checks Parse against encoding/json: the same inputs are valid
// objects, with the same members, the same raw values, the same strings
// and the same numbers.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"operation":"add","a":5,"b":3}`, `{"a":"\ud83d\ude00\ud800x\u00e9","b":[{"c":null}],"a":true}`,
		`{"k":"` + "\xff\xfe" + `"}`, `[1]`, `{"a":1e400}`, `{"\u0061":1,"A":2}`, ` {} `, `{"a":{"b":{"c":[[]]}}}`,
		`{"a":-0,"b":123456789012345,"c":-1234567890123456,"d":0.5,"e":12345678901234567890}`,
		`{"g":["a", "b\"c" ,"\u00e9"],"h":[],"i":[1],"j":["x",null]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := Parse(b)
		var want map[string]json.RawMessage
		wantErr := json.Unmarshal(b, &want)
		isObject := wantErr == nil && want != nil
		if (err == nil) != isObject {
			t.Fatalf("Parse(%q) error %v; encoding/json: %v (%v)", b, err, wantErr, want)
		}
		if err != nil {
			return
		}
		if len(want) > o.Len() {
			t.Fatalf("Parse(%q): %d members, encoding/json %d", b, o.Len(), len(want))
		}
		for name, raw := range want {
			got, ok := o.Raw(name)
			if !ok || !bytes.Equal(got, raw) {
				t.Fatalf("Parse(%q).Raw(%q) = %q, %v; encoding/json %q", b, name, got, ok, raw)
			}
			var ss []string
			if json.Unmarshal(raw, &ss) == nil && ss != nil {
				if got, ok := o.Strings(name); !ok || !slices.Equal(got, ss) {
					t.Fatalf("Parse(%q).Strings(%q) = %q, %v; encoding/json %q", b, name, got, ok, ss)
				}
			} else if got, ok := o.Strings(name); ok {
				t.Fatalf("Parse(%q).Strings(%q) = %q; encoding/json: not a list of strings", b, name, got)
			}
			var f float64
			if json.Unmarshal(raw, &f) == nil {
				if got, ok := o.Number(name); !ok || math.Float64bits(got) != math.Float64bits(f) {
					t.Fatalf("Parse(%q).Number(%q) = %v, %v; encoding/json %v", b, name, got, ok, f)
				}
			}
			if raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9' {
				var n int64
				nerr := json.Unmarshal(raw, &n)
				if got, ok := o.Int(name); ok != (nerr == nil) || ok && got != n {
					t.Fatalf("Parse(%q).Int(%q) = %v, %v; encoding/json %v, %v", b, name, got, ok, n, nerr)
				}
			}
			var s string
			if json.Unmarshal(raw, &s) == nil && raw[0] == '"' {
				if got, ok := o.String(name); !ok || got != s {
					t.Fatalf("Parse(%q).String(%q) = %q, %v; encoding/json %q", b, name, got, ok, s)
				}
			}
		}
		for _, name := range o.Names() {
			if _, ok := want[name]; !ok {
				t.Fatalf("Parse(%q) has member %q, encoding/json does not", b, name)
			}
		}
	})
}

func BenchmarkParse(b *testing.B) {
	in := []byte(`{"operation":"add","a":5,"b":3}`)
	b.ReportAllocs()
	for b.Loop() {
		o, err := Parse(in)
		if err != nil {
			b.Fatal(err)
		}
		if _, ok := o.String("operation"); !ok {
			b.Fatal("no operation")
		}
		if _, ok := o.Number("a"); !ok {
			b.Fatal("no a")
		}
	}
}
