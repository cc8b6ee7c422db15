// Package plural writes counts of things in English: "1 plugin",
// "2 plugins", "0 prompts".
package plural

import "fmt"

// N is n and noun, plural unless n is 1: the plural adds "s" ("resource
// template" -> "resource templates").
func N(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
