package why

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// The two ends a route is read from (docs/ALGORITHM.md, "Why not X", step 1).
const (
	fromSeeds = 0 // hops from the nearest seed
	toTarget  = 1 // hops to the node asked about
)

// region is the part of the graph the two-sided read has seen: every node
// met so far, numbered in the order met, with its hop distance from the
// seeds and to the target as far as the read has found them, and, of the
// nodes it read, the RELATES relationships that can lie on a short enough
// route (see near), in the Expander's order, as the few numbers the bound
// and the search need. It keeps no node or relationship properties: the
// answer's steps are read again at the end, for the best route only
// (steps).
type region struct {
	maxDepth int
	tags     []string
	floor    float64
	index    map[string]int32 // node id → number
	nodes    []regionNode
	target   int32

	// mark and count find parallel relationships (see rankTies).
	mark, count []int32
	stamp       int32

	// unit says the Expander vouched that every weight lies in [0, 1]
	// (activation.UnitWeigher): the read then also prunes by energy
	// (prune), and asks for the neighbours' degrees.
	unit bool
}

type regionNode struct {
	id   string
	dist [2]int8 // fromSeeds, toTarget; -1 while unknown
	read bool    // its neighbourhood was read: adj is what near kept of it
	adj  []edge
	deg  int64 // its degree, once a read has said it (0 before)
	// pruned: it is the hop source of no route that can reach the best T
	// found (prune); it is neither read nor followed any more.
	pruned bool
}

// edge is one RELATES relationship out of a read node, as the Expander gave
// it with activation 1.
type edge struct {
	to int32
	// tie orders the node's parallel relationships to the same neighbour
	// as their activation.EdgeKey strings do (0 when there is only one):
	// the search breaks ties of T between them by it, as rule 4 does.
	tie int32
	// ord is its place among the parent's relationships to the same
	// neighbour, in the Expander's order (0 for the first).
	ord int32
	deg int64   // the parent's degree
	w   float64 // activation.EffectiveWeight
	ts  float64 // tag_sim
	f   float64 // the hop's factor: TransferEnergy(1, w, deg, ts)
}

// node returns the number of the node id, numbering it if it is new.
func (g *region) node(id string) int32 {
	if v, ok := g.index[id]; ok {
		return v
	}
	v := int32(len(g.nodes))
	g.index[id] = v
	g.nodes = append(g.nodes, regionNode{id: id, dist: [2]int8{-1, -1}})
	return v
}

