package activation

import "context"

// Near restricts an expansion to some of the neighbours of some frontier
// nodes. `why` reads the graph from both ends (docs/ALGORITHM.md, "Why not
// X", step 1) and, of a node's relationships, needs only those that can
// lie on a route short enough, which it tells from two hop counts it knows
// for some nodes: Near lets an engine leave the others out before they
// cost a row.
type Near struct {
	// Dist holds two hop counts of some nodes, by node id.
	Dist map[string][2]int
	// Limit holds two limits of some frontier nodes, by node id: the
	// candidates of such a node go only to the neighbours n that Dist
	// holds with Dist[n][0] <= Limit[0] or Dist[n][1] <= Limit[1]. A
	// frontier node Limit lacks keeps all its candidates.
	Limit map[string][2]int
	// Degrees asks for each candidate's NeighborDegree (left 0 otherwise):
	// why's search bounds the hops out of a node it has not read by it.
	Degrees bool
}

// UnitWeigher is an Expander that can tell, without reading every
// relationship, whether every relationship it expands has an effective
// weight in [0, 1]. Then no hop's factor w/√d × tag_sim exceeds 1/√d, and
// why's search may stop reading where nothing left can beat the best route
// found (docs/ALGORITHM.md, "Why not X"). False means not known.
type UnitWeigher interface {
	UnitWeights(ctx context.Context) (bool, error)
}

// Keeps reports whether near keeps the candidate of parent to neighbour.
func (n Near) Keeps(parent, neighbour string) bool {
	lim, ok := n.Limit[parent]
	if !ok {
		return true
	}
	d, ok := n.Dist[neighbour]
	return ok && (d[0] <= lim[0] || d[1] <= lim[1])
}

// NearExpander is an Expander that applies a Near itself, so that what it
// leaves out is never read (the Neo4j fast path: never sent).
type NearExpander interface {
	Expander
	// ExpandNear returns the candidates ExpandFrontier returns for req that
	// near keeps, in the same order. (A neighbour whose id is not a string
	// is never left out: the expansion fails on it as ExpandFrontier does.)
	ExpandNear(ctx context.Context, req ExpandRequest, near Near) ([]Candidate, error)
}

// Filter returns the candidates of cands that near keeps, in their order,
// in a new slice: cands may belong to the expander (a cache holds it).
func (n Near) Filter(cands []Candidate) []Candidate {
	out := make([]Candidate, 0, len(cands))
	for _, c := range cands {
		if n.Keeps(c.ParentID, c.NeighborNode.ID) {
			out = append(out, c)
		}
	}
	return out
}

// ExpandNear returns the candidates e's ExpandFrontier returns for req
// that near keeps, in the same order: through e's own ExpandNear when it
// is a NearExpander, else by filtering ExpandFrontier's answer.
func ExpandNear(ctx context.Context, e Expander, req ExpandRequest, near Near) ([]Candidate, error) {
	if n, ok := e.(NearExpander); ok {
		return n.ExpandNear(ctx, req, near)
	}
	cands, err := e.ExpandFrontier(ctx, req)
	if err != nil {
		return nil, err
	}
	return near.Filter(cands), nil
}
