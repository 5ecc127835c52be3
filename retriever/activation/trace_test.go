package activation

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
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

// TestPickNearMissesOfRandom: on 2,000 random sets of rows (a few
// neighbours, few distinct T so that ties abound, some neighbours above)
// and k from 0 to 12, PickNearMissesOf's picks, in order, and count are
// those of the rule done the plain way: each neighbour's best row (T
// highest, then the smallest key), every one of them sorted by T
// descending then neighbour id, the first k.
func TestPickNearMissesOfRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	for c := range 2000 {
		n := r.IntN(40)
		ids, ts, keys := make([]string, n), make([]float64, n), make([]string, n)
		for i := range n {
			ids[i] = fmt.Sprintf("N%d", r.IntN(15))
			ts[i] = float64(r.IntN(6)) / 8
			keys[i] = fmt.Sprintf("k%03d", r.IntN(1000))
		}
		above := map[string]bool{}
		for range r.IntN(4) {
			above[fmt.Sprintf("N%d", r.IntN(15))] = true
		}
		k := r.IntN(13)
		got, count := PickNearMissesOf(n, func(i int) string { return ids[i] }, func(i int) float64 { return ts[i] },
			func(i int) string { return keys[i] }, above, k)

		best := map[string]int{}
		for i := range n {
			if above[ids[i]] {
				continue
			}
			b, ok := best[ids[i]]
			if !ok || ts[i] > ts[b] || (ts[i] == ts[b] && keys[i] < keys[b]) {
				best[ids[i]] = i
			}
		}
		var want []int
		for _, i := range best {
			want = append(want, i)
		}
		slices.SortFunc(want, func(a, b int) int {
			if ts[a] != ts[b] {
				return cmp.Compare(ts[b], ts[a])
			}
			return strings.Compare(ids[a], ids[b])
		})
		if count != len(want) || !slices.Equal(got, want[:min(k, len(want))]) {
			t.Fatalf("case %d (k %d): got %v of %d, want %v of %d", c, k, got, count, want[:min(k, len(want))], len(want))
		}
	}
}
