package retriever

import (
	"context"

	"github.com/memoria-graph/memoria/graph"
)

// The reasons a ranking retriever did not reach a node at all (a why-not's
// Unreached.Reason, docs/RETRIEVERS.md "Why a ranking retriever missed a
// node"). Each retriever's WhyNot hook gives one of them.
const (
	// ReasonNoRoute: no route within the retriever's reach: for the
	// expansion none of at most H hops over any relationship type; for
	// spreading activation no RELATES route of at most P hops.
	ReasonNoRoute = "no_route"
	// ReasonNotFollowed (expansion): within H hops, but only through
	// relationship types it does not follow (weight 0 or not in the table).
	ReasonNotFollowed = "not_followed"
	// ReasonNotPositive (expansion): within H hops through followed types,
	// but every such route passes a node whose value is not positive (a
	// negative type weight, a relationship weight of 0 or less), where the
	// expansion stops.
	ReasonNotPositive = "not_positive"
	// ReasonNotFired (spreading): within P RELATES hops, but no neighbour of
	// it ever fired: the nodes before it on its routes stayed below θ.
	ReasonNotFired = "not_fired"
	// ReasonBelowThreshold (spreading): activation reached it, but its A(v)
	// stayed below θ.
	ReasonBelowThreshold = "below_threshold"
	// ReasonNotPushed (ppr): its estimate is 0: the push never moved mass
	// to it within ε.
	ReasonNotPushed = "not_pushed"
	// ReasonInNoList (a retriever that combines others, fusion): in none of
	// the combined rankings' top N.
	ReasonInNoList = "in_no_list"
	// ReasonNotRanked: the retriever's whole ranking lacks it, and the
	// retriever gives no reason of its own (no WhyNot hook).
	ReasonNotRanked = "not_ranked"
)

// SearchBeyond is how many hops past a retriever's reach the why-not's
// distance search looks, so that "3 hops away, H = 1" can be said.
const SearchBeyond = 2

// Unreached is a ranking retriever's own account of a node its whole
// ranking lacks (Definition.WhyNot): the reason and the numbers that make
// it. Distances are −1 when the bounded search found no route.
type Unreached struct {
	Reason string
	// Limit is the hops its reach is bounded by (the expansion's H,
	// spreading's P; 0 for none).
	Limit int
	// Hops is the node's distance from the nearest seed over every
	// relationship the retriever could follow (every type for the
	// expansion, RELATES for the others); FollowedHops, for a retriever
	// that follows some types only (Typed), over those.
	Hops, FollowedHops int
	// Searched is how many hops the search covered; Whole says it met
	// every node a route from the seeds reaches.
	Searched int
	Whole    bool
	// Unfollowed are, for ReasonNotFollowed, the types not followed on the
	// node's shortest routes, sorted.
	Unfollowed []string
	// Typed says the retriever follows relationship types by a table (the
	// expansion): its distances and facts name the followed types.
	Typed bool
	// Activation and Threshold are spreading's A(v) and θ; Epsilon and
	// Touched ppr's ε and the nodes that got residual.
	Activation, Threshold, Epsilon float64
	Touched                        int
}

// Reach is what a why-not's distance search found: the node's distance in
// hops from the nearest seed (−1 for none found), how many hops were
// searched, the noted types on its shortest routes, and whether the search
// met every node any route reaches.
type Reach struct {
	Hops, Searched int
	Types          []string
	Whole          bool
}

// Probe is what a retriever's WhyNot hook reads: the node asked about, the
// query, the graph, and a bounded breadth-first distance search from the
// seeds found.
type Probe interface {
	Node() graph.NodeRef
	Query() Query
	Neighbourhood() graph.Neighbourhood
	// Distance is the node's distance from the nearest seed over the
	// relationships follow accepts (a self-loop never), at most maxHops
	// hops; the types of the relationships on its shortest routes that
	// noted accepts (nil: none) are gathered.
	Distance(ctx context.Context, maxHops int, follow, noted func(graph.Rel) bool) (Reach, error)
}

// FollowsRelates is the follow rule of a retriever that walks RELATES
// only.
func FollowsRelates(rel graph.Rel) bool { return rel.Edge.Type == graph.Relates }

// WhyNot is the retriever's own account of a node its whole ranking all
// lacks, with the settings' parameters; ok is false for a retriever that
// gives none (the why-not then says only that it did not rank it).
func (p Settings) WhyNot(ctx context.Context, pr Probe, all Ranking) (u Unreached, ok bool, err error) {
	if p.spec.whyNot == nil {
		return Unreached{}, false, nil
	}
	u, err = p.spec.whyNot(ctx, pr, p.value(), all)
	return u, true, err
}

// ReachRule is how far a retriever reaches (Definition.Reach): at most
// Hops hops from a seed over the relationships Follow accepts; Typed says
// it follows relationship types by a table (the expansion) rather than
// RELATES.
type ReachRule struct {
	Hops   int
	Follow func(graph.Rel) bool
	Typed  bool
}

// Reach is how far the retriever reaches with these settings, for the
// why-not's "filtered" verdict; ok is false for a retriever with no such
// bound.
func (p Settings) Reach() (r ReachRule, ok bool) {
	if p.spec.reach == nil {
		return ReachRule{}, false
	}
	return p.spec.reach(p.value()), true
}
