package ops

import (
	"maps"
	"slices"

	"github.com/wasmgate/wasmgate/gateway/source"
)

// SourcesOf lists every source of srcs (in config order; dynamic says
// which ones only show once they provide something or report health)
// with what it provides in x and the problems it had.
func SourcesOf(srcs []source.Source, dynamic func(source.Source) bool, x *source.Index, problems map[string][]string) []SourceStatus {
	byName := map[string]*SourceStatus{}
	var order []string
	get := func(src source.Source) *SourceStatus {
		if ss, ok := byName[src.Name()]; ok {
			return ss
		}
		ss := &SourceStatus{Name: src.Name(), Kind: source.KindOf(src), Declared: src.Key(), Tools: []string{}, Resources: []string{}, Templates: []string{}, Prompts: []string{}}
		if r, ok := src.(source.StatusReporter); ok {
			ss.Status = r.Status()
		}
		byName[src.Name()] = ss
		order = append(order, src.Name())
		return ss
	}
	for _, src := range srcs { // static sources in config order, even those providing nothing
		if _, health := src.(source.StatusReporter); !dynamic(src) || health { // an upstream not connected yet too
			get(src)
		}
	}
	for _, n := range slices.Sorted(maps.Keys(x.Tools)) {
		ss := get(x.Tools[n].Src)
		ss.Tools = append(ss.Tools, n)
	}
	for _, n := range slices.Sorted(maps.Keys(x.Resources)) {
		ss := get(x.Resources[n].Src)
		ss.Resources = append(ss.Resources, n)
	}
	for _, n := range slices.Sorted(maps.Keys(x.Templates)) {
		ss := get(x.Templates[n].Src)
		ss.Templates = append(ss.Templates, n)
	}
	for _, n := range slices.Sorted(maps.Keys(x.Prompts)) {
		ss := get(x.Prompts[n].Src)
		ss.Prompts = append(ss.Prompts, n)
	}
	for name, p := range problems {
		if ss, ok := byName[name]; ok {
			ss.Problems = p
		}
	}
	for _, src := range srcs { // what a source refused itself (a page's resource outside its namespace)
		if pr, ok := src.(source.ProblemReporter); ok {
			if p := pr.Problems(); len(p) > 0 {
				ss := get(src)
				ss.Problems = append(slices.Clone(p), ss.Problems...)
			}
		}
	}
	out := make([]SourceStatus, 0, len(order))
	for _, n := range order {
		out = append(out, *byName[n])
	}
	return out
}
