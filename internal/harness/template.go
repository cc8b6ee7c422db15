package harness

import "strings"

// ExpandTemplate replaces each {expression} of a URI template with v,
// the way glob.Template reads a template (an unclosed '{' is literal),
// for fuzz tests that check template matching on expansions.
func ExpandTemplate(tmpl, v string) string {
	var b strings.Builder
	for i := 0; i < len(tmpl); {
		if tmpl[i] == '{' {
			if j := strings.IndexByte(tmpl[i:], '}'); j >= 0 {
				b.WriteString(v)
				i += j + 1
				continue
			}
		}
		b.WriteByte(tmpl[i])
		i++
	}
	return b.String()
}
