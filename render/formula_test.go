package render

import (
	"reflect"
	"strings"
	"testing"
)

// TestEnergyFormulaThreePaths writes out each hop of threePathResult.
//
// Expected (also testdata/formula_three_paths.golden):
//
//	T = 0.85 × 0.82 / √4 × 0.292 = 0.1016
//	T = 0.1016 × 0.9 / √4 × 0.575 = 0.0263
//	T = 0.0263 × 1 / √4 × 0.575 = 0.0076
//	T = 0.85 × 0.6 / √4 × 0.320 = 0.0816
//	T = 0.0816 × 0.75 / √9 × 0.490 = 0.0100
//	T = 0.85 × 0.5 / √4 × 0.150 = 0.0319
//
// Why: the hops are worked out on threePathResult. R of a later hop is the
// earlier T, which has more than 4 decimals (0.1016458…, 0.0263009…), so
// it shows 4 significant digits; 0.0816 (= 0.255 × 0.32, possibly a hair
// off in binary) also shows as 0.0816. Weights 0.82, 0.9, 1, 0.6, 0.75,
// 0.5 are short and print as is.
func TestEnergyFormulaThreePaths(t *testing.T) {
	want := []string{
		"T = 0.85 × 0.82 / √4 × 0.292 = 0.1016",
		"T = 0.1016 × 0.9 / √4 × 0.575 = 0.0263",
		"T = 0.0263 × 1 / √4 × 0.575 = 0.0076",
		"T = 0.85 × 0.6 / √4 × 0.320 = 0.0816",
		"T = 0.0816 × 0.75 / √9 × 0.490 = 0.0100",
		"T = 0.85 × 0.5 / √4 × 0.150 = 0.0319",
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
// Expected: "T = 0.6 × 0.8 / √4 × 0.500 = 0.1200" and
// "T = 1 × 0.01 (missing weight) / √1 × 1.000 = 0.0100".
// Why: 0.6 × 0.8 / 2 × 0.5 = 0.12; an edge without weight counts 0.01, so
// 1 × 0.01 / 1 × 1 = 0.01, and the formula says the weight was missing.
func TestEnergyFormulaMinimalAndMissing(t *testing.T) {
	if got, want := EnergyFormula(minimalResult().Paths[0].Steps[0]), "T = 0.6 × 0.8 / √4 × 0.500 = 0.1200"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := EnergyFormula(missingWeightResult().Paths[0].Steps[0]), "T = 1 × 0.01 (missing weight) / √1 × 1.000 = 0.0100"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestShortNum pins the R and w format.
//
// Expected: 0.85 → "0.85", 1 → "1", 0.1 → "0.1", 0.0816 → "0.0816" (4
// decimals, kept), 0.00012 → "0.00012" (5 decimals, so %.4g, which keeps
// it), 0.123456 → "0.1235" (%.4g rounds the 4th significant digit 4 up
// because the next is 5 followed by 6), 0.51 - 1e-16 (0.5099999999999999)
// → "0.51".
// Why: short values read best as typed; long binary fractions are noise.
func TestShortNum(t *testing.T) {
	cases := map[float64]string{0.85: "0.85", 1: "1", 0.1: "0.1", 0.0816: "0.0816", 0.00012: "0.00012", 0.123456: "0.1235", 0.5099999999999999: "0.51"}
	for v, want := range cases {
		if got := shortNum(v); got != want {
			t.Errorf("shortNum(%v) = %q, want %q", v, got, want)
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
// tag_sim 0.292); the repeated edge tag counts once (set semantics, like
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
