package gateway

import (
	"testing"
)

// BenchmarkCallToolFlows is BenchmarkCallToolSerial without a flows
// section, and with a lethal-trifecta rule and calculate labelled
// [private, egress] (each call reads its scope's taint, the rule does not
// fire, and its labels are there already) or [private] (each call adds
// its label): what flow control adds to a call in memory is the
// difference.
//
//	go test -run '^$' -bench 'CallToolFlows' -count 6 ./gateway
func BenchmarkCallToolFlows(b *testing.B) {
	wasm := builtWasm(b, "examples/plugins/calculator.wasm")
	rule := "flows:\n  rules:\n    - {name: trifecta, after: [private, untrusted], block: [egress]}\n"
	plugins := func(labels string) string {
		return "plugins:\n  - {path: " + wasm + ", labels: " + labels + "}\n  - {name: u, path: " + wasm + ", prefix: u, labels: [untrusted, egress]}\n"
	}
	for _, tc := range []struct{ name, yaml string }{
		{"off", "plugins:\n  - {path: " + wasm + "}\n"},
		{"blockable", rule + plugins("[private, egress]")},
		{"tainting", rule + plugins("[private]")},
	} {
		b.Run(tc.name, func(b *testing.B) {
			benchCallSerial(b, openTestGateway(b, tc.yaml))
		})
	}
}
