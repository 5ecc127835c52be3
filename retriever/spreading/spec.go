package spreading

import (
	"context"
	"slices"

	"github.com/memoria-graph/memoria/retriever"
)

// initialChoices are the words of the Initial row.
var initialChoices = []string{string(InitialOne), string(InitialScore)}

// Spec describes spreading activation to the registry (retriever.Spec):
// its table of P, D, θ, α, E, K and what a seed starts with, and its run.
// The query vector comes with the query (--query-vector, a query set's
// query_vector: Settings.WithVector).
var Spec = retriever.Define(retriever.Definition[Params]{
	Name:     Name,
	Purpose:  "activation spreads from the seeds over RELATES for a few pulses, scored by similarity and activation",
	Defaults: DefaultParams,
	Rows: []retriever.Row[Params]{
		{Param: retriever.Param{Flag: "pulses", Label: "PULSES P", Range: "1–6", Whole: true, Usage: "pulses `P` (1-6)",
			Grid: retriever.Grid{From: 1, To: 6, Steps: 6}, Step: retriever.StepWhole(MinPulses, MaxPulses)},
			Get: func(p Params) float64 { return float64(p.Pulses) }, Set: func(p *Params, v float64) { p.Pulses = int(v) }},
		{Param: retriever.Param{Flag: "decay", Label: "DECAY D", Range: "(0,1]", Usage: "the decay `D` each relationship passes activation with, in (0, 1]",
			Grid: retriever.Grid{From: 0.1, To: 1, Steps: 10}, Step: retriever.StepBy(0.05, 0.05, 1)},
			Get: func(p Params) float64 { return p.Decay }, Set: func(p *Params, v float64) { p.Decay = v }},
		{Param: retriever.Param{Flag: "threshold", Label: "THRESHOLD θ", Range: "[0,1)", Usage: "the firing and candidate threshold `θ`, in [0, 1)",
			Grid: retriever.Grid{From: 0, To: 0.2, Steps: 21}, Step: retriever.StepBy(0.01, 0, 0.99)},
			Get: func(p Params) float64 { return p.Threshold }, Set: func(p *Params, v float64) { p.Threshold = v }},
		{Param: retriever.Param{Flag: "alpha", Label: "ALPHA α", Range: "[0,1]", Usage: "the weight `α` of semantic similarity against activation, in [0, 1]",
			Grid: retriever.Grid{From: 0, To: 1, Steps: 11}, Step: retriever.StepBy(0.05, 0, 1)},
			Get: func(p Params) float64 { return p.Alpha }, Set: func(p *Params, v float64) { p.Alpha = v }},
		{Param: retriever.Param{Flag: "entity-penalty-above", Label: "PENALTY E", Range: "≥1", Usage: "penalise nodes counting more than `E` entities (at least 1)",
			Grid: retriever.Grid{From: 1, To: 100, Steps: 12}, Step: retriever.StepBy(1, 1, 1000)},
			Get: func(p Params) float64 { return p.EntityPenaltyAbove }, Set: func(p *Params, v float64) { p.EntityPenaltyAbove = v }},
		retriever.TopKRow(func(p Params) int { return p.TopK }, func(p *Params, k int) { p.TopK = k }),
		{Param: retriever.Param{Flag: "initial", Label: "INITIAL", Range: "one|score", Choices: initialChoices,
			Usage: "what each seed starts with, `one` (1.0, the default) or score (its R)"},
			Get: func(p Params) float64 { return float64(slices.Index(initialChoices, string(p.Initial))) },
			Set: func(p *Params, v float64) { p.Initial = Initial(initialChoices[int(v)]) }},
	},
	Validate: Params.Validate,
	Equal: func(a, b Params) bool {
		return a.Pulses == b.Pulses && a.Decay == b.Decay && a.Threshold == b.Threshold && a.Alpha == b.Alpha &&
			a.EntityPenaltyAbove == b.EntityPenaltyAbove && a.TopK == b.TopK && a.Initial == b.Initial && slices.Equal(a.QueryVector, b.QueryVector)
	},
	Clone: func(p Params) Params {
		p.QueryVector = slices.Clone(p.QueryVector)
		return p
	},
	Fields:     Params.Fields,
	TopK:       func(p Params) int { return p.TopK },
	SetTopK:    func(p *Params, k int) { p.TopK = k },
	WithVector: func(p *Params, v []float64) { p.QueryVector = v },
	FlagNames:  []string{"query-vector"},
	WhyNot:     whyNot,
	Reach:      reachOf,
	Run: func(ctx context.Context, env retriever.Env, q retriever.Query, p Params) (retriever.Ranking, error) {
		return Retrieve(ctx, env.Neighbourhood, q, p)
	},
	// Every node it ranks is a candidate.
	Bound: func(r retriever.Ranking, _ int) int { return retriever.StatInt(r, "candidates") },
})
