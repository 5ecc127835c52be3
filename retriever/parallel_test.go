package retriever

import (
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph"
)

// TestGroupParallel: a read of A's relationships holding two parallel
// RELATES to B of weight 0.5 (element ids r1, r3, in that order), one of
// weight 0.7 (r2) and a MENTIONS to B (r4, not RELATES: never grouped).
// The 0th and 1st of (A, B, 0.5) are r1 and r3, the 0th of (A, B, 0.7) is
// r2; a 2nd of (A, B, 0.5), which the read lacks, is an error naming the
// relationship.
func TestGroupParallel(t *testing.T) {
	rel := func(id, typ string, w float64) graph.Rel {
		return graph.Rel{Edge: graph.Edge{SourceID: "A", TargetID: "B", Type: typ, ElementID: id, Weight: &w,
			Properties: map[string]any{"weight": w}}}
	}
	rels := []graph.Rel{rel("r1", graph.Relates, 0.5), rel("r2", graph.Relates, 0.7), rel("r3", graph.Relates, 0.5), rel("r4", "MENTIONS", 0.5)}
	p, err := GroupParallel(rels, func(r graph.Rel) (float64, error) { return r.WeightOr(graph.MissingRelatesWeight) })
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		w    float64
		n    int
		want string
	}{{0.5, 0, "r1"}, {0.5, 1, "r3"}, {0.7, 0, "r2"}} {
		got, err := p.Nth("A", "B", c.w, c.n)
		if err != nil || got.Edge.ElementID != c.want {
			t.Errorf("Nth(A, B, %v, %d): %+v %v, want %s", c.w, c.n, got, err, c.want)
		}
	}
	if _, err := p.Nth("A", "B", 0.5, 2); err == nil || !strings.Contains(err.Error(), `("A")-[:RELATES]-("B"): gone from the graph`) {
		t.Errorf("the 3rd of (A, B, 0.5): %v", err)
	}
}
