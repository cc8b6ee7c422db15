package importer

import (
	"path"
	"slices"
	"strings"
)

// runtimeCaches are the folders a package runner keeps its downloads in,
// which a sandboxed command must be able to write.
var runtimeCaches = map[string][]string{
	"npx":  {"~/.npm"},
	"npm":  {"~/.npm"},
	"pnpm": {"~/.cache/pnpm", "~/.local/share/pnpm"},
	"yarn": {"~/.cache/yarn"},
	"bunx": {"~/.bun"},
	"uvx":  {"~/.cache/uv", "~/.local/share/uv"},
	"uv":   {"~/.cache/uv", "~/.local/share/uv"},
	"pipx": {"~/.cache/pip", "~/.local/pipx"},
	"dnx":  {"~/.nuget"},
}

// scripts are the extensions of programs a runtime is given to run.
var scripts = map[string]bool{".js": true, ".mjs": true, ".cjs": true, ".ts": true, ".py": true, ".jar": true, ".dll": true, ".rb": true}

// runners download the package they run at start.
var runners = []string{"npx", "pnpm", "yarn", "bunx", "uvx", "uv", "pipx", "dnx"}

// suggestSandbox is a sandbox that should let command run: the system's
// programs and certificates to read, the folders it was given and its
// package manager's cache to write, and the network if it downloads its
// package at start. Nil for a command whose server runs elsewhere
// (docker, podman), where Landlock on the client confines nothing.
func suggestSandbox(command []string) *Sandbox {
	if len(command) == 0 {
		return nil
	}
	prog := path.Base(command[0])
	switch prog {
	case "docker", "podman", "nerdctl":
		return nil
	}
	sb := &Sandbox{Read: []string{"/usr", "/etc"}, Network: "false"}
	sb.Write = append(sb.Write, runtimeCaches[prog]...)
	var folders []string
	for _, a := range command[1:] {
		if _, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "-") {
			a = v
		}
		if !path.IsAbs(a) && !strings.HasPrefix(a, "~/") {
			continue
		}
		a = path.Clean(a)
		switch {
		case scripts[path.Ext(a)]:
			// The program's own code: read, not written.
			if !slices.Contains(sb.Read, a) {
				sb.Read = append(sb.Read, a)
			}
		case !slices.Contains(folders, a):
			folders = append(folders, a)
		}
	}
	sb.Write = append(sb.Write, folders...)
	var why []string
	if len(folders) > 0 {
		why = append(why, "the paths it was given")
	}
	if len(runtimeCaches[prog]) > 0 {
		why = append(why, prog+"'s cache")
	}
	if slices.Contains(runners, prog) {
		sb.Network = "[443]"
		why = append(why, "HTTPS: "+prog+" downloads the package at start (install it instead to run with network: false)")
	} else {
		why = append(why, "no network (if it needs one, network: true or a list of ports)")
	}
	sb.Why = strings.Join(why, "; ")
	return sb
}
