package onneo4j

import (
	"fmt"
	"slices"
	"testing"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/neo4jdb"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/testkit/neo4jfix"
)

// tieGraph is P with three parallel RELATES edges to Q that give the same
// T (weight 0.5, tags [x]) and differ only in a note: "b" and "a" from P,
// "0" from Q to P. order permutes the edges in the file, and so the order
// Neo4j stores them in.
func tieGraph(order []int) *apoc.Graph {
	rels := []apoc.Relationship{
		{Type: "RELATES", Start: "p", End: "q", Properties: map[string]any{"weight": 0.5, "tags": []any{"x"}, "note": "b"}},
		{Type: "RELATES", Start: "p", End: "q", Properties: map[string]any{"weight": 0.5, "tags": []any{"x"}, "note": "a"}},
		{Type: "RELATES", Start: "q", End: "p", Properties: map[string]any{"weight": 0.5, "tags": []any{"x"}, "note": "0"}},
	}
	g := &apoc.Graph{Nodes: []apoc.Node{
		{InternalID: "p", Labels: []string{"Event"}, Properties: map[string]any{"id": "P"}},
		{InternalID: "q", Labels: []string{"Event"}, Properties: map[string]any{"id": "Q"}},
	}}
	for i, k := range order {
		r := rels[k]
		r.InternalID = fmt.Sprint(i)
		g.Rels = append(g.Rels, r)
	}
	return g
}

// TestParallelTiesDeterministic: P's three parallel edges to Q tie exactly
// on (parent, T, neighbour), so ExpandQuery's ORDER BY leaves them in
// storage order. Loaded in each of the six orders, ExpandFrontier from P
// returns them ordered by activation.EdgeKey — notes "0", "a", "b" — and the
// kept hop P→Q of an exploration records the edge with note "0", whatever
// the storage order: the same edge on every run and, as the memory engine
// sorts ties by the same key, on both engines.
func TestParallelTiesDeterministic(t *testing.T) {
	d := fx.Driver(t)
	for _, order := range [][]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}} {
		fx.Load(t, d, tieGraph(order))
		src := neo4jdb.NewSource(d, "", "")
		cands := neo4jfix.Expand(t, openConn(t, src), neo4jfix.ExpandReq(map[string]float64{"P": 1}, nil, []string{"x"}, 0, 0.15))
		var notes []string
		for _, c := range cands {
			notes = append(notes, fmt.Sprint(c.Edge.Properties["note"]))
		}
		if !slices.Equal(notes, []string{"0", "a", "b"}) || !neo4jfix.SameSlot(cands[0], cands[2]) {
			t.Errorf("order %v: notes %v%s", order, notes, neo4jfix.CandList(cands))
		}
		res, _ := neo4jfix.ExploreWithLevels(t, New(src), activation.DefaultParams(), []retriever.Seed{{NodeID: "P", Score: 1}}, []string{"x"})
		if len(res[0].Paths) != 1 || res[0].Paths[0].Steps[0].Edge.Properties["note"] != "0" {
			t.Errorf("order %v: kept edge %v (%s)", order, res[0].Paths, res[0].Error)
		}
	}
}
