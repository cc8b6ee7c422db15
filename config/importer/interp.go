package importer

import (
	"fmt"
	"regexp"
	"strings"
)

// The ${...} variables of VS Code's and Cursor's configs (${env:NAME},
// ${input:id}, ${userHome}) and what each becomes in gateway.yaml.

// interp is how a client's ${...} variables in one string translate.
type interp struct {
	format Format
	inputs map[string]vsInput
	home   string
}

var varRef = regexp.MustCompile(`\$\{([^}]*)\}`)

// ref is one ${...} in a string: an environment variable (env:NAME), an
// input (input:id) or a predefined variable.
type ref struct {
	kind string // "env", "input" or "other"
	name string
	in   vsInput
}

// refs are the ${...} of s the client would replace (none for Claude
// Desktop, which replaces nothing).
func (ip interp) refs(s string) []ref {
	if ip.format == FormatClaude {
		return nil
	}
	var out []ref
	for _, m := range varRef.FindAllStringSubmatch(s, -1) {
		v := m[1]
		switch {
		case strings.HasPrefix(v, "env:"):
			out = append(out, ref{kind: "env", name: strings.TrimPrefix(v, "env:")})
		case strings.HasPrefix(v, "input:") && ip.format == FormatVSCode:
			id := strings.TrimPrefix(v, "input:")
			out = append(out, ref{kind: "input", name: id, in: ip.inputs[id]})
		default:
			out = append(out, ref{kind: "other", name: v})
		}
	}
	return out
}

// literal is s with what can be replaced here replaced: ${userHome} (and
// ${/}, ${pathSeparator}); ok false when another ${...} remains.
func (ip interp) literal(s string) (string, bool) {
	if ip.format == FormatClaude {
		return s, true
	}
	ok := true
	out := varRef.ReplaceAllStringFunc(s, func(m string) string {
		switch v := m[2 : len(m)-1]; {
		case v == "userHome" && ip.home != "":
			return ip.home
		case v == "/" || v == "pathSeparator":
			return "/"
		case strings.HasPrefix(v, "input:"):
			if in, found := ip.inputs[strings.TrimPrefix(v, "input:")]; found && !in.Password && in.Default != "" {
				return in.Default
			}
		}
		ok = false
		return m
	})
	return out, ok
}

func refNames(rs []ref) []string {
	var out []string
	for _, r := range rs {
		switch r.kind {
		case "other":
			out = append(out, "${"+r.name+"}")
		default:
			out = append(out, "${"+r.kind+":"+r.name+"}")
		}
	}
	return out
}

// envVar is the variable k of value v: a literal, or the gateway's own
// variable when v is (or refers to) a secret.
func (ip interp) envVar(k, v string) EnvVar {
	refs := ip.refs(v)
	if len(refs) == 1 && refs[0].kind == "env" && v == "${env:"+refs[0].name+"}" {
		e := EnvVar{Name: k, FromEnv: true, Note: "set " + k + " in the gateway's environment"}
		if refs[0].name != k {
			e.Note += " (the client read it from " + refs[0].name + ")"
		}
		return e
	}
	if len(refs) == 1 && refs[0].kind == "input" {
		in := refs[0].in
		if lit, ok := ip.literal(v); ok && !IsSecret(k, lit) {
			return EnvVar{Name: k, Value: lit, Note: fmt.Sprintf("the default of input %q", in.ID)}
		}
		note := fmt.Sprintf("set %s in the gateway's environment (VS Code asked for it: input %q", k, refs[0].name)
		if in.Description != "" {
			note += ", " + fmt.Sprintf("%q", in.Description)
		}
		return EnvVar{Name: k, FromEnv: true, Note: note + ")"}
	}
	lit, ok := ip.literal(v)
	switch {
	case !ok:
		return EnvVar{Name: k, FromEnv: true, Note: fmt.Sprintf("set %s in the gateway's environment (the client built it from %s)", k, strings.Join(refNames(refs), ", "))}
	case IsSecret(k, lit) || placeholder(lit):
		return EnvVar{Name: k, FromEnv: true, Note: "a secret: set " + k + " in the gateway's environment (the value in the file is not copied)"}
	}
	return EnvVar{Name: k, Value: lit}
}

// placeholder reports whether v is a value left for the user to fill in
// ("<token>", "YOUR_API_KEY", "${GITHUB_TOKEN}").
func placeholder(v string) bool {
	u := strings.ToUpper(v)
	return strings.HasPrefix(v, "<") && strings.HasSuffix(v, ">") || strings.Contains(u, "YOUR_") || strings.Contains(u, "YOUR-") || strings.HasPrefix(v, "${") && strings.HasSuffix(v, "}")
}
