package canon

import (
	"bytes"
	"encoding/json"
)

// uniqueFast reports whether raw is one valid JSON value, nested at most
// MaxDepth deep, with no object holding a key twice, by one pass over the
// bytes after json.Valid, allocating nothing for objects of up to 16 keys:
// a reload of 10,000 tools spent most of its time in Unique's decoder. It
// answers false whenever it cannot say so cheaply (invalid JSON, a key
// with an escape, a duplicate, too deep): Unique then decides, and words
// the error.
func uniqueFast(raw []byte) bool {
	if !json.Valid(raw) {
		return false
	}
	var buf [8]keySet
	stack := append(buf[:0], keySet{}) // the open objects and arrays, below them the top level
	depth := 0
	i := 0
	for i < len(raw) {
		switch c := raw[i]; c {
		case '{', '[':
			if depth >= MaxDepth {
				return false
			}
			depth++
			if depth == len(stack) {
				stack = append(stack, keySet{})
			}
			stack[depth] = keySet{object: c == '{'}
			i++
		case '}', ']':
			depth--
			i++
		case '"':
			end := stringEnd(raw, i)
			s := raw[i+1 : end]
			i = end + 1
			// A key is a string whose next non-space byte is ':'.
			j := i
			for j < len(raw) && isSpace(raw[j]) {
				j++
			}
			if j < len(raw) && raw[j] == ':' && stack[depth].object {
				if bytes.IndexByte(s, '\\') >= 0 || !stack[depth].add(s) {
					return false
				}
			}
		default:
			i++
		}
	}
	return true
}

// stringEnd is the index of the quote closing the string that opens at
// raw[i] (raw is valid JSON).
func stringEnd(raw []byte, i int) int {
	for j := i + 1; j < len(raw); j++ {
		switch raw[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return len(raw)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// keySet is the keys of one object seen so far.
type keySet struct {
	object bool
	n      int
	small  [16][]byte
	more   map[string]struct{}
}

// add records k and reports whether it was new.
func (s *keySet) add(k []byte) bool {
	if s.more != nil {
		if _, dup := s.more[string(k)]; dup {
			return false
		}
		s.more[string(k)] = struct{}{}
		return true
	}
	for _, have := range s.small[:s.n] {
		if bytes.Equal(have, k) {
			return false
		}
	}
	if s.n < len(s.small) {
		s.small[s.n] = k
		s.n++
		return true
	}
	s.more = make(map[string]struct{}, 2*len(s.small))
	for _, have := range s.small[:s.n] {
		s.more[string(have)] = struct{}{}
	}
	s.more[string(k)] = struct{}{}
	return true
}
