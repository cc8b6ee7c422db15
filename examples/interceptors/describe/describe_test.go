package main

import (
	"slices"
	"testing"
)

func TestRewrite(t *testing.T) {
	r, err := NewRewriter(Config{
		Prefix:  "[internal] ",
		Replace: map[string]string{"GitHub": "GitHub Enterprise", "Git": "git", "delete": "permanently delete"},
		Hide:    []string{"admin_*", "debug?"},
	})
	if err != nil {
		t.Fatal(err)
	}
	entries := []map[string]any{
		{"name": "create_issue", "description": "Opens a GitHub issue"},
		{"name": "admin_reset", "description": "Resets everything"},
		{"name": "debug1"},
		{"name": "debug10", "description": "[internal] Git delete"},
		{"name": "no_description"},
	}
	kept, changed := r.Rewrite(entries)
	if !changed {
		t.Error("not changed")
	}
	var names, descs []string
	for _, e := range kept {
		names = append(names, e["name"].(string))
		d, _ := e["description"].(string)
		descs = append(descs, d)
	}
	if want := []string{"create_issue", "debug10", "no_description"}; !slices.Equal(names, want) {
		t.Errorf("kept %q, want %q", names, want)
	}
	if want := []string{"[internal] Opens a GitHub Enterprise issue", "[internal] git permanently delete", ""}; !slices.Equal(descs, want) {
		t.Errorf("descriptions %q, want %q", descs, want)
	}
	if _, ok := kept[2]["description"]; ok {
		t.Error("an entry without a description got one")
	}
	// Applied again, the prefix is not doubled; only replace's own
	// outputs change again ("GitHub Enterprise" holds "GitHub").
	if _, changed := r.Rewrite([]map[string]any{{"name": "a", "description": "[internal] x"}}); changed {
		t.Error("prefix applied twice")
	}
}

func TestNewRewriterErrors(t *testing.T) {
	if _, err := NewRewriter(Config{Hide: []string{"[a-"}}); err == nil {
		t.Error("malformed glob: no error")
	}
	if _, err := NewRewriter(Config{Replace: map[string]string{"": "x"}}); err == nil {
		t.Error("empty string to replace: no error")
	}
	r, err := NewRewriter(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, changed := r.Rewrite([]map[string]any{{"name": "a", "description": "b"}}); changed {
		t.Error("an empty config changed a list")
	}
}
