package rankwhy

import (
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation/why"
)

// The verdicts of a ranking retriever's why-not (`memoria why --retriever
// NAME`, docs/CLI.md "Why not X").
const (
	// Kept: the node is among the retriever's top K.
	Kept = "kept"
	// Cut: the retriever ranked the node, below its K-th hit.
	Cut = "cut"
	// Unreached: the retriever did not rank the node at all.
	Unreached = "unreached"
	// Filtered: the retriever did not rank the node, and could have
	// reached it within its reach only through relationships the run's
	// relationship filter removed (docs/RETRIEVERS.md, "Relationship
	// filters").
	Filtered = "filtered"
)

// Answer is a ranking retriever's answer to "why is this node (not) in
// its top K": the node's place in the retriever's whole ranking (a run with
// K large), or, when it has none, the retriever's own reason and the
// numbers that make it.
type Answer struct {
	Retriever string
	NodeID    string
	Verdict   string // Kept, Cut, Unreached or Filtered
	K         int
	// Hit is the node's hit, kept or cut (rank, score, terms, route,
	// feeders, detail); nil when unreached.
	Hit *retriever.Hit
	// Kth is the retriever's K-th hit; nil when it ranked fewer than K.
	Kth *retriever.Hit
	// Ranked is how many hits the retriever ranked in all.
	Ranked int
	// Reason is why an unreached node was not ranked (retriever.Reason*,
	// or a fused Activation Energy list's why.Verdict).
	Reason string
	// Limit is the hops the retriever's reach is bounded by: the
	// expansion's H, spreading's P; 0 for the others.
	Limit int
	// Hops is the node's distance in hops from the nearest seed found,
	// over every relationship type for the expansion and over RELATES for
	// spreading and ppr; −1 when the bounded search found no route within
	// Searched hops.
	Hops int
	// FollowedHops is, for a retriever that follows types by a table
	// (Typed: the expansion), the distance over the types it follows (−1
	// as for Hops).
	FollowedHops int
	// Typed says the retriever follows relationship types by a table (the
	// expansion) rather than RELATES: its distances and facts name the
	// followed types.
	Typed bool
	// Searched is how many hops from the seeds the search covered.
	Searched int
	// Whole says the search met every node any route from the seeds
	// reaches (so a distance of −1 means no route at all, of any length).
	Whole bool
	// Unfollowed are, for not_followed, the types not followed on the
	// node's shortest routes, sorted.
	Unfollowed []string
	// Activation and Threshold are spreading's A(v) and θ.
	Activation, Threshold float64
	// Epsilon, ResidualMass and Touched are ppr's ε, the residual mass
	// left (every π is at most that above its estimate) and the nodes that
	// got residual; Residual says the ranking reports a residual mass (its
	// statistic residual_mass).
	Residual              bool
	Epsilon, ResidualMass float64
	Touched               int
	// Lists are, for fusion, each fused ranking's verdict at the fuse
	// depth (when the node is unreached), in --fuse order.
	Lists []Answer
	// Why is a fused Activation Energy list's own answer when it did not
	// reach the node.
	Why *why.Answer
	// Filter is, for Filtered, the relationship filter's description;
	// Hops is then the node's distance without the filter and
	// FollowedHops with it (−1: none within Searched hops).
	Filter string
}
