package inmem

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"

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
		if int(g.relType[e]) == g.relatesTy {
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
		if int(g.relType[e]) == g.relatesTy {
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
	edge := graph.Edge{SourceID: g.nodeID[u], TargetID: g.nodeID[v], Type: g.types[g.relType[e]]}
	rel := graph.Rel{To: graph.NodeRef{Node: g.graphNode(v), Ref: g.nodeID[v]}, Degree: deg, Lazy: func() map[string]any { return g.relProps(e) }}
	if int(g.relType[e]) == g.relatesTy {
		// Checked when loaded: a number or nothing.
		if w, ok := g.RelWeight(e); ok {
			edge.Weight = &w
		}
		edge.Tags = g.relTags(e)
	} else if extra := g.extra[e]; extra != nil {
		edge.Weight, rel.BadWeight = graph.WeightOf(extra)
		edge.Tags, _ = graph.TagsOf(extra)
	}
	rel.Edge = edge
	return rel
}

// Details fills in properties: the nodes' are at hand already (shared with
// the graph), the relationships' are built (Lazy).
func (r reader) Details(ctx context.Context, nodes []*graph.NodeRef, rels []*graph.Rel) error {
	for _, n := range nodes {
		if u, ok := r.g.byID[n.Ref]; ok {
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
	return fn(reader{g})
}

type reader struct{ g *Graph }

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
		out = append(out, graph.NodeRef{Node: r.g.graphNode(u), Ref: id})
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
	var out []graph.Rel
	var pairs [][2]int32
	done := make(map[int32]bool, len(from))
	for _, f := range from {
		u, ok := g.byID[f.Ref]
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
				if g.nodeHasID(v) {
					pairs = append(pairs, [2]int32{v, side.rel[i]})
				}
			}
		}
		slices.SortStableFunc(pairs, func(a, b [2]int32) int {
			if c := strings.Compare(g.nodeID[a[0]], g.nodeID[b[0]]); c != 0 {
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
		u, ok := g.byID[n.Ref]
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
