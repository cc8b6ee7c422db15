package search

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// appendWords appends each lowercased word of s to dst.
func appendWords(dst []string, s string) []string {
	n := len(dst)
	dst = appendRawWords(dst, s)
	for i := n; i < len(dst); i++ {
		dst[i] = lower(dst[i])
	}
	return dst
}

// appendRawWords appends each word of s to dst, as it is in s. Words are runs of
// letters and digits, further split at the boundaries that identifiers
// use: "_", "-", "." and any other punctuation or space, a lower-to-upper
// case change ("readFile" -> read, file), the end of an upper-case run
// followed by a capitalised word ("HTTPServer" -> http, server), and a
// letter-digit change ("s3bucket" -> s, 3, bucket). A run split at a case
// or digit change is also a word as a whole, after its parts: brands and
// products are written both ways ("GitHub" and "github", "S3" as s3), and
// a query in one spelling should find a doc in the other.
func appendRawWords(dst []string, s string) []string {
	start := -1 // byte offset of the current word, -1 when between words
	run := -1   // byte offset of the current run of letters and digits
	parts := 0  // words emitted in the current run
	var prev, prevPrev rune
	emit := func(end int) {
		if start >= 0 && end > start {
			dst = append(dst, s[start:end])
			parts++
		}
		start = -1
	}
	endRun := func(end int) {
		emit(end)
		if parts > 1 {
			dst = append(dst, s[run:end])
		}
		run, parts = -1, 0
	}
	for i, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			endRun(i)
			prev, prevPrev = 0, 0
			continue
		}
		if start < 0 {
			start = i
			run = i
		} else {
			switch {
			case unicode.IsDigit(r) != unicode.IsDigit(prev):
				emit(i)
				start = i
			case unicode.IsUpper(r) && unicode.IsLower(prev):
				emit(i)
				start = i
			case unicode.IsLower(r) && unicode.IsUpper(prev) && unicode.IsUpper(prevPrev):
				// "HTTPServer": the word began at the last upper-case letter.
				p := i - utf8.RuneLen(prev)
				emit(p)
				start = p
			}
		}
		prevPrev, prev = prev, r
	}
	endRun(len(s))
	return dst
}

// lower is strings.ToLower without the allocation for words that are
// already lower-case ASCII, the common case.
func lower(w string) string {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') {
			return strings.ToLower(w)
		}
	}
	return w
}

// stopwords are dropped from documents and queries: function words, and
// the conversational filler of requests written to an assistant ("can you
// please show me ..."). The list is deliberately small: words that name
// an action or an object stay.
var stopwords = map[string]bool{
	"a": true, "about": true, "all": true, "an": true, "and": true, "any": true,
	"are": true, "as": true, "at": true, "be": true, "been": true, "but": true,
	"by": true, "can": true, "could": true, "do": true, "does": true, "for": true,
	"from": true, "had": true, "has": true, "have": true, "i": true, "if": true,
	"in": true, "into": true, "is": true, "it": true, "its": true, "i'd": true,
	"me": true, "my": true, "of": true, "on": true, "or": true, "our": true,
	"please": true, "should": true, "so": true, "some": true, "that": true,
	"the": true, "their": true, "them": true, "then": true, "there": true,
	"these": true, "this": true, "those": true, "to": true, "us": true,
	"was": true, "we": true, "were": true, "what": true, "which": true,
	"who": true, "will": true, "with": true, "would": true, "you": true,
	"your": true, "want": true, "need": true, "let": true, "s": true,
	"how": true, "when": true, "where": true, "why": true, "just": true,
	"also": true, "here": true, "than": true, "too": true, "very": true,
}

// stemmer maps words to stems. Stemming the same word many times is the
// bulk of indexing, so a stemmer remembers what it has done; one is made
// per Build or per query, never shared.
type stemmer map[string]string

func (st stemmer) stem(w string) string {
	if s, ok := st[w]; ok {
		return s
	}
	s := stemWord(w)
	st[w] = s
	return s
}

