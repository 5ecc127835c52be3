package spreading_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/spreading"
	"github.com/memoria-graph/memoria/testkit/tinygraph"
)

// The hand-worked graphs and checks are testkit/tinygraph's.
type rel = tinygraph.Rel

var (
	seeds = tinygraph.Seeds
	want  = tinygraph.Want
	stat  = tinygraph.Stat
)

var (
	build   = tinygraph.Build
	close12 = tinygraph.Close
	hitOf   = tinygraph.Hit
)

func run(t *testing.T, g *inmem.Graph, q retriever.Query, edit func(*spreading.Params)) retriever.Ranking {
	t.Helper()
	return runOn(t, g, q, edit)
}

// runOn is run over any graph reads (a filtered graph's).
func runOn(t *testing.T, nb graph.Neighbourhood, q retriever.Query, edit func(*spreading.Params)) retriever.Ranking {
	t.Helper()
	p := spreading.DefaultParams()
	if edit != nil {
		edit(&p)
	}
	r, err := spreading.Retrieve(context.Background(), nb, q, p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func detail(t *testing.T, h retriever.Hit, name string) any {
	t.Helper()
	v, ok := h.Detail.Get(name)
	if !ok {
		t.Fatalf("%s has no detail %s", h.NodeID, name)
	}
	return v
}

// TestAccumulation: X receives from two seeds at one pulse and adds them.
// Seeds A and B (each starting at 1), A–X w 0.5, B–X w 0.4, P = 1, D =
// 0.7, α = 0 (the score is N alone):
//
//	Δ₁(X) = 1 × 0.5 × 0.7 + 1 × 0.4 × 0.7 = 0.35 + 0.28 = 0.63
//	A(A) = A(B) = 1 (nothing comes back in one pulse), max A = 1
//	final: A 1, B 1, X 0.63
//
// X's strongest source is A (0.35), then B (0.28), and so are its
// feeders; its route starts at A. Nothing comes back to the seeds in one
// pulse: they have no feeders.
func TestAccumulation(t *testing.T) {
	g := build(t, nil, rel{Spec: "A-RELATES->X", Weight: 0.5}, rel{Spec: "B-RELATES->X", Weight: 0.4})
	r := run(t, g, seeds("A", 0.9, "B", 0.8), func(p *spreading.Params) { p.Pulses, p.Alpha = 1, 0 })
	want(t, r, []string{"A", "B", "X"}, []float64{1, 1, 0.63})
	x := hitOf(t, r, "X")
	src := detail(t, x, "top_sources").([]spreading.Source)
	if len(src) != 2 || src[0].From != "A" || !close12(src[0].Amount, 0.35) || src[1].From != "B" || !close12(src[1].Amount, 0.28) {
		t.Errorf("X's sources %+v, want A 0.35 then B 0.28", src)
	}
	if x.Seed != "A" || x.Origin != retriever.OriginExpanded || len(x.Route) != 1 || x.Route[0].From != "A" || !close12(x.Route[0].Factor, 0.35) {
		t.Errorf("X's route %+v from %s (%s), want A -[w 0.5 ×0.35]-> X", x.Route, x.Seed, x.Origin)
	}
	if a := hitOf(t, r, "A"); a.Origin != retriever.OriginInitial || len(a.Route) != 0 || a.Feeders != nil {
		t.Errorf("seed A: %s route %v feeders %v, want initial, no route and no feeders", a.Origin, a.Route, a.Feeders)
	}
	checkFeeders(t, x, feeder{"A", 0.5, 0.35}, feeder{"B", 0.4, 0.28})
}

// TestThreshold: a node fires only when its last Δ is at least θ, and is
// a candidate only when its activation is. Chain S –0.1– X –1– Y, P = 2,
// D = 0.7, S (R 0.9) starting at 1:
//
//	θ = 0.05: Δ₁(X) = 0.07 ≥ θ fires; Δ₂(Y) = 0.07 × 1 × 0.7 = 0.049 and
//	Δ₂(S) = 0.07 × 0.1 × 0.7 = 0.0049. A(S) = 1.0049, A(X) = 0.07,
//	A(Y) = 0.049 < θ: Y is activated but no candidate. Relationships read:
//	1 at pulse 1 (S's), 2 at pulse 2 (X's).
//	final(S) = 0.7 × 0.9 + 0.3 × 1 = 0.93; final(X) = 0.3 × 0.07 / 1.0049.
//	θ = 0.08: X (0.07) does not fire, pulse 2 does not run; X is no
//	candidate: S alone, A(S) = 1, final 0.93.
func TestThreshold(t *testing.T) {
	g := build(t, nil, rel{Spec: "S-RELATES->X", Weight: 0.1}, rel{Spec: "X-RELATES->Y", Weight: 1.0})
	r := run(t, g, seeds("S", 0.9), nil)
	want(t, r, []string{"S", "X"}, []float64{0.93, 0.3 * 0.07 / 1.0049})
	for name, v := range map[string]int{"seeds_found": 1, "nodes_activated": 3, "candidates": 2, "pulses_run": 2, "relationships_read": 3} {
		if got := stat(t, r, name); got != v {
			t.Errorf("θ 0.05: %s = %v, want %d", name, got, v)
		}
	}
	r = run(t, g, seeds("S", 0.9), func(p *spreading.Params) { p.Threshold = 0.08 })
	want(t, r, []string{"S"}, []float64{0.93})
	for name, v := range map[string]int{"nodes_activated": 2, "candidates": 1, "pulses_run": 1, "relationships_read": 1} {
		if got := stat(t, r, name); got != v {
			t.Errorf("θ 0.08: %s = %v, want %d", name, got, v)
		}
	}
}

// TestThresholdInclusive: θ is reached at equality, both for firing (Δₚ₋₁
// ≥ θ) and for being a candidate (A ≥ θ), docs/RETRIEVERS.md "Spreading
// activation" rules 3 and 4. Every number below is a sum of powers of two,
// so it is exact in floating point and the equalities are exact. Chain
// S –0.5– X –0.5– Y, S (R 0.5) starting at 1, P = 2, D = 0.5, θ = 0.25,
// α = 0 (the score is N alone):
//
//	pulse 1: S fires (Δ₀ = 1): Δ₁(X) = 1 × 0.5 × 0.5 = 0.25 = θ
//	pulse 2: X fires (0.25 ≥ 0.25): Δ₂(Y) = Δ₂(S) = 0.25 × 0.5 × 0.5 = 0.0625
//	A(S) = 1.0625 (the max), A(X) = 0.25 = θ (a candidate), A(Y) = 0.0625
//	(not one)
//	final: S 1, X 0.25 / 1.0625 = 4/17
//	stats: 3 nodes activated, 2 candidates, 2 pulses run, 1 + 2 = 3
//	relationships read (S's one at pulse 1, X's two at pulse 2)
//
// Were firing strict (Δ > θ), X would not fire: 1 pulse run, 1
// relationship read, A(S) = 1 and X 0.25. Were candidacy strict, X would
// be no candidate: S alone.
func TestThresholdInclusive(t *testing.T) {
	g := build(t, nil, rel{Spec: "S-RELATES->X", Weight: 0.5}, rel{Spec: "X-RELATES->Y", Weight: 0.5})
	r := run(t, g, seeds("S", 0.5), func(p *spreading.Params) { p.Decay, p.Threshold, p.Alpha = 0.5, 0.25, 0 })
	want(t, r, []string{"S", "X"}, []float64{1, 4.0 / 17})
	for name, v := range map[string]int{"seeds_found": 1, "nodes_activated": 3, "candidates": 2, "pulses_run": 2, "relationships_read": 3} {
		if got := stat(t, r, name); got != v {
			t.Errorf("%s = %v, want %d", name, got, v)
		}
	}
	if a := detail(t, hitOf(t, r, "X"), "activation").(float64); a != 0.25 {
		t.Errorf("A(X) = %v, want exactly 0.25", a)
	}
}

// TestEchoAndNormalisation: activation flows back to the seed it came
// from, and scores are normalised by the largest activation. S –0.5– X,
// P = 2, D = 0.7, α = 0:
//
//	Δ₁(X) = 0.35; Δ₂(S) = 0.35 × 0.5 × 0.7 = 0.1225
//	A(S) = 1.1225 (the max), A(X) = 0.35
//	final(S) = 1, final(X) = 0.35 / 1.1225
//
// S's pulses are [1 0 0.1225], its one source X at pulse 2.
func TestEchoAndNormalisation(t *testing.T) {
	g := build(t, nil, rel{Spec: "S-RELATES->X", Weight: 0.5})
	r := run(t, g, seeds("S", 0.6), func(p *spreading.Params) { p.Alpha = 0 })
	want(t, r, []string{"S", "X"}, []float64{1, 0.35 / 1.1225})
	s := hitOf(t, r, "S")
	pulses := detail(t, s, "pulses").([]float64)
	if len(pulses) != 3 || pulses[0] != 1 || pulses[1] != 0 || !close12(pulses[2], 0.1225) {
		t.Errorf("S's pulses %v, want [1 0 0.1225]", pulses)
	}
	if src := detail(t, s, "top_sources").([]spreading.Source); len(src) != 1 || src[0].From != "X" || src[0].Pulse != 2 {
		t.Errorf("S's sources %+v, want X at pulse 2", src)
	}
	if a := detail(t, s, "activation").(float64); !close12(a, 1.1225) {
		t.Errorf("A(S) = %v, want 1.1225", a)
	}
}

// TestAlphaAndInitial: α = 1 scores by similarity alone (without a query
// vector, a seed's R and 0 for any other node), α = 0 by normalised
// activation alone; --initial score starts each seed at its R. Seeds A
// (R 0.5) and B (R 0.25), A –1– X, P = 1, D = 0.7:
//
//	initial one, α = 1: A 0.5, B 0.25, X 0
//	initial one, α = 0: A(A) = A(B) = 1, A(X) = 0.7: A 1, B 1, X 0.7
//	initial score, α = 0: A(A) = 0.5, A(B) = 0.25, A(X) = 0.5 × 0.7 = 0.35;
//	N = A / 0.5: A 1, X 0.7, B 0.5
func TestAlphaAndInitial(t *testing.T) {
	g := build(t, map[string]map[string]any{"B": nil}, rel{Spec: "A-RELATES->X", Weight: 1.0})
	q := seeds("A", 0.5, "B", 0.25)
	r := run(t, g, q, func(p *spreading.Params) { p.Pulses, p.Alpha = 1, 1 })
	want(t, r, []string{"A", "B", "X"}, []float64{0.5, 0.25, 0})
	r = run(t, g, q, func(p *spreading.Params) { p.Pulses, p.Alpha = 1, 0 })
	want(t, r, []string{"A", "B", "X"}, []float64{1, 1, 0.7})
	r = run(t, g, q, func(p *spreading.Params) { p.Pulses, p.Alpha, p.Initial = 1, 0, spreading.InitialScore })
	want(t, r, []string{"A", "X", "B"}, []float64{1, 0.7, 0.5})
}

// TestPenalty: a node counting more than E entities has its score
// multiplied by E / its count: its entity_count property when numeric,
// else its RELATES degree (a self-loop once, a relationship to a node
// without id counted, other types not). Hub H (seed, R 1) –1– L0 … L21,
// plus a self-loop, a RELATES to a node without id and a MENTIONS: RELATES
// degree 22 + 1 + 1 = 24. L0 has entity_count 40, L1 entity_count 20.0.
// P = 1, D = 0.7, α = 0.7, E = 20:
//
//	H: A = 1, N = 1, sem = R = 1: blend 1, × 20/24 = 0.8333…
//	L2 … L21: A = 0.7, N = 0.7, sem 0: 0.3 × 0.7 = 0.21 (degree 1)
//	L0: 0.21 × 20/40 = 0.105; L1: 20 is not above E, 0.21
func TestPenalty(t *testing.T) {
	props := map[string]map[string]any{"L00": {"entity_count": int64(40)}, "L01": {"entity_count": 20.0}}
	rels := []rel{{Spec: "H-RELATES->H", Weight: 1.0}, {Spec: "H-RELATES->~x", Weight: 1.0}, {Spec: "H-MENTIONS->L05", Weight: 1.0}}
	for i := range 22 {
		rels = append(rels, rel{Spec: fmt.Sprintf("H-RELATES->L%02d", i), Weight: 1.0})
	}
	g := build(t, props, rels...)
	r := run(t, g, seeds("H", 1.0), func(p *spreading.Params) { p.Pulses, p.TopK = 1, 30 })
	if len(r.Hits) != 23 {
		t.Fatalf("%d hits, want 23", len(r.Hits))
	}
	h := r.Hits[0]
	if h.NodeID != "H" || !close12(h.Score, 20.0/24) || detail(t, h, "entity_count") != 24.0 || detail(t, h, "entity_count_from") != "degree" {
		t.Errorf("first hit %s %v ec %v, want H 20/24 by degree 24", h.NodeID, h.Score, h.Detail)
	}
	if len(h.Terms) != 2 || h.Terms[0].Name != "blend" || !close12(h.Terms[0].Value, 1) || h.Terms[1].Name != "E/ec" || !close12(h.Terms[1].Value, 20.0/24) {
		t.Errorf("H's terms %v, want blend 1 × E/ec 20/24", h.Terms)
	}
	l1 := hitOf(t, r, "L01")
	if !close12(l1.Score, 0.21) || l1.Rank != 2 {
		t.Errorf("L01 %v rank %d, want 0.21 rank 2 (the first of the 0.21s by id)", l1.Score, l1.Rank)
	}
	l0 := hitOf(t, r, "L00")
	if !close12(l0.Score, 0.105) || l0.Rank != 23 || detail(t, l0, "entity_count_from") != "entity_count" {
		t.Errorf("L00 %v rank %d %v, want 0.105 last, by entity_count", l0.Score, l0.Rank, l0.Detail)
	}
}

// TestMissingWeightAndParallel: a RELATES without a weight passes with
// 0.01; parallel RELATES each pass activation; other types pass none; a
// self-loop never. S –(none)– X, S –0.5– Y twice, S –FIXES 1– Z, S–S 1;
// P = 1, D = 0.7, θ = 0.005, α = 0:
//
//	Δ₁(X) = 1 × 0.01 × 0.7 = 0.007; Δ₁(Y) = 0.35 + 0.35 = 0.7
//	Z is not activated; S gets nothing from its self-loop: A(S) = 1
//	final: S 1, Y 0.7, X 0.007
func TestMissingWeightAndParallel(t *testing.T) {
	g := build(t, nil, rel{Spec: "S-RELATES->X", Weight: nil}, rel{Spec: "S-RELATES->Y", Weight: 0.5}, rel{Spec: "Y-RELATES->S", Weight: 0.5},
		rel{Spec: "S-FIXES->Z", Weight: 1.0}, rel{Spec: "S-RELATES->S", Weight: 1.0})
	r := run(t, g, seeds("S", 1.0), func(p *spreading.Params) { p.Pulses, p.Threshold, p.Alpha = 1, 0.005, 0 })
	want(t, r, []string{"S", "Y", "X"}, []float64{1, 0.7, 0.007})
	if x := hitOf(t, r, "X"); x.Route[0].Weight != 0.01 {
		t.Errorf("X's hop weight %v, want 0.01", x.Route[0].Weight)
	}
	if got := stat(t, r, "relationships_read"); got != 4 {
		t.Errorf("relationships read %v, want 4 (the RELATES around S, the self-loop once)", got)
	}
}

// TestQueryVector: with a query vector q = [1, 0], sem is the cosine with
// a node's embedding (negative as 0); a seed without an embedding of q's
// length keeps R, any other node 0. Seed S (R 0.8, embedding [0, 1]),
// seed T (R 0.9, none), S –1– X [3, 4], Y [−1, 0], Z (none), W [1, 2, 3];
// P = 1, D = 0.7, α = 0.7:
//
//	S: sem 0, N 1: 0.3; T: sem 0.9, N 1: 0.63 + 0.3 = 0.93
//	X: sem 3/5 = 0.6, N 0.7: 0.42 + 0.21 = 0.63
//	Y (cosine −1), Z, W (length 3): sem 0, 0.21, by id
func TestQueryVector(t *testing.T) {
	props := map[string]map[string]any{"S": {"embedding": []any{0.0, 1.0}}, "T": nil, "X": {"embedding": []any{int64(3), 4.0}},
		"Y": {"embedding": []any{-1.0, 0.0}}, "W": {"embedding": []any{1.0, 2.0, 3.0}}}
	g := build(t, props, rel{Spec: "S-RELATES->X", Weight: 1.0}, rel{Spec: "S-RELATES->Y", Weight: 1.0}, rel{Spec: "S-RELATES->Z", Weight: 1.0}, rel{Spec: "S-RELATES->W", Weight: 1.0})
	r := run(t, g, seeds("S", 0.8, "T", 0.9), func(p *spreading.Params) { p.Pulses, p.QueryVector = 1, []float64{1, 0} })
	want(t, r, []string{"T", "X", "S", "W", "Y", "Z"}, []float64{0.93, 0.63, 0.3, 0.21, 0.21, 0.21})
	if v := detail(t, hitOf(t, r, "X"), "similarity_from"); v != "embedding" {
		t.Errorf("X's similarity from %v", v)
	}
	if v := detail(t, hitOf(t, r, "T"), "similarity_from"); v != "seed score" {
		t.Errorf("T's similarity from %v", v)
	}
}

// TestRouteAndCut: the strongest route follows the strongest contributor
// back to a seed, and K cuts. S –1– A –1– B, S –0.2– B, P = 2, D = 0.7,
// α = 0, K = 2:
//
//	Δ₁: A 0.7, B 0.14; Δ₂: B += 0.7 × 1 × 0.7 = 0.49 (from A), S += 0.7 ×
//	0.7 + 0.14 × 0.2 × 0.7 = 0.49 + 0.0196, A += 0.14 × 0.7 = 0.098
//	A(S) = 1.5096, A(A) = 0.798, A(B) = 0.63
//	B's strongest contribution is A's at pulse 2 (0.49), A's at pulse 1
//	is S's: route S → A → B. Kept: S 1, A 0.798 / 1.5096.
func TestRouteAndCut(t *testing.T) {
	g := build(t, nil, rel{Spec: "S-RELATES->A", Weight: 1.0}, rel{Spec: "A-RELATES->B", Weight: 1.0}, rel{Spec: "S-RELATES->B", Weight: 0.2})
	r := run(t, g, seeds("S", 1.0), func(p *spreading.Params) { p.Alpha = 0 })
	want(t, r, []string{"S", "A", "B"}, []float64{1, 0.798 / 1.5096, 0.63 / 1.5096})
	b := hitOf(t, r, "B")
	if len(b.Route) != 2 || b.Route[0].From != "S" || b.Route[0].To != "A" || b.Route[1].To != "B" || b.Seed != "S" {
		t.Errorf("B's route %+v, want S → A → B", b.Route)
	}
	r = run(t, g, seeds("S", 1.0, "absent", 0.5), func(p *spreading.Params) { p.Alpha, p.TopK = 0, 2 })
	want(t, r, []string{"S", "A"}, []float64{1, 0.798 / 1.5096})
	if r.Seeds[1].Found || stat(t, r, "seeds_found") != 1 || stat(t, r, "candidates") != 3 {
		t.Errorf("seeds %+v stats %v", r.Seeds, r.Stats)
	}
}

// TestParams: every parameter out of its range is named.
func TestParams(t *testing.T) {
	p := spreading.Params{Pulses: 7, Decay: 0, Threshold: 1, Alpha: 1.5, EntityPenaltyAbove: 0.5, TopK: 0, Initial: "two", QueryVector: []float64{0, 0}}
	err := p.Validate()
	for _, w := range []string{"pulses", "decay", "threshold", "alpha", "entity penalty above", "top k", "initial", "all zeros"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v does not name %s", err, w)
		}
	}
	if err := spreading.DefaultParams().Validate(); err != nil {
		t.Error(err)
	}
	for _, bad := range []string{"", "{}", "[]", "null", `[1, "x"]`} {
		if _, err := spreading.ParseQueryVector([]byte(bad)); err == nil {
			t.Errorf("query vector %q accepted", bad)
		}
	}
	if v, err := spreading.ParseQueryVector([]byte("[1, 0.5]")); err != nil || len(v) != 2 {
		t.Errorf("[1, 0.5]: %v %v", v, err)
	}
}

// feeder is one expected entry of Hit.Feeders: the node at the
// relationship's other end, its weight and the amount it brought.
type feeder struct {
	from   string
	weight float64
	amount float64
}

// checkFeeders compares h's feeders, in order, with want: each runs from
// the feeder to h over a RELATES whose own weight property (read by the
// Details call, so it tells parallel relationships apart) is the weight
// counted, and brought the amount to 1e-12.
func checkFeeders(t *testing.T, h retriever.Hit, want ...feeder) {
	t.Helper()
	if len(h.Feeders) != len(want) {
		t.Fatalf("%s's feeders %+v, want %v", h.NodeID, h.Feeders, want)
	}
	for i, w := range want {
		f := h.Feeders[i]
		if f.From != w.from || f.To != h.NodeID || f.Type != "RELATES" || f.Weight != w.weight || !close12(f.Factor, w.amount) ||
			f.Edge.SourceID != w.from || f.Edge.TargetID != h.NodeID || f.Edge.Properties["weight"] != w.weight {
			t.Errorf("%s's feeder %d: %+v, want %s -[RELATES w %v]-> %s bringing %v", h.NodeID, i, f, w.from, w.weight, h.NodeID, w.amount)
		}
	}
}

// TestFeeders: a hit's feeders are the three relationships that brought
// it the most over all pulses (a relationship that carried at several
// pulses once, its amounts summed; parallel relationships apart),
// strongest first. Seeds A and B (each starting at 1); A–H w 0.5 (rA) and,
// parallel, w 0.25 (rA2); B–H w 0.5; A–M w 1; M–H w 1. P = 3, D = 0.5,
// θ = 0.05 (every node below fires at every pulse it received at):
//
//	p1: A → H 0.25 (rA), 0.125 (rA2); A → M 0.5; B → H 0.25.
//	    Δ₁: H 0.625, M 0.5
//	p2: H → A 0.625 × 0.5 × 0.5 = 0.15625 (rA), 0.078125 (rA2); H → B
//	    0.15625; H → M 0.3125; M → A 0.25; M → H 0.25.
//	    Δ₂: A 0.484375, B 0.15625, H 0.25, M 0.3125
//	p3: A → H 0.484375 × 0.25 = 0.12109375 (rA), 0.060546875 (rA2);
//	    B → H 0.0390625; M → H 0.15625; H → A 0.0625 (rA), 0.03125 (rA2);
//	    M → A 0.15625; A → M 0.2421875; H → M 0.125; H → B 0.0625.
//
// H: M–H 0.25 + 0.15625 = 0.40625, rA 0.25 + 0.12109375 = 0.37109375,
// B–H 0.25 + 0.0390625 = 0.2890625, rA2 0.125 + 0.060546875 =
// 0.185546875, cut as the fourth. Its top_sources, by single
// contribution, are A@1, B@1, M@2 (0.25 each): the feeders' order differs.
// A (a seed: the echo): A–M 0.25 + 0.15625 = 0.40625, rA 0.15625 + 0.0625
// = 0.21875, rA2 0.078125 + 0.03125 = 0.109375, two feeders from H; its
// top_sources list M twice (M@2 0.25, H@2 0.15625, M@3 0.15625).
// M: A–M 0.5 + 0.2421875 = 0.7421875, M–H 0.3125 + 0.125 = 0.4375.
// B: B–H 0.15625 + 0.0625 = 0.21875.
//
// Ties go to the relationship that carried first, not the smaller id.
// Seed Z; Z–H w 0.5, Z–C w 1, C–H w 1; P = 2, D = 0.5: Z → H brings
// 0.25 at p1, C → H 0.5 × 1 × 0.5 = 0.25 at p2: H's feeders are Z, then C.
func TestFeeders(t *testing.T) {
	g := build(t, nil, rel{Spec: "A-RELATES->H", Weight: 0.5}, rel{Spec: "H-RELATES->A", Weight: 0.25}, rel{Spec: "B-RELATES->H", Weight: 0.5},
		rel{Spec: "A-RELATES->M", Weight: 1.0}, rel{Spec: "M-RELATES->H", Weight: 1.0})
	r := run(t, g, seeds("A", 1.0, "B", 1.0), func(p *spreading.Params) { p.Pulses, p.Decay = 3, 0.5 })
	h := hitOf(t, r, "H")
	checkFeeders(t, h, feeder{"M", 1, 0.40625}, feeder{"A", 0.5, 0.37109375}, feeder{"B", 0.5, 0.2890625})
	if src := detail(t, h, "top_sources").([]spreading.Source); len(src) != 3 || src[0].From != "A" || src[1].From != "B" || src[2].From != "M" || src[2].Pulse != 2 {
		t.Errorf("H's top sources %+v, want A@1, B@1, M@2", src)
	}
	a := hitOf(t, r, "A")
	checkFeeders(t, a, feeder{"M", 1, 0.40625}, feeder{"H", 0.5, 0.21875}, feeder{"H", 0.25, 0.109375})
	if src := detail(t, a, "top_sources").([]spreading.Source); len(src) != 3 || src[0].From != "M" || src[1].From != "H" || src[2].From != "M" || src[2].Pulse != 3 {
		t.Errorf("A's top sources %+v, want M@2, H@2, M@3", src)
	}
	checkFeeders(t, hitOf(t, r, "M"), feeder{"A", 1, 0.7421875}, feeder{"H", 1, 0.4375})
	checkFeeders(t, hitOf(t, r, "B"), feeder{"H", 0.5, 0.21875})

	g = build(t, nil, rel{Spec: "Z-RELATES->H", Weight: 0.5}, rel{Spec: "Z-RELATES->C", Weight: 1.0}, rel{Spec: "C-RELATES->H", Weight: 1.0})
	r = run(t, g, seeds("Z", 1.0), func(p *spreading.Params) { p.Decay = 0.5 })
	checkFeeders(t, hitOf(t, r, "H"), feeder{"Z", 0.5, 0.25}, feeder{"C", 1, 0.25})
}
