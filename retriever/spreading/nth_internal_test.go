package spreading

import (
	"strconv"
	"testing"

	"github.com/memoria-graph/memoria/graph"
)

// TestNthOnAHub: nth is which of its sender's arcs to its receiver with
// its weight an arc is, from 0, counted over the arcs before it in the
// pulse's read. Sender 0 has 100 arcs (beyond nthScan, so they are
// numbered once, by nthIndexed), sender 1 has 10 (scanned), both to five
// receivers with two weights in turn, so each (receiver, weight) comes
// back every tenth arc: arc i of a sender is the (i / 10)th of its kind.
// nth must give that for every arc, asked in any order.
func TestNthOnAHub(t *testing.T) {
	var arcs []graph.Arc
	for from, n := range []int{100, 10} {
		for i := range n {
			to := graph.NodeRef{Node: graph.Node{ID: "R" + strconv.Itoa(i%5)}}
			arcs = append(arcs, graph.Arc{From: int32(from), To: to, Weight: []float64{0.5, 0.25}[i%2]})
		}
	}
	s := &run{arcs: [][]graph.Arc{nil, arcs}}
	for _, idx := range []int{99, 0, 57, 31, 32, 33, 100, 109, 64} {
		want := idx / 10
		if idx >= 100 {
			want = (idx - 100) / 10
		}
		if got := s.nth(contrib{pulse: 1, idx: idx}); got != want {
			t.Errorf("arc %d: nth %d, want %d", idx, got, want)
		}
	}
}
