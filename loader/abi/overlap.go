package abi

import (
	"strings"
	"unicode/utf8"
)

// maxOverlapStates bounds the search of Overlap: two templates it cannot
// tell apart within that many states of its walk are taken to overlap.
const maxOverlapStates = 1 << 12

// Overlap reports whether some URI matches both a and b (Match), and
// gives the shortest such URI. An expression of these templates matches
// one or more characters other than '/', '?' and '#', a literal matches
// itself, so the question has an exact answer: Overlap walks both
// templates at once, character by character (the product of their
// automata; a URI that is not valid UTF-8 matches both only if a valid
// one does: put U+FFFD for each invalid byte), and looks for a way to
// reach both ends. Two templates whose literal
// prefixes (or suffixes) differ are told apart at once. A pair too
// long to decide within maxOverlapStates is taken to overlap, with uri
// "": a caller that refuses overlaps refuses when unsure.
func Overlap(a, b *URITemplate) (uri string, ok bool) {
	first, last := len(a.lits)-1, len(b.lits)-1
	if !prefixes(a.lits[0], b.lits[0]) || !suffixes(a.lits[first], b.lits[last]) {
		return "", false
	}
	w := overlapWalk{a: a.items(), b: b.items(), seen: map[overlapPair]overlapStep{}}
	return w.run()
}

// prefixes reports whether one of x and y starts the other.
func prefixes(x, y string) bool { return strings.HasPrefix(x, y) || strings.HasPrefix(y, x) }

// suffixes reports whether one of x and y ends the other.
func suffixes(x, y string) bool { return strings.HasSuffix(x, y) || strings.HasSuffix(y, x) }

// anyChar stands for an expression among a template's items: one or
// more characters, none of them a separator (sep).
const anyChar rune = -1

// sep reports whether c cannot be part of an expression's value.
func sep(c rune) bool { return c == '/' || c == '?' || c == '#' }

// items is t as a list of literal characters and expressions (anyChar).
func (t *URITemplate) items() []rune {
	out := make([]rune, 0, len(t.Raw))
	for i, lit := range t.lits {
		out = append(out, []rune(lit)...)
		if i < len(t.Vars) {
			out = append(out, anyChar)
		}
	}
	return out
}

// overlapPos is a place in a template's items: before item p, or (in)
// inside the expression at p, having matched at least one character of
// it.
type overlapPos struct {
	p  int32
	in bool
}

// overlapPair is a place in both templates after the same characters.
type overlapPair struct{ a, b overlapPos }

// overlapStep is how the walk first reached a pair: from which pair, by
// which character (none for leaving an expression).
type overlapStep struct {
	from overlapPair
	c    rune
	eps  bool // no character: an expression was left
	root bool
}

// overlapWalk is the breadth-first walk of Overlap.
type overlapWalk struct {
	a, b  []rune
	seen  map[overlapPair]overlapStep
	queue []overlapPair
}

func (w *overlapWalk) run() (string, bool) {
	start := overlapPair{}
	w.seen[start] = overlapStep{root: true}
	w.queue = append(w.queue, start)
	for head := 0; head < len(w.queue); head++ {
		if len(w.seen) > maxOverlapStates {
			return "", true // too large to decide: taken to overlap
		}
		q := w.queue[head]
		if end(w.a, q.a) && end(w.b, q.b) {
			return w.witness(q), true
		}
		if q.a.in {
			w.visit(q, overlapPair{overlapPos{q.a.p + 1, false}, q.b}, overlapStep{eps: true})
		}
		if q.b.in {
			w.visit(q, overlapPair{q.a, overlapPos{q.b.p + 1, false}}, overlapStep{eps: true})
		}
		ca, na, okA := move(w.a, q.a)
		cb, nb, okB := move(w.b, q.b)
		if !okA || !okB {
			continue
		}
		if c, ok := meet(ca, cb); ok {
			w.visit(q, overlapPair{na, nb}, overlapStep{c: c})
		}
	}
	return "", false
}

// visit queues n, reached from q by s, unless it was reached before.
func (w *overlapWalk) visit(q, n overlapPair, s overlapStep) {
	if _, ok := w.seen[n]; ok {
		return
	}
	s.from = q
	w.seen[n] = s
	w.queue = append(w.queue, n)
}

// witness is the characters the walk read to reach q.
func (w *overlapWalk) witness(q overlapPair) string {
	var rev []rune
	for s := w.seen[q]; !s.root; s = w.seen[s.from] {
		if !s.eps {
			rev = append(rev, s.c)
		}
	}
	b := make([]byte, 0, len(rev))
	for i := len(rev) - 1; i >= 0; i-- {
		b = utf8.AppendRune(b, rev[i])
	}
	return string(b)
}

// end reports whether pos is past the last of items.
func end(items []rune, pos overlapPos) bool { return !pos.in && int(pos.p) == len(items) }

// move is the character (or anyChar) that items accepts at pos, and
// where it leads; ok is false at the end.
func move(items []rune, pos overlapPos) (c rune, next overlapPos, ok bool) {
	switch {
	case pos.in:
		return anyChar, pos, true
	case int(pos.p) == len(items):
		return 0, pos, false
	case items[pos.p] == anyChar:
		return anyChar, overlapPos{pos.p, true}, true
	default:
		return items[pos.p], overlapPos{pos.p + 1, false}, true
	}
}

// meet is a character both x and y accept (literal characters or
// anyChar).
func meet(x, y rune) (rune, bool) {
	switch {
	case x == anyChar && y == anyChar:
		return 'x', true
	case x == anyChar:
		return y, !sep(y)
	case y == anyChar:
		return x, !sep(x)
	default:
		return x, x == y
	}
}
