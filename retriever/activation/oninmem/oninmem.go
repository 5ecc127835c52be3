// Package oninmem is the Activation Energy retriever's expansion over the
// embedded engine (graph/inmem): the numbers of the Neo4j expansion's Cypher
// (retriever/activation/onneo4j), computed with activation.TransferEnergy and
// activation.TagSimCounts in the Cypher's operation order, so both engines
// agree to the bit.
package oninmem

import (
	"bytes"
	"cmp"
	"context"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// InMemory is the Activation Energy expansion over the embedded engine. It
// computes exactly the numbers the Cypher of retriever/activation/onneo4j
// computes on Neo4j, with activation.TransferEnergy and activation.TagSimCounts in the Cypher's operation
// order, so both engines agree to the bit. It is safe for concurrent use.
type InMemory struct {
	g    *inmem.Graph
	pool sync.Pool
	// filter, when not nil, leaves out the relationships it does not keep
	// (graph.RelFilter): never traversed, as if not there; the degree
	// stays the graph's.
	filter *graph.RelFilter
}

// New returns the expansion over g.
func New(g *inmem.Graph) *InMemory { return &InMemory{g: g} }

// NewFiltered returns the expansion over g with the relationship filter f
// (graph.RelFilter; an inactive one filters nothing).
func NewFiltered(g *inmem.Graph, f graph.RelFilter) *InMemory {
	m := New(g)
	if f.Active() {
		m.filter = &f
	}
	return m
}

var (
	_ activation.Backend      = (*InMemory)(nil)
	_ activation.Expander     = (*InMemory)(nil)
	_ activation.NearExpander = (*InMemory)(nil)
)

// Open returns the expansion itself, with a release that does nothing: the
// engine needs no session.
func (m *InMemory) Open(ctx context.Context) (activation.Expander, func(context.Context) error, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	return m, func(context.Context) error { return nil }, nil
}

// FetchSeed returns the node whose id is nodeID.
func (m *InMemory) FetchSeed(ctx context.Context, nodeID string) (graph.Node, bool, error) {
	if err := ctx.Err(); err != nil {
		return graph.Node{}, false, err
	}
	u, ok := m.g.Lookup(nodeID)
	if !ok {
		return graph.Node{}, false, nil
	}
	return m.g.NodeAt(u), true, nil
}

// hit is an above-threshold edge found by ExpandFrontier, before sorting.
type hit struct {
	f      int32 // index in the request's frontier
	v, e   int32 // neighbour and relationship
	deg    int64 // the parent's degree
	ts, te float64
}

// scratch is the per-call working memory, reused through the pool.
type scratch struct {
	visited []uint64 // bitset over nodes
	words   []int32  // words of visited that were set
	qtags   []int32  // multiplicity of each tag id among the query tags
	qset    []int32  // tag ids set in qtags
	hits    []hit
	near    []nearDist // a Near's hop counts by node (allocated on first use)
	nearSet []int32    // the nodes set in near
}

// nearDist is a node's hop counts in a Near's Dist (held false when it has
// none).
type nearDist struct {
	d    [2]int
	held bool
}

func (m *InMemory) getScratch() *scratch {
	if s, ok := m.pool.Get().(*scratch); ok {
		return s
	}
	return &scratch{visited: make([]uint64, (m.g.NodeCount()+63)/64), qtags: make([]int32, m.g.TagIDCount())}
}

func (m *InMemory) putScratch(s *scratch) {
	for _, w := range s.words {
		s.visited[w] = 0
	}
	for _, t := range s.qset {
		s.qtags[t] = 0
	}
	for _, v := range s.nearSet {
		s.near[v] = nearDist{}
	}
	s.words, s.qset, s.hits, s.nearSet = s.words[:0], s.qset[:0], s.hits[:0], s.nearSet[:0]
	if cap(s.hits) > 1<<16 {
		s.hits = nil
	}
	if cap(s.words) > 1<<16 {
		s.words = nil
	}
	if cap(s.nearSet) > 1<<16 {
		s.nearSet = nil
	}
	m.pool.Put(s)
}

// ctxCheckEvery is how many edges ExpandFrontier scans between checks of ctx.
const ctxCheckEvery = 4096

// ExpandFrontier returns, for each frontier node, every RELATES relationship
// to a neighbour that has an id, is not in req.Visited, and receives a
// transfer energy strictly above req.MinActivation; one candidate per
// relationship. Candidates are ordered by parent id, transfer energy
// descending, neighbour id, then relationship internal id, then EdgeKey
// (activation.SortTiedEdges). Frontier ids that are not in the graph yield nothing.
// The neighbour's labels and properties are shared with the graph; the
// edge's properties, tags and weight are new.
func (m *InMemory) ExpandFrontier(ctx context.Context, req activation.ExpandRequest) ([]activation.Candidate, error) {
	x, err := m.expand(ctx, req, 0, false, nil)
	return x.Candidates, err
}

// ExpandNear is ExpandFrontier without the candidates near leaves out,
// which are skipped before anything is built for them.
func (m *InMemory) ExpandNear(ctx context.Context, req activation.ExpandRequest, near activation.Near) ([]activation.Candidate, error) {
	x, err := m.expand(ctx, req, 0, false, &near)
	return x.Candidates, err
}

// UnitWeights reports whether every RELATES weight of the graph lies in
// [0, 1] (activation.UnitWeigher); a relationship filter only removes
// relationships, so the graph's answer holds for it too.
func (m *InMemory) UnitWeights(context.Context) (bool, error) { return m.g.UnitWeights(), nil }

// ExpandTrace is ExpandFrontier with every other neighbour of each frontier
// node accounted for (activation.Tracer): the below-threshold rows go
// through activation.PickNearMisses, and visited neighbours are counted
// once each.
func (m *InMemory) ExpandTrace(ctx context.Context, req activation.ExpandRequest, nearMisses int) (activation.Expansion, error) {
	return m.expand(ctx, req, nearMisses, true, nil)
}

func (m *InMemory) expand(ctx context.Context, req activation.ExpandRequest, nearMisses int, trace bool, near *activation.Near) (activation.Expansion, error) {
	if err := ctx.Err(); err != nil {
		return activation.Expansion{}, err
	}
	if len(req.Frontier) == 0 {
		return activation.Expansion{Candidates: []activation.Candidate{}}, nil
	}
	g := m.g
	sc := m.getScratch()
	defer m.putScratch(sc)

	visited := sc.visited
	for id := range req.Visited {
		if u, ok := g.Lookup(id); ok {
			w := u >> 6
			if visited[w] == 0 {
				sc.words = append(sc.words, w)
			}
			visited[w] |= 1 << (u & 63)
		}
	}
	nq := len(req.QueryTags)
	qtags := sc.qtags
	for _, q := range req.QueryTags {
		if t, ok := g.TagID(q); ok {
			if qtags[t] == 0 {
				sc.qset = append(sc.qset, t)
			}
			qtags[t]++
		}
	}
	floor, minAct := req.TagSimFloor, req.MinActivation
	if near != nil && len(near.Limit) > 0 {
		if sc.near == nil {
			sc.near = make([]nearDist, g.NodeCount())
		}
		for id, d := range near.Dist {
			if u, ok := g.Lookup(id); ok {
				sc.near[u] = nearDist{d: d, held: true}
				sc.nearSet = append(sc.nearSet, u)
			}
		}
	}

	hits := sc.hits
	hasID := g.IDBits()
	budget := ctxCheckEvery
	var below []hit
	var tallies map[string]activation.Tally
	if trace {
		tallies = make(map[string]activation.Tally, len(req.Frontier))
	}
	for fi, f := range req.Frontier {
		u, ok := g.Lookup(f.NodeID)
		if !ok {
			continue
		}
		degree := g.Degree(u)
		nbrs, rels := g.Relates(u)
		var limit *[2]int
		if near != nil {
			if l, ok := near.Limit[f.NodeID]; ok {
				limit = &l
			}
		}
		var seenVisited map[int32]bool
		if trace {
			seenVisited = map[int32]bool{}
		}
		for k, v := range nbrs {
			if budget--; budget == 0 {
				budget = ctxCheckEvery
				if err := ctx.Err(); err != nil {
					sc.hits = hits
					return activation.Expansion{}, err
				}
			}
			w, bit := v>>6, uint64(1)<<(v&63)
			if hasID[w]&bit == 0 || (m.filter != nil && !g.Keeps(m.filter, rels[k])) {
				continue
			}
			if visited[w]&bit != 0 {
				if trace {
					seenVisited[v] = true
				}
				continue
			}
			if limit != nil {
				if n := sc.near[v]; !n.held || !(n.d[0] <= limit[0] || n.d[1] <= limit[1]) {
					continue
				}
			}
			e := rels[k]
			ts := 1.0
			if nq > 0 {
				if tags := g.RelTagIDs(e); len(tags) == 0 {
					ts = floor
				} else {
					inter := 0
					for _, t := range tags {
						inter += int(qtags[t])
					}
					ts = activation.TagSimCounts(inter, len(tags)+nq-inter, floor)
				}
			}
			weight, ok := g.RelWeight(e)
			if !ok {
				weight = activation.MissingWeight
			}
			te := activation.TransferEnergy(f.Activation, weight, degree, ts)
			if te > minAct {
				hits = append(hits, hit{f: int32(fi), v: v, e: e, deg: degree, ts: ts, te: te})
			} else if trace {
				below = append(below, hit{f: int32(fi), v: v, e: e, deg: degree, ts: ts, te: te})
			}
		}
		if trace {
			if _, dup := tallies[f.NodeID]; !dup {
				tallies[f.NodeID] = activation.Tally{Degree: degree, Visited: len(seenVisited)}
			}
		}
	}
	sc.hits = hits

	slices.SortFunc(hits, func(a, b hit) int {
		if c := strings.Compare(req.Frontier[a.f].NodeID, req.Frontier[b.f].NodeID); c != 0 {
			return c
		}
		if c := cmp.Compare(b.te, a.te); c != 0 {
			return c
		}
		if c := strings.Compare(g.NodeID(a.v), g.NodeID(b.v)); c != 0 {
			return c
		}
		if c := bytes.Compare(g.RelInternalID(a.e), g.RelInternalID(b.e)); c != 0 {
			return c
		}
		return cmp.Compare(a.f, b.f)
	})

	neighborDegree := func(int32) int64 { return 0 }
	if near != nil && near.Degrees {
		neighborDegree = g.Degree
	}
	cand := func(h hit) activation.Candidate {
		f := req.Frontier[h.f]
		nb := g.NodeAt(h.v)
		return activation.Candidate{
			ParentID:       f.NodeID,
			NeighborNode:   nb,
			Edge:           g.RelatesEdge(h.e, f.NodeID, nb.ID),
			Activation:     f.Activation,
			Degree:         h.deg,
			TagSim:         h.ts,
			TransferEnergy: h.te,
			NeighborDegree: neighborDegree(h.v),
		}
	}
	out := make([]activation.Candidate, len(hits))
	for i, h := range hits {
		out[i] = cand(h)
	}
	activation.SortTiedEdges(out)
	x := activation.Expansion{Candidates: out, Tallies: tallies}
	if trace {
		x.NearMisses = m.nearMissesOf(req.Frontier, out, below, cand, tallies, nearMisses)
	}
	return x, nil
}

// nearMissesOf groups the below-threshold rows by frontier node, picks each
// node's near misses (activation.PickNearMissesOf, on the rows as they are:
// only the k picked become Candidates, and an edge's key is built only to
// break a tie) and counts them in its tally; the result is ordered by
// frontier node id.
func (m *InMemory) nearMissesOf(frontier []activation.FrontierInput, above []activation.Candidate, below []hit, cand func(hit) activation.Candidate,
	tallies map[string]activation.Tally, k int) []activation.Candidate {
	g := m.g
	aboveOf := map[string]map[string]bool{}
	for _, c := range above {
		if aboveOf[c.ParentID] == nil {
			aboveOf[c.ParentID] = map[string]bool{}
		}
		aboveOf[c.ParentID][c.NeighborNode.ID] = true
	}
	rows := map[string][]hit{}
	for _, h := range below {
		id := frontier[h.f].NodeID
		rows[id] = append(rows[id], h)
	}
	ids := slices.Sorted(maps.Keys(rows))
	var out []activation.Candidate
	for _, id := range ids {
		r := rows[id]
		picked, n := activation.PickNearMissesOf(len(r), func(i int) string { return g.NodeID(r[i].v) },
			func(i int) float64 { return r[i].te },
			func(i int) string {
				return activation.EdgeKey(g.RelatesEdge(r[i].e, frontier[r[i].f].NodeID, g.NodeID(r[i].v)))
			}, aboveOf[id], k)
		t := tallies[id]
		t.Below = n
		tallies[id] = t
		for _, at := range picked {
			out = append(out, cand(r[at]))
		}
	}
	return out
}
