package tui

import (
	"math"

	"github.com/memoria-graph/memoria/retriever/ppr"
)

// newPPRSet is personalized PageRank's parameters (docs/RETRIEVERS.md,
// "Personalized PageRank") as panel rows: d, ε (stepped by factors of
// ten) and K.
func newPPRSet(p ppr.Params) paramSet {
	type pp = ppr.Params
	return rowSet[pp]{
		p: p,
		rows: []paramRow[pp]{
			{name: "DAMPING d", rng: "(0,1)", get: func(p pp) float64 { return p.Damping },
				set: func(p *pp, v float64) { p.Damping = v }, step: stepBy(0.05, 0.05, 0.95)},
			{name: "EPSILON ε", rng: "(0,1)", get: func(p pp) float64 { return p.Epsilon },
				set: func(p *pp, v float64) { p.Epsilon = v }, step: stepTenfold(1e-12, 0.1)},
			{name: "TOP_K K", rng: "≥1", whole: true, get: func(p pp) float64 { return float64(p.TopK) },
				set: func(p *pp, v float64) { p.TopK = int(v) }, step: stepWhole(1, topKLimit)},
		},
		validate: pp.Validate,
		equal:    func(a, b pp) bool { return a == b },
		run:      ppr.Retrieve,
	}
}

// stepTenfold steps to the power of ten above or below v's nearest one,
// within [lo, hi]: 1e-6 → 1e-5 or 1e-7.
func stepTenfold(lo, hi float64) func(float64, int) float64 {
	return func(v float64, dir int) float64 {
		return math.Max(lo, math.Min(hi, math.Pow(10, math.Round(math.Log10(v))+float64(dir))))
	}
}