// readRegion reads, from both ends, the neighbourhoods of every node that
// can be on a route of at most MAX_DEPTH hops from a seed to the target
// (docs/ALGORITHM.md, "Why not X", step 1). A route v0 … vL needs the
// neighbourhoods of its hop sources v0 … vL-1, and vi is at most i hops
// from a seed and at most L-i ≤ MAX_DEPTH-i hops from the target. So once
// one side has read every node less than rf hops from the seeds and the
// other every node less than rb hops from the target, with rf + rb >
// MAX_DEPTH, every such node has been read by one side or the other.
//
// Each step grows the side whose next level has fewer nodes still to read
// (a node the other side read is not read again), in one expansion (an
// ExpandFrontier restricted by a Near, see near): one round trip on Neo4j.
// A node whose distance from its side plus the least distance it can have
// from the other side exceeds MAX_DEPTH is on no such route and is neither
// read nor followed; when a side has no node left to follow, every node on
// a route has been read.
func readRegion(ctx context.Context, exp activation.Expander, do func(func() error) error, cfg Config, tags []string, seeds []int) (*region, error) {
	g := &region{maxDepth: cfg.Params.MaxDepth, tags: tags, floor: cfg.Params.TagSimFloor, index: map[string]int32{}}
	type side struct {
		level []int32 // the nodes `done` hops from this side's start
		done  int     // levels whose neighbourhoods are known
	}
	var sides [2]side
	for _, i := range seeds {
		if v := g.node(cfg.Seeds[i].NodeID); g.nodes[v].dist[fromSeeds] < 0 {
			g.nodes[v].dist[fromSeeds] = 0
			sides[fromSeeds].level = append(sides[fromSeeds].level, v)
		}
	}
	g.target = g.node(cfg.NodeID)
	g.nodes[g.target].dist[toTarget] = 0
	sides[toTarget].level = []int32{g.target}
	if u, ok := exp.(activation.UnitWeigher); ok {
		unit, err := u.UnitWeights(ctx)
		if err != nil {
			return nil, err
		}
		g.unit = unit
	}

	for sides[fromSeeds].done+sides[toTarget].done <= g.maxDepth {
		if g.unit {
			if err := g.prune(ctx, cfg.Seeds, seeds); err != nil {
				return nil, err
			}
		}
		var follow, fetch [2][]int32
		for s := range sides {
			for _, v := range sides[s].level {
				n := &g.nodes[v]
				if n.pruned {
					continue
				}
				least := int(n.dist[1-s]) // the least distance from the other side
				if least < 0 {
					least = sides[1-s].done + 1 // the other side has found every node of a route up to done hops out
				}
				if sides[s].done+least > g.maxDepth {
					continue // on no route short enough
				}
				follow[s] = append(follow[s], v)
				if !n.read {
					fetch[s] = append(fetch[s], v)
				}
			}
		}
		if len(follow[fromSeeds]) == 0 || len(follow[toTarget]) == 0 {
			break // a side is finished: every node of a route is read
		}
		s := fromSeeds
		if len(fetch[toTarget]) < len(fetch[fromSeeds]) {
			s = toTarget
		}
		if err := g.read(ctx, exp, do, fetch[s], g.near(fetch[s], [2]int{sides[fromSeeds].done, sides[toTarget].done})); err != nil {
			return nil, err
		}
		d := sides[s].done + 1
		var next []int32
		for _, v := range follow[s] {
			for _, e := range g.nodes[v].adj {
				if n := &g.nodes[e.to]; n.dist[s] < 0 {
					n.dist[s] = int8(d)
					next = append(next, e.to)
				}
			}
		}
		sides[s] = side{level: next, done: d}
	}
	return g, nil
}

// far is a hop count no route comes near: a distance not known.
const far = math.MaxInt32

// near says which relationships of the nodes vs a read needs, from what
// the read knows before it (done: the levels each side has read). A
// relationship (v, w) can be a hop v → w of a route of at most MAX_DEPTH
// hops only if v's distance from the seeds plus 1 plus w's distance to the
// target is at most MAX_DEPTH, and a hop w → v only if w's distance from
// the seeds plus 1 plus v's to the target is. With each distance replaced
// by the least it can be (the one found, or one more than the levels its
// side has read), that keeps every relationship of every route, and every
// relationship a breadth-first search needs to find the distances of the
// nodes on routes (the last hop of a shortest path to such a node is
// itself on a route). So v needs every relationship when a neighbour not
// met yet may qualify; otherwise only those to the met neighbours close
// enough to one end, which Near's Dist and Limit name.
func (g *region) near(vs []int32, done [2]int) activation.Near {
	least := func(v int32, s int) int {
		if d := g.nodes[v].dist[s]; d >= 0 {
			return int(d)
		}
		return done[s] + 1
	}
	limit := map[string][2]int{}
	most := [2]int{-1, -1}
	for _, v := range vs {
		l := [2]int{g.maxDepth - 1 - least(v, toTarget), g.maxDepth - 1 - least(v, fromSeeds)} // w's most hops from the seeds, to the target
		if l[fromSeeds] > done[fromSeeds] || l[toTarget] > done[toTarget] {
			continue // a neighbour met by neither side may do
		}
		limit[g.nodes[v].id] = l
		most = [2]int{max(most[0], l[0]), max(most[1], l[1])}
	}
	near := activation.Near{Limit: limit, Dist: map[string][2]int{}}
	if len(limit) == 0 {
		return near
	}
	for _, n := range g.nodes {
		d := [2]int{far, far}
		for s := range d {
			if n.dist[s] >= 0 && int(n.dist[s]) <= most[s] {
				d[s] = int(n.dist[s])
			}
		}
		if d != [2]int{far, far} {
			near.Dist[n.id] = d
		}
	}
	return near
}

