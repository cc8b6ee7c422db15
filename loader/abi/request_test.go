package abi

import (
	"encoding/json"
	"testing"
)

func TestRequestProgressToken(t *testing.T) {
	for _, tc := range []struct {
		meta string
		want any
	}{
		{"", nil},
		{"{}", nil},
		{`{"progressToken":"t1"}`, "t1"},
		{`{"progressToken":7,"other":true}`, float64(7)},
		{`{"other":true}`, nil},
		{`{"progressToken":`, nil}, // malformed: no token
		{`[1]`, nil},
	} {
		if got := (Request{Meta: json.RawMessage(tc.meta)}).ProgressToken(); got != tc.want {
			t.Errorf("ProgressToken of %q = %#v, want %#v", tc.meta, got, tc.want)
		}
	}
}
