package secretscan

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// JSON redacts every string of the JSON text b, member names included,
// and returns the text encoded again, with true, when it replaced any;
// else b itself and false. Numbers keep the digits b has. Text in which
// no shape's literal appears, and no \u escape could hide one, is not
// decoded: that is the common case, and costs a few substring searches.
func JSON(b []byte, found func(Kind)) ([]byte, bool, error) {
	if !mayHold(b) {
		return b, false, nil
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return b, false, fmt.Errorf("decoding JSON to scan for secrets: %w", err)
	}
	n := 0
	v = Value(v, func(k Kind) {
		n++
		if found != nil {
			found(k)
		}
	})
	if n == 0 {
		return b, false, nil
	}
	out, err := json.Marshal(v)
	if err != nil {
		return b, false, fmt.Errorf("encoding JSON with secrets replaced: %w", err)
	}
	return out, true, nil
}

// mayHold reports whether a string of the JSON text b could hold a match:
// b holds a literal of some shape, or a \u escape, the one way a JSON
// string can spell a literal's letters other than as themselves.
func mayHold(b []byte) bool {
	if bytes.Contains(b, []byte(`\u`)) {
		return true
	}
	var lower []byte
	for _, sh := range shapes {
		text := b
		if sh.fold {
			if lower == nil {
				lower = bytes.ToLower(b)
			}
			text = lower
		}
		for _, h := range sh.hints {
			if bytes.Contains(text, []byte(h)) {
				return true
			}
		}
	}
	return false
}
