// Package ppr is personalized PageRank (docs/RETRIEVERS.md, "Personalized
// PageRank"), the retriever of HippoRAG 2: a random walk over RELATES
// relationships that restarts at the seeds, each node scored by the
// probability of finding the walk there, estimated locally by forward
// push, ranked, the top K kept.
//
// It reads a graph only through graph.Neighbourhood (one read of the
// seeds, then at most one Around per round of pushes, for every node of
// the round whose adjacency is not yet at hand), so it runs alike on the
// embedded engine and on Neo4j, and shares only package retriever with
// the other retrievers (docs/ARCHITECTURE.md).
package ppr

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
)

// Name is the retriever's name in rankings, flags and the explorer.
const Name = "ppr"

// lowerBoundSlack keeps the decision to read a node's adjacency safe from
// rounding: the known part of a node's total weight is summed in another
// order than the total, so it is trusted only to this relative margin.
const lowerBoundSlack = 1 - 1e-9

// state is one run's push: nodes are numbered in the order first met (the
// found seeds first, in query order); the k found seeds are nodes 0 to
// k−1, and every per-seed array holds k values per node.
type state struct {
	d, eps float64
	k      int
	p      []float64 // restart distribution over the seeds

	index map[string]int32
	ids   []string
	refs  []graph.NodeRef
	first []int32   // round the node first got residual; 0 for seeds, −1 never
	rtot  []float64 // residual
	rs    []float64 // residual by seed (k per node)
	ms    []float64 // mass pushed out, by seed (k per node)
	known []float64 // lower bound of W (exact once read)
	read  []bool    // adjacency at hand
	lo    []int32   // adjacency: entries lo[u] to hi[u]
	hi    []int32

	nbr []int32
	wt  []float64

	mark []bool // received this round
	tmp  []float64

	touched, pushes, rounds, reads, relsRead int
}

// Retrieve runs personalized PageRank from q's seeds over nb with p. q's
// tags are not used. A seed not in the graph is reported not found and
// gets no restart mass.
func Retrieve(ctx context.Context, nb graph.Neighbourhood, q retriever.Query, p Params) (retriever.Ranking, error) {
	return retriever.Retrieve(ctx, nb, q, p, func(r graph.Reader) (retriever.Ranking, error) { return retrieve(ctx, r, q, p) })
}

func retrieve(ctx context.Context, r graph.Reader, q retriever.Query, p Params) (retriever.Ranking, error) {
	byID, err := retriever.FindSeeds(ctx, r, q.Seeds)
	if err != nil {
		return retriever.Ranking{}, err
	}
	seeds := make([]retriever.SeedStatus, len(q.Seeds))
	var seedRefs []graph.NodeRef
	var rs []float64
	sumR := 0.0
	for i, s := range q.Seeds {
		ref, ok := byID[s.NodeID]
		seeds[i] = retriever.SeedStatus{NodeID: s.NodeID, Score: s.Score, Found: ok}
		if ok {
			seedRefs = append(seedRefs, ref)
			rs = append(rs, s.Score)
			sumR += s.Score
		}
	}
	k := len(seedRefs)
	st := &state{d: p.Damping, eps: p.Epsilon, k: k, index: make(map[string]int32), tmp: make([]float64, k)}
	for t, ref := range seedRefs {
		st.p = append(st.p, rs[t]/sumR)
		st.add(ref)
		st.first[t] = 0
		st.rtot[t] = st.p[t]
		st.rs[t*k+t] = st.p[t]
		st.touched++
	}
	received := make([]int32, k)
	for t := range received {
		received[t] = int32(t)
	}
	if err := st.run(ctx, r, received); err != nil {
		return retriever.Ranking{}, err
	}
	hits, err := st.hits(ctx, r, p.TopK)
	if err != nil {
		return retriever.Ranking{}, err
	}
	kept, _ := retriever.Rank(hits, 0)
	return retriever.Ranking{Retriever: Name, Params: p.Fields(), Seeds: seeds, Hits: kept, Stats: st.stats()}, nil
}

