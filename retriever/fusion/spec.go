package fusion

import (
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/memoria-graph/memoria/retriever"
)

// Spec describes the fusion to the registry (retriever.Spec): its table of
// k, the fuse depth and K, --fuse, and how it combines the rankings of the
// retrievers it fuses, which its caller runs (each at the fuse depth).
var Spec = retriever.Define(retriever.Definition[Params]{
	Name:     Name,
	Purpose:  "Reciprocal Rank Fusion of other retrievers' rankings",
	Defaults: DefaultParams,
	Rows: []retriever.Row[Params]{
		{Param: retriever.Param{Flag: "rrf-k", Label: "RRF_K k", Range: "≥0",
			Usage: "RRF's `k`: a hit at rank r brings 1/(k + r) (at least 0; Graphiti's is 0 here)",
			Grid:  retriever.Grid{From: 0, To: 100, Steps: 11}, Step: retriever.StepBy(5, 0, 1000)},
			Get: func(p Params) float64 { return p.K }, Set: func(p *Params, v float64) { p.K = v }},
		{Param: retriever.Param{Flag: "fuse-depth", Label: "FUSE_DEPTH N", Range: "≥1", Whole: true,
			Usage: "the hits `N` of each fused ranking (each retriever runs with K = N)",
			Grid:  retriever.Grid{From: 10, To: 200, Steps: 20}, Step: retriever.StepWhole(1, 10000)},
			Get: func(p Params) float64 { return float64(p.Depth) }, Set: func(p *Params, v float64) { p.Depth = int(v) }},
		retriever.TopKRow(func(p Params) int { return p.TopK }, func(p *Params, k int) { p.TopK = k }),
	},
	Validate: Params.Validate,
	Equal: func(a, b Params) bool {
		return slices.Equal(a.Fuse, b.Fuse) && a.Depth == b.Depth && a.K == b.K && a.TopK == b.TopK && maps.Equal(a.Weights, b.Weights)
	},
	Clone: func(p Params) Params {
		p.Fuse = slices.Clone(p.Fuse)
		p.Weights = maps.Clone(p.Weights)
		return p
	},
	Fields:  Params.Fields,
	TopK:    func(p Params) int { return p.TopK },
	SetTopK: func(p *Params, k int) { p.TopK = k },
	Flags: func(fs *flag.FlagSet, f retriever.FlagEnv[Params]) {
		fs.Func("fuse", "fusion: the `retrievers` whose rankings are fused, comma-separated (default "+strings.Join(DefaultParams().Fuse, ",")+")", func(v string) error {
			items, err := f.List(v, "retriever")
			if err != nil {
				return err
			}
			names, err := ParseFuse(strings.Join(items, ","))
			if err != nil {
				return err
			}
			for _, n := range names {
				if !slices.Contains(f.Others, n) {
					return fmt.Errorf("%q is not a retriever fusion can fuse (want %s)", n, strings.Join(f.Others, ", "))
				}
			}
			f.Edit(func(p *Params) { p.Fuse = names })
			return nil
		})
		fs.Func("fuse-weights", "fusion: weigh each fused ranking, `NAME=W,...` (weighted RRF: a hit at rank r brings W/(k + r);\n"+
			"default 1 each)", func(v string) error {
			items, err := f.List(v, "weight")
			if err != nil {
				return err
			}
			w, err := ParseWeights(items)
			if err == nil {
				f.Edit(func(p *Params) { p.Weights = w })
			}
			return err
		})
	},
	FlagNames: []string{"fuse", "fuse-weights"},
	// Each fused ranking's weight, tuned as "weight:NAME" (docs/EVALUATION.md,
	// "Tuning on held-out queries"), 0 to 2 in 11 by default.
	Keyed: &retriever.Keyed[Params]{Name: "weight", Flag: "fuse-weights", Grid: retriever.Grid{From: 0, To: 2, Steps: 11},
		Keys: func(p Params) []string { return slices.Clone(p.Fuse) },
		Get:  Params.weight,
		Set: func(p *Params, name string, w float64) {
			ws := maps.Clone(p.Weights)
			if ws == nil {
				ws = map[string]float64{}
			}
			ws[name] = w
			p.Weights = ws
		}},
	// Every node it ranks is in the union of its lists.
	Bound:       func(r retriever.Ranking, _ int) int { return retriever.StatInt(r, "union") },
	Combines:    func(p Params) ([]string, int) { return slices.Clone(p.Fuse), p.Depth },
	SetCombines: func(p *Params, names []string) { p.Fuse = names },
	Combine: func(lists []retriever.Ranking, p Params, k int) (retriever.Ranking, error) {
		p.TopK = k
		return Fuse(lists, p)
	},
})
