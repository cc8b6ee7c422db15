package search

import (
	"strings"
	"unsafe"
)

// Search returns at most limit hits, best first (ties by name), among the
// docs allow accepts (allow nil: all). It never returns a doc allow
// refuses, and calls allow only for docs that scored above zero, in
// ranking order, until it has limit hits. A query equal to a tool's name
// (ignoring case and surrounding space) ranks that tool first.
func (x *Index) Search(query string, limit int, allow func(doc int) bool) []Hit {
	if limit <= 0 || len(x.docs) == 0 {
		return nil
	}
	qterms := x.queryTerms(query)
	exact := int32(-1)
	if d, ok := x.byName[strings.ToLower(strings.TrimSpace(query))]; ok {
		exact = d
	}
	if len(qterms) == 0 && exact < 0 {
		return nil
	}

	sc := x.scratch.Get().(*scratch)
	scores, names := sc.scores, sc.names
	var touched []int32
	srcScores := make([]float32, x.numSources)
	for _, q := range qterms {
		id, ok := x.terms[q.term]
		if !ok {
			continue
		}
		idf := x.idf[id] * q.weight
		for _, p := range x.postings[id] {
			if scores[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			scores[p.doc] += idf * p.w
		}
		for _, p := range x.srcPostings[id] {
			srcScores[p.doc] += q.weight * p.w
		}
		for _, p := range x.namePostings[id] {
			names[p.doc] += q.weight * p.w
		}
	}
	cands := make([]Hit, 0, len(touched)+1)
	best := 0.0
	for _, d := range touched {
		s := float64(scores[d]) + sourceWeight*float64(srcScores[x.docSource[d]]) + nameWeight*float64(names[d])
		scores[d], names[d] = 0, 0
		if s > 0 && d != exact {
			cands = append(cands, Hit{Doc: int(d), Score: s})
			best = max(best, s)
		}
	}
	x.scratch.Put(sc)
	if exact >= 0 {
		cands = append(cands, Hit{Doc: int(exact), Score: best + 1})
	}
	return x.top(cands, limit, allow)
}

// queryTerm is one stem of a query and how much it counts.
type queryTerm struct {
	term   string
	weight float32
}

// queryTerms analyses a query like a doc, drops repeats and adds each
// term's synonyms at synonymWeight (a word the query has itself keeps its
// full weight).
func (x *Index) queryTerms(query string) []queryTerm {
	var qs []queryTerm
	st := stemmer{}
	set := func(t string, w float32) {
		for i := range qs {
			if qs[i].term == t {
				qs[i].weight = max(qs[i].weight, w)
				return
			}
		}
		qs = append(qs, queryTerm{t, w})
	}
	st.terms(query, func(t string) { set(t, 1) })
	for _, q := range qs[:len(qs):len(qs)] {
		if q.weight < 1 {
			continue
		}
		for _, s := range x.synonyms[q.term] {
			set(s, synonymWeight)
		}
	}
	return qs
}

// better reports whether a ranks before b: higher score, then name order.
func (x *Index) better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return x.nameRank[a.Doc] < x.nameRank[b.Doc]
}

// top pops cands best first, keeping those allow accepts, until it has
// limit of them. A heap makes that O(n + k log n) for k pops: a common
// word matches thousands of docs, a search wants a handful.
func (x *Index) top(cands []Hit, limit int, allow func(int) bool) []Hit {
	h := cands
	for i := len(h)/2 - 1; i >= 0; i-- {
		x.down(h, i)
	}
	var out []Hit
	for len(h) > 0 && len(out) < limit {
		c := h[0]
		last := len(h) - 1
		h[0] = h[last]
		h = h[:last]
		x.down(h, 0)
		if allow == nil || allow(c.Doc) {
			out = append(out, c)
		}
	}
	return out
}

// down restores the heap order below i.
func (x *Index) down(h []Hit, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		c := l
		if r := l + 1; r < len(h) && x.better(h[r], h[l]) {
			c = r
		}
		if !x.better(h[c], h[i]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// Len is the number of docs in the index.
func (x *Index) Len() int { return len(x.docs) }

// Doc returns doc i, 0 <= i < Len().
func (x *Index) Doc(i int) *Doc { return &x.docs[i] }

// Terms is the number of distinct terms (stems) in the index.
func (x *Index) Terms() int { return len(x.postings) }

// Size is an estimate of the index's memory in bytes: its own structures
// and the docs' strings.
func (x *Index) Size() int64 {
	const (
		stringHeader = int64(unsafe.Sizeof(""))
		sliceHeader  = int64(unsafe.Sizeof([]int{}))
		mapEntry     = 48 // a map's per-entry overhead, roughly, on 64-bit
	)
	var n int64
	n += int64(len(x.docs)) * int64(unsafe.Sizeof(Doc{}))
	for i := range x.docs {
		d := &x.docs[i]
		n += int64(len(d.Name) + len(d.Title) + len(d.Description) + len(d.Source))
		n += int64(len(d.Params)) * int64(unsafe.Sizeof(Param{}))
		n += int64(len(d.Values)) * stringHeader
		for _, v := range d.Values {
			n += int64(len(v))
		}
		for _, p := range d.Params {
			n += int64(len(p.Name) + len(p.Description))
		}
	}
	for t := range x.terms {
		n += int64(len(t)) + stringHeader + 4 + mapEntry
	}
	n += int64(len(x.postings)) * (sliceHeader + 4)
	for _, p := range x.postings {
		n += int64(cap(p)) * int64(unsafe.Sizeof(posting{}))
	}
	n += int64(len(x.byName)) * (stringHeader + 4 + mapEntry) // the names are shared with docs unless lowercased
	n += int64(len(x.nameRank)) * 4
	n += int64(len(x.docs)) * 8 // a search's scratch
	n += int64(len(x.namePostings)) * sliceHeader
	for _, p := range x.namePostings {
		n += int64(cap(p)) * int64(unsafe.Sizeof(posting{}))
	}
	n += int64(len(x.docSource)) * 4
	n += int64(len(x.srcPostings)) * sliceHeader
	for _, p := range x.srcPostings {
		n += int64(cap(p)) * int64(unsafe.Sizeof(posting{}))
	}
	return n
}
