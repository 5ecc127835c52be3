// Package ppr is personalized PageRank (docs/RETRIEVERS.md, "Personalized
// PageRank"), the retriever of HippoRAG 2: a random walk over RELATES
// relationships that restarts at the seeds, each node scored by the
// probability of finding the walk there, estimated locally by forward
// push, ranked, the top K kept.
//
// It reads a graph only through graph.Neighbourhood (one read of the
// seeds; then, per round of pushes, one Strengths read of the nodes not
// yet weighed whose residual reaches ε × the weight read to them, and one
// Arcs read of the nodes about to be pushed whose relationships are not
// yet at hand: docs/RETRIEVERS.md, rule 6; by node number instead, through
// graph.NumberedArcs, where the engine offers it), so it runs alike on the
// embedded engine and on Neo4j, and shares only package retriever with the
// other retrievers (docs/ARCHITECTURE.md). A node that receives mass but
// is never pushed costs its strength, not its relationships.
package ppr

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
)

// Name is the retriever's name in rankings, flags and the explorer.
const Name = "ppr"

// state is one run's push: nodes are numbered in the order first met (the
// found seeds first, in query order); the k found seeds are nodes 0 to
// k−1. The push moves the total residual; the seeds' parts of it are
// computed afterwards by replaying the pushes (order) one seed at a time
// (replay), so a run holds a few values per node whatever k is.
type state struct {
	d, eps float64
	k      int
	p      []float64 // restart distribution over the seeds

	// A node is kept as its NodeRef (refs; found again by id through
	// index) or, when the reader numbers its nodes and reads by number
	// (fast), as its number alone (nums; found again through byNum): its
	// id and NodeRef are then asked of fast where wanted (id, ref), for
	// the few thousand nodes pushed or ranked rather than the tens of
	// thousands met.
	fast  graph.NumberedArcs
	index map[string]int32 // node numbers by id, without fast
	refs  []graph.NodeRef  // by node, without fast
	byNum []int32          // node numbers + 1 by NodeRef.Num, with fast; 0 but at nums
	nums  []int32          // by node, its NodeRef.Num, with fast

	n     []node
	order []int32 // the pushes, in the order made

	// est and out are, once the run has ended (sumSeeds), each node's
	// estimate and all the mass pushed out of it: the sums of its seeds'
	// parts in query order.
	est, out []float64

	nbr []int32 // adjacency entries: node u's are lo to hi
	wt  []float64

	scratch

	touched, pushes, rounds, reads, relsRead, weighed int
	routeScans                                        int // adjacency entries route looked at (for a test)
}

// scratch is what a run works in and keeps nothing in: reused from round
// to round and, through states, from run to run.
type scratch struct {
	rsS, msS                             []float64       // one seed's residual and mass pushed out, by node (replay)
	outs, heap                           []int32         // the nodes a replay pushed; its positions to come
	visited                              int             // the pushes the last replay visited
	pushesOf, pushAt                     []int32         // each node's positions in order (indexPushes)
	received, next, cands, toRead, which []int32         // of run and weigh
	refs                                 []graph.NodeRef // the nodes a read asks for
	nums                                 []int32         // the same by number
	strengths                            []graph.Strength
	byID                                 []keyed // of sortByID
	// arcNbr and arcWt take a numbered read's arcs (readNumbered).
	arcNbr []int32
	arcWt  []float64
}

// keyed is a node beside its id.
type keyed struct {
	id string
	u  int32
}

// states keeps the states of finished runs for the next ones: a run on
// the 1M-edge benchmark graph touches some 47,000 nodes (half the graph)
// and reads 77,000 relationships, and building its arrays anew each time
// (and collecting them after) cost more than the push itself.
var states = sync.Pool{New: func() any { return &state{index: map[string]int32{}} }}

// reset readies st, new or a finished run's, for a run of k seeds with
// damping d and threshold eps, reading by number through fast when it is
// not nil (nodeNums its reader's NodeNums): every array emptied (its
// room kept) and every count 0.
func (st *state) reset(d, eps float64, k int, fast graph.NumberedArcs, nodeNums int32) {
	// The last run's numbers by Num: cleared where it set them, or whole
	// when that is cheaper (it met more than an eighth of the nodes).
	if len(st.nums)*8 > len(st.byNum) {
		clear(st.byNum)
	} else {
		for _, num := range st.nums {
			st.byNum[num] = 0
		}
	}
	if fast != nil && int(nodeNums) != len(st.byNum) {
		st.byNum = make([]int32, nodeNums)
	}
	clear(st.index)
	*st = state{
		d: d, eps: eps, k: k, p: st.p[:0], fast: fast, index: st.index, refs: st.refs[:0],
		byNum: st.byNum, nums: st.nums[:0], n: st.n[:0], order: st.order[:0], est: st.est[:0], out: st.out[:0],
		nbr: st.nbr[:0], wt: st.wt[:0], scratch: st.scratch,
	}
}

