package tui

import (
	"slices"

	"github.com/memoria-graph/memoria/retriever/spreading"
)

// initialChoices are the words of spreading's Initial row.
var initialChoices = []string{string(spreading.InitialOne), string(spreading.InitialScore)}

// newSpreadSet is spreading activation's parameters (docs/RETRIEVERS.md,
// "Spreading activation") as panel rows: P, D, θ, α, E, K and what a seed
// starts with. The query vector, when given on the command line, is kept
// as it is.
func newSpreadSet(p spreading.Params) paramSet {
	type sp = spreading.Params
	return rowSet[sp]{
		p: p,
		rows: []paramRow[sp]{
			{name: "PULSES P", rng: "1–6", whole: true, get: func(p sp) float64 { return float64(p.Pulses) },
				set: func(p *sp, v float64) { p.Pulses = int(v) }, step: stepWhole(spreading.MinPulses, spreading.MaxPulses)},
			{name: "DECAY D", rng: "(0,1]", get: func(p sp) float64 { return p.Decay },
				set: func(p *sp, v float64) { p.Decay = v }, step: stepBy(0.05, 0.05, 1)},
			{name: "THRESHOLD θ", rng: "[0,1)", get: func(p sp) float64 { return p.Threshold },
				set: func(p *sp, v float64) { p.Threshold = v }, step: stepBy(0.01, 0, 0.99)},
			{name: "ALPHA α", rng: "[0,1]", get: func(p sp) float64 { return p.Alpha },
				set: func(p *sp, v float64) { p.Alpha = v }, step: stepBy(0.05, 0, 1)},
			{name: "PENALTY E", rng: "≥1", get: func(p sp) float64 { return p.EntityPenaltyAbove },
				set: func(p *sp, v float64) { p.EntityPenaltyAbove = v }, step: stepBy(1, 1, 1000)},
			{name: "TOP_K K", rng: "≥1", whole: true, get: func(p sp) float64 { return float64(p.TopK) },
				set: func(p *sp, v float64) { p.TopK = int(v) }, step: stepWhole(1, topKLimit)},
			{name: "INITIAL", rng: "one|score", choices: initialChoices,
				get: func(p sp) float64 { return float64(slices.Index(initialChoices, string(p.Initial))) },
				set: func(p *sp, v float64) { p.Initial = spreading.Initial(initialChoices[int(v)]) }},
		},
		validate: sp.Validate,
		equal: func(a, b sp) bool {
			return a.Pulses == b.Pulses && a.Decay == b.Decay && a.Threshold == b.Threshold && a.Alpha == b.Alpha &&
				a.EntityPenaltyAbove == b.EntityPenaltyAbove && a.TopK == b.TopK && a.Initial == b.Initial && slices.Equal(a.QueryVector, b.QueryVector)
		},
		run: spreading.Retrieve,
	}
}
