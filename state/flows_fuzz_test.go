package state

import (
	"testing"
	"time"
)

// FuzzDecodeTaint: whatever a flow hash in Redis holds (written by
// another version, or by hand), reading it gives a taint whose labels
// came from "l:" fields and approvals from "a:" fields, and never
// panics.
func FuzzDecodeTaint(f *testing.F) {
	f.Add("l:private", `{"k":"tool","n":"read_notes","s":"notes","t":"2026-12-06T10:00:00Z"}`, "a:r\x00post", "1765015200000")
	f.Add("l:x", `{"t":"not a time"}`, "a:", "-1")
	f.Add("zz", "", "l:", "null")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		now := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
		for _, window := range []time.Duration{0, time.Hour} {
			tt := decodeTaint(map[string]string{k1: v1, k2: v2}, window, now)
			if tt == nil {
				continue
			}
			for l := range tt.Labels {
				if _, ok := map[string]string{k1: v1, k2: v2}["l:"+l]; !ok {
					t.Fatalf("label %q from no l: field", l)
				}
			}
			for a := range tt.Approved {
				if _, ok := map[string]string{k1: v1, k2: v2}["a:"+a]; !ok {
					t.Fatalf("approval %q from no a: field", a)
				}
			}
		}
	})
}
