package expansion

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"strconv"

	"github.com/memoria-graph/memoria/retriever"
)

// Spec describes the typed expansion to the registry (retriever.Spec): its
// table of H, f, δ and K, the repeatable --type-weight, and its run.
var Spec = retriever.Define(retriever.Definition[Params]{
	Name:     Name,
	Purpose:  "the seeds, then up to three hops scored by relationship-type weights",
	Defaults: DefaultParams,
	Rows: []retriever.Row[Params]{
		{Param: retriever.Param{Flag: "max-hops", Label: "MAX_HOPS H", Range: fmt.Sprintf("%d–%d", MinHops, MaxHops), Whole: true,
			Usage: "hops from the seeds `H` (1-3)", Grid: retriever.Grid{From: 1, To: 3, Steps: 3}, Step: retriever.StepWhole(MinHops, MaxHops)},
			Get: func(p Params) float64 { return float64(p.MaxHops) }, Set: func(p *Params, v float64) { p.MaxHops = int(v) }},
		{Param: retriever.Param{Flag: "expansion-factor", Label: "FACTOR f", Range: "(0,1]",
			Usage: "the factor `f` every expanded score is damped by, in (0, 1]", Grid: retriever.Grid{From: 0.1, To: 1, Steps: 10},
			Step: retriever.StepBy(unitStep, unitStep, 1)},
			Get: func(p Params) float64 { return p.ExpansionFactor }, Set: func(p *Params, v float64) { p.ExpansionFactor = v }},
		{Param: retriever.Param{Flag: "depth-decay", Label: "DECAY δ", Range: "(0,1]",
			Usage: "the decay `δ` per hop, in (0, 1]", Grid: retriever.Grid{From: 0.1, To: 1, Steps: 10},
			Step: retriever.StepBy(unitStep, unitStep, 1)},
			Get: func(p Params) float64 { return p.DepthDecay }, Set: func(p *Params, v float64) { p.DepthDecay = v }},
		retriever.TopKRow(func(p Params) int { return p.TopK }, func(p *Params, k int) { p.TopK = k }),
	},
	Validate: Params.Validate,
	Equal: func(a, b Params) bool {
		return a.MaxHops == b.MaxHops && a.ExpansionFactor == b.ExpansionFactor && a.DepthDecay == b.DepthDecay &&
			a.TopK == b.TopK && maps.Equal(a.TypeWeights, b.TypeWeights)
	},
	Clone:   Params.Clone,
	Fields:  Params.Fields,
	TopK:    func(p Params) int { return p.TopK },
	SetTopK: func(p *Params, k int) { p.TopK = k },
	Flags: func(fs *flag.FlagSet, f retriever.FlagEnv[Params]) {
		fs.Var(typeWeights{edit: f.Edit, given: map[string]bool{}}, "type-weight",
			"expansion: weigh a relationship type, `TYPE=X` with X in [-1, 1] (0: not followed; repeatable)")
	},
	FlagNames: []string{"type-weight"},
	Table: &retriever.Table[Params]{Range: "[−1,1]", Step: retriever.StepBy(TypeWeightStep, -1, 1),
		Get: func(p Params) map[string]float64 { return p.TypeWeights },
		Set: func(p *Params, t string, w float64) { p.TypeWeights[t] = w }},
	Context: Context,
	WhyNot:  whyNot,
	Reach:   reachOf,
	Run: func(ctx context.Context, env retriever.Env, q retriever.Query, p Params) (retriever.Ranking, error) {
		return Retrieve(ctx, env.Neighbourhood, q, p)
	},
	// Every node it scores is a seed or the far end of a relationship its
	// hops read.
	Bound: func(r retriever.Ranking, seeds int) int { return seeds + retriever.StatInt(r, "relationships_read") },
})

// unitStep is the explorer's step of f and δ; TypeWeightStep that of a
// type weight.
const (
	unitStep       = 0.05
	TypeWeightStep = 0.1
)

// typeWeights collects repeated --type-weight TYPE=X flags over the
// default table; given holds the types set so far, one of which given
// again is refused (a second weight would replace the first silently).
type typeWeights struct {
	edit  func(func(*Params))
	given map[string]bool
}

func (t typeWeights) String() string { return "" }

func (t typeWeights) Set(v string) error {
	ty, w, err := ParseTypeWeight(v)
	if err != nil {
		return err
	}
	if t.given[ty] {
		return fmt.Errorf("type %s is weighed twice", strconv.Quote(ty))
	}
	t.given[ty] = true
	t.edit(func(p *Params) { p.TypeWeights[ty] = w })
	return nil
}