// node is what the push keeps of one node.
type node struct {
	rtot  float64 // residual
	w     float64 // W, the strength (once weighed)
	known float64 // a lower bound of W until weighed: the weights read to it
	first int32   // round the node first got residual; 0 for seeds, −1 never
	lo    int32   // adjacency entries lo to hi (once read)
	hi    int32
	hasW  bool // weighed
	clean bool // W is a sum of finite weights ≥ 0 (once weighed)
	read  bool // adjacency at hand
	mark  bool // received this round
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
	st := states.Get().(*state)
	defer states.Put(st)
	fast, _ := r.(graph.NumberedArcs)
	if nums := r.NodeNums(); fast != nil && !slices.ContainsFunc(seedRefs, func(ref graph.NodeRef) bool { return ref.Num <= 0 || ref.Num >= nums }) {
		st.reset(p.Damping, p.Epsilon, k, fast, nums)
	} else {
		st.reset(p.Damping, p.Epsilon, k, nil, 0)
	}
	for t, ref := range seedRefs {
		st.p = append(st.p, rs[t]/sumR)
		if st.fast != nil {
			st.addNum(ref.Num)
		} else {
			st.addRef(ref)
		}
		st.n[t].first = 0
		st.n[t].rtot = st.p[t]
		st.touched++
	}
	if err := st.run(ctx, r); err != nil {
		return retriever.Ranking{}, err
	}
	if k > 0 && st.pushes == 0 {
		return retriever.Ranking{}, st.nonePushed(ctx, r)
	}
	hits, probed, err := st.hits(ctx, r, p.TopK, q.Probing())
	if err != nil {
		return retriever.Ranking{}, err
	}
	if afterRun != nil {
		afterRun(st)
	}
	kept, _ := retriever.Rank(hits, 0)
	return retriever.Ranking{Retriever: Name, Params: p.Fields(), Seeds: seeds, Hits: kept, Stats: st.stats(), Probed: probed}, nil
}

// afterRun, when set (by the package's tests only), sees each run's state
// once its hits are built.
var afterRun func(*state)

// addRef numbers a node first met, without fast.
func (st *state) addRef(ref graph.NodeRef) int32 {
	st.index[ref.Node.ID] = int32(len(st.n))
	st.refs = append(st.refs, ref)
	return st.addNode()
}

// addNum numbers a node first met, the reader's node numbered num, with
// fast.
func (st *state) addNum(num int32) int32 {
	st.byNum[num] = int32(len(st.n)) + 1
	st.nums = append(st.nums, num)
	return st.addNode()
}

func (st *state) addNode() int32 {
	u := int32(len(st.n))
	st.n = append(st.n, node{first: -1})
	return u
}

// ref is node u's NodeRef (with fast, its id, handle and number only).
func (st *state) ref(u int32) graph.NodeRef {
	if st.fast != nil {
		return st.fast.NodeByNum(st.nums[u])
	}
	return st.refs[u]
}

// id is node u's id.
func (st *state) id(u int32) string { return st.ref(u).Node.ID }

// sortByID sorts us by the nodes' ids, each id asked for once.
func (st *state) sortByID(us []int32) {
	keys := st.byID[:0]
	for _, u := range us {
		keys = append(keys, keyed{st.id(u), u})
	}
	slices.SortFunc(keys, func(a, b keyed) int { return strings.Compare(a.id, b.id) })
	for i, k := range keys {
		us[i] = k.u
	}
	st.byID = keys
}

// grow makes room for n more nodes, so that adding them copies nothing.
func (st *state) grow(n int) {
	if st.fast != nil {
		st.nums = slices.Grow(st.nums, n)
	} else {
		st.refs = slices.Grow(st.refs, n)
	}
	st.n = slices.Grow(st.n, n)
}

// threshold is what u's residual is compared with: ε × W(u), ε for a
// dangling node (W = 0).
func (st *state) threshold(u int32) float64 {
	if st.n[u].w == 0 {
		return st.eps
	}
	return st.eps * st.n[u].w
}

// weighSlack keeps the decision not to weigh a node safe from rounding:
// the weights read to a node are added in another order than its
// strength, so their sum is trusted as a lower bound only to this margin.
const weighSlack = 1 - 1e-9

