package args

import (
	"encoding/json"
	"reflect"
	"testing"
)

type pathArgs struct {
	Path   string            `json:"path"`
	Mode   string            // JSON name "Mode"
	Nested *pathArgs         `json:"nested,omitempty"`
	List   []pathArgs        `json:"list,omitempty"`
	ByName map[string]string `json:"by_name,omitempty"`
	Any    any               `json:"any,omitempty"`
	Embedded
}

type Embedded struct {
	Depth int `json:"depth"`
}

// TestUnmarshalExact: struct fields are filled only from members named
// exactly like them, at any depth; encoding/json alone fills them
// regardless of case.
func TestUnmarshalExact(t *testing.T) {
	in := `{"path":"/public/ok","PATH":"/secret/x","mode":"rw","Mode":"ro",
		"nested":{"Path":"/secret/n","path":"/public/n","list":[{"pAth":"/secret/l"}]},
		"list":[{"PATH":"/secret/0"},{"path":"/public/1"}],
		"by_name":{"Path":"kept","path":"kept too"},"any":{"PATH":"raw"},"DEPTH":9}`
	var got pathArgs
	if err := Unmarshal([]byte(in), &got); err != nil {
		t.Fatal(err)
	}
	want := pathArgs{
		Path: "/public/ok", Mode: "ro",
		Nested: &pathArgs{Path: "/public/n", List: []pathArgs{{}}},
		List:   []pathArgs{{}, {Path: "/public/1"}},
		ByName: map[string]string{"Path": "kept", "path": "kept too"},
		Any:    map[string]any{"PATH": "raw"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Unmarshal =\n%+v\nwant\n%+v", got, want)
	}

	// The attack of issue 16: policy saw path, encoding/json alone gives the plugin PATH.
	var only struct {
		Path string `json:"path"`
	}
	if err := json.Unmarshal([]byte(`{"PATH":"/secret/x"}`), &only); err != nil || only.Path != "/secret/x" {
		t.Fatalf("encoding/json changed: %q %v", only.Path, err)
	}
	only.Path = ""
	if err := Unmarshal([]byte(`{"PATH":"/secret/x"}`), &only); err != nil || only.Path != "" {
		t.Errorf("Unmarshal filled path from PATH: %q %v", only.Path, err)
	}
	if err := Unmarshal([]byte(`{"\u0070ath":"/public/esc"}`), &only); err != nil || only.Path != "/public/esc" {
		t.Errorf("an escaped exact name: %q %v", only.Path, err)
	}
	if err := Unmarshal([]byte(`{"path":`), &only); err == nil {
		t.Error("invalid JSON accepted")
	}
	var m map[string]any
	if err := Unmarshal([]byte(`{"A":1,"a":2}`), &m); err != nil || len(m) != 2 {
		t.Errorf("map: %v %v", m, err)
	}
	var wrong pathArgs
	if err := Unmarshal([]byte(`[1]`), &wrong); err == nil {
		t.Error("an array into a struct: no error")
	}
}
