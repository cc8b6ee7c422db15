package source

import (
	"encoding/json"
	"testing"

	"github.com/wasmgate/wasmgate/internal/canon"
)

// flatSchemas are input schemas of the shapes tools declare, flat and not.
var flatSchemas = []string{
	`{"type":"object","properties":{"operation":{"type":"string","enum":["add","subtract","multiply","divide"]},"a":{"type":"number"},"b":{"type":"number"}},"required":["operation","a","b"]}`,
	`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer","description":"the other"}},"required":["a","b"],"additionalProperties":false}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"name":{"type":["string","null"],"title":"Name"},"loud":{"type":"boolean","default":false}},"required":["name"]}`,
	`{"type":"object","properties":{"any":true,"empty":{}},"required":["any","missing"]}`,
	`{"type":"object","properties":{"k":{"type":"string"}},"required":["k","other"],"additionalProperties":false}`,
	`{"type":"object"}`,
	`{}`,
	// not flat: each of these has no FlatSchema
	`{"type":"object","properties":{"n":{"type":"number","minimum":0}}}`,
	`{"type":"object","properties":{"s":{"type":"string","format":"email"}}}`,
	`{"type":"object","properties":{"e":{"enum":[1,2,"x"]}}}`,
	`{"type":"object","properties":{"o":{"type":"object"}}}`,
	`{"type":"object","additionalProperties":{"type":"string"}}`,
	`{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}},"$defs":{"a":{"type":"string"}}}`,
	`{"type":"object","properties":{"x":false}}`,
}

func TestFlatSchema(t *testing.T) {
	for _, tc := range []struct {
		schema int
		args   string
		want   bool // Accepts
	}{
		{0, `{"operation":"add","a":5,"b":3}`, true},
		{0, `{"a":5,"b":3.5e2,"operation":"divide","extra":"ignored"}`, true},
		{0, `{"operation":"power","a":5,"b":3}`, false},     // not in the enum
		{0, `{"operation":"add","a":"5","b":3}`, false},     // a string for a number
		{0, `{"operation":"add","a":5}`, false},             // b is required
		{0, `{"operation":"add","a":5,"b":{"x":1}}`, false}, // not flat
		{1, `{"a":5,"b":-3}`, true},
		{1, `{"a":5,"b":3.0}`, false}, // an integer written 3.0: the validator judges
		{1, `{"a":5,"b":3,"c":1}`, false},
		{2, `{"name":null}`, true},
		{2, `{"name":"x","loud":true}`, true},
		{2, `{"name":"x","loud":"yes"}`, false},
		{3, `{"any":[1],"missing":1}`, false}, // not flat
		{3, `{"any":1,"missing":"here","empty":null}`, true},
		{3, `{"any":1}`, false},
		{4, `{"k":"v","other":1}`, false}, // other is required but not allowed
		{5, `{"whatever":1}`, true},
		{6, `{}`, true},
	} {
		fs := CompileFlat(json.RawMessage(flatSchemas[tc.schema]))
		if fs == nil {
			t.Fatalf("schema %d has no FlatSchema", tc.schema)
		}
		args, err := canon.Args([]byte(tc.args))
		if err != nil {
			t.Fatal(err)
		}
		if got := fs.Accepts(args); got != tc.want {
			t.Errorf("schema %d, %s: Accepts = %v, want %v", tc.schema, tc.args, got, tc.want)
		}
		full, err := CompileSchema("t", json.RawMessage(flatSchemas[tc.schema]))
		if err != nil {
			t.Fatal(err)
		}
		if tc.want && ValidateArgs(full, args) != "" {
			t.Errorf("schema %d, %s: accepted, but the validator says %s", tc.schema, tc.args, ValidateArgs(full, args))
		}
	}
	for i := 7; i < len(flatSchemas); i++ {
		if fs := CompileFlat(json.RawMessage(flatSchemas[i])); fs != nil {
			t.Errorf("schema %d (%s) has a FlatSchema", i, flatSchemas[i])
		}
	}
	if n := testing.AllocsPerRun(100, func() {
		fs := CompileFlat(json.RawMessage(flatSchemas[0]))
		_ = fs
	}); n == 0 {
		t.Fatal("AllocsPerRun measures nothing")
	}
	fs := CompileFlat(json.RawMessage(flatSchemas[0]))
	args := []byte(`{"a":5,"b":3,"operation":"add"}`)
	if n := testing.AllocsPerRun(100, func() { fs.Accepts(args) }); n != 0 {
		t.Errorf("Accepts allocates %v times a call", n)
	}
}

// FuzzFlatSchema checks that FlatSchema never accepts what the JSON
// Schema validator refuses, for each schema of flatSchemas that has one.
func FuzzFlatSchema(f *testing.F) {
	for _, s := range []string{`{"operation":"add","a":5,"b":3}`, `{"a":1,"b":2.0}`, `{"name":null,"loud":false}`,
		`{"any":1,"missing":"","empty":true}`, `{"k":"v"}`, `{}`, `{"a":-0,"b":1e-7,"operation":"divide"}`} {
		for i := range flatSchemas {
			f.Add(uint8(i), []byte(s))
		}
	}
	type pair struct {
		fs   *FlatSchema
		full func([]byte) string
	}
	var schemas []pair
	for i, s := range flatSchemas {
		full, err := CompileSchema("t", json.RawMessage(s))
		if err != nil {
			f.Fatalf("schema %d: %v", i, err)
		}
		schemas = append(schemas, pair{CompileFlat(json.RawMessage(s)), func(b []byte) string { return ValidateArgs(full, b) }})
	}
	f.Fuzz(func(t *testing.T, which uint8, in []byte) {
		p := schemas[int(which)%len(schemas)]
		args, err := canon.Args(in)
		if err != nil || p.fs == nil {
			return
		}
		if p.fs.Accepts(args) {
			if msg := p.full(args); msg != "" {
				t.Fatalf("schema %d accepts %s, which the validator refuses: %s", int(which)%len(schemas), args, msg)
			}
		}
	})
}
