//go:build wasip1

package main

import (
	extism "github.com/extism/go-pdk"
)

// rank is the ranker's one export: it reads an Input and outputs an
// Output, or fails (a non-zero return with an error), after which the
// gateway keeps the lexical order.
//
//go:wasmexport rank
func rank() int32 {
	boost, _ := extism.GetConfig("boost")
	weight, _ := extism.GetConfig("weight")
	rules, err := ParseRules(boost, weight)
	if err != nil {
		extism.SetError(err)
		return 1
	}
	var in Input
	if err := extism.InputJSON(&in); err != nil {
		extism.SetError(err)
		return 1
	}
	if err := extism.OutputJSON(Output{Scores: rules.Score(in)}); err != nil {
		extism.SetError(err)
		return 1
	}
	return 0
}