// add numbers a node first met.
func (st *state) add(ref graph.NodeRef) int32 {
	u := int32(len(st.ids))
	st.index[ref.Node.ID] = u
	st.ids = append(st.ids, ref.Node.ID)
	st.refs = append(st.refs, ref)
	st.first = append(st.first, -1)
	st.rtot = append(st.rtot, 0)
	st.known = append(st.known, 0)
	st.read = append(st.read, false)
	st.lo = append(st.lo, 0)
	st.hi = append(st.hi, 0)
	st.mark = append(st.mark, false)
	for range st.k {
		st.rs = append(st.rs, 0)
		st.ms = append(st.ms, 0)
	}
	return u
}

// threshold is what u's residual is compared with: ε × W(u), ε for a
// dangling node (W = 0).
func (st *state) threshold(u int32) float64 {
	if st.known[u] == 0 {
		return st.eps
	}
	return st.eps * st.known[u]
}

// run pushes in rounds until no residual is at or above its threshold.
// Each round takes the nodes that received mass in the last one (the
// seeds first), in the order they were numbered; reads, with one Around,
// the adjacency of those not yet read whose residual reaches ε × the part
// of their weight already known; and pushes every one whose residual
// reaches its threshold, in that order.
func (st *state) run(ctx context.Context, r graph.Reader, received []int32) error {
	var next []int32
	for round := int32(1); len(received) > 0; round++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		slices.Sort(received)
		cands := received[:0]
		var toRead []graph.NodeRef
		for _, u := range received {
			st.mark[u] = false
			switch {
			case st.read[u] && st.rtot[u] >= st.threshold(u):
			case !st.read[u] && st.rtot[u] >= st.eps*st.known[u]*lowerBoundSlack:
				toRead = append(toRead, st.refs[u])
			default:
				continue
			}
			cands = append(cands, u)
		}
		if len(toRead) > 0 {
			if err := st.readAround(ctx, r, toRead); err != nil {
				return err
			}
		}
		next = next[:0]
		pushed := 0
		for _, u := range cands {
			if st.rtot[u] >= st.threshold(u) {
				next = st.push(u, round, next)
				pushed++
			}
		}
		if pushed > 0 {
			st.rounds++
		}
		received, next = next, received
	}
	return nil
}

// readAround reads the adjacency of refs (one Around) and keeps the
// RELATES relationships with a positive weight to nodes with an id.
func (st *state) readAround(ctx context.Context, r graph.Reader, refs []graph.NodeRef) error {
	rels, err := r.Around(ctx, refs)
	if err != nil {
		return err
	}
	st.reads++
	st.relsRead += len(rels)
	u, at := int32(-1), ""
	for i := range rels {
		rel := &rels[i]
		e := &rel.Edge
		if e.SourceID != at || u < 0 {
			if u >= 0 {
				st.hi[u] = int32(len(st.nbr))
			}
			at, u = e.SourceID, st.index[e.SourceID]
			st.read[u], st.known[u], st.lo[u] = true, 0, int32(len(st.nbr))
		}
		if e.Type != graph.Relates {
			continue
		}
		w, err := weightOf(*rel)
		if err != nil {
			return err
		}
		if w == 0 {
			continue
		}
		v, ok := st.index[e.TargetID]
		if !ok {
			v = st.add(rel.To)
		}
		st.nbr = append(st.nbr, v)
		st.wt = append(st.wt, w)
		st.known[u] += w
		if !st.read[v] {
			st.known[v] += w
		}
	}
	if u >= 0 {
		st.hi[u] = int32(len(st.nbr))
	}
	// A node read with no relationship at all is dangling.
	for _, ref := range refs {
		if u := st.index[ref.Node.ID]; !st.read[u] {
			st.read[u], st.known[u] = true, 0
		}
	}
	return nil
}

// weightOf is a RELATES relationship's weight in the walk: its own
// (graph.Rel.WeightOr), graph.MissingRelatesWeight without one. A weight
// that is negative or not a finite number is an error naming the
// relationship.
func weightOf(r graph.Rel) (float64, error) {
	w, err := r.WeightOr(graph.MissingRelatesWeight)
	if err == nil && w < 0 {
		e := r.Edge
		return 0, fmt.Errorf("relationship (%s)-[:%s]-(%s): personalized PageRank needs a finite weight of at least 0, got %v",
			strconv.Quote(e.SourceID), e.Type, strconv.Quote(e.TargetID), w)
	}
	return w, err
}

