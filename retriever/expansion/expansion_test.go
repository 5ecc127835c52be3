package expansion_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/expansion"
	"github.com/memoria-graph/memoria/testkit/tinygraph"
)

// The hand-worked graphs and checks are testkit/tinygraph's.
type rel = tinygraph.Rel

var (
	seeds  = tinygraph.Seeds
	want   = tinygraph.Want
	stat   = tinygraph.Stat
	hitIDs = tinygraph.HitIDs
)

// build makes a graph of the rels (tinygraph.Build, no node properties).
func build(t *testing.T, rels ...rel) *inmem.Graph { return tinygraph.Build(t, nil, rels...) }

func run(t *testing.T, g *inmem.Graph, q retriever.Query, edit func(*expansion.Params)) retriever.Ranking {
	t.Helper()
	return runOn(t, g, q, edit)
}

// runOn is run over any graph reads (a filtered graph's).
func runOn(t *testing.T, nb graph.Neighbourhood, q retriever.Query, edit func(*expansion.Params)) retriever.Ranking {
	t.Helper()
	p := expansion.DefaultParams()
	if edit != nil {
		edit(&p)
	}
	r, err := expansion.Retrieve(context.Background(), nb, q, p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestWorkedExample is the specification's example (docs/RETRIEVERS.md):
// seeds A (0.95) and B (0.87); A FIXES X and SUPPORTS Y, B is RELATED to Z,
// none with a weight property (so each counts 1). One hop, f = 0.6, δ = 0.8:
//
//	X = 0.95 × 1.0 × 0.6 × 0.8 = 0.456
//	Y = 0.95 × 0.9 × 0.6 × 0.8 = 0.4104  (printed 0.410)
//	Z = 0.87 × 0.7 × 0.6 × 0.8 = 0.29232 (the seed prints 0.291; the formula stands)
//
// The seeds keep their R and rank first. Stats: 2 initial, 5 returned,
// 3 new, 2 kept, 0 dropped, rate 3 / 2 = 1.5.
func TestWorkedExample(t *testing.T) {
	g := build(t, rel{Spec: "A-FIXES->X"}, rel{Spec: "A-SUPPORTS->Y"}, rel{Spec: "B-RELATED->Z"})
	r := run(t, g, seeds("A", 0.95, "B", 0.87), nil)
	want(t, r, []string{"A", "B", "X", "Y", "Z"}, []float64{0.95, 0.87, 0.456, 0.4104, 0.29232})
	x := r.Hits[2]
	if x.Origin != retriever.OriginExpanded || x.Seed != "A" || len(x.Route) != 1 || x.Route[0].Type != "FIXES" || x.Route[0].Factor != 1 {
		t.Errorf("X's provenance: %+v", x)
	}
	if a := r.Hits[0]; a.Origin != retriever.OriginInitial || a.Seed != "A" || len(a.Route) != 0 {
		t.Errorf("A's provenance: %+v", a)
	}
	prod := 1.0
	for _, term := range x.Terms {
		prod *= term.Value
	}
	if prod != x.Score || len(x.Terms) != 4 || x.Terms[0].Name != "R(A)" {
		t.Errorf("X's terms %+v multiply to %v, not its score %v", x.Terms, prod, x.Score)
	}
	for name, v := range map[string]any{"initial_count": 2, "expanded_count": 5, "new_results": 3, "kept_results": 2, "dropped_results": 0, "expansion_rate": 1.5} {
		if got := stat(t, r, name); got != v {
			t.Errorf("%s = %v, want %v", name, got, v)
		}
	}
}

// TestTwoHops: A (0.9) FIXES X with weight 0.5, X SUPPORTS Y (no weight:
// 1). With H = 2:
//
//	a1(X) = 0.9 × (1.0 × 0.5) = 0.45   → X = 0.45 × 0.6 × 0.8 = 0.216
//	a2(Y) = 0.45 × (0.9 × 1) = 0.405   → Y = 0.405 × 0.6 × 0.64 = 0.15552
//
// (a2(A) = 0.45 × 0.5 = 0.225 → 0.0864 does not beat A's R.) With H = 1, Y
// is not reached.
func TestTwoHops(t *testing.T) {
	g := build(t, rel{Spec: "A-FIXES->X", Weight: 0.5}, rel{Spec: "X-SUPPORTS->Y"})
	r := run(t, g, seeds("A", 0.9), func(p *expansion.Params) { p.MaxHops = 2 })
	want(t, r, []string{"A", "X", "Y"}, []float64{0.9, 0.216, 0.15552})
	y := r.Hits[2]
	if len(y.Route) != 2 || y.Route[0].From != "A" || y.Route[1].To != "Y" || y.Seed != "A" {
		t.Errorf("Y's route %+v", y.Route)
	}
	r = run(t, g, seeds("A", 0.9), nil)
	want(t, r, []string{"A", "X"}, []float64{0.9, 0.216})
}

// TestContradicts: A (0.8) CONTRADICTS C, C FIXES D, H = 2.
//
//	a1(C) = 0.8 × −0.5 = −0.4 → C = −0.4 × 0.6 × 0.8 = −0.192
//
// C is not expanded (its value is not positive), so D is never reached.
// C ranks last, marked contradicting.
func TestContradicts(t *testing.T) {
	g := build(t, rel{Spec: "A-CONTRADICTS->C"}, rel{Spec: "C-FIXES->D"}, rel{Spec: "A-CAUSES->E"})
	r := run(t, g, seeds("A", 0.8), func(p *expansion.Params) { p.MaxHops = 2 })
	// E = 0.8 × 0.4 × 0.6 × 0.8 = 0.1536.
	want(t, r, []string{"A", "E", "C"}, []float64{0.8, 0.1536, -0.192})
	if !r.Hits[2].Contradicting || r.Hits[1].Contradicting {
		t.Errorf("contradicting marks: %+v", r.Hits)
	}
}

// TestSeedReachedFromSeed: A (0.9) FIXES B, a seed of R 0.3. B's expansion
// score 0.9 × 1.0 × 0.6 × 0.8 = 0.432 beats its R, so B scores 0.432,
// reached from A; A's own expansion score from B, 0.3 × 0.6 × 0.8 = 0.144,
// does not beat 0.9. B still counts as a kept initial result.
func TestSeedReachedFromSeed(t *testing.T) {
	g := build(t, rel{Spec: "A-FIXES->B"})
	r := run(t, g, seeds("A", 0.9, "B", 0.3), nil)
	want(t, r, []string{"A", "B"}, []float64{0.9, 0.432})
	if b := r.Hits[1]; b.Origin != retriever.OriginExpanded || b.Seed != "A" {
		t.Errorf("B: %+v", b)
	}
	if stat(t, r, "kept_results") != 2 || stat(t, r, "new_results") != 0 {
		t.Errorf("stats %v", r.Stats)
	}
}

// TestMissingWeightAndUnknownType: from A (1.0), a RELATES without weight
// counts 0.01 (docs/ALGORITHM.md rule 1): X = 1 × (1.0 × 0.01) × 0.6 × 0.8
// = 0.0048; a FOLLOWS without weight counts 1: Y = 1 × 0.8 × 0.6 × 0.8 =
// 0.384; MENTIONS is not in the table and is skipped, as is SUPPORTS once
// --type-weight SUPPORTS=0; the self-loop is never followed.
func TestMissingWeightAndUnknownType(t *testing.T) {
	g := build(t, rel{Spec: "A-RELATES->X"}, rel{Spec: "A-FOLLOWS->Y"}, rel{Spec: "A-MENTIONS->Z"},
		rel{Spec: "A-SUPPORTS->W", Weight: int64(1)}, rel{Spec: "A-FIXES->A"})
	r := run(t, g, seeds("A", 1.0), func(p *expansion.Params) { p.TypeWeights["SUPPORTS"] = 0 })
	want(t, r, []string{"A", "Y", "X"}, []float64{1, 0.384, 0.0048})
	skipped := stat(t, r, "skipped_by_type").(retriever.Fields)
	if len(skipped) != 2 || skipped[0] != (retriever.Field{Name: "MENTIONS", Value: 1}) || skipped[1] != (retriever.Field{Name: "SUPPORTS", Value: 1}) {
		t.Errorf("skipped %v", skipped)
	}
	if stat(t, r, "self_loops_skipped") != 1 {
		t.Errorf("self loops %v", stat(t, r, "self_loops_skipped"))
	}
}

// TestTopKCuts: seeds A (0.9), B (0.2); A FIXES X, Y, Z. X, Y, Z score
// 0.9 × 0.6 × 0.8 = 0.432 each, ranked by id. K = 3 keeps A, X, Y: B
// (0.2) is dropped, Z cut. Stats: 1 kept, 2 new, 1 dropped.
func TestTopKCuts(t *testing.T) {
	g := build(t, rel{Spec: "A-FIXES->X"}, rel{Spec: "A-FIXES->Y"}, rel{Spec: "A-FIXES->Z"}, rel{Spec: "B-CAUSES->Q", Weight: 0.0})
	r := run(t, g, seeds("A", 0.9, "B", 0.2), func(p *expansion.Params) { p.TopK = 3 })
	want(t, r, []string{"A", "X", "Y"}, []float64{0.9, 0.432, 0.432})
	for name, v := range map[string]any{"kept_results": 1, "new_results": 2, "dropped_results": 1, "expanded_count": 3} {
		if got := stat(t, r, name); got != v {
			t.Errorf("%s = %v, want %v", name, got, v)
		}
	}
}

// TestSeedNotFound: a seed not in the graph is reported, not an error.
func TestSeedNotFound(t *testing.T) {
	g := build(t, rel{Spec: "A-FIXES->X"})
	r := run(t, g, seeds("A", 0.5, "nope", 0.9), nil)
	if len(r.Seeds) != 2 || !r.Seeds[0].Found || r.Seeds[1].Found || stat(t, r, "initial_count") != 1 {
		t.Errorf("seeds %+v", r.Seeds)
	}
}

// TestBadInput names what was wrong.
func TestBadInput(t *testing.T) {
	g := build(t, rel{Spec: "A-FIXES->X", Weight: "high"})
	_, err := expansion.Retrieve(context.Background(), g, seeds("A", 0.5), expansion.DefaultParams())
	if err == nil || !strings.Contains(err.Error(), `("A")-[:FIXES]-("X")`) || !strings.Contains(err.Error(), "weight must be a number") {
		t.Errorf("bad weight: %v", err)
	}
	p := expansion.DefaultParams()
	p.MaxHops, p.ExpansionFactor, p.DepthDecay, p.TopK = 4, 0, 1.5, 0
	p.TypeWeights["X"] = 2
	err = p.Validate()
	for _, s := range []string{"max hops must be 1 to 3", "expansion factor", "depth decay", "top k", `"X" must be in [-1, 1]`} {
		if err == nil || !strings.Contains(err.Error(), s) {
			t.Errorf("validate: %v lacks %q", err, s)
		}
	}
	if _, _, err := expansion.ParseTypeWeight("FIXES"); err == nil {
		t.Error("FIXES without =X accepted")
	}
	if ty, w, err := expansion.ParseTypeWeight(" CAUSES = -0.25 "); err != nil || ty != "CAUSES" || w != -0.25 {
		t.Errorf("parse: %s %v %v", ty, w, err)
	}
	if _, err := expansion.Retrieve(context.Background(), g, seeds("A", 0.5, "A", 0.4), expansion.DefaultParams()); err == nil {
		t.Error("a repeated seed was accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := expansion.Retrieve(ctx, g, seeds("A", 0.5), expansion.DefaultParams()); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestContext: around X (A FIXES X, X MENTIONS Z, X SUPPORTS Y weight
// 0.5) the context lists A, Y, Z by id with their types and the weights
// the expansion would use: FIXES 1 × w 1, SUPPORTS 0.9 × w 0.5, and
// MENTIONS (w 1) not followed. A node that does not exist is not found.
func TestContext(t *testing.T) {
	g := build(t, rel{Spec: "A-FIXES->X"}, rel{Spec: "X-MENTIONS->Z"}, rel{Spec: "X-SUPPORTS->Y", Weight: 0.5})
	hops, found, err := expansion.Context(context.Background(), g, "X", expansion.DefaultParams())
	if err != nil || !found || len(hops) != 3 {
		t.Fatalf("%v %v %+v", err, found, hops)
	}
	want := []struct {
		other, typ string
		w, tw      float64
		followed   bool
	}{{"A", "FIXES", 1, 1, true}, {"Y", "SUPPORTS", 0.5, 0.9, true}, {"Z", "MENTIONS", 1, 0, false}}
	for i, w := range want {
		h := hops[i]
		if h.Other.ID != w.other || h.Type != w.typ || h.Weight != w.w || h.TypeWeight != w.tw || h.Followed != w.followed {
			t.Errorf("hop %d: %+v, want %+v", i, h, w)
		}
	}
	if hops[1].Edge.Properties["weight"] != 0.5 {
		t.Errorf("the edge's properties were not filled: %+v", hops[1].Edge)
	}
	if _, found, err := expansion.Context(context.Background(), g, "nope", expansion.DefaultParams()); found || err != nil {
		t.Errorf("nope: %v %v", found, err)
	}
}
