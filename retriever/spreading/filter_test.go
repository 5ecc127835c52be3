package spreading_test

import (
	"fmt"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever/spreading"
)

// TestFilterKeepsDegree is TestPenalty's hub with half its leaves behind
// a filter: H has RELATES (w 1) to L00 … L21, those up to L10 with
// attitude 5, the others attitude 1, plus a self-loop, a RELATES to a
// node without id and a MENTIONS (none with an attitude). With
// attitude>=4 activation reaches L00 … L10 only, but H's degree stays the
// graph's 24, so its penalty stays too. P = 1, D = 0.7, α = 0.7, E = 20:
//
//	H: blend 1 × 20/24 = 0.8333… (with degree 11 it would be 1)
//	L01 … L10: A = 0.7, sem 0: 0.3 × 0.7 = 0.21
//	L00 (entity_count 40): 0.21 × 20/40 = 0.105
//	L11 … L21: never activated
func TestFilterKeepsDegree(t *testing.T) {
	props := map[string]map[string]any{"L00": {"entity_count": int64(40)}}
	rels := []rel{{Spec: "H-RELATES->H", Weight: 1.0}, {Spec: "H-RELATES->~x", Weight: 1.0}, {Spec: "H-MENTIONS->L05", Weight: 1.0}}
	for i := range 22 {
		att := int64(1)
		if i <= 10 {
			att = 5
		}
		rels = append(rels, rel{Spec: fmt.Sprintf("H-RELATES->L%02d", i), Weight: 1.0, Props: map[string]any{"attitude": att}})
	}
	g := build(t, props, rels...)
	ge4, err := graph.ParseRelCond("attitude>=4")
	if err != nil {
		t.Fatal(err)
	}
	r := runOn(t, g.Filtered(graph.RelFilter{Where: []graph.RelCond{ge4}}), seeds("H", 1.0), func(p *spreading.Params) { p.Pulses, p.TopK = 1, 30 })
	ids := []string{"H"}
	scores := []float64{20.0 / 24}
	for i := 1; i <= 10; i++ {
		ids, scores = append(ids, fmt.Sprintf("L%02d", i)), append(scores, 0.21)
	}
	want(t, r, append(ids, "L00"), append(scores, 0.105))
}