// request is the expansion that returns every RELATES relationship of the
// nodes: nothing visited, no threshold, activation 1.
func (g *region) request(vs []int32) activation.ExpandRequest {
	frontier := make([]activation.FrontierInput, len(vs))
	for i, v := range vs {
		frontier[i] = activation.FrontierInput{NodeID: g.nodes[v].id, Activation: 1}
	}
	return activation.ExpandRequest{Frontier: frontier, Visited: map[string]struct{}{}, QueryTags: g.tags,
		MinActivation: -math.MaxFloat64, TagSimFloor: g.floor}
}

// read reads the neighbourhoods of vs, as far as near keeps them, in one
// expansion and keeps them in compact form; the candidates themselves are
// dropped.
func (g *region) read(ctx context.Context, exp activation.Expander, do func(func() error) error, vs []int32, near activation.Near) error {
	if len(vs) == 0 {
		return nil
	}
	req := g.request(vs)
	near.Degrees = g.unit
	var cands []activation.Candidate
	if err := do(func() (err error) { cands, err = activation.ExpandNear(ctx, exp, req, near); return err }); err != nil {
		return err
	}
	asked := make(map[int32]bool, len(vs))
	for _, v := range vs {
		asked[v] = true
		g.nodes[v].read = true
	}
	for i := 0; i < len(cands); { // ordered by parent id: one run per node
		j := i + 1
		for j < len(cands) && cands[j].ParentID == cands[i].ParentID {
			j++
		}
		p, ok := g.index[cands[i].ParentID]
		if !ok || !asked[p] {
			return fmt.Errorf("why: the expansion returned the relationships of %q unasked or out of order", cands[i].ParentID)
		}
		delete(asked, p)
		adj := make([]edge, j-i)
		for k, c := range cands[i:j] {
			w := activation.EffectiveWeight(c.Edge)
			adj[k] = edge{to: g.node(c.NeighborNode.ID), deg: c.Degree, w: w, ts: c.TagSim,
				f: activation.TransferEnergy(1, w, c.Degree, c.TagSim)}
			if c.NeighborDegree > 0 {
				g.nodes[adj[k].to].deg = c.NeighborDegree
			}
		}
		g.nodes[p].deg = cands[i].Degree
		g.rankTies(adj, cands[i:j])
		g.nodes[p].adj = adj
		i = j
	}
	return nil
}

// rankTies numbers a node's relationships to each neighbour (ord) and
// sets the tie rank of its parallel relationships (several to one
// neighbour) from their EdgeKey strings, computed for those only.
func (g *region) rankTies(adj []edge, cands []activation.Candidate) {
	if n := len(g.nodes); len(g.mark) < n {
		g.mark = append(g.mark, make([]int32, n-len(g.mark))...)
		g.count = append(g.count, make([]int32, n-len(g.count))...)
	}
	g.stamp++
	parallel := false
	for k, e := range adj {
		if g.mark[e.to] != g.stamp {
			g.mark[e.to], g.count[e.to] = g.stamp, 0
		}
		adj[k].ord = g.count[e.to]
		g.count[e.to]++
		parallel = parallel || g.count[e.to] > 1
	}
	if !parallel {
		return
	}
	groups := map[int32][]int{}
	for k, e := range adj {
		if g.count[e.to] > 1 {
			groups[e.to] = append(groups[e.to], k)
		}
	}
	for _, ks := range groups {
		keys := make([]string, len(ks))
		for x, k := range ks {
			keys[x] = activation.EdgeKey(cands[k].Edge)
		}
		distinct := slices.Compact(slices.Sorted(slices.Values(keys)))
		for x, k := range ks {
			r, _ := slices.BinarySearch(distinct, keys[x])
			adj[k].tie = int32(r)
		}
	}
}

// hop is one hop of a route: relationship k of node v, entered with
// activation in and leaving with T out.
type hop struct {
	v, k    int32
	in, out float64
}

