package retriever

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBest: on 3,000 random lists (scores from a few values, so that
// ties go to the ids; k from 0 past the length), Best keeps exactly the
// first k of the list sorted by Compare, in that order, and leaves the
// list a reordering of itself.
func TestBest(t *testing.T) {
	type cand struct {
		score float64
		id    string
	}
	order := func(a, b cand) int { return Compare(a.score, a.id, b.score, b.id) }
	r := rand.New(rand.NewPCG(3, 9))
	for c := range 3000 {
		n := r.IntN(60)
		xs := make([]cand, n)
		for i, p := range r.Perm(n) {
			xs[i] = cand{float64(r.IntN(5)) / 4, fmt.Sprintf("N%03d", p)}
		}
		k := r.IntN(n + 3)
		sorted := slices.SortedFunc(slices.Values(xs), order)
		got := slices.Clone(Best(xs, k, order))
		if want := sorted[:min(k, n)]; !slices.Equal(got, want) {
			t.Fatalf("case %d, k %d: %v, want %v", c, k, got, want)
		}
		if slices.SortFunc(xs, order); !slices.Equal(xs, sorted) {
			t.Fatalf("case %d: not a reordering", c)
		}
	}
}
