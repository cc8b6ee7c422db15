package importer

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Render writes the upstreams: section for rs (names assigned).
func Render(w io.Writer, rs []*Result) error {
	var b strings.Builder
	b.WriteString("upstreams:\n")
	b.WriteString(Items(rs, "  "))
	_, err := io.WriteString(w, b.String())
	return err
}

// Items is the entries of upstreams: for rs, as YAML sequence items
// indented by indent, with their comments; the servers not imported are
// comments after them.
func Items(rs []*Result, indent string) string {
	var b strings.Builder
	line := func(depth int, format string, args ...any) {
		b.WriteString(indent)
		b.WriteString(strings.Repeat("  ", depth))
		fmt.Fprintf(&b, format, args...)
		b.WriteByte('\n')
	}
	for _, r := range rs {
		line(0, "# imported by wasmgate import from %s (%s)", comment(r.File), r.Format)
		for _, s := range r.Servers {
			line(0, "# %s", comment(s.From))
			for _, n := range s.Notes {
				line(0, "# %s", comment(n))
			}
			line(0, "- name: %s", scalar(s.Name))
			if len(s.Command) > 0 {
				line(1, "command: %s", flowList(s.Command))
				var lit, from []EnvVar
				for _, e := range s.Env {
					if e.FromEnv {
						from = append(from, e)
					} else {
						lit = append(lit, e)
					}
				}
				if len(lit) > 0 {
					line(1, "env:")
					for _, e := range lit {
						line(2, "%s: %s%s", scalar(e.Name), scalar(e.Value), lineComment(e.Note))
					}
				}
				if len(from) > 0 {
					line(1, "env_from:")
					for _, e := range from {
						line(2, "- %s%s", scalar(e.Name), lineComment(e.Note))
					}
				}
				if s.Cwd != "" {
					line(1, "cwd: %s", scalar(s.Cwd))
				}
			} else {
				line(1, "url: %s", scalar(s.URL))
				if len(s.Headers) > 0 {
					line(1, "headers:")
					for _, h := range s.Headers {
						line(2, "%s: %s", scalar(h.Name), scalar(h.Value))
					}
				}
				if s.BearerEnv != "" {
					line(1, "auth: {bearer_env: %s}%s", scalar(s.BearerEnv), lineComment(s.BearerNote))
				}
			}
			if s.Start != "" {
				line(1, "start: %s", scalar(s.Start))
			}
			line(1, "prefix: %s", scalar(s.Name))
			for _, n := range s.NotImported {
				line(1, "# not imported: %s", comment(n))
			}
			if sb := s.Sandbox; sb != nil {
				line(1, "# suggested sandbox, a suggestion to check before uncommenting: %s", comment(sb.Why))
				line(1, "# sandbox:")
				line(1, "#   read: %s", flowList(sb.Read))
				if len(sb.Write) > 0 {
					line(1, "#   write: %s", flowList(sb.Write))
				}
				line(1, "#   network: %s", sb.Network)
			} else if len(s.Command) > 0 {
				line(1, "# no sandbox suggested: %s runs the server outside this process tree; confine it with the container's own options", comment(s.Command[0]))
			}
		}
		for _, sk := range r.Skipped {
			line(0, "# not imported: %s", comment(sk))
		}
	}
	return b.String()
}

// comment is s fit for one comment line.
func comment(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\x00", "")), " ")
}

func lineComment(s string) string {
	if s == "" {
		return ""
	}
	return "   # " + comment(s)
}

// scalar is s as a YAML scalar: plain when YAML reads it back as the same
// string anywhere (block or flow), else double-quoted.
func scalar(s string) string {
	if plainSafe(s) {
		return s
	}
	// A JSON string is a YAML double-quoted scalar.
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

func plainSafe(s string) bool {
	if s == "" || strings.ContainsAny(s, ",[]{}#&*!|>'\"%@`\\\t\n\r") || strings.Contains(s, ": ") || strings.HasSuffix(s, ":") ||
		strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") || strings.HasPrefix(s, "- ") || strings.HasPrefix(s, "?") || s == "-" {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r > 0x7e {
			return false
		}
	}
	var v any
	if err := yaml.Unmarshal([]byte("["+s+"]"), &v); err != nil {
		return false
	}
	l, ok := v.([]any)
	return ok && len(l) == 1 && l[0] == s
}

func flowList(l []string) string {
	parts := make([]string, len(l))
	for i, s := range l {
		parts[i] = scalar(s)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