// found is a complete route.
type found struct {
	seed int // index in Config.Seeds
	t    float64
	ids  []string
	hops []hop
}

// better orders complete routes: higher final T, then fewer hops, then the
// earlier seed, then the node ids compared in order.
func better(a, b *found) bool {
	if b == nil {
		return true
	}
	if a.t != b.t {
		return a.t > b.t
	}
	if len(a.ids) != len(b.ids) {
		return len(a.ids) < len(b.ids)
	}
	if a.seed != b.seed {
		return a.seed < b.seed
	}
	return slices.Compare(a.ids, b.ids) < 0
}

// bound computes, for every node v and every number of hops r, the highest
// |product of hop factors| over walks from v that end at the target within
// r hops (−1 when there is none), at u[v×(MAX_DEPTH+1)+r]: a per-depth
// dynamic programme over walks, which may repeat nodes. Since T = R × the
// product of the factors w/√d × tag_sim, R × the bound bounds the final T
// of every simple route from v (docs/ALGORITHM.md, "Why not X"). Over the
// region it is the whole graph's bound for every v and r the search asks
// about (v at most MAX_DEPTH−r hops from a seed): every node of such a
// walk but its last is a hop source of a short enough route, so read.
func (g *region) bound() []float64 {
	w := g.maxDepth + 1
	u := make([]float64, len(g.nodes)*w)
	for i := range u {
		u[i] = -1
	}
	u[int(g.target)*w] = 1
	for r := 1; r <= g.maxDepth; r++ {
		for v := range g.nodes {
			best := u[v*w+r-1]
			for _, e := range g.nodes[v].adj {
				if next := u[int(e.to)*w+r-1]; next >= 0 {
					best = max(best, math.Abs(e.f)*next)
				}
			}
			u[v*w+r] = best
		}
	}
	return u
}

// slack lets a bound that rounding made a few ulps too small still admit
// its route: the bound multiplies the factors in another order than T's
// left-to-right evaluation.
const slack = 1 + 1e-9