// run pushes in rounds until no residual is at or above its threshold.
// Each round takes the nodes that received mass in the last one; weighs,
// with one Strengths read, those not yet weighed whose residual reaches ε
// × the weight already read to them (a lower bound of W: below it the
// node cannot be pushed, so its strength is not needed yet); reads, with
// one Arcs read, the relationships of those not yet read that will be
// pushed (or whose strength is not clean, so that the read names the bad
// weight); and pushes every one whose residual reaches its threshold, in
// order of id.
func (st *state) run(ctx context.Context, r graph.Reader) error {
	received, next, cands, toRead := st.received[:0], st.next[:0], st.cands, st.toRead
	for t := range st.k {
		received = append(received, int32(t)) // the seeds
	}
	defer func() { st.received, st.next, st.cands, st.toRead = received, next, cands, toRead }()
	for round := int32(1); len(received) > 0; round++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := st.weigh(ctx, r, received); err != nil {
			return err
		}
		cands, toRead = cands[:0], toRead[:0]
		for _, u := range received {
			n := &st.n[u]
			n.mark = false
			if !n.hasW {
				continue
			}
			push := n.rtot >= st.threshold(u)
			if !n.read && (!n.clean || (push && n.w > 0)) {
				toRead = append(toRead, u)
			}
			if push {
				cands = append(cands, u)
			}
		}
		if len(toRead) > 0 {
			if err := st.readAround(ctx, r, toRead); err != nil {
				return err
			}
		}
		// Push in id order: the numbering follows the engine's order of
		// each node's arcs, the arithmetic must not.
		st.sortByID(cands)
		next = next[:0]
		for _, u := range cands {
			if st.pushes >= maxPushes {
				return fmt.Errorf("the push did not end within %d pushes (ppr.MaxPushes, %s), residual mass %.3g left: raise --epsilon or lower --damping",
					maxPushes, maxPushesAt, st.residualMass())
			}
			next = st.push(u, round, next)
		}
		if len(cands) > 0 {
			st.rounds++
		}
		received, next = next, received
	}
	return nil
}

// weigh reads the strength W of every node of us not yet weighed whose
// residual reaches ε × the weight read to it so far: one Strengths read.
func (st *state) weigh(ctx context.Context, r graph.Reader, us []int32) error {
	which := st.which[:0]
	for _, u := range us {
		if n := &st.n[u]; !n.hasW && n.rtot >= st.eps*n.known*weighSlack {
			which = append(which, u)
		}
	}
	st.which = which
	if len(which) == 0 {
		return nil
	}
	var got []graph.Strength
	var err error
	if st.fast != nil {
		nums := st.scratch.nums[:0]
		for _, u := range which {
			nums = append(nums, st.nums[u])
		}
		st.scratch.nums = nums
		got, err = st.fast.StrengthNums(ctx, nums, graph.Relates, graph.MissingRelatesWeight, st.strengths[:0])
		st.strengths = got
	} else {
		refs := st.scratch.refs[:0]
		for _, u := range which {
			refs = append(refs, st.refs[u])
		}
		st.scratch.refs = refs
		got, err = r.Strengths(ctx, refs, graph.Relates, graph.MissingRelatesWeight)
	}
	if err != nil {
		return err
	}
	for i, u := range which {
		n := &st.n[u]
		n.hasW, n.w, n.clean = true, got[i].Total, got[i].Clean
	}
	st.weighed += len(which)
	for _, u := range which {
		if n := &st.n[u]; n.clean && n.w > 0 && st.eps*n.w < MinThreshold {
			return st.tooLight(ctx, r, u)
		}
	}
	return nil
}

// heaviest is the heaviest of the RELATES relationships of u that r lets
// through (under a filter W(u) counts them all), as text, or "" when there
// is none.
func (st *state) heaviest(ctx context.Context, r graph.Reader, u int32) (string, error) {
	rels, err := r.Around(ctx, []graph.NodeRef{st.ref(u)})
	if err != nil {
		return "", err
	}
	var best *graph.Rel
	bestW := -1.0
	for i, rel := range rels {
		if rel.Edge.Type != graph.Relates {
			continue
		}
		w, err := weightOf(rel)
		if err != nil {
			return "", err
		}
		if w > bestW {
			best, bestW = &rels[i], w
		}
	}
	if best == nil {
		return "", nil
	}
	return fmt.Sprintf("(%s)-[:%s]-(%s), weight %v", strconv.Quote(best.Edge.SourceID), best.Edge.Type,
		strconv.Quote(best.Edge.TargetID), bestW), nil
}

// tooLight is the error for a node u whose threshold ε × W(u) is below
// MinThreshold, naming its heaviest relationship.
func (st *state) tooLight(ctx context.Context, r graph.Reader, u int32) error {
	rel, err := st.heaviest(ctx, r, u)
	if err != nil {
		return err
	}
	if rel != "" {
		rel = " (the heaviest: " + rel + ")"
	}
	return fmt.Errorf("node %s: its RELATES relationships weigh %v in all%s, and its push threshold ε × W = %v × %v is below %v, the least normal float (ppr.MinThreshold, %s): a residual there could stop shrinking and the push never end; raise --epsilon or those weights",
		strconv.Quote(st.id(u)), st.n[u].w, rel, st.eps, st.n[u].w, MinThreshold, minThresholdAt)
}

