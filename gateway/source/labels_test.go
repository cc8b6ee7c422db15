package source

import (
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/config"
)

func TestLabelsFor(t *testing.T) {
	yes, no := true, false
	cur := &config.Curation{
		Labels:        []string{"untrusted"},
		DefaultLabels: []string{"private"},
		Overrides: map[string]config.Override{
			"post":             {Labels: []string{"egress", "untrusted"}},
			"notes://all":      {Labels: []string{"private"}},
			"All notes":        {Labels: []string{"private"}},
			"mail://inbox":     {Labels: []string{"private"}},
			"Inbox":            {Labels: []string{"untrusted"}},
			"described_only":   {Description: "x"},
			"renamed_unlabeld": {Name: "other"},
		},
	}
	for _, tc := range []struct {
		names []string
		want  string
		err   string
	}{
		{names: []string{"post"}, want: "egress,untrusted"},
		{names: []string{"search"}, want: "untrusted"},         // the source's labels
		{names: []string{"described_only"}, want: "untrusted"}, // an override without labels keeps them
		{names: []string{"notes://all", "All notes"}, want: "private"},
		{names: []string{"mail://inbox", "Inbox"}, err: `overrides "mail://inbox" and "Inbox" both label it`},
	} {
		got, err := labelsFor(cur, nil, tc.names...)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%v: error %v, want %q", tc.names, err, tc.err)
			}
			continue
		}
		if err != nil || strings.Join(got, ",") != tc.want {
			t.Errorf("%v: %v %v, want %s", tc.names, got, err, tc.want)
		}
	}
	// Without labels of its own, the derived ones; with from_annotations,
	// a tool's annotations instead.
	derived := &config.Curation{DefaultLabels: []string{"private"}}
	if got, _ := labelsFor(derived, &mcp.ToolAnnotation{}, "x"); !slices.Equal(got, []string{"private"}) {
		t.Errorf("derived: %v", got)
	}
	ann := &config.Curation{FromAnnotations: true}
	for _, tc := range []struct {
		a    mcp.ToolAnnotation
		want string
	}{
		{mcp.ToolAnnotation{}, "untrusted,egress"}, // MCP's defaults: open world, not read-only
		{mcp.ToolAnnotation{ReadOnlyHint: &yes}, "untrusted"},
		{mcp.ToolAnnotation{OpenWorldHint: &yes, ReadOnlyHint: &no, DestructiveHint: &yes}, "untrusted,egress"},
		{mcp.ToolAnnotation{OpenWorldHint: &no}, "private"},
		{mcp.ToolAnnotation{OpenWorldHint: &no, DestructiveHint: &yes}, "private"},
	} {
		got, _ := labelsFor(ann, &tc.a, "x")
		if strings.Join(got, ",") != tc.want {
			t.Errorf("annotations %+v: %v, want %s", tc.a, got, tc.want)
		}
	}
	if got, _ := labelsFor(nil, nil, "x"); got != nil {
		t.Errorf("no curation: %v", got)
	}
}
