package inmem

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/memoria-graph/memoria/graph"
)

var _ graph.Neighbourhood = (*Graph)(nil)

// buildOther builds the adjacency of the relationships that are not
// RELATES, as finish builds the RELATES one: node u's are
// otherRel[otherOff[u]:otherOff[u+1]], a self-loop once.
func (g *Graph) buildOther() error {
	n := len(g.nodeInternal)
	deg := make([]int32, n+1)
	any := false
	for e := range g.relStart {
		if g.trav[g.relType[e]] {
			continue
		}
		any = true
		s, t := g.relStart[e], g.relEnd[e]
		deg[s]++
		if t != s {
			deg[t]++
		}
	}
	if !any {
		return nil
	}
	g.otherOff = make([]int32, n+1)
	total := 0
	for u := 0; u < n; u++ {
		g.otherOff[u] = int32(total)
		total += int(deg[u])
	}
	if total > math.MaxInt32 {
		return errors.New("too many relationships")
	}
	g.otherOff[n] = int32(total)
	g.otherNbr = make([]int32, total)
	g.otherRel = make([]int32, total)
	cursor := slices.Clone(g.otherOff[:n])
	for e := range g.relStart {
		if g.trav[g.relType[e]] {
			continue
		}
		s, t := g.relStart[e], g.relEnd[e]
		g.otherNbr[cursor[s]], g.otherRel[cursor[s]] = t, int32(e)
		cursor[s]++
		if t != s {
			g.otherNbr[cursor[t]], g.otherRel[cursor[t]] = s, int32(e)
			cursor[t]++
		}
	}
	return nil
}

// others returns node u's incident relationships of types other than
// RELATES, as Relates does for RELATES ones.
func (g *Graph) others(u int32) (nbr, rel []int32) {
	if g.otherOff == nil {
		return nil, nil
	}
	lo, hi := g.otherOff[u], g.otherOff[u+1]
	return g.otherNbr[lo:hi], g.otherRel[lo:hi]
}

// rel is relationship e from node u to node v, properties lazy (see
// graph.Rel).
func (r reader) rel(u, v, e int32, deg int64) graph.Rel {
	g := r.g
	edge := graph.Edge{SourceID: g.nodeID[u], TargetID: g.nodeID[v], Type: g.typeName(e)}
	rel := graph.Rel{To: graph.NodeRef{Node: g.graphNode(v), Ref: g.nodeID[v], Num: v + 1}, Degree: deg, Lazy: func() map[string]any { return g.relProps(e) }}
	if g.trav[g.relType[e]] {
		// Checked when loaded: a number or nothing. The pointer is into
		// the graph's own array (no allocation): nothing writes through
		// an edge's weight.
		if g.relFlags[e]&fWeight != 0 {
			edge.Weight = &g.relWeight[e]
		}
		edge.Tags = g.relTags(e)
	} else if extra := g.extra[e]; extra != nil {
		edge.Weight, rel.BadWeight = g.otherWeight(extra)
		edge.Tags, _ = g.otherTags(extra)
	}
	rel.Edge = edge
	return rel
}

// Details fills in properties: the nodes' are at hand already (shared with
// the graph), the relationships' are built (Lazy).
func (r reader) Details(ctx context.Context, nodes []*graph.NodeRef, rels []*graph.Rel) error {
	for _, n := range nodes {
		if u, ok := r.g.index(*n); ok {
			n.Node = r.g.graphNode(u)
		}
	}
	for _, rel := range rels {
		rel.Edge = rel.Full()
	}
	return ctx.Err()
}

// Read runs fn with a reader over g (graph.Neighbourhood); g never
// changes, so fn runs once.
func (g *Graph) Read(ctx context.Context, fn func(graph.Reader) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return fn(reader{g: g})
}

// reader serves graph.Reader over g; f, when not nil, is the relationship
// filter Around and Arcs apply (Filtered).
type reader struct {
	g *Graph
	f *graph.RelFilter
}

// Nodes looks nodes up by id; a node's ref is its id.
func (r reader) Nodes(ctx context.Context, ids []string) ([]graph.NodeRef, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]graph.NodeRef, 0, len(ids))
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		u, ok := r.g.byID[id]
		if !ok || seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, graph.NodeRef{Node: r.g.graphNode(u), Ref: id, Num: u + 1})
	}
	return out, nil
}

