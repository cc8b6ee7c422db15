package envelope

import (
	"encoding/json"
	"math"
	"testing"
)

// TestIDJSON: an id is written as encoding/json writes it, whatever its
// value (idJSON formats whole numbers itself).
func TestIDJSON(t *testing.T) {
	for _, id := range []any{0.0, 1.0, 42.0, -7.0, math.Copysign(0, -1), 1e15, 9007199254740993.0, 1e20, 1e21, 1.5, 1e-7, "x", "a\"b<", nil} {
		want, err := json.Marshal(id)
		if err != nil {
			t.Fatal(err)
		}
		if got := idJSON(id); string(got) != string(want) {
			t.Errorf("idJSON(%v) = %s, want %s", id, got, want)
		}
	}
}
