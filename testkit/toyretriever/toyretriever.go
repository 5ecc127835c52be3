// Package toyretriever is test support: a toy ranking retriever written
// the way a new one is (docs/ARCHITECTURE.md, "Adding a retriever"), which
// the tests register to prove that a retriever needs nothing but its
// package and its line in retriever/registry.
package toyretriever

import (
	"context"
	"fmt"
	"slices"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
)

// Params are the toy retriever's parameters: the least RELATES
// degree a node needs, and K.
type Params struct{ MinDegree, TopK int }

// DegreeSpec is a toy retriever written the way a new one would be (its
// own package's one file, then one line in the registry; here
// registry.Register stands for that line): the seeds and the nodes one
// RELATES hop from them, each scored by its RELATES degree, those of at
// least --min-degree kept, ranked by the one ranking rule.
var DegreeSpec = retriever.Define(retriever.Definition[Params]{
	Name:     "degree",
	Purpose:  "the nodes within one hop of the seeds, by degree",
	Defaults: func() Params { return Params{MinDegree: 1, TopK: 10} },
	Rows: []retriever.Row[Params]{
		{Param: retriever.Param{Flag: "min-degree", Label: "MIN_DEGREE", Range: "≥0", Whole: true, Usage: "the least degree `D` kept",
			Grid: retriever.Grid{From: 1, To: 5, Steps: 5}, Step: retriever.StepWhole(0, 100)},
			Get: func(p Params) float64 { return float64(p.MinDegree) }, Set: func(p *Params, v float64) { p.MinDegree = int(v) }},
		retriever.TopKRow(func(p Params) int { return p.TopK }, func(p *Params, k int) { p.TopK = k }),
	},
	Validate: func(p Params) error {
		if p.MinDegree < 0 || p.TopK < 1 {
			return fmt.Errorf("min degree must be at least 0 and top k at least 1, got %d and %d", p.MinDegree, p.TopK)
		}
		return nil
	},
	Equal: func(a, b Params) bool { return a == b },
	Fields: func(p Params) retriever.Fields {
		return retriever.Fields{{Name: "min_degree", Value: p.MinDegree}, {Name: "top_k", Value: p.TopK}}
	},
	TopK:    func(p Params) int { return p.TopK },
	SetTopK: func(p *Params, k int) { p.TopK = k },
	Run: func(ctx context.Context, env retriever.Env, q retriever.Query, p Params) (retriever.Ranking, error) {
		out := retriever.Ranking{Retriever: "degree", Params: retriever.Fields{{Name: "min_degree", Value: p.MinDegree}, {Name: "top_k", Value: p.TopK}}}
		err := env.Neighbourhood.Read(ctx, func(r graph.Reader) error {
			ids := make([]string, len(q.Seeds))
			for i, s := range q.Seeds {
				ids[i] = s.NodeID
			}
			seeds, err := r.Nodes(ctx, ids)
			if err != nil {
				return err
			}
			rels, err := r.Around(ctx, seeds)
			if err != nil {
				return err
			}
			nodes, seen := slices.Clone(seeds), map[string]bool{}
			for _, s := range seeds {
				seen[s.Node.ID] = true
			}
			for _, rel := range rels {
				if rel.Edge.Type == graph.Relates && !seen[rel.To.Node.ID] {
					seen[rel.To.Node.ID] = true
					nodes = append(nodes, rel.To)
				}
			}
			deg, err := r.Degrees(ctx, nodes, graph.Relates)
			if err != nil {
				return err
			}
			var hits []retriever.Hit
			for i, n := range nodes {
				if deg[i] >= int64(p.MinDegree) {
					hits = append(hits, retriever.Hit{NodeID: n.Node.ID, Score: float64(deg[i]), Labels: n.Node.Labels, Seed: n.Node.ID,
						Origin: retriever.OriginExpanded, Terms: []retriever.Term{{Name: "degree", Value: float64(deg[i])}}, Node: n.Node})
				}
			}
			out.Hits, _ = retriever.Rank(hits, p.TopK)
			return nil
		})
		return out, err
	},
})
