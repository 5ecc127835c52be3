package fusion_test

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/fusion"
	"github.com/memoria-graph/memoria/testkit/naivefusion"
)

// randomLists are one to four rankings under distinct retriever names,
// each a random subset (0 to 30 nodes) of 25 ids with scores from five
// values (so that ties, broken by id, are common), ranked by the ranking
// rule, some hits initial.
func randomLists(r *rand.Rand) []retriever.Ranking {
	names := []string{"activation", "expansion", "spreading", "ppr"}
	r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	lists := make([]retriever.Ranking, 1+r.Intn(len(names)))
	for i := range lists {
		l := retriever.Ranking{Retriever: names[i], Seeds: []retriever.SeedStatus{{NodeID: "N00", Score: 1, Found: r.Intn(2) == 0}}}
		pool := r.Perm(25)
		for _, n := range pool[:r.Intn(26)] {
			h := retriever.Hit{NodeID: fmt.Sprintf("N%02d", n), Score: float64(1+r.Intn(5)) / 10, Origin: retriever.OriginExpanded}
			if r.Intn(10) == 0 {
				h.Origin = retriever.OriginInitial
			}
			l.Hits = append(l.Hits, h)
		}
		l.Hits, _ = retriever.Rank(l.Hits, 0)
		lists[i] = l
	}
	return lists
}

// TestAgreesWithNaive: on 2,000 random sets of rankings, with depth in
// {1, 2, 5, 10, 100}, k in {0, 1, 60} and top K in {1, 3, 10, 100}, Fuse
// gives naivefusion's hits in its order, every score to the bit, every
// list's rank in the detail, and its counts; each hit's terms add up to
// its score exactly, and it is initial exactly when a list it stands in
// within the depth has it so.
func TestAgreesWithNaive(t *testing.T) {
	for i := range 2000 {
		r := rand.New(rand.NewSource(int64(i)))
		lists := randomLists(r)
		p := fusion.Params{Depth: []int{1, 2, 5, 10, 100}[r.Intn(5)], K: []float64{0, 1, 60}[r.Intn(3)], TopK: []int{1, 3, 10, 100}[r.Intn(4)]}
		var in []naivefusion.List
		for _, l := range lists {
			p.Fuse = append(p.Fuse, l.Retriever)
			var ids []string
			for _, h := range l.Hits {
				ids = append(ids, h.NodeID)
			}
			in = append(in, naivefusion.List{Name: l.Retriever, IDs: ids})
		}
		label := fmt.Sprintf("case %d (%+v)", i, p)
		got, err := fusion.Fuse(lists, p)
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		want := naivefusion.Run(in, p.Depth, p.K, p.TopK)
		agree(t, label, lists, p, got, want)
	}
}

func agree(t *testing.T, label string, lists []retriever.Ranking, p fusion.Params, got retriever.Ranking, want naivefusion.Result) {
	t.Helper()
	if len(got.Hits) != len(want.Hits) {
		t.Fatalf("%s: %d hits, naive %d", label, len(got.Hits), len(want.Hits))
	}
	for j, h := range got.Hits {
		w := want.Hits[j]
		if h.NodeID != w.ID || math.Float64bits(h.Score) != math.Float64bits(w.Score) || h.Rank != j+1 {
			t.Fatalf("%s: hit %d is %s %v (rank %d), naive %s %v", label, j+1, h.NodeID, h.Score, h.Rank, w.ID, w.Score)
		}
		sum := 0.0
		for _, term := range h.Terms {
			sum += term.Value
		}
		if sum != h.Score || len(h.Terms) != len(w.Ranks) {
			t.Fatalf("%s: %s's terms %v, score %v, naive ranks %v", label, h.NodeID, h.Terms, h.Score, w.Ranks)
		}
		initial := false
		for _, l := range lists {
			rank, _ := h.Detail.Get(l.Retriever + "_rank")
			if wr, ok := w.Ranks[l.Retriever]; ok != (rank != nil) || (ok && rank != wr) {
				t.Fatalf("%s: %s's %s rank %v, naive %v", label, h.NodeID, l.Retriever, rank, w.Ranks)
			}
			if rank != nil && l.Hits[rank.(int)-1].Origin == retriever.OriginInitial {
				initial = true
			}
		}
		if initial != (h.Origin == retriever.OriginInitial) {
			t.Fatalf("%s: %s is %s", label, h.NodeID, h.Origin)
		}
	}
	for _, l := range lists {
		if n, _ := got.Stats.Get(l.Retriever + "_hits"); n != want.Brought[l.Retriever] {
			t.Fatalf("%s: %s brought %v, naive %d", label, l.Retriever, n, want.Brought[l.Retriever])
		}
	}
	if u, _ := got.Stats.Get("union"); u != want.Union {
		t.Fatalf("%s: union %v, naive %d", label, u, want.Union)
	}
	if e, _ := got.Stats.Get("in_every_list"); e != want.InEvery {
		t.Fatalf("%s: in every list %v, naive %d", label, e, want.InEvery)
	}
}
