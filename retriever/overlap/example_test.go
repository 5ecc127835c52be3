package overlap_test

import (
	"fmt"

	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/overlap"
)

// Example compares two rankings as `memoria compare` does: their top 3,
// A, B, C against B, C, D. They share B and C of the four nodes in either
// top 3, so Jaccard@3 = 2/4 = 0.5; A is the first list's alone, D the
// second's.
func Example() {
	ranking := func(name string, ids ...string) retriever.Ranking {
		r := retriever.Ranking{Retriever: name}
		for i, id := range ids {
			r.Hits = append(r.Hits, retriever.Hit{Rank: i + 1, NodeID: id, Score: 1 / float64(i+1)})
		}
		return r
	}
	res, err := overlap.Compare([]string{"first", "second"}, []retriever.Ranking{ranking("first", "A", "B", "C"), ranking("second", "B", "C", "D")}, 3)
	if err != nil {
		panic(err)
	}
	for _, p := range res.Pairs {
		fmt.Printf("%s/%s Jaccard@3 %.2f\n", p.A, p.B, p.Jaccard)
	}
	for _, o := range res.Only {
		fmt.Println(o.List, "alone:", o.NodeIDs)
	}
	// Output:
	// first/second Jaccard@3 0.50
	// first alone: [A]
	// second alone: [D]
}
