package render

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// TestEnergyFormulaThreePaths writes out each hop of threePathResult.
//
// Expected (also testdata/formula_three_paths.golden), each checked by hand
// at the precision shown:
//
//	T = 0.85 × 0.82 / √4 × 0.29167 = 0.1016     0.3485 × 0.29167 = 0.101647
//	T = 0.10165 × 0.9 / √4 × 0.575 = 0.0263     0.045743 × 0.575 = 0.026302
//	T = 0.0263 × 1 / √4 × 0.575 = 0.007561      0.01315 × 0.575 = 0.0075613
//	T = 0.85 × 0.6 / √4 × 0.32 = 0.0816         0.255 × 0.32 = 0.0816
//	T = 0.0816 × 0.75 / √9 × 0.49 = 0.009996    0.0204 × 0.49 = 0.009996
//	T = 0.85 × 0.5 / √4 × 0.15 = 0.03188        0.2125 × 0.15 = 0.031875
//
// Why: tag_sim of the first hop is 0.15 + 0.85 × 1/6 = 0.291666…; at 4
// digits (0.2917) the product would be 0.101657… → 0.1017, not the T of
// 0.1016458…, so R, w and tag_sim take a 5th digit. Likewise the second
// hop: 0.1016 × 0.9 / 2 × 0.575 = 0.026289 → 0.02629, so R shows 0.10165.
// The others multiply out at 4 digits. 0.031875 is a hair above in binary
// (0.85 × 0.5 / 2 × 0.15), so it rounds up.
func TestEnergyFormulaThreePaths(t *testing.T) {
	want := []string{
		"T = 0.85 × 0.82 / √4 × 0.29167 = 0.1016",
		"T = 0.10165 × 0.9 / √4 × 0.575 = 0.0263",
		"T = 0.0263 × 1 / √4 × 0.575 = 0.007561",
		"T = 0.85 × 0.6 / √4 × 0.32 = 0.0816",
		"T = 0.0816 × 0.75 / √9 × 0.49 = 0.009996",
		"T = 0.85 × 0.5 / √4 × 0.15 = 0.03188",
	}
	var got []string
	for _, p := range threePathResult().Paths {
		for _, s := range p.Steps {
			got = append(got, EnergyFormula(s))
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("formulas\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	golden(t, "formula_three_paths", strings.Join(got, "\n")+"\n")
}

// TestEnergyFormulaMinimalAndMissing covers the 004 minimal hop and a
// missing weight.
//
// Expected: "T = 0.6 × 0.8 / √4 × 0.5 = 0.12" and
// "T = 1 × 0.01 (missing weight) / √1 × 1 = 0.01".
// Why: 0.6 × 0.8 / 2 × 0.5 = 0.12; an edge without weight counts 0.01, so
// 1 × 0.01 / 1 × 1 = 0.01, and the formula says the weight was missing.
func TestEnergyFormulaMinimalAndMissing(t *testing.T) {
	if got, want := EnergyFormula(minimalResult().Paths[0].Steps[0]), "T = 0.6 × 0.8 / √4 × 0.5 = 0.12"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := EnergyFormula(missingWeightResult().Paths[0].Steps[0]), "T = 1 × 0.01 (missing weight) / √1 × 1 = 0.01"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestNum pins the one number format (4 significant digits, plain
// decimal, trailing zeros dropped).
//
// Expected: 0.85 → "0.85", 1 → "1", 0.1 → "0.1", 0.0816 → "0.0816",
// 0.00012 → "0.00012", 0.123456 → "0.1235" (the 4th digit 4 rounds up:
// the rest is 56), 0.5099999999999999 → "0.51" (binary noise rounds
// away), 0.10164583 → "0.1016", 0.0024017 → "0.002402", 1.782e-06 →
// "0.000001782" (no exponent), 12346 → "12350", 0 → "0", -0.25 → "-0.25",
// +Inf → "+Inf".
// Why: the rule as docs/ALGORITHM.md states it for every number shown.
func TestNum(t *testing.T) {
	cases := map[float64]string{0.85: "0.85", 1: "1", 0.1: "0.1", 0.0816: "0.0816", 0.00012: "0.00012",
		0.123456: "0.1235", 0.5099999999999999: "0.51", 0.10164583: "0.1016", 0.0024017: "0.002402",
		1.782e-06: "0.000001782", 12346: "12350", 0: "0", -0.25: "-0.25", math.Inf(1): "+Inf"}
	for v, want := range cases {
		if got := Num(v); got != want {
			t.Errorf("Num(%v) = %q, want %q", v, got, want)
		}
	}
}

// TestTagBreakdown is docs/ALGORITHM.md rule 2's worked example.
//
// Scenario: edge tags {inventory_policy, recommendation,
// analysis_dependency, recommendation (again)}, query tags
// {demand_forecasting, stockout, safety_stock, inventory_policy}.
// Expected: inter [inventory_policy]; union, sorted, [analysis_dependency
// demand_forecasting inventory_policy recommendation safety_stock
// stockout]. Nil inputs give two empty, non-nil slices; {a} vs {A} share
// nothing.
// Why: |E∩Q| = 1 and |E∪Q| = 3 + 4 - 1 = 6 as in the seed (Jaccard 1/6,
// tag_sim 0.2917); the repeated edge tag counts once (set semantics, like
// activation.TagOverlap); matching is case-sensitive.
func TestTagBreakdown(t *testing.T) {
	inter, union := TagBreakdown(
		[]string{"inventory_policy", "recommendation", "analysis_dependency", "recommendation"},
		[]string{"demand_forecasting", "stockout", "safety_stock", "inventory_policy"})
	if !reflect.DeepEqual(inter, []string{"inventory_policy"}) {
		t.Errorf("inter %v", inter)
	}
	if want := []string{"analysis_dependency", "demand_forecasting", "inventory_policy", "recommendation", "safety_stock", "stockout"}; !reflect.DeepEqual(union, want) {
		t.Errorf("union %v, want %v", union, want)
	}
	if i, u := TagBreakdown(nil, nil); i == nil || u == nil || len(i)+len(u) != 0 {
		t.Errorf("nil inputs: %#v %#v", i, u)
	}
	if i, u := TagBreakdown([]string{"a"}, []string{"A"}); len(i) != 0 || !reflect.DeepEqual(u, []string{"A", "a"}) {
		t.Errorf("case: %v %v", i, u)
	}
}

// TestEnergyFormulaChecksByHand multiplies out 20,000 random formulas as a
// person would, from the numbers as printed, and requires the product,
// rounded to 4 significant digits, to be the T printed.
//
// Scenario: R in (0, 1], w in [0.25, 1] with 2 decimals (the demo graph's
// weights) or any double, d in 1..700, tag_sim = floor + (1 − floor) × i/u
// for random counts, T = activation.TransferEnergy of them.
// Expected: for each, parse "T = R × w / √d × tag_sim = T" and check
// Num(R × w / √d × tag_sim) == T as printed.
// Why: the rule of docs/EXPORTS.md ("Numbers for people"): a formula checks
// by hand at the precision it shows.
func TestEnergyFormulaChecksByHand(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for i := 0; i < 20000; i++ {
		r := 1 - rng.Float64()
		w := math.Round((0.25+0.75*rng.Float64())*100) / 100
		if i%2 == 1 {
			w = rng.Float64()
		}
		d := int64(1 + rng.IntN(700))
		u := 1 + rng.IntN(12)
		ts := activation.TagSimCounts(rng.IntN(u+1), u, 0.15)
		s := activation.Step{Activation: r, Weight: w, Degree: d, TagSim: ts, Edge: graph.Edge{Weight: &w},
			TransferEnergy: activation.TransferEnergy(r, w, d, ts)}
		f := EnergyFormula(s)
		var pr, pw, pts, pt float64
		var pd int64
		if _, err := fmt.Sscanf(f, "T = %g × %g / √%d × %g = %g", &pr, &pw, &pd, &pts, &pt); err != nil {
			t.Fatalf("%q does not parse: %v", f, err)
		}
		if got := Num(pr * pw / math.Sqrt(float64(pd)) * pts); got != Num(pt) || Num(pt) != Num(s.TransferEnergy) {
			t.Fatalf("%q multiplies out to %s (T is %v)", f, got, s.TransferEnergy)
		}
	}
}
