package search

import (
	"os"
	"testing"
)

// TestExplain explains a query's top hits over testdata/catalog.json:
// each query term's idf and per-doc contribution, the doc's source score
// and name coverage, and checks that they add up to the score Search
// gave (so the explanation is the ranking's own). With
// SEARCH_EXPLAIN="query" it explains that query: a tuning aid
// (go test -run TestExplain -v ./gateway/search).
func TestExplain(t *testing.T) {
	q := os.Getenv("SEARCH_EXPLAIN")
	if q == "" {
		q = "search my knowledge graph for Acme"
	}
	x, _ := loadRecall(t)
	qts := x.queryTerms(q)
	for _, h := range x.Search(q, 6, nil) {
		t.Logf("%-45s %.3f", x.Doc(h.Doc).Name, h.Score)
		var sum float32
		for _, qt := range qts {
			id, ok := x.terms[qt.term]
			if !ok {
				continue
			}
			for _, p := range x.postings[id] {
				if int(p.doc) == h.Doc {
					t.Logf("    %-14s w=%.2f idf=%.2f tf~=%.2f -> %.3f", qt.term, qt.weight, x.idf[id], p.w, qt.weight*x.idf[id]*p.w)
					sum += qt.weight * x.idf[id] * p.w
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
		sum += src*sourceWeight + name*nameWeight
		if d := float64(sum) - h.Score; d > 1e-3 || d < -1e-3 {
			t.Errorf("%s: the explanation adds up to %.4f, Search scored %.4f", x.Doc(h.Doc).Name, sum, h.Score)
		}
	}
}
