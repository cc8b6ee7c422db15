package config

import (
	"fmt"
	"strings"
	"testing"
)

func TestCurationCheck(t *testing.T) {
	cases := []struct {
		c    Curation
		want string
	}{
		{Curation{Tools: ToolFilter{Include: []string{"[a-"}}}, `p.tools.include[0]: "[a-" is not a valid pattern`},
		{Curation{Tools: ToolFilter{Exclude: []string{""}}}, `p.tools.exclude[0]: "" is not a valid pattern`},
		{Curation{Overrides: map[string]Override{"bad name": {}}}, `p.overrides.bad name: "bad name" is not a tool name`},
		{Curation{Overrides: map[string]Override{"a": {Name: "x/y"}}}, `p.overrides.a.name: "x/y" is not a tool name`},
		{Curation{Overrides: map[string]Override{"a": {Name: "z"}, "b": {Name: "z"}}}, `p.overrides.b.name: "z" is also the name p.overrides.a gives`},
		{Curation{Tools: ToolFilter{Exclude: []string{"del*"}}, Overrides: map[string]Override{"delete": {Name: "rm"}}},
			`p.overrides.delete: tool "delete" is left out by p.tools.exclude[0] ("del*")`},
		{Curation{Tools: ToolFilter{Include: []string{"a*"}}, Overrides: map[string]Override{"b": {Description: "x"}}},
			`p.overrides.b: tool "b" is left out by p.tools.include (no pattern matches it)`},
	}
	for _, c := range cases {
		var got []string
		c.c.Check("p", func(key, format string, args ...any) { got = append(got, key+": "+fmt.Sprintf(format, args...)) })
		if len(got) != 1 || !strings.Contains(got[0], c.want) {
			t.Errorf("%+v: %q, want %q", c.c, got, c.want)
		}
	}
}
