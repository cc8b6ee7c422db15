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

// sortByName sorts doc ids by name, then by position.
func sortByName(ids []int32, docs []Doc) {
	slices.SortFunc(ids, func(a, b int32) int {
		if c := strings.Compare(docs[a].Name, docs[b].Name); c != 0 {
			return c
		}
		return int(a - b)
	})
}