// Around reads every relationship around the nodes of from (see
// graph.Reader). Each node's relationships are put in graph.SortRels order
// as small (neighbour, relationship) pairs before any Rel is built.
func (r reader) Around(ctx context.Context, from []graph.NodeRef) ([]graph.Rel, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	g := r.g
	rank := g.idRank()
	var out []graph.Rel
	var pairs [][2]int32
	done := make(map[int32]bool, len(from))
	for _, f := range from {
		u, ok := g.index(f)
		if !ok || done[u] {
			continue
		}
		done[u] = true
		rn, rr := g.Relates(u)
		on, or := g.others(u)
		deg := int64(len(rn) + len(on))
		pairs = pairs[:0]
		for _, side := range [2]struct{ nbr, rel []int32 }{{rn, rr}, {on, or}} {
			for i, v := range side.nbr {
				if g.nodeHasID(v) && g.Keeps(r.f, side.rel[i]) {
					pairs = append(pairs, [2]int32{v, side.rel[i]})
				}
			}
		}
		slices.SortStableFunc(pairs, func(a, b [2]int32) int {
			if c := cmp.Compare(rank[a[0]], rank[b[0]]); c != 0 {
				return c
			}
			// Parallel relationships: rare enough to build.
			return graph.CompareRels(r.rel(u, a[0], a[1], 0), r.rel(u, b[0], b[1], 0))
		})
		for _, p := range pairs {
			out = append(out, r.rel(u, p[0], p[1], deg))
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Degrees counts each node's relationships of type relType: for RELATES
// the graph's own degree, for any other type a walk of the node's other
// relationships.
func (r reader) Degrees(ctx context.Context, nodes []graph.NodeRef, relType string) ([]int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	g := r.g
	out := make([]int64, len(nodes))
	for i, n := range nodes {
		u, ok := g.index(n)
		if !ok {
			continue
		}
		if relType == graph.Relates {
			out[i] = g.Degree(u)
			continue
		}
		_, rels := g.others(u)
		for _, e := range rels {
			if g.types[g.relType[e]] == relType {
				out[i]++
			}
		}
	}
	return out, nil
}

// Strengths gives each node's strength over relType (graph.Reader). The
// RELATES strengths of every node are computed on the first call for a
// given missing weight (one pass over the adjacency) and kept: a
// retriever that asks for the strengths of tens of thousands of nodes
// then pays a lookup each. It is StrengthNums with each node found by its
// ref.
func (r reader) Strengths(ctx context.Context, nodes []graph.NodeRef, relType string, missing float64) ([]graph.Strength, error) {
	return r.StrengthNums(ctx, r.nums(nodes), relType, missing, make([]graph.Strength, 0, len(nodes)))
}

// nums are the numbers of refs (NodeRef.Num's), 0 for a node not in the
// graph.
func (r reader) nums(refs []graph.NodeRef) []int32 {
	nums := make([]int32, len(refs))
	for i, n := range refs {
		if u, ok := r.g.index(n); ok {
			nums[i] = u + 1
		}
	}
	return nums
}

// StrengthNums is Strengths by number (graph.NumberedArcs): the strengths
// of the nodes numbered nums (0, an unknown number or a node without an
// id: not in the graph) appended to out.
func (r reader) StrengthNums(ctx context.Context, nums []int32, relType string, missing float64, out []graph.Strength) ([]graph.Strength, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	g := r.g
	var all []graph.Strength
	if relType == graph.Relates {
		all = g.relatesStrengths(missing)
	}
	var ws []float64
	for _, num := range nums {
		u := num - 1
		switch {
		case num <= 0 || int(u) >= len(g.nodeID) || !g.nodeHasID(u):
			out = append(out, graph.Strength{Clean: true})
		case all != nil:
			out = append(out, all[u])
		default:
			ws = ws[:0]
			nbr, rels := g.others(u)
			for j, e := range rels {
				if g.types[g.relType[e]] != relType || !g.nodeHasID(nbr[j]) {
					continue
				}
				w, err := g.otherWeight(g.extra[e])
				if err != nil {
					ws = append(ws, math.NaN()) // not clean
					continue
				}
				if w == nil {
					ws = append(ws, missing)
				} else {
					ws = append(ws, *w)
				}
			}
			out = append(out, graph.SumWeights(ws))
		}
	}
	return out, nil
}

// relatesStrengths is every node's RELATES strength (graph.SumWeights),
// built once per missing weight.
func (g *Graph) relatesStrengths(missing float64) []graph.Strength {
	g.strengthMu.Lock()
	defer g.strengthMu.Unlock()
	key := math.Float64bits(missing)
	if s, ok := g.strengths[key]; ok {
		return s
	}
	out := make([]graph.Strength, len(g.nodeInternal))
	var ws []float64
	for u := range out {
		ws = ws[:0]
		nbr, rels := g.Relates(int32(u))
		for j, e := range rels {
			if !g.nodeHasID(nbr[j]) {
				continue
			}
			if w, ok := g.RelWeight(e); ok {
				ws = append(ws, w)
			} else {
				ws = append(ws, missing)
			}
		}
		out[u] = graph.SumWeights(ws)
	}
	if g.strengths == nil {
		g.strengths = map[uint64][]graph.Strength{}
	}
	g.strengths[key] = out
	return out
}

// Arcs reads the relationships of type relType around from, leanly
// (graph.Reader): each node's arcs in its adjacency's order, parallel ones
// put in ascending order of weight. It is ArcNums with each arc's other
// end made a NodeRef.
func (r reader) Arcs(ctx context.Context, from []graph.NodeRef, relType string, missing float64) ([]graph.Arc, error) {
	to, w, ends, err := r.ArcNums(ctx, r.nums(from), relType, missing, nil, nil)
	if err != nil {
		return nil, err
	}
	out := make([]graph.Arc, len(to))
	lo := int32(0)
	for i, hi := range ends {
		for k := lo; k < hi; k++ {
			out[k] = graph.Arc{From: int32(i), To: r.NodeByNum(to[k]), Weight: w[k]}
		}
		lo = hi
	}
	return out, nil
}

// ArcNums is Arcs by number (graph.NumberedArcs): the arcs of the nodes
// numbered from (0, or a node listed before, gives none), appended to to
// (the other ends' numbers) and w, without an Arc per relationship.
func (r reader) ArcNums(ctx context.Context, from []int32, relType string, missing float64, to []int32, w []float64) ([]int32, []float64, []int32, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, err
	}
	g := r.g
	type arc struct {
		v, e int32
		w    float64
	}
	ends := make([]int32, len(from))
	done := make(map[int32]bool, len(from))
	var arcs []arc
	var parallel []bool
	if relType == graph.Relates {
		parallel = g.parallelRelates()
	}
	for i, num := range from {
		u := num - 1
		if num <= 0 || int(u) >= len(g.nodeID) || done[u] {
			ends[i] = int32(len(to))
			continue
		}
		done[u] = true
		arcs = arcs[:0]
		if relType == graph.Relates {
			nbr, rels := g.Relates(u)
			for j, v := range nbr {
				if !g.nodeHasID(v) || !g.Keeps(r.f, rels[j]) {
					continue
				}
				x, ok := g.RelWeight(rels[j])
				if !ok {
					x = missing
				}
				arcs = append(arcs, arc{v, rels[j], x})
			}
		} else {
			nbr, rels := g.others(u)
			for j, v := range nbr {
				e := rels[j]
				if g.types[g.relType[e]] != relType || !g.nodeHasID(v) || !g.Keeps(r.f, e) {
					continue
				}
				wt, err := g.otherWeight(g.extra[e])
				if err != nil {
					return nil, nil, nil, fmt.Errorf("relationship (%s)-[:%s]-(%s): %w", strconv.Quote(g.nodeID[u]), relType, strconv.Quote(g.nodeID[v]), err)
				}
				x := missing
				if wt != nil {
					x = *wt
				}
				arcs = append(arcs, arc{v, e, x})
			}
		}
		if parallel == nil || parallel[u] {
			slices.SortFunc(arcs, func(a, b arc) int {
				if c := cmp.Compare(a.v, b.v); c != 0 {
					return c
				}
				return cmp.Compare(a.w, b.w)
			})
		}
		for _, a := range arcs {
			to, w = append(to, a.v+1), append(w, a.w)
		}
		ends[i] = int32(len(to))
		if err := ctx.Err(); err != nil {
			return nil, nil, nil, err
		}
	}
	return to, w, ends, nil
}

// NodeByNum is the node numbered num (graph.NumberedArcs): its id, which
// is its handle, and its number.
func (r reader) NodeByNum(num int32) graph.NodeRef {
	id := r.g.nodeID[num-1]
	return graph.NodeRef{Node: graph.Node{ID: id}, Ref: id, Num: num}
}

// Facts gives the nodes' properties of the keys asked for and their
// degrees over relType (graph.Reader). Each key's values for every node
// are gathered once, on the first call that asks for it, and kept (a
// column of the graph), so that scoring thousands of candidates reads
// arrays, not thousands of property maps.
func (r reader) Facts(ctx context.Context, nodes []graph.NodeRef, keys []string, relType string) ([]graph.Facts, error) {
	deg, err := r.Degrees(ctx, nodes, relType)
	if err != nil {
		return nil, err
	}
	cols := make([][]any, len(keys))
	for k, key := range keys {
		cols[k] = r.g.column(key)
	}
	out := make([]graph.Facts, len(nodes))
	vals := make([]any, len(nodes)*len(keys))
	for i, n := range nodes {
		out[i].Degree = deg[i]
		out[i].Values = vals[i*len(keys) : (i+1)*len(keys) : (i+1)*len(keys)]
		if u, ok := r.g.index(n); ok {
			for k := range keys {
				out[i].Values[k] = cols[k][u]
			}
		}
	}
	return out, nil
}

// column is every node's value of property key (nil where absent), built
// once per key.
func (g *Graph) column(key string) []any {
	g.strengthMu.Lock()
	defer g.strengthMu.Unlock()
	if c, ok := g.columns[key]; ok {
		return c
	}
	c := make([]any, len(g.nodeProps))
	for u, p := range g.nodeProps {
		c[u] = p[key]
	}
	if g.columns == nil {
		g.columns = map[string][]any{}
	}
	g.columns[key] = c
	return c
}

// NodeNums bounds the refs' Num: the number of nodes, plus one.
func (r reader) NodeNums() int32 { return int32(len(r.g.nodeID)) + 1 }

// index finds a ref's node: by its Num when it carries one that matches
// (no hashing), else by id.
func (g *Graph) index(ref graph.NodeRef) (int32, bool) {
	if u := ref.Num - 1; u >= 0 && int(u) < len(g.nodeID) && g.nodeID[u] == ref.Ref && g.nodeHasID(u) {
		return u, true
	}
	u, ok := g.byID[ref.Ref]
	return u, ok
}

// idRank is every node's place in the order of ids (g.sorted), built once:
// comparing two places is comparing two ids.
func (g *Graph) idRank() []int32 {
	g.strengthMu.Lock()
	defer g.strengthMu.Unlock()
	if g.rank == nil {
		g.rank = make([]int32, len(g.nodeID))
		for i, u := range g.sorted {
			g.rank[u] = int32(i)
		}
	}
	return g.rank
}

// parallelRelates marks every node that has two or more RELATES to one
// other node (parallel relationships), found once in one pass over the
// adjacency and kept: Arcs puts parallel arcs in ascending order of weight,
// which only these nodes need; the others' arcs stay in the adjacency's
// order (graph.Reader.Arcs leaves that order to the engine).
func (g *Graph) parallelRelates() []bool {
	g.strengthMu.Lock()
	defer g.strengthMu.Unlock()
	if g.parallel != nil {
		return g.parallel
	}
	n := len(g.nodeInternal)
	par := make([]bool, n)
	last := make([]int32, n) // last[v] = u+1 when u's adjacency holds v
	for u := range n {
		nbr, _ := g.Relates(int32(u))
		for _, v := range nbr {
			if last[v] == int32(u)+1 {
				par[u] = true
				break
			}
			last[v] = int32(u) + 1
		}
	}
	g.parallel = par
	return par
}