// push moves u's residual: (1 − d) of it to u's estimate (kept as the
// mass pushed out, ms), d of it along u's relationships in proportion to
// their weights, or back to the restart distribution when u is dangling.
// Every seed's part moves alike. Nodes that receive mass are appended to
// next once.
func (st *state) push(u int32, round int32, next []int32) []int32 {
	k := st.k
	m := st.rtot[u]
	st.rtot[u] = 0
	for s := range k {
		x := st.rs[int(u)*k+s]
		st.tmp[s] = x
		st.rs[int(u)*k+s] = 0
		st.ms[int(u)*k+s] += x
	}
	st.pushes++
	receive := func(v int32, f float64) {
		st.rtot[v] += f * m
		for s := range k {
			st.rs[int(v)*k+s] += f * st.tmp[s]
		}
		if st.first[v] < 0 {
			st.first[v] = round
			st.touched++
		}
		if !st.mark[v] {
			st.mark[v] = true
			next = append(next, v)
		}
	}
	if st.known[u] == 0 {
		for t := range k {
			receive(int32(t), st.d*st.p[t])
		}
		return next
	}
	w := st.known[u]
	for j := st.lo[u]; j < st.hi[u]; j++ {
		receive(st.nbr[j], st.d*st.wt[j]/w)
	}
	return next
}

// scored is a node with an estimate: the sum of its seeds' shares.
type scored struct {
	u     int32
	score float64
}

// share is seed s's share of u's estimate: (1 − d) × the mass of s
// pushed out of u.
func (st *state) share(u int32, s int) float64 {
	return (1 - st.d) * st.ms[int(u)*st.k+s]
}

func (st *state) estimate(u int32) float64 {
	x := 0.0
	for s := range st.k {
		if sh := st.share(u, s); sh != 0 {
			x += sh
		}
	}
	return x
}

// hits ranks every node with an estimate and builds the top K: terms
// (the seeds' shares), route (fed-most relationships back to a seed), and
// properties (one Details read).
func (st *state) hits(ctx context.Context, r graph.Reader, topK int) ([]retriever.Hit, error) {
	var cands []scored
	for u := range st.ids {
		if x := st.estimate(int32(u)); x > 0 {
			cands = append(cands, scored{int32(u), x})
		}
	}
	slices.SortFunc(cands, func(a, b scored) int { return retriever.Compare(a.score, st.ids[a.u], b.score, st.ids[b.u]) })
	cands = cands[:min(len(cands), topK)]
	hits := make([]retriever.Hit, len(cands))
	nodes := make([]graph.NodeRef, len(cands))
	entries := make([][][2]int32, len(cands))
	for i, c := range cands {
		nodes[i] = st.refs[c.u]
		entries[i] = st.route(c.u)
	}
	routes, err := st.routeRels(ctx, r, entries)
	if err != nil {
		return nil, err
	}
	var np []*graph.NodeRef
	var rp []*graph.Rel
	for i := range nodes {
		if nodes[i].Node.Properties == nil {
			np = append(np, &nodes[i])
		}
		for j := range routes[i] {
			rp = append(rp, &routes[i][j])
		}
	}
	if err := r.Details(ctx, np, rp); err != nil {
		return nil, err
	}
	for i, c := range cands {
		hits[i] = st.hitOf(c, nodes[i].Node, routes[i])
	}
	return hits, nil
}

// route is the chain of relationships that fed u most, from a seed out to
// u (empty for a seed), as adjacency entries of the fed nodes: each node's feeder is, among its relationships
// to nodes that got residual in an earlier round, the one that carried the
// most mass to it, d × pushed(x) × w / W(x) (on a tie the smaller id of
// x, then the first relationship in graph.SortRels order). A node first
// reached in round t was reached by a push of a node first reached
// before, so the chain ends at a seed (round 0).
func (st *state) route(u int32) [][2]int32 {
	var back [][2]int32
	for st.first[u] > 0 {
		best, bestFlow, bestJ := int32(-1), -1.0, int32(-1)
		for j := st.lo[u]; j < st.hi[u]; j++ {
			x := st.nbr[j]
			if st.first[x] < 0 || st.first[x] >= st.first[u] || st.known[x] == 0 {
				continue
			}
			flow := st.pushed(x) * st.wt[j] / st.known[x]
			if flow > bestFlow || (flow == bestFlow && st.ids[x] < st.ids[best]) {
				best, bestFlow, bestJ = x, flow, j
			}
		}
		if best < 0 {
			break // cannot happen (see above); the route stops short
		}
		back = append(back, [2]int32{u, bestJ})
		u = best
	}
	return back
}

