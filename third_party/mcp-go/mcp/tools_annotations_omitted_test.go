package mcp

import (
	"encoding/json"
	"testing"
)

func TestToolMarshalJSONOmitsEmptyAnnotations(t *testing.T) {
	// A tool as a client or server decodes it from a list that declares
	// no annotations is written back without them.
	var decoded Tool
	if err := json.Unmarshal([]byte(`{"name":"echo","inputSchema":{"type":"object"}}`), &decoded); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		tool Tool
		want bool // annotations written
	}{
		{"decoded without annotations", decoded, false},
		{"literal without annotations", Tool{Name: "echo", InputSchema: ToolInputSchema{Type: "object"}}, false},
		{"title only", Tool{Name: "echo", InputSchema: ToolInputSchema{Type: "object"}, Annotations: ToolAnnotation{Title: "Echo"}}, true},
		{"one hint", Tool{Name: "echo", InputSchema: ToolInputSchema{Type: "object"}, Annotations: ToolAnnotation{ReadOnlyHint: ToBoolPtr(false)}}, true},
		{"NewTool's default hints", NewTool("echo"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := json.Marshal(tc.tool)
			if err != nil {
				t.Fatal(err)
			}
			var fields map[string]json.RawMessage
			if err := json.Unmarshal(data, &fields); err != nil {
				t.Fatal(err)
			}
			annotations, got := fields["annotations"]
			if got != tc.want {
				t.Errorf("%s: annotations written: %v, want %v", data, got, tc.want)
			}
			if got && string(annotations) == "{}" {
				t.Errorf("%s: empty annotations written", data)
			}
		})
	}
}
