package ppr

import (
	"context"

	"github.com/memoria-graph/memoria/retriever"
)

// searchHops is how far the why-not's distance search looks for ppr, whose
// push has no reach of its own.
const searchHops = 4

// reachOf is ppr's for the "filtered" verdict: searchHops over RELATES.
func reachOf(Params) retriever.ReachRule {
	return retriever.ReachRule{Hops: searchHops, Follow: retriever.FollowsRelates}
}

// whyNot is ppr's account of a node it did not rank: its estimate is 0,
// the push never moved mass to it within ε (not_pushed), with the nodes
// the push touched and the node's distance over RELATES.
func whyNot(ctx context.Context, pr retriever.Probe, p Params, all retriever.Ranking) (retriever.Unreached, error) {
	u := retriever.Unreached{Reason: retriever.ReasonNotPushed, Hops: -1, FollowedHops: -1, Epsilon: p.Epsilon,
		Touched: retriever.StatInt(all, "nodes_touched")}
	d, err := pr.Distance(ctx, searchHops, retriever.FollowsRelates, nil)
	u.Hops, u.Searched, u.Whole = d.Hops, d.Searched, d.Whole
	return u, err
}
