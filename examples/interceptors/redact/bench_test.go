package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// BenchmarkRedactJSON is the example's own work over a result of about
// 10 KiB holding an address, an IBAN and a card number per kilobyte (the
// result of gateway's BenchmarkCallToolInterceptors/10KiB-redact).
func BenchmarkRedactJSON(b *testing.B) {
	var big strings.Builder
	for big.Len() < 10<<10 {
		big.WriteString("Contact jane.doe@example.com, IBAN DE89 3704 0044 0532 0130 00, card 4111 1111 1111 1111. ")
		big.WriteString(strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 14))
	}
	raw, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": big.String()}}})
	r, _ := NewRedactor(nil)
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if _, changed, err := r.RedactJSON(raw); err != nil || !changed {
			b.Fatal(changed, err)
		}
	}
}
