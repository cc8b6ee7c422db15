// Package search is the gateway's lexical tool index: BM25F ranking over
// a tool's name, title, description, parameters, schema values and
// source, with English stemming and a small generic synonym expansion,
// plus two bonuses: the score of the tool's source as a whole (source
// smoothing) and how much of the tool's name the query covers. An Index is built once
// per catalog change and then only read, by any number of searches at
// once.
package search

import (
	"math"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// The fields of a Doc, each with its own weight and length normalisation
// (BM25F). A word in the tool's name says most about what the tool does;
// the title is a human rewording of the name; the source's name says which
// system the tool acts on; the description is longer and more diffuse;
// parameters describe inputs more than the action; the values a schema
// allows (enums) are a closed list of what the tool can do or act on.
const (
	fieldName = iota
	fieldTitle
	fieldSource
	fieldDesc
	fieldParamName
	fieldParamDesc
	fieldValue
	numFields
)

var (
	// fieldWeight is how much one occurrence of a term in a field counts.
	fieldWeight = [numFields]float64{
		fieldName:      3.0,
		fieldTitle:     2.0,
		fieldSource:    1.5,
		fieldDesc:      1.0,
		fieldParamName: 0.3,
		fieldParamDesc: 0.2,
		fieldValue:     0.5,
	}
	// fieldB is BM25's length normalisation per field: 0 ignores the
	// field's length, 1 divides by it relative to the field's average.
	// Names, titles and sources are short and uniform; descriptions vary.
	fieldB = [numFields]float64{
		fieldName:      0.3,
		fieldTitle:     0.3,
		fieldSource:    0,
		fieldDesc:      0.75,
		fieldParamName: 0.5,
		fieldParamDesc: 0.75,
		fieldValue:     0.5,
	}
)

// k1 is BM25's term-frequency saturation.
const k1 = 1.2

// Source smoothing (cluster-based retrieval, the "collection score" of
// federated search): each source is also scored as one document made of
// all its tools' text, and a tool that matched the query gets
// sourceWeight of its source's score on top of its own. A request about
// a system's subject ("what do you remember") then prefers that system's
// tools over a stray word match in another source, and among tools with
// the same words, those of the source the query is about. sourceB is the
// length normalisation of these source documents.
const (
	sourceWeight = 0.5
	sourceB      = 0.75
)

// nameWeight is the name coverage bonus: a tool that matched gets
// nameWeight times the fraction of its name's distinct terms that the
// query has (a synonym's term counting at the synonym's weight). Of
// list_directory and list_directory_with_sizes, a query about sizes
// prefers the second and one without prefers the first; of geocode and
// reverse_geocode, the query's "reverse" decides.
const nameWeight = 3.0

// posting is one document's weight for one term: its BM25F pseudo term
// frequency, already normalised by field lengths and saturated by k1, so a
// search only multiplies by the term's idf.
type posting struct {
	doc int32
	w   float32
}

// Index is a lexical index of tool docs. It is immutable once built and
// safe for concurrent use.
type Index struct {
	docs     []Doc
	terms    map[string]int32 // stem -> term id
	postings [][]posting      // by term id, by doc
	idf      []float32        // by term id
	byName   map[string]int32 // lowercased name -> doc (the first of equal names)
	nameRank []int32          // doc -> its position in name order, for ties
	synonyms map[string][]string
	scratch  sync.Pool // *scratch, zero

	// namePostings[term] lists the docs whose name has the term, each
	// with 1/the number of distinct terms of its name.
	namePostings [][]posting

	// Source smoothing: docSource maps each doc to its source, and
	// srcPostings[term] lists the sources with the term and their
	// weights, already multiplied by the term's idf over sources.
	docSource   []int32
	numSources  int
	srcPostings [][]posting
}

// scratch is a search's per-doc accumulators, len(docs) each, kept zero
// between searches.
type scratch struct {
	scores, names []float32
}

// termCount is one term of one doc: its count in each field.
type termCount struct {
	term int32
	n    [numFields]uint16
}

// Hit is one search result: a doc's index and its score.
type Hit struct {
	Doc   int
	Score float64
}

// Build indexes docs. The index keeps the slice; the caller must not
// change it afterwards.
func Build(docs []Doc) *Index {
	x := &Index{
		docs:     docs,
		terms:    make(map[string]int32),
		byName:   make(map[string]int32, len(docs)),
		synonyms: synonyms(),
	}
	st := stemmer{}

	// Pass 1: every doc's terms with their per-field counts, and the
	// field lengths.
	var (
		counts  []termCount                  // all docs' terms, doc after doc
		starts  = make([]int32, len(docs)+1) // doc -> its first entry in counts
		lengths = make([][numFields]uint16, len(docs))
		total   [numFields]float64
		// wordTerm maps a word as written to its term, -1 for a stopword.
		wordTerm = map[string]int32{}
		// seen[t] is 1 + the last doc with term t, entry[t] that doc's
		// entry in counts: the current doc's terms without a map.
		seen  []int32
		entry []int32
		words []string
	)
	counts = make([]termCount, 0, 32*len(docs))
	for i := range docs {
		d := &docs[i]
		starts[i] = int32(len(counts))
		add := func(text string, f int) {
			words = appendRawWords(words[:0], text)
			for _, w := range words {
				id, ok := wordTerm[w]
				if !ok {
					id = -1
					if lw := lower(w); !stopwords[lw] {
						t := st.stem(lw)
						if id, ok = x.terms[t]; !ok {
							id = int32(len(x.postings))
							x.terms[t] = id
							x.postings = append(x.postings, nil)
							seen = append(seen, 0)
							entry = append(entry, 0)
						}
					}
					wordTerm[w] = id
				}
				if id < 0 {
					continue
				}
				if seen[id] != int32(i)+1 {
					seen[id] = int32(i) + 1
					entry[id] = int32(len(counts))
					counts = append(counts, termCount{term: id})
				}
				if e := entry[id]; counts[e].n[f] < math.MaxUint16 {
					counts[e].n[f]++
				}
				if lengths[i][f] < math.MaxUint16 {
					lengths[i][f]++
				}
			}
		}
		add(d.Name, fieldName)
		add(d.Title, fieldTitle)
		add(d.Source, fieldSource)
		add(d.Description, fieldDesc)
		for _, p := range d.Params {
			add(p.Name, fieldParamName)
			add(p.Description, fieldParamDesc)
		}
		for _, v := range d.Values {
			add(v, fieldValue)
		}
		for f := range numFields {
			total[f] += float64(lengths[i][f])
		}
		if n := strings.ToLower(d.Name); n != "" {
			if _, ok := x.byName[n]; !ok {
				x.byName[n] = int32(i)
			}
		}
	}
	starts[len(docs)] = int32(len(counts))

	var avg [numFields]float64
	for f := range numFields {
		avg[f] = 1
		if len(docs) > 0 && total[f] > 0 {
			avg[f] = total[f] / float64(len(docs))
		}
	}

	// Pass 2: the postings. Sizing each list first keeps them exact.
	df := make([]int32, len(x.postings))
	for _, c := range counts {
		df[c.term]++
	}
	for t := range x.postings {
		x.postings[t] = make([]posting, 0, df[t])
	}
	x.namePostings = make([][]posting, len(x.postings))
	for i := range docs {
		cs := counts[starts[i]:starts[i+1]]
		var inName int
		for _, c := range cs {
			if c.n[fieldName] > 0 {
				inName++
			}
		}
		for _, c := range cs {
			if c.n[fieldName] > 0 {
				x.namePostings[c.term] = append(x.namePostings[c.term], posting{doc: int32(i), w: 1 / float32(inName)})
			}
		}
		for _, c := range cs {
			var tf float64
			for f := range numFields {
				if c.n[f] == 0 {
					continue
				}
				norm := 1 - fieldB[f] + fieldB[f]*float64(lengths[i][f])/avg[f]
				tf += fieldWeight[f] * float64(c.n[f]) / norm
			}
			x.postings[c.term] = append(x.postings[c.term], posting{
				doc: int32(i),
				w:   float32(tf * (k1 + 1) / (k1 + tf)),
			})
		}
	}
	n := float64(len(docs))
	x.idf = make([]float32, len(x.postings))
	for t, d := range df {
		x.idf[t] = float32(math.Log(1 + (n-float64(d)+0.5)/(float64(d)+0.5)))
	}

	x.buildSources(docs, counts, starts, lengths)

	x.nameRank = make([]int32, len(docs))
	order := make([]int32, len(docs))
	for i := range order {
		order[i] = int32(i)
	}
	sortByName(order, docs)
	for r, d := range order {
		x.nameRank[d] = int32(r)
	}
	x.scratch.New = func() any {
		return &scratch{scores: make([]float32, len(x.docs)), names: make([]float32, len(x.docs))}
	}
	return x
}

// buildSources indexes each source as one document of all its docs'
// terms (counts is every doc's terms, starts[i] doc i's first): a term's
// weight in a source is its field-weighted count summed over the source's
// docs, normalised by the source's length (sourceB) and saturated by k1,
// times the term's idf over sources.
func (x *Index) buildSources(docs []Doc, counts []termCount, starts []int32, lengths [][numFields]uint16) {
	ids := map[string]int32{}
	x.docSource = make([]int32, len(docs))
	for i := range docs {
		id, ok := ids[docs[i].Source]
		if !ok {
			id = int32(len(ids))
			ids[docs[i].Source] = id
		}
		x.docSource[i] = id
	}
	x.numSources = len(ids)
	if x.numSources == 0 {
		return
	}
	// The docs of each source, in doc order.
	bySource := make([][]int32, x.numSources)
	for i, s := range x.docSource {
		bySource[s] = append(bySource[s], int32(i))
	}
	srcLen := make([]float64, x.numSources)
	var totalLen float64
	for s, ds := range bySource {
		for _, d := range ds {
			for f := range numFields {
				srcLen[s] += fieldWeight[f] * float64(lengths[d][f])
			}
		}
		totalLen += srcLen[s]
	}
	avgLen := max(totalLen/float64(x.numSources), 1)

	x.srcPostings = make([][]posting, len(x.postings))
	acc := make([]float64, len(x.postings))
	var touched []int32
	for s, ds := range bySource {
		touched = touched[:0]
		for _, d := range ds {
			for _, c := range counts[starts[d]:starts[d+1]] {
				var tf float64
				for f := range numFields {
					tf += fieldWeight[f] * float64(c.n[f])
				}
				if acc[c.term] == 0 {
					touched = append(touched, c.term)
				}
				acc[c.term] += tf
			}
		}
		norm := 1 - sourceB + sourceB*srcLen[s]/avgLen
		for _, t := range touched {
			tf := acc[t] / norm
			acc[t] = 0
			x.srcPostings[t] = append(x.srcPostings[t], posting{doc: int32(s), w: float32(tf * (k1 + 1) / (k1 + tf))})
		}
	}
	n := float64(x.numSources)
	for t, ps := range x.srcPostings {
		df := float64(len(ps))
		idf := float32(math.Log(1 + (n-df+0.5)/(df+0.5)))
		for i := range ps {
			ps[i].w *= idf
		}
		x.srcPostings[t] = slices.Clip(ps)
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

// sortByName sorts doc ids by name, then by position.
func sortByName(ids []int32, docs []Doc) {
	slices.SortFunc(ids, func(a, b int32) int {
		if c := strings.Compare(docs[a].Name, docs[b].Name); c != 0 {
			return c
		}
		return int(a - b)
	})
}
