package endpoint

import (
	"context"
	"encoding/json"
	"fmt"
)

// interceptList has the interceptors of the list method (its result's
// field, e.g. "tools") see list, the caller's: an interceptor may drop
// entries or rewrite them, never add one or rename one (name is an
// entry's identity: a tool's or prompt's name, a resource's URI, a
// template's URI template). A list an interceptor refused is empty.
func interceptList[T any](ctx context.Context, e *Endpoint, p *published, method, field string, list []T, name func(T) string) []T {
	if !e.env.ListIntercepted(p, method) {
		return list // nothing to encode it for
	}
	raw, err := json.Marshal(map[string][]T{field: list})
	if err != nil {
		return list
	}
	have := make(map[string]bool, len(list))
	for _, x := range list {
		have[name(x)] = true
	}
	parse := func(mod json.RawMessage) ([]T, error) {
		var got map[string][]T
		if err := json.Unmarshal(mod, &got); err != nil {
			return nil, fmt.Errorf("not a %s result: %v", method, err)
		}
		out, ok := got[field]
		if !ok {
			return nil, fmt.Errorf("no %q in the %s result", field, method)
		}
		seen := map[string]bool{}
		for _, x := range out {
			n := name(x)
			if !have[n] {
				return nil, fmt.Errorf("the list has %q, which was not in it: an interceptor may drop or rewrite entries, not add or rename them", n)
			}
			if seen[n] {
				return nil, fmt.Errorf("the list has %q twice", n)
			}
			seen[n] = true
		}
		return out, nil
	}
	out, modified, denied := e.env.InterceptList(ctx, p, method, raw, func(mod json.RawMessage) error {
		_, err := parse(mod)
		return err
	})
	switch {
	case denied != "":
		return []T{}
	case !modified:
		return list
	}
	got, err := parse(out)
	if err != nil { // checked already
		return list
	}
	return got
}
