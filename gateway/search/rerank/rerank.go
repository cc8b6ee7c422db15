// Package rerank is the ranker of a search endpoint (discovery.ranker,
// docs/plugins.md "Rankers"): a WASM module that receives a search's
// query and its top candidates in lexical order and returns a score for
// each; the candidates are then ordered by those scores.
package rerank

import "context"

// Candidate is one tool a search found, as a ranker sees it.
type Candidate struct {
	Name        string  `json:"name"`
	Title       string  `json:"title,omitempty"`
	Description string  `json:"description,omitempty"`
	Source      string  `json:"source"`
	Score       float64 `json:"score"` // the lexical score
}

// Ranker scores candidates for query: one score per candidate, in
// order, higher is better. An error (or a context that ends) means the
// lexical order stands.
type Ranker interface {
	Rank(ctx context.Context, query string, cands []Candidate) ([]float64, error)
}
