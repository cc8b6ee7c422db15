package main

import (
	"slices"
	"testing"
)

func TestScore(t *testing.T) {
	in := Input{Query: "open an issue", Candidates: []Candidate{
		{Name: "jira_create_ticket", Description: "Creates a Jira ticket", Source: "jira", Score: 3},
		{Name: "github_create_issue", Title: "Create issue", Description: "Opens an issue on GitHub", Source: "github", Score: 2},
		{Name: "gitlab_create_issue", Description: "Opens a GitLab issue", Source: "gitlab", Score: 1.5},
	}}
	for _, c := range []struct {
		boost, weight string
		want          []float64
	}{
		{"", "", []float64{3, 2, 1.5}},                  // no rules: the lexical scores
		{"GitHub", "", []float64{3, 5, 1.5}},            // +3, the best lexical score
		{" github , gitlab ", "", []float64{3, 5, 4.5}}, // both, trimmed
		{"gitlab", "0.25", []float64{3, 2, 1.75}},       // a fixed weight
		{"git", "", []float64{3, 2, 1.5}},               // whole words only
		{"create", "1", []float64{4, 3, 2.5}},           // create_issue is two words
	} {
		r, err := ParseRules(c.boost, c.weight)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Score(in); !slices.Equal(got, c.want) {
			t.Errorf("boost %q weight %q: %v, want %v", c.boost, c.weight, got, c.want)
		}
	}
	for _, w := range []string{"x", "-1", "Inf", "NaN"} {
		if _, err := ParseRules("a", w); err == nil {
			t.Errorf("weight %q accepted", w)
		}
	}
	if got := (Rules{}).Score(Input{}); len(got) != 0 {
		t.Errorf("no candidates: %v", got)
	}
}