// stemWord is the English (Porter2) stem of a lowercased word. Digits and
// words of two letters or fewer are kept as they are.
func stemWord(w string) string {
	if len(w) <= 2 || !unicode.IsLetter(rune(w[0])) {
		return w
	}
	return english.Stem(w, true)
}

// terms calls fn with the stem of every word of s that is not a stopword.
func (st stemmer) terms(s string, fn func(term string)) {
	for _, w := range appendWords(nil, s) {
		if !stopwords[w] {
			fn(st.stem(w))
		}
	}
}

// synonymGroups are generic verb families (and a few near-universal
// nouns) of tool catalogs: a query word also finds its group's other
// words, at synonymWeight of the word's own weight. The groups are about
// what tools do in general, not about any one catalog; keep them so: a
// family belongs here when a thesaurus gives it for the general
// vocabulary of software tools. A word may be in several groups. An
// entry of several words ("pull request") is found, word by word, for
// the group's other words, but does not itself find them (its words are
// too common alone).
var synonymGroups = [][]string{
	{"remove", "delete", "erase", "drop", "destroy", "discard", "forget"},
	{"create", "make", "add", "new", "insert", "generate"},
	{"get", "fetch", "read", "retrieve", "show", "view", "display", "open", "load"},
	{"list", "enumerate", "browse"},
	{"search", "find", "lookup", "query", "locate", "look"},
	{"write", "save", "store", "put", "persist", "remember"},
	{"edit", "modify", "update", "change", "alter", "set"},
	{"run", "execute", "exec", "invoke", "call", "launch", "start"},
	{"move", "rename", "relocate"},
	{"copy", "duplicate", "clone"},
	{"stop", "cancel", "halt", "terminate", "kill", "abort"},
	{"send", "post", "publish", "submit", "tell"},
	{"comment", "reply", "respond"},
	{"close", "quit", "exit"},
	{"navigate", "go", "visit"},
	{"upload", "attach"},
	{"type", "enter", "input"},
	{"user", "member", "people", "person"},
	{"issue", "bug", "ticket"},
	{"directory", "folder", "dir"},
	{"info", "information", "details", "metadata", "stats"},

	// Arithmetic: the operators' words and their names. ("times" and
	// "product" are left out: their stems are "time" and a commerce noun.)
	{"add", "plus", "sum", "addition"},
	{"subtract", "minus", "difference", "subtraction"},
	{"multiply", "multiplication"},
	{"divide", "division", "quotient"},
	// General nouns and adjectives of tool vocabularies.
	{"upper", "uppercase", "caps", "capital", "capitalize"},
	{"lower", "lowercase"},
	{"address", "location", "place"},
	{"elevation", "altitude", "height", "high"},
	{"size", "big", "large"},
	{"dialog", "popup", "modal", "alert"},
	{"repository", "repo", "project"},
	{"pr", "pull request"},
	{"memory", "remember", "recall", "memorize"},
	{"entire", "whole", "everything", "complete", "full"},
	{"recent", "latest", "lately"},
	{"image", "picture", "photo"},
}

// synonymWeight is how much a synonym counts against the word itself.
const synonymWeight = 0.6

// synonyms maps each stem to the stems of its group's other words.
func synonyms() map[string][]string {
	st := stemmer{}
	m := map[string][]string{}
	for _, g := range synonymGroups {
		entries := make([][]string, 0, len(g))
		for _, e := range g {
			var stems []string
			st.terms(e, func(t string) { stems = append(stems, t) })
			entries = append(entries, stems)
		}
		for i, e := range entries {
			if len(e) != 1 {
				continue // a phrase is found, not a finder
			}
			s := e[0]
			for j, o := range entries {
				for _, t := range o {
					if j != i && t != s && !contains(m[s], t) {
						m[s] = append(m[s], t)
					}
				}
			}
		}
	}
	return m
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