// nonePushed is the error for a run in which no seed's residual reached
// its threshold (ε × W large against the restart mass: weights far above
// 1, or many seeds), so that no node has an estimate: it names the first
// seed, its numbers and its heaviest relationship.
func (st *state) nonePushed(ctx context.Context, r graph.Reader) error {
	n := &st.n[0]
	if n.w == 0 {
		return fmt.Errorf("seed %s: no node was pushed: its residual p = %v is below its threshold ε = %v (it has no RELATES relationship the walk takes), and so is every other seed's, so no node has an estimate: lower --epsilon",
			strconv.Quote(st.id(0)), st.p[0], st.eps)
	}
	rel, err := st.heaviest(ctx, r, 0)
	if err != nil {
		return err
	}
	if rel != "" {
		rel = ", the heaviest " + rel
	}
	return fmt.Errorf("seed %s: no node was pushed: its residual p = %v is below its threshold ε × W = %v × %v = %v (W: its RELATES relationships' weights%s), and so is every other seed's, so no node has an estimate: lower --epsilon or scale the weights down",
		strconv.Quote(st.id(0)), st.p[0], st.eps, n.w, st.threshold(0), rel)
}

// readAround reads the relationships of us (one Arcs read) and keeps the
// RELATES ones with a positive weight to nodes with an id. A node whose
// strength is not clean is read with Around instead, which names the
// relationship whose weight is negative or not a finite number, and the
// run stops there.
func (st *state) readAround(ctx context.Context, r graph.Reader, us []int32) error {
	var dirty []graph.NodeRef
	first := int32(-1)
	for _, u := range us {
		if !st.n[u].clean {
			dirty = append(dirty, st.ref(u))
			if first < 0 {
				first = u
			}
		}
	}
	if len(dirty) > 0 {
		rels, err := r.Around(ctx, dirty)
		if err != nil {
			return err
		}
		for _, rel := range rels {
			if rel.Edge.Type != graph.Relates {
				continue
			}
			if _, err := weightOf(rel); err != nil {
				return err
			}
		}
		rel, err := st.heaviest(ctx, r, first)
		if err != nil {
			return err
		}
		if rel != "" {
			rel = " (the heaviest: " + rel + ")"
		}
		return fmt.Errorf("node %s: its relationships' weights add up to more than a float can hold%s", strconv.Quote(st.id(first)), rel)
	}
	if st.fast != nil {
		return st.readNumbered(ctx, us)
	}
	refs := st.scratch.refs[:0]
	for _, u := range us {
		refs = append(refs, st.refs[u])
	}
	st.scratch.refs = refs
	arcs, err := r.Arcs(ctx, refs, graph.Relates, graph.MissingRelatesWeight)
	if err != nil {
		return err
	}
	st.reads++
	st.relsRead += len(arcs)
	st.grow(len(arcs))
	st.nbr = slices.Grow(st.nbr, len(arcs))
	st.wt = slices.Grow(st.wt, len(arcs))
	u, at := int32(-1), int32(-1)
	for _, a := range arcs {
		if a.From != at {
			if u >= 0 {
				st.n[u].hi = int32(len(st.nbr))
			}
			at, u = a.From, us[a.From]
			st.n[u].lo = int32(len(st.nbr))
		}
		if a.Weight == 0 {
			continue
		}
		v, ok := st.index[a.To.Node.ID]
		if !ok {
			v = st.addRef(a.To)
		}
		st.nbr = append(st.nbr, v)
		st.wt = append(st.wt, a.Weight)
		if n := &st.n[v]; !n.hasW {
			n.known += a.Weight
		}
	}
	if u >= 0 {
		st.n[u].hi = int32(len(st.nbr))
	}
	for _, u := range us {
		st.n[u].read = true
	}
	return nil
}

