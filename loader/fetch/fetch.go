// Package fetch gets plugin modules from where the config says they are.
// A Fetcher handles one kind of source; a Registry picks the Fetcher by the
// source's URL scheme. Local files are the only source today (a plain
// path); OCI registries and https would each be another Fetcher,
// registered in loader/registry.go.
package fetch

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Spec names the module to fetch.
type Spec struct {
	Plugin string // the plugin's name, for errors
	Key    string // where the plugin is declared, e.g. "plugins[2]", for errors
	Source string // a file path, or a URL
	SHA256 string // the pinned hex SHA-256 of the module, or ""
}

// Module is a fetched module.
type Module struct {
	Data   []byte
	SHA256 string   // hex SHA-256 of Data
	Watch  []string // local paths whose change means the module may have changed
}

// Fetcher gets the module a Spec names and checks it against the pin.
type Fetcher interface {
	Fetch(ctx context.Context, spec Spec) (Module, error)
}

// Registry maps a URL scheme to the Fetcher of sources with that scheme.
// The empty scheme is a plain path.
type Registry map[string]Fetcher

// Fetch fetches spec with the Fetcher of its source's scheme.
func (r Registry) Fetch(ctx context.Context, spec Spec) (Module, error) {
	scheme := Scheme(spec.Source)
	f, ok := r[scheme]
	if !ok {
		var known []string
		for _, s := range slices.Sorted(maps.Keys(r)) {
			if s != "" {
				known = append(known, s+"://")
			}
		}
		supported := "only file paths are supported"
		if len(known) > 0 {
			supported = "supported: file paths, " + strings.Join(known, ", ")
		}
		return Module{}, fmt.Errorf("plugin %q (%s): %s: unsupported source scheme %q (%s)", spec.Plugin, spec.Key, spec.Source, scheme, supported)
	}
	return f.Fetch(ctx, spec)
}

// Scheme returns the URL scheme of source ("oci" for "oci://..."), or ""
// when source is a plain path.
func Scheme(source string) string {
	scheme, _, ok := strings.Cut(source, "://")
	if !ok || scheme == "" {
		return ""
	}
	for i, c := range scheme {
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || !('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return ""
		}
	}
	return strings.ToLower(scheme)
}
