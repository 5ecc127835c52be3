package ppr

import (
	"context"

	"github.com/memoria-graph/memoria/retriever"
)

// Spec describes personalized PageRank to the registry (retriever.Spec):
// its table of d, ε and K, and its run.
var Spec = retriever.Define(retriever.Definition[Params]{
	Name:     Name,
	Purpose:  "a walk over RELATES that restarts at the seeds, estimated by forward push",
	Defaults: DefaultParams,
	Rows: []retriever.Row[Params]{
		{Param: retriever.Param{Flag: "damping", Label: "DAMPING d", Range: "(0,1)",
			Usage: "the probability `d` of following a relationship rather than restart, in (0, 1)",
			Grid:  retriever.Grid{From: 0.1, To: 0.9, Steps: 9}, Step: retriever.StepBy(0.05, 0.05, 0.95)},
			Get: func(p Params) float64 { return p.Damping }, Set: func(p *Params, v float64) { p.Damping = v }},
		{Param: retriever.Param{Flag: "epsilon", Label: "EPSILON ε", Range: "(0,1)",
			Usage: "push until every residual is below `ε` × the node's RELATES weight, in (0, 1)",
			Grid:  retriever.Grid{From: 1e-7, To: 1e-3, Steps: 9, Log: true}, Step: retriever.StepTenfold(1e-12, 0.1)},
			Get: func(p Params) float64 { return p.Epsilon }, Set: func(p *Params, v float64) { p.Epsilon = v }},
		retriever.TopKRow(func(p Params) int { return p.TopK }, func(p *Params, k int) { p.TopK = k }),
	},
	Validate: Params.Validate,
	Equal:    func(a, b Params) bool { return a == b },
	Fields:   Params.Fields,
	TopK:     func(p Params) int { return p.TopK },
	SetTopK:  func(p *Params, k int) { p.TopK = k },
	WhyNot:   whyNot,
	Reach:    reachOf,
	Run: func(ctx context.Context, env retriever.Env, q retriever.Query, p Params) (retriever.Ranking, error) {
		return Retrieve(ctx, env.Neighbourhood, q, p)
	},
	// Every node with a positive estimate was touched.
	Bound: func(r retriever.Ranking, _ int) int { return retriever.StatInt(r, "nodes_touched") },
})
