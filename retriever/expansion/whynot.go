package expansion

import (
	"context"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
)

// follows says whether the expansion follows rel with p: its type is in
// the table with a weight other than 0.
func follows(p Params) func(graph.Rel) bool {
	return func(rel graph.Rel) bool {
		tw, ok := p.TypeWeights[rel.Edge.Type]
		return ok && tw != 0
	}
}

// reachOf is the expansion's: H hops over the types it follows.
func reachOf(p Params) retriever.ReachRule {
	return retriever.ReachRule{Hops: p.MaxHops, Follow: follows(p), Typed: true}
}

// whyNot is the expansion's account of a node it did not rank
// (docs/RETRIEVERS.md, "Why a ranking retriever missed a node"): no route
// of at most H hops over any type (no_route); one, but only through types
// it does not follow, which are named (not_followed); or one through
// followed types on which a value is not positive (not_positive).
func whyNot(ctx context.Context, pr retriever.Probe, p Params, _ retriever.Ranking) (retriever.Unreached, error) {
	h := p.MaxHops
	u := retriever.Unreached{Limit: h, Hops: -1, FollowedHops: -1, Typed: true}
	followed := follows(p)
	anyType, err := pr.Distance(ctx, h+retriever.SearchBeyond, func(graph.Rel) bool { return true }, func(rel graph.Rel) bool { return !followed(rel) })
	if err != nil {
		return u, err
	}
	fol, err := pr.Distance(ctx, h+retriever.SearchBeyond, followed, nil)
	if err != nil {
		return u, err
	}
	u.Hops, u.FollowedHops, u.Searched = anyType.Hops, fol.Hops, min(anyType.Searched, fol.Searched)
	switch {
	case anyType.Hops < 0 || anyType.Hops > h:
		u.Reason, u.Searched, u.Whole = retriever.ReasonNoRoute, anyType.Searched, anyType.Whole
	case fol.Hops < 0 || fol.Hops > h:
		u.Reason, u.Searched, u.Whole, u.Unfollowed = retriever.ReasonNotFollowed, fol.Searched, fol.Whole, anyType.Types
	default:
		u.Reason = retriever.ReasonNotPositive
	}
	return u, nil
}
