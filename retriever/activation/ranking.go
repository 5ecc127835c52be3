package activation

import (
	"math"
	"slices"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
)

// Name is the retriever's name in rankings, flags and the explorer.
const Name = "activation"

// Fields are the parameters and the query tags as a ranking reports them.
func (c Params) Fields(tags []string) retriever.Fields {
	if tags == nil {
		tags = []string{}
	}
	return retriever.Fields{
		{Name: "max_depth", Value: c.MaxDepth},
		{Name: "min_activation", Value: c.MinActivation},
		{Name: "max_branches", Value: c.MaxBranches},
		{Name: "tag_sim_floor", Value: c.TagSimFloor},
		{Name: "tags", Value: tags},
	}
}

// Ranking projects a run onto the ranking every retriever shares
// (docs/RETRIEVERS.md, "The ranking"): each seed found scores its R; every
// other node reached scores its best T over all seeds (on a tie, the
// seed listed first), its route the path that reached it with that T, each
// hop's factor w/√d × tag_sim. Hits are ranked by retriever.Rank, none
// cut.
func Ranking(results []Result, c Params, tags []string) retriever.Ranking {
	out := retriever.Ranking{Retriever: Name, Params: c.Fields(tags), Seeds: make([]retriever.SeedStatus, len(results))}
	best := map[string]retriever.Hit{}
	var order []string
	keep := func(h retriever.Hit) {
		cur, ok := best[h.NodeID]
		if !ok {
			order = append(order, h.NodeID)
		}
		if !ok || (cur.Origin != retriever.OriginInitial && (h.Origin == retriever.OriginInitial || h.Score > cur.Score)) {
			best[h.NodeID] = h
		}
	}
	found, failed, paths := 0, 0, 0
	for i, res := range results {
		ok := res.SeedNode != nil
		out.Seeds[i] = retriever.SeedStatus{NodeID: res.Seed.NodeID, Score: res.Seed.Score, Found: ok}
		if res.TerminatedReason == TerminatedError {
			failed++
		}
		if !ok {
			continue
		}
		found++
		keep(hitAt(res.Seed, *res.SeedNode, nil))
		for _, p := range res.Paths {
			if len(p.Steps) > 0 {
				paths++
			}
			for k := range p.Steps {
				keep(hitAt(res.Seed, p.Steps[k].ToNode, p.Steps[:k+1]))
			}
		}
	}
	hits := make([]retriever.Hit, 0, len(order))
	for _, id := range order {
		hits = append(hits, best[id])
	}
	out.Hits, _ = retriever.Rank(hits, 0)
	out.Stats = retriever.Fields{
		{Name: "seeds_found", Value: found},
		{Name: "seeds_failed", Value: failed},
		{Name: "nodes_reached", Value: len(hits)},
		{Name: "paths", Value: paths},
	}
	return out
}

// hitAt is node n reached from seed along steps (none: the seed itself).
func hitAt(seed retriever.Seed, n graph.Node, steps []Step) retriever.Hit {
	labels := n.Labels
	if labels == nil {
		labels = []string{}
	}
	h := retriever.Hit{NodeID: n.ID, Labels: labels, Node: n, Seed: seed.NodeID, Route: []retriever.Hop{},
		Terms: []retriever.Term{{Name: "R(" + seed.NodeID + ")", Value: seed.Score}}}
	if len(steps) == 0 {
		h.Score, h.Origin = seed.Score, retriever.OriginInitial
		return h
	}
	h.Origin = retriever.OriginExpanded
	h.Score = steps[len(steps)-1].TransferEnergy
	for _, s := range steps {
		inv := 1 / math.Sqrt(float64(s.Degree))
		h.Route = append(h.Route, retriever.Hop{From: s.FromNode.ID, To: s.ToNode.ID, Type: graph.Relates, Weight: s.Weight,
			Factor: s.Weight * inv * s.TagSim, Edge: s.Edge})
		h.Terms = append(h.Terms, retriever.Term{Name: "w", Value: s.Weight}, retriever.Term{Name: "1/√d", Value: inv},
			retriever.Term{Name: "tag_sim", Value: s.TagSim})
	}
	h.Terms = slices.Clip(h.Terms)
	return h
}
