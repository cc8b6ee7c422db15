// Command describe is a wasmgate example interceptor
// (docs/interceptors.md): in the response phase of tools/list (or
// prompts/list, resources/list) it rewrites the entries' descriptions and
// hides entries by name.
//
// Its config (interceptors[].config):
//
//	prefix   put before every description (once: a description that
//	         already starts with it is left as it is)
//	replace  a map of strings to replace in descriptions by others
//	hide     name globs (path.Match: *, ?, [a-z]); an entry whose name
//	         matches one is dropped from the list
//
// It only drops entries and rewrites descriptions; it never adds or
// renames one (the gateway refuses a list that does). A list it leaves
// unchanged is answered continue.
//
// Build it as the example plugins are (make plugins):
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o describe.wasm ./examples/interceptors/describe
package main

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

func main() {}

// Config is the interceptor's config: section.
type Config struct {
	Prefix  string            `json:"prefix"`
	Replace map[string]string `json:"replace"`
	Hide    []string          `json:"hide"`
}

// Rewriter applies a Config to list entries.
type Rewriter struct {
	prefix   string
	replacer *strings.Replacer // nil without replace
	hide     []string
}

// NewRewriter returns the Rewriter cfg describes, or an error for a
// malformed glob or an empty string to replace.
func NewRewriter(cfg Config) (*Rewriter, error) {
	r := &Rewriter{prefix: cfg.Prefix, hide: cfg.Hide}
	for _, g := range cfg.Hide {
		if _, err := path.Match(g, ""); err != nil {
			return nil, fmt.Errorf("describe: hide %q: %w", g, err)
		}
	}
	if len(cfg.Replace) > 0 {
		// Longer strings first, so that of two that start at the same
		// place the longer is replaced; then in order, to be
		// deterministic.
		olds := make([]string, 0, len(cfg.Replace))
		for old := range cfg.Replace {
			if old == "" {
				return nil, fmt.Errorf("describe: replace: an empty string cannot be replaced")
			}
			olds = append(olds, old)
		}
		slices.SortFunc(olds, func(a, b string) int {
			if len(a) != len(b) {
				return len(b) - len(a)
			}
			return strings.Compare(a, b)
		})
		pairs := make([]string, 0, 2*len(olds))
		for _, old := range olds {
			pairs = append(pairs, old, cfg.Replace[old])
		}
		r.replacer = strings.NewReplacer(pairs...)
	}
	return r, nil
}

// Hidden reports whether an entry named name is dropped.
func (r *Rewriter) Hidden(name string) bool {
	for _, g := range r.hide {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}

// Description returns desc rewritten.
func (r *Rewriter) Description(desc string) string {
	if r.replacer != nil {
		desc = r.replacer.Replace(desc)
	}
	if r.prefix != "" && !strings.HasPrefix(desc, r.prefix) {
		desc = r.prefix + desc
	}
	return desc
}

// Rewrite drops the hidden entries and rewrites the descriptions of the
// others (an entry without one gets none), in place; it returns the
// entries kept and whether anything changed.
func (r *Rewriter) Rewrite(entries []map[string]any) ([]map[string]any, bool) {
	kept := entries[:0:0]
	changed := false
	for _, e := range entries {
		if name, _ := e["name"].(string); r.Hidden(name) {
			changed = true
			continue
		}
		if d, ok := e["description"].(string); ok {
			if nd := r.Description(d); nd != d {
				e["description"] = nd
				changed = true
			}
		}
		kept = append(kept, e)
	}
	return kept, changed
}
