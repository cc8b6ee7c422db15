package canon

import (
	"strings"
	"testing"
)

// uniqueSlow is Unique without its fast path: the decoder's reading.
func uniqueSlow(raw []byte) error {
	return uniqueDecoded(raw, "x")
}

// FuzzUnique checks the fast path against the decoder: whenever
// uniqueFast certifies a value, the decoder finds it valid and without a
// duplicate key.
func FuzzUnique(f *testing.F) {
	for _, s := range []string{
		`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"number"}},"required":["a"]}`,
		`{"a":1,"a":2}`, `{"a":{"b":1},"b":{"b":2}}`, `{"a\u0062":1,"ab":2}`, `[{"a":1},{"a":1}]`,
		`{"a":1} {}`, `{"a":"x\"y","a\"":1}`, `"a"`, `{"k":":"}`, `{"a" : 1, "a" : 2}`,
		`{` + strings.Repeat(`"k`, 1) + `":[` + strings.Repeat(`[`, 300) + strings.Repeat(`]`, 300) + `]}`,
		`{"1":1,"2":2,"3":3,"4":4,"5":5,"6":6,"7":7,"8":8,"9":9,"10":10,"11":11,"12":12,"13":13,"14":14,"15":15,"16":16,"17":17,"3":0}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if uniqueFast(raw) {
			if err := uniqueSlow(raw); err != nil {
				t.Fatalf("uniqueFast certified %q, the decoder says %v", raw, err)
			}
		}
	})
}

func TestUniqueFast(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"number"}},"required":["a"]}`: true,
		`{"a":1,"a":2}`:             false,
		`{"a":{"b":1},"b":{"b":2}}`: true,
		`[{"a":1},{"a":1}]`:         true,
		`{"a":"a","b":"a"}`:         true,
		`{"a\u0062":1}`:             false, // an escape: the decoder decides
		`{"a":1} {}`:                false,
		`{"1":1,"2":2,"3":3,"4":4,"5":5,"6":6,"7":7,"8":8,"9":9,"10":10,"11":11,"12":12,"13":13,"14":14,"15":15,"16":16,"17":17,"3":0}`:  false,
		`{"1":1,"2":2,"3":3,"4":4,"5":5,"6":6,"7":7,"8":8,"9":9,"10":10,"11":11,"12":12,"13":13,"14":14,"15":15,"16":16,"17":17,"18":0}`: true,
	} {
		if got := uniqueFast([]byte(raw)); got != want {
			t.Errorf("uniqueFast(%s) = %v, want %v", raw, got, want)
		}
	}
}
