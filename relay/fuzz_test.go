package relay

import (
	"encoding/json"
	"testing"

	"github.com/wasmgate/wasmgate/loader/abi"
)

// FuzzDecodeFrame feeds arbitrary frames to both decoders: they must not
// panic, and what decodeFrame accepts must hold what the bridge relies on.
func FuzzDecodeFrame(f *testing.F) {
	for _, s := range []string{
		`{"type":"auth","nonce":"AAAAAAAAAAAAAAAAAAAAAA","proof":"x"}`,
		`{"type":"register","id":1,"tools":[{"name":"calculate","inputSchema":{"type":"object","properties":{"a":{"type":"number"}}}}],"resourceTemplates":[{"uriTemplate":"demo://storage/{key}","name":"s"}],"resources":[{"uri":"demo://about","name":"about"}],"prompts":[{"name":"p","arguments":[{"name":"x","required":true}]}]}`,
		`{"type":"result","id":7,"result":{"content":[{"type":"text","text":"8"}]}}`,
		`{"type":"result","id":7,"error":{"message":"Division by zero"}}`,
		`{"type":"result","id":"7","result":{}}`,
		`{"type":"result","id":1,"result":{"con`,
		`{"id":3,"result":{"error":"denied"}}`,
		`null`, `[]`, `"x"`, `{}`, "\x00garbage",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fr, err := decodeFrame(data)
		if err == nil {
			switch fr.Type {
			case typeResult:
				if fr.CallID == 0 || (fr.Error == nil) == (len(fr.Result) == 0) {
					t.Fatalf("accepted result frame %+v", fr)
				}
			case typeRegister:
				for _, tool := range fr.Tools {
					if !namePattern.MatchString(tool.Name) || !json.Valid(tool.InputSchema) {
						t.Fatalf("accepted tool %+v", tool)
					}
				}
				for _, r := range fr.ResourceTemplates {
					if _, err := abi.ParseURITemplate(r.URITemplate); err != nil {
						t.Fatalf("accepted template %q: %v", r.URITemplate, err)
					}
				}
			case typeAuth:
				if fr.Nonce == "" || fr.Proof == "" {
					t.Fatalf("accepted auth frame %+v", fr)
				}
			default:
				t.Fatalf("accepted frame type %q", fr.Type)
			}
		}
		legacyID(data)
		legacyErrorText(data)
	})
}
