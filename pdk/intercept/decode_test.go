package intercept

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestDecodeEvent: DecodeEvent reads what encoding/json reads, for
// inputs with and without each member.
func TestDecodeEvent(t *testing.T) {
	for _, in := range []string{
		`{"phase":"response","method":"tools/call","endpoint":"default","source":"fs","name":"read_file","arguments":{"path":"/a\"b"},"result":{"content":[{"type":"text","text":"x\u00e9"}]},"principal":{"name":"alice","groups":["dev"]},"transport":"http","session":{"id":"s1","labels":["private"]},"trace_id":"abc"}`,
		`{"phase":"request","method":"tools/list","endpoint":"e","principal":{"name":"bob","groups":[]},"transport":"stdio"}`,
		`{"phase":"request","method":"prompts/get","name":"p\u0041","arguments":null,"session":null,"principal":{"name":"x","groups":null}}`,
		`{"phase":"request","principal":{ "groups" : [ "a\"b" , "\u00e9\\" ,"c"] , "name":"n"},"session":{"labels":[]}}`,
	} {
		got, err := DecodeEvent([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		var want Event
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatal(err)
		}
		if string(want.Arguments) == "null" {
			want.Arguments = nil
		}
		if !reflect.DeepEqual(*got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", in, *got, want)
		}
	}
	for _, bad := range []string{``, `[]`, `{"phase":`, `{"principal":"alice"}`, `{"principal":{"groups":[1]}}`, `{"session":{"labels":"x"}}`} {
		if _, err := DecodeEvent([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	b, _ := EncodeOutput(Continue())
	var out Output
	if err := json.Unmarshal(b, &out); err != nil || out.Decision != DecisionContinue {
		t.Errorf("Continue encodes as %s", b)
	}
	b, _ = EncodeOutput(Deny("no"))
	if string(b) != `{"decision":"deny","message":"no"}` {
		t.Errorf("Deny encodes as %s", b)
	}
	// Arguments and Result are written as they are; the message is a
	// JSON string.
	mod := Output{Decision: DecisionModify, Message: "said \"hi\" <b>", Result: json.RawMessage(`{"content":[]}`)}
	b, _ = EncodeOutput(mod)
	var back Output
	if err := json.Unmarshal(b, &back); err != nil || back.Message != mod.Message || string(back.Result) != `{"content":[]}` || back.Decision != DecisionModify {
		t.Errorf("a modify encodes as %s (%v)", b, err)
	}
	b, _ = EncodeOutput(Output{Decision: DecisionModify, Arguments: json.RawMessage(`{"a":1}`)})
	if string(b) != `{"decision":"modify","arguments":{"a":1}}` {
		t.Errorf("modified arguments encode as %s", b)
	}
}
