package activation

import (
	"slices"
	"testing"

	"github.com/memoria-graph/memoria/graph"
)

// TestPickNearMisses, worked by hand. Below-threshold rows of one parent P:
// A by two parallel edges (T 0.003 with weight 0.4, T 0.003 with weight
// 0.3: the same T, so the tie goes to the smaller EdgeKey, `"weight":0.3`
// before `"weight":0.4`), B at 0.004, C at 0.001, D at 0.002, and E at
// 0.0001 although E also has an edge above the threshold.
//
// Expected: E left out (it is a candidate); the distinct neighbours by best
// edge, T descending: B 0.004, A 0.003 (the weight-0.3 edge), D 0.002,
// C 0.001; with k = 3 the first three, and a count of 4.
func TestPickNearMisses(t *testing.T) {
	row := func(id string, te, w float64) Candidate {
		return Candidate{ParentID: "P", NeighborNode: graph.Node{ID: id}, TransferEnergy: te,
			Edge: graph.Edge{Properties: map[string]any{"weight": w}, Weight: &w}}
	}
	below := []Candidate{row("A", 0.003, 0.4), row("B", 0.004, 0.5), row("C", 0.001, 0.5), row("A", 0.003, 0.3), row("D", 0.002, 0.5), row("E", 0.0001, 0.5)}
	got, n := PickNearMisses(below, map[string]bool{"E": true}, 3)
	var ids []string
	for _, c := range got {
		ids = append(ids, c.NeighborNode.ID)
	}
	if n != 4 || !slices.Equal(ids, []string{"B", "A", "D"}) || *got[1].Edge.Weight != 0.3 {
		t.Errorf("got %v (A by weight %v), count %d; want [B A D], A by 0.3, 4", ids, *got[1].Edge.Weight, n)
	}
	if none, n := PickNearMisses(nil, nil, 3); len(none) != 0 || n != 0 {
		t.Errorf("no rows: %v, %d", none, n)
	}
}
