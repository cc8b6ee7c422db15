// Command argguard is a wasmgate example interceptor
// (docs/interceptors.md): in the request phase of tools/call it denies
// arguments that reach outside a directory or smuggle shell syntax.
//
// Its config (interceptors[].config):
//
//	root           a directory (absolute); the arguments named in
//	               path_args must, cleaned, name it or a path under it.
//	               A relative path is taken relative to root. Without
//	               root, paths are not checked.
//	path_args      the argument names that hold paths (a string, or an
//	               array of strings); by default path
//	no_shell_meta  when true, deny any string argument, at any depth,
//	               that holds one of ; | & $ ` < > or a line break
//
// It checks the path as written: it cannot see the source's file system,
// so a symbolic link under root that points outside it is the source's
// to refuse (server-filesystem does).
//
// Build it as the example plugins are (make plugins):
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o argguard.wasm ./examples/interceptors/argguard
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
)

func main() {}

// Config is the interceptor's config: section.
type Config struct {
	Root        string   `json:"root"`
	PathArgs    []string `json:"path_args"`
	NoShellMeta bool     `json:"no_shell_meta"`
}

// Guard checks a call's arguments.
type Guard struct {
	root        string
	pathArgs    []string
	noShellMeta bool
}

// NewGuard returns the Guard cfg describes.
func NewGuard(cfg Config) (*Guard, error) {
	g := &Guard{pathArgs: cfg.PathArgs, noShellMeta: cfg.NoShellMeta}
	if len(g.pathArgs) == 0 {
		g.pathArgs = []string{"path"}
	}
	if cfg.Root != "" {
		if !path.IsAbs(cfg.Root) {
			return nil, fmt.Errorf("argguard: root %q is not an absolute path", cfg.Root)
		}
		g.root = path.Clean(cfg.Root)
	}
	return g, nil
}

// shellMeta are the bytes no_shell_meta refuses.
const shellMeta = ";|&$`<>\n\r"

// Check returns why args (a JSON object) are refused, or nil.
func (g *Guard) Check(args json.RawMessage) error {
	if len(args) == 0 {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(args, &m); err != nil {
		return fmt.Errorf("the arguments are not a JSON object: %w", err)
	}
	if g.root != "" {
		for _, name := range g.pathArgs {
			v, ok := m[name]
			if !ok || v == nil {
				continue
			}
			if err := g.checkPaths(name, v); err != nil {
				return err
			}
		}
	}
	if g.noShellMeta {
		names := make([]string, 0, len(m))
		for k := range m {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, name := range names {
			if err := checkShell(name, m[name]); err != nil {
				return err
			}
		}
	}
	return nil
}

func (g *Guard) checkPaths(name string, v any) error {
	switch v := v.(type) {
	case string:
		if !g.Under(v) {
			return fmt.Errorf("argument %s: %q is outside %s", name, v, g.root)
		}
		return nil
	case []any:
		for i, e := range v {
			s, ok := e.(string)
			if !ok {
				return fmt.Errorf("argument %s[%d] is not a string", name, i)
			}
			if !g.Under(s) {
				return fmt.Errorf("argument %s[%d]: %q is outside %s", name, i, s, g.root)
			}
		}
		return nil
	}
	return fmt.Errorf("argument %s is not a path", name)
}

// Under reports whether p, cleaned (relative to the root if it is
// relative), is the root or a path under it.
func (g *Guard) Under(p string) bool {
	if p == "" || strings.IndexByte(p, 0) >= 0 {
		return false
	}
	if !path.IsAbs(p) {
		p = path.Join(g.root, p)
	}
	p = path.Clean(p)
	return p == g.root || g.root == "/" || strings.HasPrefix(p, g.root+"/")
}

var errShell = errors.New("holds a shell metacharacter")

// checkShell refuses a string at any depth of v holding a shell
// metacharacter.
func checkShell(name string, v any) error {
	switch v := v.(type) {
	case string:
		if i := strings.IndexAny(v, shellMeta); i >= 0 {
			return fmt.Errorf("argument %s %w (%q)", name, errShell, v[i:i+1])
		}
	case []any:
		for i, e := range v {
			if err := checkShell(fmt.Sprintf("%s[%d]", name, i), e); err != nil {
				return err
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if err := checkShell(name+"."+k, v[k]); err != nil {
				return err
			}
		}
	}
	return nil
}
