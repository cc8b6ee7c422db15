package canon

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// slow is Args without its one-pass path: the decoder-based canonicalizer.
func slow(raw []byte) ([]byte, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return []byte("{}"), nil
	}
	return argsDecoded(raw)
}

// FuzzFlat is the differential test of the one-pass path: whatever flat
// accepts, the decoder-based path accepts too, with the same bytes; and
// what it leaves is only what it must (checked on the seeds below).
func FuzzFlat(f *testing.F) {
	for _, s := range flatCases {
		f.Add([]byte(s.in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, ok := flat(in)
		if !ok {
			return
		}
		want, err := slow(in)
		if err != nil {
			t.Fatalf("flat accepted %q as %q; the decoder refuses it: %v", in, out, err)
		}
		if !bytes.Equal(out, want) {
			t.Fatalf("flat(%q) = %q, the decoder's canonical form is %q", in, out, want)
		}
	})
}

var flatCases = []struct {
	in   string
	flat bool // whether the one-pass path takes it
}{
	{`{}`, true},
	{` { } `, true},
	{`{"operation":"add","a":5,"b":3}`, true},
	{"{ \"a\" :\t-0.5e+10 ,\r\n\"b\": true, \"c\":false, \"d\":null, \"e\":\"x y/<>&\"}", true},
	{`{"a":1,"A":2}`, false},
	{`{"a":1,"a":2}`, false},
	{`{"path":"/ok","\u0050ATH":"x"}`, false},
	{`{"k":1,"` + "\u212a" + `":2}`, false},
	{`{"a":"\n"}`, false},
	{`{"a":{"b":1}}`, false},
	{`{"a":[1]}`, false},
	{`{"a":01}`, false},
	{`{"a":1.}`, false},
	{`{"a":.5}`, false},
	{`{"a":1e}`, false},
	{`{"a":-}`, false},
	{`{"a":tru}`, false},
	{`{"a":truex}`, false},
	{`{"a":1,}`, false},
	{`{"a":1} x`, false},
	{`{"a" 1}`, false},
	{`{a:1}`, false},
	{`[]`, false},
	{``, false},
	{"{\"a\":\"\xff\"}", false},
	{`{"a":"b`, false},
	{`{"a":1`, false},
}

func TestFlat(t *testing.T) {
	for _, c := range flatCases {
		out, ok := flat([]byte(c.in))
		if ok != c.flat {
			t.Errorf("flat(%q) ok = %v, want %v", c.in, ok, c.flat)
			continue
		}
		want, err := slow([]byte(c.in))
		if ok && (err != nil || !bytes.Equal(out, want)) {
			t.Errorf("flat(%q) = %q; decoder: %q, %v", c.in, out, want, err)
		}
		// Args gives the decoder's answer either way.
		got, gerr := Args([]byte(c.in))
		if !bytes.Equal(got, want) || (gerr == nil) != (err == nil) || (gerr != nil && gerr.Error() != err.Error()) {
			t.Errorf("Args(%q) = %q, %v; decoder: %q, %v", c.in, got, gerr, want, err)
		}
	}
}

func BenchmarkArgs(b *testing.B) {
	in := []byte(`{"operation":"add","a":5,"b":3}`)
	b.Run("flat", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Args(in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decoder", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := slow(in); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// FuzzFlatValue checks FlatValue against the decoder a schema validates
// (encoding/json with UseNumber) on every canonical flat object.
func FuzzFlatValue(f *testing.F) {
	for _, s := range flatCases {
		f.Add([]byte(s.in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := Args(in)
		if err != nil {
			return
		}
		v, ok := FlatValue(out)
		if _, isFlat := flat(out); ok != isFlat {
			t.Fatalf("FlatValue(%q) ok = %v, flat says %v", out, ok, isFlat)
		}
		if !ok {
			return
		}
		d := json.NewDecoder(bytes.NewReader(out))
		d.UseNumber()
		var want map[string]any
		if err := d.Decode(&want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(v, want) {
			t.Fatalf("FlatValue(%q) = %#v, the decoder reads %#v", out, v, want)
		}
		// EachFlat walks the same members, with the same values.
		walked := map[string]any{}
		if !EachFlat(out, func(key []byte, kind byte, val []byte) bool {
			switch kind {
			case String:
				walked[string(key)] = string(val)
			case Number:
				walked[string(key)] = json.Number(val)
			case Boolean:
				walked[string(key)] = string(val) == "true"
			case Null:
				walked[string(key)] = nil
			}
			return true
		}) {
			t.Fatalf("EachFlat(%q) refuses what FlatValue reads", out)
		}
		if !reflect.DeepEqual(walked, want) {
			t.Fatalf("EachFlat(%q) walks %#v, the decoder reads %#v", out, walked, want)
		}
	})
}

// TestFlatKeyBound: flat, FlatValue and the decoder-based path agree at
// the bound of keys flat compares (maxFlatKeys): an object with that many
// is read without a decoder, one more is left to the decoder.
func TestFlatKeyBound(t *testing.T) {
	obj := func(n int) []byte {
		b := []byte{'{'}
		for i := range n {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, fmt.Sprintf(`"k%d":%d`, i, i)...)
		}
		return append(b, '}')
	}
	for _, n := range []int{maxFlatKeys, maxFlatKeys + 1} {
		in := obj(n)
		_, isFlat := flat(in)
		v, ok := FlatValue(in)
		if want := n <= maxFlatKeys; isFlat != want || ok != want {
			t.Errorf("%d keys: flat %v, FlatValue %v, want %v", n, isFlat, ok, want)
		}
		if ok && len(v) != n {
			t.Errorf("%d keys: FlatValue read %d", n, len(v))
		}
	}
}