// routeRels reads the relationships of the routes' entries (each a fed
// node and an entry of its adjacency): one Around of the fed nodes, kept
// by the filter readAround applied, so that the n-th relationship kept
// around a node is its n-th entry. The push keeps no relationship, only
// its weight and other end.
func (st *state) routeRels(ctx context.Context, r graph.Reader, entries [][][2]int32) ([][]graph.Rel, error) {
	var refs []graph.NodeRef
	seen := map[int32]bool{}
	for _, route := range entries {
		for _, e := range route {
			if !seen[e[0]] {
				seen[e[0]] = true
				refs = append(refs, st.refs[e[0]])
			}
		}
	}
	out := make([][]graph.Rel, len(entries))
	if len(refs) == 0 {
		return out, nil
	}
	rels, err := r.Around(ctx, refs)
	if err != nil {
		return nil, err
	}
	st.reads++
	st.relsRead += len(rels)
	at := map[int32]graph.Rel{} // entry → its relationship
	u, j := int32(-1), int32(0)
	for _, rel := range rels {
		if v := st.index[rel.Edge.SourceID]; v != u {
			u, j = v, st.lo[v]
		}
		if rel.Edge.Type != graph.Relates {
			continue
		}
		if w, err := weightOf(rel); err != nil || w == 0 {
			continue // refused when first read
		}
		at[j] = rel
		j++
	}
	for i, route := range entries {
		for k := len(route) - 1; k >= 0; k-- {
			out[i] = append(out[i], at[route[k][1]])
		}
	}
	return out, nil
}

// pushed is the mass pushed out of u, all seeds.
func (st *state) pushed(u int32) float64 {
	x := 0.0
	for s := range st.k {
		x += st.ms[int(u)*st.k+s]
	}
	return x
}

// hitOf builds a kept node's hit. Its terms are the seeds' shares, in
// query order, zero shares left out: the score is their sum.
func (st *state) hitOf(c scored, node graph.Node, route []graph.Rel) retriever.Hit {
	labels := node.Labels
	if labels == nil {
		labels = []string{}
	}
	hit := retriever.Hit{NodeID: st.ids[c.u], Score: c.score, Labels: labels, Node: node, Route: []retriever.Hop{},
		Terms: []retriever.Term{}, TermsAdd: true}
	for s := range st.k {
		if sh := st.share(c.u, s); sh != 0 {
			hit.Terms = append(hit.Terms, retriever.Term{Name: "share(" + st.ids[s] + ")", Value: sh})
		}
	}
	if c.u < int32(st.k) {
		hit.Seed, hit.Origin = hit.NodeID, retriever.OriginInitial
		return hit
	}
	hit.Origin = retriever.OriginExpanded
	for _, rel := range route {
		// rel runs from the fed node back to its feeder: turn it round.
		e := rel.Full()
		e.SourceID, e.TargetID = e.TargetID, e.SourceID
		x := st.index[e.SourceID]
		w, _ := weightOf(rel) // checked when read
		hit.Route = append(hit.Route, retriever.Hop{From: e.SourceID, To: e.TargetID, Type: e.Type, Weight: w,
			Factor: st.d * w / st.known[x], Edge: e})
	}
	if len(hit.Route) > 0 {
		hit.Seed = hit.Route[0].From
	}
	return hit
}

// stats are the push's counts and the residual mass left, which bounds
// every estimate's error (docs/RETRIEVERS.md).
func (st *state) stats() retriever.Fields {
	res := 0.0
	for _, x := range st.rtot {
		res += x
	}
	return retriever.Fields{
		{Name: "seeds_found", Value: st.k},
		{Name: "nodes_touched", Value: st.touched},
		{Name: "nodes_read", Value: st.countRead()},
		{Name: "pushes", Value: st.pushes},
		{Name: "rounds", Value: st.rounds},
		{Name: "reads", Value: st.reads},
		{Name: "relationships_read", Value: st.relsRead},
		{Name: "residual_mass", Value: res},
	}
}

func (st *state) countRead() int {
	n := 0
	for _, r := range st.read {
		if r {
			n++
		}
	}
	return n
}
