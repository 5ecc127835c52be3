package spreading

import (
	"context"
	"slices"
	"strings"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
)

// reachOf is spreading activation's: P hops over RELATES.
func reachOf(p Params) retriever.ReachRule {
	return retriever.ReachRule{Hops: p.Pulses, Follow: retriever.FollowsRelates}
}

// whyNot is spreading activation's account of a node it did not rank: no
// RELATES route of at most P hops (no_route); one, but no neighbour of it
// fired (not_fired); or its activation A(v), computed from the whole
// ranking, stayed below θ (below_threshold).
func whyNot(ctx context.Context, pr retriever.Probe, p Params, all retriever.Ranking) (retriever.Unreached, error) {
	u := retriever.Unreached{Limit: p.Pulses, Threshold: p.Threshold, Hops: -1, FollowedHops: -1}
	d, err := pr.Distance(ctx, p.Pulses+retriever.SearchBeyond, retriever.FollowsRelates, nil)
	if err != nil {
		return u, err
	}
	u.Hops, u.Searched, u.Whole = d.Hops, d.Searched, d.Whole
	if d.Hops < 0 || d.Hops > p.Pulses {
		u.Reason = retriever.ReasonNoRoute
		return u, nil
	}
	act, received, err := unrankedActivation(ctx, pr, all, p)
	if err != nil {
		return u, err
	}
	u.Reason, u.Activation = retriever.ReasonBelowThreshold, act
	if !received {
		u.Reason = retriever.ReasonNotFired
	}
	return u, nil
}

// unrankedActivation is A(v) for a node spreading activation did not rank,
// computed from its whole ranking: every node that fires is a candidate
// (its Δ at the pulse before is at least θ, so its A is, when no weight is
// negative), and each candidate's detail gives its Δ per pulse; the node's
// A is what its RELATES relationships to the nodes that fired brought it,
// added as the retriever adds (pulse by pulse, senders by id, parallel
// relationships by weight), plus its own Δ₀ when it is a seed. received
// says whether anything reached it.
func unrankedActivation(ctx context.Context, pr retriever.Probe, all retriever.Ranking, p Params) (act float64, received bool, err error) {
	node := pr.Node()
	deltas := map[string][]float64{}
	for _, h := range all.Hits {
		if v, ok := h.Detail.Get("pulses"); ok {
			if d, ok := v.([]float64); ok {
				deltas[h.NodeID] = d
			}
		}
	}
	for _, s := range pr.Query().Seeds {
		if s.NodeID == node.Node.ID {
			act, received = 1, true
			if p.Initial == InitialScore {
				act = s.Score
			}
		}
	}
	var arcs []graph.Arc
	err = pr.Neighbourhood().Read(ctx, func(r graph.Reader) error {
		var err error
		arcs, err = r.Arcs(ctx, []graph.NodeRef{node}, graph.Relates, graph.MissingRelatesWeight)
		return err
	})
	if err != nil {
		return 0, false, err
	}
	slices.SortStableFunc(arcs, func(a, b graph.Arc) int { return strings.Compare(a.To.Node.ID, b.To.Node.ID) })
	run := retriever.StatInt(all, "pulses_run")
	for pulse := 1; pulse <= run; pulse++ {
		delta := 0.0
		for _, arc := range arcs {
			u := arc.To.Node.ID
			d := deltas[u]
			if u == node.Node.ID || len(d) < pulse || d[pulse-1] < p.Threshold || d[pulse-1] == 0 {
				continue
			}
			delta += d[pulse-1] * arc.Weight * p.Decay
			received = true
		}
		act += delta
	}
	return act, received, nil
}
