package source

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wasmgate/wasmgate/config"
)

// curated is a fake with a curation.
type curated struct {
	fake
	c config.Curation
}

func (c *curated) Curation() *config.Curation { return &c.c }

func TestCurationInTheIndex(t *testing.T) {
	yes := true
	src := &curated{fake: fake{name: "p", d: tools("search", "delete_all", "delete_one", "list")},
		c: config.Curation{Tools: config.ToolFilter{Exclude: []string{"delete_*"}},
			Overrides: map[string]config.Override{"search": {Name: "find", Description: "Find things",
				Annotations: &config.ToolAnnotations{Title: "Finder", ReadOnlyHint: &yes}}}}}
	x, errs := index(nil, src)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if got := fmt.Sprint(x.ToolNames()); got != "[find list]" {
		t.Fatalf("tools %s, want [find list]", got)
	}
	f := x.Tools["find"]
	if f.Export != "search" || f.Def.Description != "Find things" || f.Def.Annotations.Title != "Finder" ||
		f.Def.Annotations.ReadOnlyHint == nil || !*f.Def.Annotations.ReadOnlyHint {
		t.Errorf("find = export %q, %+v", f.Export, f.Def)
	}

	// A rename onto another tool of the same source names both.
	src.c = config.Curation{Overrides: map[string]config.Override{"search": {Name: "list"}}}
	_, errs = index(nil, src)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), `tools "search" and "list" would both be published as "list"`) &&
		!strings.Contains(errs[0].Error(), `tools "list" and "search" would both be published as "list"`) {
		t.Errorf("collision: %v", errs)
	}

	// A session's view is curated too.
	src.c = config.Curation{Tools: config.ToolFilter{Include: []string{"s*"}}}
	x, _ = index(nil, src)
	v, errs := x.SessionView("f", src, tools("search", "secret", "other"))
	if len(errs) > 0 || fmt.Sprint(v.ToolNames()) != "[search secret]" {
		t.Errorf("session view %v, %v", v.ToolNames(), errs)
	}
}
