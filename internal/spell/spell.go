// Package spell finds the word a person most likely meant: the known key
// nearest a misspelt one in a configuration, the tool nearest a name
// that is not there.
package spell

import (
	"slices"
	"strings"
)

// Distance is the Levenshtein distance between a and b, case-insensitive.
func Distance(a, b string) int {
	ra, rb := []rune(strings.ToLower(a)), []rune(strings.ToLower(b))
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// Nearest is the word of known nearest word, if it is near enough to be
// a slip of the keyboard: at most 2 edits, and fewer than a third of
// word's letters (rounded up) for a short word. Of two as near, the first
// in sorted order; "" when none is near.
func Nearest(word string, known []string) string {
	best, bestD := "", 0
	limit := min(2, (len([]rune(word))+2)/3)
	for _, k := range slices.Sorted(slices.Values(known)) {
		if d := Distance(word, k); k != word && d <= limit && (best == "" || d < bestD) {
			best, bestD = k, d
		}
	}
	return best
}