// bestRoute searches the simple routes from the seeds to the target of at
// most MAX_DEPTH hops for the one of highest final T (ties: better), depth
// first, trying each node's neighbours in order of their bound and pruning
// every partial route whose bound cannot reach the best found. It returns
// nil when no route exists; exact is false when the budget ran out first.
func (g *region) bestRoute(ctx context.Context, seeds []retriever.Seed, starts []int, budget int) (best *found, exact bool, err error) {
	best, err = g.search(ctx, seeds, starts, budget)
	if errors.Is(err, errBudget) {
		if best == nil {
			return nil, false, fmt.Errorf("why: %q is within %d hops of a seed, but no route to it was found in %d tries (the search budget)", g.nodes[g.target].id, g.maxDepth, budget)
		}
		return best, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return best, true, nil
}

// search is bestRoute's search: the best route it found, and errBudget
// when the budget ran out first.
func (g *region) search(ctx context.Context, seeds []retriever.Seed, starts []int, budget int) (best *found, err error) {
	u := g.bound()
	w := g.maxDepth + 1
	onPath := make([]bool, len(g.nodes))
	var ids []string
	var hops []hop
	tries := 0
	type option struct {
		k, to, tie int32
		t, ub      float64
	}
	var dfs func(seed int, v int32, t float64) error
	dfs = func(seed int, v int32, t float64) error {
		if v == g.target {
			f := &found{seed: seed, t: t, ids: slices.Clone(ids), hops: slices.Clone(hops)}
			if better(f, best) {
				best = f
			}
			return nil
		}
		left := g.maxDepth - len(hops) - 1 // hops left after the next
		if left < 0 {
			return nil
		}
		var opts []option
		for k, e := range g.nodes[v].adj {
			if onPath[e.to] || u[int(e.to)*w+left] < 0 {
				continue
			}
			nt := activation.TransferEnergy(t, e.w, e.deg, e.ts)
			if math.IsNaN(nt) || math.IsInf(nt, 0) {
				continue
			}
			opts = append(opts, option{k: int32(k), to: e.to, tie: e.tie, t: nt, ub: math.Abs(nt) * u[int(e.to)*w+left]})
		}
		// One option per neighbour: its edge of highest T (parallel edges;
		// ties by EdgeKey, as the claim order breaks them).
		slices.SortFunc(opts, func(a, b option) int {
			if c := strings.Compare(g.nodes[a.to].id, g.nodes[b.to].id); c != 0 {
				return c
			}
			if c := cmp.Compare(b.t, a.t); c != 0 {
				return c
			}
			return cmp.Compare(a.tie, b.tie)
		})
		opts = slices.CompactFunc(opts, func(a, b option) bool { return a.to == b.to })
		slices.SortStableFunc(opts, func(a, b option) int { return cmp.Compare(b.ub, a.ub) })
		for _, o := range opts {
			if best != nil && o.ub*slack < best.t {
				break // sorted by bound: no later option can do better
			}
			if tries++; tries > budget {
				return errBudget
			}
			if tries%4096 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			onPath[o.to] = true
			ids, hops = append(ids, g.nodes[o.to].id), append(hops, hop{v: v, k: o.k, in: t, out: o.t})
			err := dfs(seed, o.to, o.t)
			ids, hops = ids[:len(ids)-1], hops[:len(hops)-1]
			onPath[o.to] = false
			if err != nil {
				return err
			}
		}
		return nil
	}
	for _, i := range starts {
		s := seeds[i]
		v := g.index[s.NodeID]
		onPath[v] = true
		ids = []string{s.NodeID}
		err := dfs(i, v, s.Score)
		onPath[v] = false
		if err != nil {
			return best, err
		}
	}
	return best, nil
}

var errBudget = errors.New("why: search budget spent")

// steps builds the route's steps: it reads the route's relationships again
// (one expansion of its hop sources, restricted to the route's nodes) for
// their and their nodes' properties, which the region does not keep. A
// relationship that is not where the first read found it, with the same
// numbers, means the graph changed in between: an error.
func (g *region) steps(ctx context.Context, exp activation.Expander, do func(func() error) error, f *found, seedNodes map[string]graph.Node) ([]activation.Step, error) {
	vs := make([]int32, len(f.hops))
	near := activation.Near{Dist: map[string][2]int{}, Limit: map[string][2]int{}}
	for i, h := range f.hops {
		vs[i] = h.v
		near.Dist[g.nodes[g.nodes[h.v].adj[h.k].to].id] = [2]int{far, i + 1}
		near.Limit[g.nodes[h.v].id] = [2]int{-1, i + 1} // the route's nodes up to the hop's end
	}
	req := g.request(vs)
	var cands []activation.Candidate
	if err := do(func() (err error) { cands, err = activation.ExpandNear(ctx, exp, req, near); return err }); err != nil {
		return nil, err
	}
	steps := make([]activation.Step, len(f.hops))
	for i, h := range f.hops {
		n := g.nodes[h.v]
		e := n.adj[h.k]
		to := g.nodes[e.to].id
		var c *activation.Candidate
		ord := e.ord
		for k := range cands {
			if cands[k].ParentID == n.id && cands[k].NeighborNode.ID == to {
				if ord == 0 {
					c = &cands[k]
					break
				}
				ord--
			}
		}
		if c == nil || !e.is(*c, to) {
			return nil, fmt.Errorf("why: the relationships of %q changed while they were read", n.id)
		}
		from, ok := seedNodes[n.id]
		if !ok {
			from = steps[i-1].ToNode // the first hop leaves a seed
		}
		steps[i] = activation.Step{FromNode: from, Edge: c.Edge, ToNode: c.NeighborNode, Weight: activation.EffectiveWeight(c.Edge),
			Activation: h.in, Degree: c.Degree, TagSim: c.TagSim, TransferEnergy: h.out}
	}
	return steps, nil
}

// is reports whether c is the relationship e was read from: the same
// neighbour and the same numbers.
func (e edge) is(c activation.Candidate, to string) bool {
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
	return c.NeighborNode.ID == to && c.Degree == e.deg && same(activation.EffectiveWeight(c.Edge), e.w) && same(c.TagSim, e.ts)
}
