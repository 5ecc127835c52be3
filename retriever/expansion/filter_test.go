package expansion_test

import (
	"testing"

	"github.com/memoria-graph/memoria/graph"
)

// TestFilters: the worked example's graph with an attitude on two of the
// relationships: A FIXES X (attitude 5), A SUPPORTS Y (attitude 2), A
// RELATED Z (none). Seed A (0.95), one hop, f = 0.6, δ = 0.8:
//
//	attitude>=4:             X = 0.95 × 1.0 × 0.6 × 0.8 = 0.456 only
//	--exclude-rel-types FIXES: Y = 0.95 × 0.9 × 0.6 × 0.8 = 0.4104,
//	                          Z = 0.95 × 0.7 × 0.6 × 0.8 = 0.3192
//	--rel-types SUPPORTS:      Y alone
//	attitude!=5:             Y (2 != 5); Z has no attitude and fails
func TestFilters(t *testing.T) {
	g := build(t,
		rel{Spec: "A-FIXES->X", Props: map[string]any{"attitude": int64(5)}},
		rel{Spec: "A-SUPPORTS->Y", Props: map[string]any{"attitude": int64(2)}},
		rel{Spec: "A-RELATED->Z"})
	cond := func(s string) []graph.RelCond {
		c, err := graph.ParseRelCond(s)
		if err != nil {
			t.Fatal(err)
		}
		return []graph.RelCond{c}
	}
	for _, k := range []struct {
		f      graph.RelFilter
		ids    []string
		scores []float64
	}{
		{graph.RelFilter{Where: cond("attitude>=4")}, []string{"A", "X"}, []float64{0.95, 0.456}},
		{graph.RelFilter{Exclude: []string{"FIXES"}}, []string{"A", "Y", "Z"}, []float64{0.95, 0.4104, 0.3192}},
		{graph.RelFilter{Types: []string{"SUPPORTS"}}, []string{"A", "Y"}, []float64{0.95, 0.4104}},
		{graph.RelFilter{Where: cond("attitude!=5")}, []string{"A", "Y"}, []float64{0.95, 0.4104}},
	} {
		r := runOn(t, g.Filtered(k.f), seeds("A", 0.95), nil)
		want(t, r, k.ids, k.scores)
	}
}
