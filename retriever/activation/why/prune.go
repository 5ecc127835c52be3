package why

import (
	"context"
	"errors"
	"math"

	"github.com/memoria-graph/memoria/retriever"
)

// smallestNormal is the least normal float64, 2⁻¹⁰²². slack covers the
// rounding of the bounds' products relative to their size only while the
// best T, and with it every product along a route that reaches it (R ≤ 1,
// every factor ≤ 1), is at least this: below it each product is rounded to
// a fixed step (4.9e-324), a bound may fall a step below the T it bounds,
// and prune prunes nothing.
const smallestNormal = 0x1p-1022

// lowerBoundBudget is how many partial routes prune's search for a route
// in the region read so far may try: its answer is only a lower bound, so
// a search cut short costs pruning, not exactness.
const lowerBoundBudget = 20_000

// prune marks the nodes that cannot be the hop source of a route of at
// most MAX_DEPTH hops whose final T reaches the best route already in the
// region (docs/ALGORITHM.md, "Why not X", pruning by energy), so that
// readRegion neither reads nor follows them. It needs every weight in
// [0, 1] (g.unit): then every hop's factor w/√d × tag_sim lies in
// [0, 1/√d], d the degree of the hop's source, so
//
//   - a route's T is at most its prefix's T times the best product of
//     factors over walks from there to the target (walks bound simple
//     routes from above), and
//   - a hop out of a node whose relationships are not read yet has a
//     factor of at most 1/√d (1 while d is unknown).
//
// The best route found so far in the region (a real, simple route, found
// by the exact search with a small budget) gives the T to reach. For each
// node v and hop count i, F(v, i) bounds the T of every walk of i hops
// from a seed to v, and U(v, r) the product of the factors of every walk
// from v to the target within r hops. Over the read nodes both follow
// their relationships; a node not read leaves by hops not known yet, so
// walks through such nodes are bounded by the highest value any of them
// has (the unread bound of that step), divided by √d of the node left,
// which covers the nodes not met at all. A node is kept when, for some i,
// F(v, i) × U(v, MAX_DEPTH − i) reaches the best T (within slack): every
// route that could beat or tie the best found keeps all its hop sources.
// Pruned nodes take no part in later bounds, since no route that matters
// passes through them.
func (g *region) prune(ctx context.Context, seeds []retriever.Seed, starts []int) error {
	best, err := g.search(ctx, seeds, starts, lowerBoundBudget)
	if err != nil && !errors.Is(err, errBudget) {
		return err
	}
	if best == nil || !(best.t >= smallestNormal) {
		return nil // nothing to reach yet, or too little for slack to cover the rounding
	}
	n, depth := len(g.nodes), g.maxDepth
	live := func(v int) bool { return !g.nodes[v].pruned }
	leave := func(v int) float64 { // the factor bound of a hop out of unread v
		if d := g.nodes[v].deg; d > 1 {
			return 1 / math.Sqrt(float64(d))
		}
		return 1
	}

	// F, level by level: f[i] holds the read-graph part, floor[i] the
	// bound every node gets through nodes not read.
	f := make([][]float64, depth)
	floor := make([]float64, depth)
	f[0] = make([]float64, n)
	for _, i := range starts {
		v := g.index[seeds[i].NodeID]
		f[0][v] = max(f[0][v], seeds[i].Score)
	}
	for i := 1; i < depth; i++ {
		f[i] = make([]float64, n)
		out := floor[i-1] // a node not met leaves by factor ≤ 1
		for v := range n {
			x := max(f[i-1][v], floor[i-1])
			if x <= 0 || !live(v) || int32(v) == g.target {
				continue
			}
			if !g.nodes[v].read {
				out = max(out, x*leave(v))
				continue
			}
			for _, e := range g.nodes[v].adj {
				f[i][e.to] = max(f[i][e.to], x*e.f)
			}
		}
		floor[i] = out
	}

	// U, by the number of hops left: u[r] for every node, known[v] the
	// best over the read relationships of unread v, and unread[r] the
	// highest U of an unread node (which bounds a hop to one not met).
	u := make([][]float64, depth+1)
	unread := make([]float64, depth+1)
	u[0] = make([]float64, n)
	u[0][g.target] = 1
	if !g.nodes[g.target].read {
		unread[0] = 1
	}
	known := make([]float64, n)
	for r := 1; r <= depth; r++ {
		u[r] = make([]float64, n)
		clear(known)
		for v := range n {
			if !g.nodes[v].read || !live(v) {
				continue
			}
			best := u[r-1][v]
			for _, e := range g.nodes[v].adj {
				best = max(best, e.f*u[r-1][e.to])
				if to := &g.nodes[e.to]; !to.read && live(int(e.to)) {
					// the same relationship, walked from the other end
					known[e.to] = max(known[e.to], e.w*e.ts*u[r-1][v])
				}
			}
			u[r][v] = best
		}
		u[r][g.target] = 1
		unread[r] = unread[r-1]
		for v := range n {
			if g.nodes[v].read || !live(v) || int32(v) == g.target {
				continue
			}
			u[r][v] = max(u[r-1][v], leave(v)*max(known[v], unread[r-1]))
			unread[r] = max(unread[r], u[r][v])
		}
	}

	for v := range n {
		if int32(v) == g.target || !live(v) {
			continue
		}
		keep := false
		for i := 0; i < depth && !keep; i++ {
			keep = max(f[i][v], floor[i])*u[depth-i][v]*slack >= best.t
		}
		g.nodes[v].pruned = !keep
	}
	return nil
}
