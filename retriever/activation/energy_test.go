package activation

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
)

// TestTagSimWorkedExample is docs/ALGORITHM.md rule 2's worked example.
//
// Edge tags {inventory_policy, recommendation, analysis_dependency}, query
// tags {demand_forecasting, stockout, safety_stock, inventory_policy}:
// |E∩Q| = 1, |E∪Q| = 3 + 4 - 1 = 6, so tag_sim = 0.15 + 0.85 × 1/6
// = 0.15 + 0.141666… = 0.291666… = 7/24 (0.292 at 3 decimals).
func TestTagSimWorkedExample(t *testing.T) {
	edge := []string{"inventory_policy", "recommendation", "analysis_dependency"}
	query := []string{"demand_forecasting", "stockout", "safety_stock", "inventory_policy"}
	got := TagSim(edge, query, 0.15)
	if math.Abs(got-7.0/24) > 1e-15 {
		t.Fatalf("tag_sim = %v, want 7/24 = %v", got, 7.0/24)
	}
	if r := math.Round(got*1000) / 1000; r != 0.292 {
		t.Fatalf("tag_sim rounds to %v, want 0.292", r)
	}
}

// TestTagSimCases covers the branches of the floored Jaccard.
//
//   - no query tags: 1.0 whatever the edge carries (docs/ALGORITHM.md rule 2).
//   - untagged edge with query tags: the floor, 0.15.
//   - no overlap: 0.15 + 0.85 × 0 = 0.15.
//   - full overlap {a,b} vs {a,b}: 0.15 + 0.85 × 2/2 = 1.0.
//   - duplicated edge tag {campaign, campaign, launch} vs {campaign}: set
//     semantics give E = {campaign, launch}, |E∩Q| = 1, |E∪Q| = 2,
//     0.15 + 0.85 × 1/2 = 0.575. (The seed's Cypher would count the
//     duplicate twice: inter 2, union 3+1-2 = 2, giving 1.0: the bug
//     normative rule 2 fixes.)
//   - case-sensitive: {Campaign} vs {campaign} do not match: 0.15.
//   - floor 0.4, {a,b,c} vs {a}: 0.4 + 0.6 × 1/3 = 0.6.
func TestTagSimCases(t *testing.T) {
	cases := []struct {
		name        string
		edge, query []string
		floor, want float64
	}{
		{"no query tags", []string{"a"}, nil, 0.15, 1.0},
		{"untagged edge", nil, []string{"a"}, 0.15, 0.15},
		{"empty tag list", []string{}, []string{"a"}, 0.15, 0.15},
		{"no overlap", []string{"x", "y"}, []string{"a"}, 0.15, 0.15},
		{"full overlap", []string{"a", "b"}, []string{"a", "b"}, 0.15, 1.0},
		{"duplicated edge tag", []string{"campaign", "campaign", "launch"}, []string{"campaign"}, 0.15, 0.575},
		{"case-sensitive", []string{"Campaign"}, []string{"campaign"}, 0.15, 0.15},
		{"other floor", []string{"a", "b", "c"}, []string{"a"}, 0.4, 0.6},
	}
	for _, c := range cases {
		if got := TagSim(c.edge, c.query, c.floor); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: TagSim(%v, %v, %v) = %v, want %v", c.name, c.edge, c.query, c.floor, got, c.want)
		}
	}
}

// TestTransferEnergy checks T = R × w / √d × tag_sim by hand.
//
//   - R 0.85, w 0.82, d 4, tag_sim 7/24: 0.85 × 0.82 = 0.697, / 2 = 0.3485,
//     × 7/24 = 2.4395/24 = 0.10164583…
//   - R 1, missing weight (0.01), d 1, tag_sim 1: 0.01.
//   - R 0.5, w 1, d 9, tag_sim 0.15: 0.5 / 3 × 0.15 = 0.025.
func TestTransferEnergy(t *testing.T) {
	if got := TransferEnergy(0.85, 0.82, 4, 7.0/24); math.Abs(got-2.4395/24) > 1e-15 {
		t.Errorf("T = %v, want %v", got, 2.4395/24)
	}
	e := graph.Edge{}
	if got := TransferEnergy(1, EffectiveWeight(e), 1, 1); got != 0.01 {
		t.Errorf("missing weight: T = %v, want 0.01", got)
	}
	if got := TransferEnergy(0.5, 1, 9, 0.15); math.Abs(got-0.025) > 1e-15 {
		t.Errorf("T = %v, want 0.025", got)
	}
}

// TestNormalizeTags: trimmed, empties dropped, duplicates removed in
// first-seen order, case kept (rule 2 of the foundation issue).
func TestNormalizeTags(t *testing.T) {
	got := retriever.NormalizeTags([]string{" campaign", "", "Budget", "campaign ", "  ", "budget"})
	want := []string{"campaign", "Budget", "budget"}
	if !slices.Equal(got, want) {
		t.Fatalf("retriever.NormalizeTags = %q, want %q", got, want)
	}
}

// TestConfigValidate: the defaults pass, and each out-of-range field is
// named in the error with its value.
func TestConfigValidate(t *testing.T) {
	if err := DefaultParams().Validate(); err != nil {
		t.Fatalf("defaults invalid: %v", err)
	}
	bad := Params{MaxDepth: 13, MinActivation: math.NaN(), TagSimFloor: 1.5, MaxBranches: 0}
	err := bad.Validate()
	if err == nil {
		t.Fatal("invalid config accepted")
	}
	for _, want := range []string{"max_depth", "13", "min_activation", "NaN", "tag_sim_floor", "1.5", "max_branches"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if err := (Options{MaxRetries: 11}).Validate(); err == nil || !strings.Contains(err.Error(), "max_retries") || !strings.Contains(err.Error(), "11") {
		t.Errorf("Options{MaxRetries: 11}.Validate() = %v, want an error naming max_retries and 11", err)
	}
	for _, d := range []int{0, 13} {
		c := DefaultParams()
		c.MaxDepth = d
		if c.Validate() == nil {
			t.Errorf("max_depth %d accepted", d)
		}
	}
	c := DefaultParams()
	c.MinActivation = math.Inf(1)
	if c.Validate() == nil {
		t.Error("infinite min_activation accepted")
	}
	c.MinActivation = 0
	if c.Validate() != nil {
		t.Error("min_activation 0 refused")
	}
}

// TestValidateSeeds: scores must be finite and in (0, 1]; 1 is allowed, 0
// is not.
func TestValidateSeeds(t *testing.T) {
	if err := retriever.ValidateSeeds([]retriever.Seed{{NodeID: "A", Score: 1}, {NodeID: "B", Score: 0.001}}); err != nil {
		t.Fatalf("valid seeds refused: %v", err)
	}
	for _, s := range []retriever.Seed{{NodeID: "A", Score: 0}, {NodeID: "A", Score: 1.0001}, {NodeID: "A", Score: math.NaN()}, {NodeID: "A", Score: math.Inf(1)}, {NodeID: "A", Score: -0.5}, {NodeID: " ", Score: 0.5}} {
		if retriever.ValidateSeeds([]retriever.Seed{s}) == nil {
			t.Errorf("seed %+v accepted", s)
		}
	}
	if retriever.ValidateSeeds(nil) == nil {
		t.Error("no seeds accepted")
	}
}
