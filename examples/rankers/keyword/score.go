// Command keyword is a wasmgate example ranker (endpoints[].discovery.ranker,
// docs/plugins.md "Rankers"): it re-ranks a search's top candidates by
// the operator's rules, without a model.
//
// Its Extism config (discovery.ranker.config):
//
//	boost   a comma-separated list of words; a candidate whose name,
//	        title, description or source holds one of them (as a whole
//	        word, in any case) gains weight for each word it holds
//	weight  what each boosted word adds to the lexical score; by default
//	        the best lexical score among the candidates, so a candidate
//	        holding one boosted word ranks above every candidate holding
//	        none
//
// Without boost it returns the lexical scores as they are: the order
// stands. It is deterministic: the same input gives the same scores.
//
// Build it as the example plugins are (make plugins):
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o keyword.wasm ./examples/rankers/keyword
package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

func main() {}

// Input is what the gateway passes to rank.
type Input struct {
	Query      string      `json:"query"`
	Candidates []Candidate `json:"candidates"`
}

// Candidate is one tool the lexical search found.
type Candidate struct {
	Name        string  `json:"name"`
	Title       string  `json:"title"`
	Description string  `json:"description"`
	Source      string  `json:"source"`
	Score       float64 `json:"score"`
}

// Output is what rank returns: one score per candidate, in order.
type Output struct {
	Scores []float64 `json:"scores"`
}

// Rules are the ranker's config.
type Rules struct {
	Boost  []string // lower case
	Weight float64  // 0: the best lexical score
}

// ParseRules reads the config values boost and weight ("" when unset).
func ParseRules(boost, weight string) (Rules, error) {
	var r Rules
	for _, w := range strings.Split(boost, ",") {
		if w = strings.ToLower(strings.TrimSpace(w)); w != "" {
			r.Boost = append(r.Boost, w)
		}
	}
	if weight != "" {
		f, err := strconv.ParseFloat(weight, 64)
		if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
			return r, fmt.Errorf("config weight %q: want a number, 0 or more", weight)
		}
		r.Weight = f
	}
	return r, nil
}

// Score scores every candidate of in by r.
func (r Rules) Score(in Input) []float64 {
	scores := make([]float64, len(in.Candidates))
	weight := r.Weight
	if weight == 0 {
		for _, c := range in.Candidates {
			weight = max(weight, c.Score)
		}
		if weight == 0 {
			weight = 1
		}
	}
	for i, c := range in.Candidates {
		scores[i] = c.Score
		if len(r.Boost) == 0 {
			continue
		}
		words := map[string]bool{}
		for _, f := range []string{c.Name, c.Title, c.Description, c.Source} {
			for _, w := range strings.FieldsFunc(strings.ToLower(f), notWordRune) {
				words[w] = true
			}
		}
		for _, b := range r.Boost {
			if words[b] {
				scores[i] += weight
			}
		}
	}
	return scores
}

// notWordRune splits names such as create_issue, list-files and
// github.search into words.
func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }
