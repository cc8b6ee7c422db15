package search

import (
	"os"
	"testing"
)

// TestExplain prints, for SEARCH_EXPLAIN="query", each query term's idf
// and every top doc's per-term contribution, its source's score and its
// name coverage. It is a tuning aid and does nothing unless the variable
// is set.
func TestExplain(t *testing.T) {
	q := os.Getenv("SEARCH_EXPLAIN")
	if q == "" {
		t.Skip("set SEARCH_EXPLAIN to a query")
	}
	x, _ := loadRecall(t)
	qts := x.queryTerms(q)
	for _, h := range x.Search(q, 6, nil) {
		t.Logf("%-45s %.3f", x.Doc(h.Doc).Name, h.Score)
		for _, qt := range qts {
			id, ok := x.terms[qt.term]
			if !ok {
				continue
			}
			for _, p := range x.postings[id] {
				if int(p.doc) == h.Doc {
					t.Logf("    %-14s w=%.2f idf=%.2f tf~=%.2f -> %.3f", qt.term, qt.weight, x.idf[id], p.w, qt.weight*x.idf[id]*p.w)
				}
			}
		}
		var src, name float32
		for _, qt := range qts {
			id, ok := x.terms[qt.term]
			if !ok {
				continue
			}
			for _, p := range x.srcPostings[id] {
				if p.doc == x.docSource[h.Doc] {
					src += qt.weight * p.w
				}
			}
			for _, p := range x.namePostings[id] {
				if int(p.doc) == h.Doc {
					name += qt.weight * p.w
				}
			}
		}
		t.Logf("    source %.3f x %.1f, name coverage %.2f x %.1f", src, sourceWeight, name, nameWeight)
	}
}
