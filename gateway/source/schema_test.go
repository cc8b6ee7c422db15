package source

import (
	"strings"
	"testing"
)

const calcSchema = `{"type":"object","properties":{"operation":{"type":"string","enum":["add","subtract","multiply","divide"]},"a":{"type":"number"},"b":{"type":"number"}},"required":["operation","a","b"]}`

func TestValidateArgsNamesTheField(t *testing.T) {
	sch, err := CompileSchema("calculate", []byte(calcSchema))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		`{"operation":"add","a":1,"b":2}`:     "",
		`{"operation":"add","a":"x","b":2}`:   "a: ",
		`{"operation":"pow","a":1,"b":2}`:     "operation: ",
		`{"operation":"add","a":1}`:           "'b'",
		`[1,2]`:                               "arguments: ",
		`{"operation":"add","a":1,"b":2`:      "not valid JSON",
		`{"operation":"add","a":1e400,"b":2}`: "",
	}
	for in, want := range cases {
		got := ValidateArgs(sch, []byte(in))
		if want == "" && got != "" {
			t.Errorf("ValidateArgs(%s) = %q, want valid", in, got)
		}
		if want != "" && !strings.Contains(got, want) {
			t.Errorf("ValidateArgs(%s) = %q, want it to contain %q", in, got, want)
		}
	}
}

func TestCompileSchemaRefusesExternalRefs(t *testing.T) {
	if _, err := CompileSchema("t", []byte(`{"$ref":"http://127.0.0.1:1/schema.json"}`)); err == nil {
		t.Fatal("external $ref compiled")
	}
	if _, err := CompileSchema("t", []byte(`{"type":"object"`)); err == nil {
		t.Fatal("truncated schema compiled")
	}
}

// FuzzValidateArgs: arbitrary argument bytes never panic the validator,
// and anything it accepts is a JSON object with numeric a and b.
func FuzzValidateArgs(f *testing.F) {
	sch, err := CompileSchema("calculate", []byte(calcSchema))
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{`{"operation":"add","a":1,"b":2}`, `{}`, `null`, `"x"`, `{"a":{"b":[1,2,{}]}}`, `{"operation":"divide","a":-0,"b":1e308}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		msg := ValidateArgs(sch, data)
		if msg == "" && !strings.HasPrefix(strings.TrimSpace(string(data)), "{") {
			t.Fatalf("accepted non-object %q", data)
		}
	})
}