// readNumbered is readAround's reading by number (graph.NumberedArcs,
// st.fast): the same arcs, in the same order, appended straight to the
// walk's own arrays, with no Arc built per relationship and no NodeRef
// per node first met. The walk that follows is readAround's, so its
// numbers are the same bits.
func (st *state) readNumbered(ctx context.Context, us []int32) error {
	nums := st.scratch.nums[:0]
	for _, u := range us {
		nums = append(nums, st.nums[u])
	}
	st.scratch.nums = nums
	to, w, ends, err := st.fast.ArcNums(ctx, nums, graph.Relates, graph.MissingRelatesWeight, st.arcNbr[:0], st.arcWt[:0])
	if err != nil {
		return err
	}
	st.arcNbr, st.arcWt = to, w
	st.reads++
	st.relsRead += len(to)
	st.grow(len(to))
	st.nbr = slices.Grow(st.nbr, len(to))
	st.wt = slices.Grow(st.wt, len(to))
	lo := int32(0)
	for i, hi := range ends {
		u := us[i]
		st.n[u].lo = int32(len(st.nbr))
		for k := lo; k < hi; k++ {
			if w[k] == 0 {
				continue
			}
			v := st.byNum[to[k]] - 1
			if v < 0 {
				v = st.addNum(to[k])
			}
			st.nbr = append(st.nbr, v)
			st.wt = append(st.wt, w[k])
			if n := &st.n[v]; !n.hasW {
				n.known += w[k]
			}
		}
		st.n[u].hi = int32(len(st.nbr))
		lo = hi
	}
	for _, u := range us {
		st.n[u].read = true
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

// push moves u's residual: (1 − d) of it to u's estimate (the mass
// pushed out, kept by seed only when replayed), d of it along u's
// relationships in proportion to their weights, or back to the restart
// distribution when u is dangling. Every seed's part moves alike (replay
// moves them). Nodes that receive mass are appended to next once; u is
// appended to the pushes' order.
func (st *state) push(u int32, round int32, next []int32) []int32 {
	k := st.k
	m := st.n[u].rtot
	st.n[u].rtot = 0
	st.order = append(st.order, u)
	st.pushes++
	receive := func(v int32, f float64) {
		st.n[v].rtot += f * m
		if st.n[v].first < 0 {
			st.n[v].first = round
			st.touched++
		}
		if !st.n[v].mark {
			st.n[v].mark = true
			next = append(next, v)
		}
	}
	if st.n[u].w == 0 {
		for t := range k {
			receive(int32(t), st.d*st.p[t])
		}
		return next
	}
	w := st.n[u].w
	for j := st.n[u].lo; j < st.n[u].hi; j++ {
		receive(st.nbr[j], st.d*st.wt[j]/w)
	}
	return next
}

// scored is a node with an estimate: the sum of its seeds' shares.
type scored struct {
	u     int32
	score float64
	id    string
}

// replay pushes seed s's part of the residual again, alone: the run's
// pushes in their order, each moving s's part of the pushed node's
// residual as push moved all of it, with the same operations (the same
// factors, d × w / W(u) or d × p(t), times the part) in the same order.
// The push is linear and its decisions were taken on the total, so each
// seed's part ends as it would have had every node kept k residuals, to
// the bit (docs/RETRIEVERS.md, "The seeds' shares"). A push of a node
// where s's part is 0 moves nothing and is skipped. It returns the nodes
// s's part was pushed out of (st.msS holds how much, by node);
// clearReplay readies the arrays for the next seed.
//
// With few seeds (at most scanSeeds) it walks the whole list of pushes
// for each; with more, it visits only the pushes of nodes holding some of
// s's part (replayHeap), so that a seed whose mass stays in a corner of
// the graph costs that corner's pushes, not all of them: the same pushes
// in the same order, so the same bits. When the last seed's replay
// visited at least 1/scanShare of the pushes (the seeds' masses mix, as
// through dangling seeds, which send every push back to all the seeds),
// the next walks the list again, which is cheaper there.
func (st *state) replay(s int) []int32 {
	if len(st.rsS) < len(st.n) {
		st.rsS = make([]float64, len(st.n))
		st.msS = make([]float64, len(st.n))
	}
	if st.k > scanSeeds && (scanShare == 0 || st.visited*scanShare < len(st.order)) {
		return st.replayHeap(s)
	}
	rs, ms, outs := st.rsS, st.msS, st.outs[:0]
	rs[s] = st.p[s]
	st.visited = 0
	for _, u := range st.order {
		x := rs[u]
		if x == 0 {
			continue
		}
		st.visited++
		rs[u] = 0
		if ms[u] == 0 {
			outs = append(outs, u)
		}
		ms[u] += x
		if st.n[u].w == 0 {
			for t := range st.k {
				rs[t] += st.d * st.p[t] * x
			}
			continue
		}
		w := st.n[u].w
		for j := st.n[u].lo; j < st.n[u].hi; j++ {
			rs[st.nbr[j]] += st.d * st.wt[j] / w * x
		}
	}
	st.outs = outs
	return outs
}

// scanSeeds is the most seeds for which replay walks the whole list of
// pushes per seed: on the 1M benchmark's five seeds, whose mass mixes,
// the walk is 2–3 ms cheaper per run than the heap; with thousands of
// seeds on as many pairs the heap is 50 times faster. scanShare is
// replay's switch back to the walk (0: never). Variables so that the
// package's tests can run each way.
var scanSeeds, scanShare = 16, 4

// replayHeap is replay visiting, in order, only the pushes of nodes
// holding some of s's part, taken from a heap of positions in st.order (a
// node is put on it, at its next push, when its part turns from 0 to
// more). indexPushes must have run.
func (st *state) replayHeap(s int) []int32 {
	rs, ms, outs, h := st.rsS, st.msS, st.outs[:0], st.heap[:0]
	rs[s] = st.p[s]
	if rs[s] != 0 {
		h = st.schedule(h, int32(s), -1)
	}
	st.visited = 0
	for len(h) > 0 {
		var i int32
		i, h = popMin(h)
		st.visited++
		u := st.order[i]
		x := rs[u] // not 0: u was put on the heap when it turned so
		rs[u] = 0
		if ms[u] == 0 {
			outs = append(outs, u)
		}
		ms[u] += x
		if st.n[u].w == 0 {
			for t := range int32(st.k) {
				was := rs[t]
				rs[t] += st.d * st.p[t] * x
				if was == 0 && rs[t] != 0 {
					h = st.schedule(h, t, i)
				}
			}
			continue
		}
		w := st.n[u].w
		for j := st.n[u].lo; j < st.n[u].hi; j++ {
			v := st.nbr[j]
			was := rs[v]
			rs[v] += st.d * st.wt[j] / w * x
			if was == 0 && rs[v] != 0 {
				h = st.schedule(h, v, i)
			}
		}
	}
	st.outs, st.heap = outs, h
	return outs
}

// indexPushes lists each node's positions in st.order, ascending: node
// u's are st.pushAt[st.pushesOf[u]:st.pushesOf[u+1]].
func (st *state) indexPushes() {
	n := len(st.n)
	st.pushesOf = slices.Grow(st.pushesOf[:0], n+1)[:n+1]
	clear(st.pushesOf)
	for _, u := range st.order {
		st.pushesOf[u+1]++
	}
	for u := 1; u <= n; u++ {
		st.pushesOf[u] += st.pushesOf[u-1]
	}
	st.pushAt = slices.Grow(st.pushAt[:0], len(st.order))[:len(st.order)]
	for i, u := range st.order { // pushesOf[u] walks to u's end …
		st.pushAt[st.pushesOf[u]] = int32(i)
		st.pushesOf[u]++
	}
	for u := n; u > 0; u-- { // … and back to its start
		st.pushesOf[u] = st.pushesOf[u-1]
	}
	st.pushesOf[0] = 0
}

// schedule puts on h node v's first push after position i, if it has one.
func (st *state) schedule(h []int32, v, i int32) []int32 {
	at := st.pushAt[st.pushesOf[v]:st.pushesOf[v+1]]
	k, _ := slices.BinarySearch(at, i+1)
	if k == len(at) {
		return h
	}
	h = append(h, at[k])
	for c := len(h) - 1; c > 0; {
		p := (c - 1) / 2
		if h[p] <= h[c] {
			break
		}
		h[p], h[c] = h[c], h[p]
		c = p
	}
	return h
}

// popMin takes the least position off the heap h.
func popMin(h []int32) (int32, []int32) {
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for c := 0; ; {
		l, m := 2*c+1, c
		if l < len(h) && h[l] < h[m] {
			m = l
		}
		if l+1 < len(h) && h[l+1] < h[m] {
			m = l + 1
		}
		if m == c {
			break
		}
		h[c], h[m] = h[m], h[c]
		c = m
	}
	return top, h
}

// clearReplay zeroes what replay(s) left in st.rsS and st.msS: the nodes it
// pushed out of, and those they pushed to (the seeds, from a dangling
// node).
func (st *state) clearReplay(s int, outs []int32) {
	st.rsS[s] = 0
	for _, u := range outs {
		st.msS[u] = 0
		if st.n[u].w == 0 {
			clear(st.rsS[:st.k])
			continue
		}
		for j := st.n[u].lo; j < st.n[u].hi; j++ {
			st.rsS[st.nbr[j]] = 0
		}
	}
}

// sumSeeds replays every seed's part (replay) and adds the parts up in
// query order: each node's estimate (its nonzero shares, (1 − d) × the
// mass of s pushed out of it) in st.est, all the mass pushed out of it in
// st.out. It stops between seeds when ctx is done.
func (st *state) sumSeeds(ctx context.Context) error {
	st.est = slices.Grow(st.est[:0], len(st.n))[:len(st.n)]
	st.out = slices.Grow(st.out[:0], len(st.n))[:len(st.n)]
	clear(st.est)
	clear(st.out)
	if st.k > scanSeeds {
		st.indexPushes()
	}
	for s := range st.k {
		if err := ctx.Err(); err != nil {
			return err
		}
		outs := st.replay(s)
		for _, u := range outs {
			m := st.msS[u]
			st.out[u] += m
			if sh := (1 - st.d) * m; sh != 0 {
				st.est[u] += sh
			}
		}
		st.clearReplay(s, outs)
	}
	return nil
}

// terms are the seeds' shares of the kept nodes cands, in query order,
// zero shares left out: one more replay per seed (one seed's share is
// the estimate itself). It stops between seeds when ctx is done.
func (st *state) terms(ctx context.Context, cands []scored) ([][]retriever.Term, error) {
	terms := make([][]retriever.Term, len(cands))
	if st.k == 1 {
		for i, c := range cands {
			terms[i] = []retriever.Term{{Name: "share(" + st.id(0) + ")", Value: st.est[c.u]}}
		}
		return terms, nil
	}
	at := make(map[int32]int, len(cands))
	for i, c := range cands {
		at[c.u] = i
		terms[i] = []retriever.Term{}
	}
	for s := range st.k {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		outs := st.replay(s)
		for _, u := range outs {
			i, ok := at[u]
			if !ok {
				continue
			}
			if sh := (1 - st.d) * st.msS[u]; sh != 0 {
				terms[i] = append(terms[i], retriever.Term{Name: "share(" + st.id(int32(s)) + ")", Value: sh})
			}
		}
		st.clearReplay(s, outs)
	}
	return terms, nil
}

// hits ranks every node with an estimate and builds the top K: terms
// (the seeds' shares), route (fed-most relationships back to a seed), and
// properties (one Details read); probed are the ids of want among every
// node ranked (retriever.ProbedOf).
func (st *state) hits(ctx context.Context, r graph.Reader, topK int, want map[string]bool) (_ []retriever.Hit, probed []string, _ error) {
	if err := st.sumSeeds(ctx); err != nil {
		return nil, nil, err
	}
	var cands []scored
	for u := range int32(len(st.n)) {
		if x := st.est[u]; x > 0 {
			cands = append(cands, scored{u, x, st.id(u)})
		}
	}
	probed = retriever.ProbedOf(want, len(cands), func(i int) string { return cands[i].id })
	cands = retriever.Best(cands, topK, func(a, b scored) int { return retriever.Compare(a.score, a.id, b.score, b.id) })
	terms, err := st.terms(ctx, cands)
	if err != nil {
		return nil, nil, err
	}
	hits := make([]retriever.Hit, len(cands))
	ids := make([]string, len(cands))
	entries := make([][][2]int32, len(cands))
	fed := make([][][2]int32, len(cands))
	var all [][2]int32
	feeder := map[int32]int32{}
	for i, c := range cands {
		ids[i] = c.id
		entries[i] = st.route(c.u, feeder)
		fed[i] = st.feeders(c.u)
		all = append(append(all, entries[i]...), fed[i]...)
	}
	rels, err := st.relsOf(ctx, r, all)
	if err != nil {
		return nil, nil, err
	}
	// The push met the hits as arcs' other ends, which carry no labels
	// or properties: one lookup by id brings them.
	found, err := r.Nodes(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	nodes := make(map[string]graph.Node, len(found))
	for _, f := range found {
		nodes[f.Node.ID] = f.Node
	}
	for i, c := range cands {
		node, ok := nodes[ids[i]]
		if !ok {
			return nil, nil, fmt.Errorf("node %s: gone from the graph during the read", strconv.Quote(ids[i]))
		}
		hits[i] = st.hitOf(c, node, terms[i], entries[i], fed[i], rels)
	}
	return hits, probed, nil
}

// feeders is u's Hit.Feeders as entries of u's adjacency: the
// relationships that carried the most mass into u over the whole run, d ×
// pushed(x) × w / W(x) for each one to a node x that pushed (a self-loop
// left out), at most three, the most first; on a tie the smaller id of x,
// then the entry first in u's adjacency.
func (st *state) feeders(u int32) [][2]int32 {
	type feed struct {
		j    int32
		flow float64
	}
	var top []feed
	for j := st.n[u].lo; j < st.n[u].hi; j++ {
		x := st.nbr[j]
		if x == u || st.n[x].w == 0 {
			continue
		}
		p := st.out[x]
		if p == 0 {
			continue
		}
		f := feed{j, st.d * p * st.wt[j] / st.n[x].w}
		k := len(top)
		for k > 0 && (f.flow > top[k-1].flow || (f.flow == top[k-1].flow && st.id(x) < st.id(st.nbr[top[k-1].j]))) {
			k--
		}
		if k < maxFeeders {
			top = slices.Insert(top, k, f)
			top = top[:min(len(top), maxFeeders)]
		}
	}
	out := make([][2]int32, len(top))
	for i, f := range top {
		out[i] = [2]int32{u, f.j}
	}
	return out
}

// maxFeeders is how many feeders a hit lists.
const maxFeeders = 3

// route is the chain of relationships that fed u most, from a seed out to
// u (empty for a seed), as adjacency entries of the fed nodes: each node's feeder is, among its relationships
// to nodes that got residual in an earlier round, the one that carried the
// most mass to it, d × pushed(x) × w / W(x) (on a tie the smaller id of
// x, then the first relationship in graph.SortRels order). A node first
// reached in round t was reached by a push of a node first reached
// before, so the chain ends at a seed (round 0). Each node's feeder is
// found once per run and kept in feeder (by node; −1 for none), so the
// routes of many hits through one hub read its adjacency once.
func (st *state) route(u int32, feeder map[int32]int32) [][2]int32 {
	var back [][2]int32
	for st.n[u].first > 0 {
		j, ok := feeder[u]
		if !ok {
			j = st.feederOf(u)
			feeder[u] = j
		}
		if j < 0 {
			break // cannot happen (see above); the route stops short
		}
		back = append(back, [2]int32{u, j})
		u = st.nbr[j]
	}
	return back
}

// feederOf is the adjacency entry of u's feeder on its route (route), −1
// for none.
func (st *state) feederOf(u int32) int32 {
	best, bestFlow, bestJ := int32(-1), -1.0, int32(-1)
	for j := st.n[u].lo; j < st.n[u].hi; j++ {
		st.routeScans++
		x := st.nbr[j]
		if st.n[x].first < 0 || st.n[x].first >= st.n[u].first || st.n[x].w == 0 {
			continue
		}
		flow := st.out[x] * st.wt[j] / st.n[x].w
		if flow > bestFlow || (flow == bestFlow && st.id(x) < st.id(best)) {
			best, bestFlow, bestJ = x, flow, j
		}
	}
	return bestJ
}

// relsOf reads in full the relationships of adjacency entries (each a
// node and an entry of its adjacency): one Around of the nodes, then one
// Details read. An entry's relationship is, among the node's RELATES
// relationships to the entry's other end with the entry's weight, the nth
// in graph.SortRels order, n being how many such entries come before it
// in the node's adjacency (the push keeps only other ends and weights;
// parallel relationships alike in both are alike to the walk).
func (st *state) relsOf(ctx context.Context, r graph.Reader, entries [][2]int32) (map[[2]int32]*graph.Rel, error) {
	out := map[[2]int32]*graph.Rel{}
	var refs []graph.NodeRef
	seen := map[int32]bool{}
	for _, e := range entries {
		if !seen[e[0]] {
			seen[e[0]] = true
			refs = append(refs, st.ref(e[0]))
		}
	}
	if len(refs) == 0 {
		return out, nil
	}
	rels, err := r.Around(ctx, refs)
	if err != nil {
		return nil, err
	}
	st.reads++
	st.relsRead += len(rels)
	alike, err := retriever.GroupParallel(rels, weightOf)
	if err != nil {
		return nil, err
	}
	var ptrs []*graph.Rel
	for _, e := range entries {
		if _, ok := out[e]; ok {
			continue
		}
		u, j := e[0], e[1]
		n := 0
		for i := st.n[u].lo; i < j; i++ {
			if st.nbr[i] == st.nbr[j] && st.wt[i] == st.wt[j] {
				n++
			}
		}
		rel, err := alike.Nth(st.id(u), st.id(st.nbr[j]), st.wt[j], n)
		if err != nil {
			return nil, err
		}
		out[e] = rel
		ptrs = append(ptrs, rel)
	}
	if err := r.Details(ctx, nil, ptrs); err != nil {
		return nil, err
	}
	return out, nil
}

// hitOf builds a kept node's hit. Its terms are the seeds' shares, in
// query order, zero shares left out: the score is their sum.
func (st *state) hitOf(c scored, node graph.Node, terms []retriever.Term, route, fed [][2]int32, rels map[[2]int32]*graph.Rel) retriever.Hit {
	labels := node.Labels
	if labels == nil {
		labels = []string{}
	}
	hit := retriever.Hit{NodeID: c.id, Score: c.score, Labels: labels, Node: node, Route: []retriever.Hop{},
		Terms: terms, TermsAdd: true}
	// hop is entry e (a fed node's relationship to its feeder) turned
	// round, from the feeder; factor is what it carried.
	hop := func(e [2]int32, factor func(x int32, w float64) float64) retriever.Hop {
		edge := rels[e].Full()
		edge.SourceID, edge.TargetID = edge.TargetID, edge.SourceID
		x, w := st.nbr[e[1]], st.wt[e[1]]
		return retriever.Hop{From: edge.SourceID, To: edge.TargetID, Type: edge.Type, Weight: w, Factor: factor(x, w), Edge: edge}
	}
	for _, e := range fed {
		hit.Feeders = append(hit.Feeders, hop(e, func(x int32, w float64) float64 { return st.d * st.out[x] * w / st.n[x].w }))
	}
	if c.u < int32(st.k) {
		hit.Seed, hit.Origin = hit.NodeID, retriever.OriginInitial
		return hit
	}
	hit.Origin = retriever.OriginExpanded
	for m := len(route) - 1; m >= 0; m-- {
		hit.Route = append(hit.Route, hop(route[m], func(x int32, w float64) float64 { return st.d * w / st.n[x].w }))
	}
	if len(hit.Route) > 0 {
		hit.Seed = hit.Route[0].From
	}
	return hit
}

// stats are the push's counts and the residual mass left, which bounds
// every estimate's error (docs/RETRIEVERS.md).
func (st *state) stats() retriever.Fields {
	// Added as integers, so that the order (the nodes' numbering, which
	// differs between engines) cannot change the bits: each residual
	// rounded up to a multiple of 2⁻⁶² (the mass is 1 in all, so the sum
	// fits), which keeps the total a bound.
	res := st.residualMass()
	return retriever.Fields{
		{Name: "seeds_found", Value: st.k},
		{Name: "nodes_touched", Value: st.touched},
		{Name: "nodes_weighed", Value: st.weighed},
		{Name: "nodes_read", Value: st.countRead()},
		{Name: "pushes", Value: st.pushes},
		{Name: "rounds", Value: st.rounds},
		{Name: "reads", Value: st.reads},
		{Name: "relationships_read", Value: st.relsRead},
		{Name: "residual_mass", Value: res},
	}
}

// residualMass is the residual left, added as stats says.
func (st *state) residualMass() float64 {
	var units uint64
	for i := range st.n {
		units += uint64(math.Ceil(math.Ldexp(st.n[i].rtot, 62)))
	}
	return math.Ldexp(float64(units), -62)
}

func (st *state) countRead() int {
	n := 0
	for i := range st.n {
		if st.n[i].read {
			n++
		}
	}
	return n
}
