package mcp

import (
	"encoding/json"
	"testing"
)

// TestParseCallToolResultDecodesOnce: ParseCallToolResult decodes a
// tools/call result once, so it allocates no more than json.Unmarshal of
// the same result into a CallToolResult (it probed the result for
// content, then decoded it with json.Unmarshal, which decoded it twice:
// once to validate, again in UnmarshalJSON).
func TestParseCallToolResultDecodesOnce(t *testing.T) {
	raw := json.RawMessage(`{"content":[{"type":"text","text":"hello"},{"type":"text","text":"world"}],"isError":false}`)
	parse := testing.AllocsPerRun(100, func() {
		res, err := ParseCallToolResult(&raw)
		if err != nil || len(res.Content) != 2 {
			t.Fatalf("ParseCallToolResult = %+v, %v", res, err)
		}
	})
	unmarshal := testing.AllocsPerRun(100, func() {
		var res CallToolResult
		if err := json.Unmarshal(raw, &res); err != nil || len(res.Content) != 2 {
			t.Fatalf("json.Unmarshal = %+v, %v", res, err)
		}
	})
	t.Logf("allocs: parse %v unmarshal %v", parse, unmarshal)
	if parse > unmarshal {
		t.Errorf("ParseCallToolResult made %v allocations, json.Unmarshal of the same result %v: it decodes more than once", parse, unmarshal)
	}
}
