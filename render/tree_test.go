package render

import (
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
)

// TestTreeThreePaths draws threePathResult.
//
// Expected (hand-written here and in testdata/tree_three_paths.golden):
//
//	seed N2006 R=0.85: 3 paths, max depth 3, frontier_exhausted
//	N2006 (UserRequest) R=0.85 "Why did we run out of stock on SKU-118…"
//	├── N2003 (DataSource) T=0.1016 w=0.82 tag_sim=0.2917 d=4 "Inventory ledger 2024-Q1"
//	│   └── N2001 (AgentAnswer) T=0.0263 w=0.9 tag_sim=0.575 d=4 "Safety stock for SKU-118 was 40 units,…"
//	│       └── N2010 (DataSource) T=0.007561 w=1 tag_sim=0.575 d=4 "supplier_lead_times.csv"  [end: nothing above threshold or all visited]
//	├── N2004 (AgentAction) T=0.0816 w=0.6 tag_sim=0.32 d=4 "Ran the demand forecast for SKU-118 wit…"
//	│   └── N2008 (UserPreference) T=0.009996 w=0.75 tag_sim=0.49 d=9 "Prefers conservative safety stock over…"  [end: lost to other parents]
//	└── N2005 (Event) T=0.03188 w=0.5 tag_sim=0.15 d=4  [end: nothing above threshold or all visited]
//
// Why: the energies and tag_sims are threePathResult's (T1 = 0.1016458…,
// T2 = 0.0263009…, T3 = 0.0075615… → 0.007561, T4 = 0.0816, T5 = 0.009996,
// T6 = 0.031875 → 0.03188; tag_sim 7/24 → 0.2917, 0.575, 0.32, 0.49, 0.15;
// all at 4 significant digits, render.Num); the root's children sort 0.1016
// > 0.0816 > 0.03188. Texts are cut at
// the default 40 runes: 39 runes plus "…", minus a trailing space (the
// 39th rune of N2006's and N2001's texts is a space). N2005 has no text.
func TestTreeThreePaths(t *testing.T) {
	want := `seed N2006 R=0.85: 3 paths, max depth 3, frontier_exhausted
N2006 (UserRequest) R=0.85 "Why did we run out of stock on SKU-118…"
├── N2003 (DataSource) T=0.1016 w=0.82 tag_sim=0.2917 d=4 "Inventory ledger 2024-Q1"
│   └── N2001 (AgentAnswer) T=0.0263 w=0.9 tag_sim=0.575 d=4 "Safety stock for SKU-118 was 40 units,…"
│       └── N2010 (DataSource) T=0.007561 w=1 tag_sim=0.575 d=4 "supplier_lead_times.csv"  [end: nothing above threshold or all visited]
├── N2004 (AgentAction) T=0.0816 w=0.6 tag_sim=0.32 d=4 "Ran the demand forecast for SKU-118 wit…"
│   └── N2008 (UserPreference) T=0.009996 w=0.75 tag_sim=0.49 d=9 "Prefers conservative safety stock over…"  [end: lost to other parents]
└── N2005 (Event) T=0.03188 w=0.5 tag_sim=0.15 d=4  [end: nothing above threshold or all visited]
`
	got := Tree(threePathResult(), TreeOptions{})
	if got != want {
		t.Errorf("Tree =\n%s\nwant\n%s", got, want)
	}
	golden(t, "tree_three_paths", got)
}

// TestTreeMerge rebuilds a tree from paths sharing prefixes, given out of
// order.
//
// Scenario: seed R (score 1, no label or text) with paths, in this order,
// R→A→B (T 0.3 then 0.05), R→A→C (0.3 then 0.07), R→D (0.3). Every hop
// has w = 1, d = 1, tag_sim = 1 and its T given directly.
// Expected:
//
//	seed R R=1: 3 paths, max depth 2, max_depth
//	R R=1
//	├── A T=0.3 w=1 tag_sim=1 d=1
//	│   ├── C T=0.07 w=1 tag_sim=1 d=1  [end: max depth]
//	│   └── B T=0.05 w=1 tag_sim=1 d=1  [end: max depth]
//	└── D T=0.3 w=1 tag_sim=1 d=1  [end: nothing above threshold or all visited]
//
// Why: A is drawn once for the two paths through it; its children are by
// energy, C (0.07) before B (0.05), though B's path came first; A and D
// tie at 0.3 and fall back to id order. A is no path's end, so it has no
// end mark.
func TestTreeMerge(t *testing.T) {
	n := func(id string) graph.Node { return graph.Node{ID: id} }
	st := func(from, to string, T float64) activation.Step {
		return activation.Step{FromNode: n(from), ToNode: n(to), Edge: edge(from, to, weight(1)), Weight: 1, Degree: 1, TagSim: 1, TransferEnergy: T}
	}
	root := n("R")
	res := activation.Result{
		Seed: retriever.Seed{NodeID: "R", Score: 1}, SeedNode: &root,
		TerminatedReason: activation.TerminatedMaxDepth, MaxDepthReached: 2,
		Paths: []activation.Path{
			path(activation.EndMaxDepth, st("R", "A", 0.3), st("A", "B", 0.05)),
			path(activation.EndMaxDepth, st("R", "A", 0.3), st("A", "C", 0.07)),
			path(activation.EndNoCandidates, st("R", "D", 0.3)),
		},
	}
	want := `seed R R=1: 3 paths, max depth 2, max_depth
R R=1
├── A T=0.3 w=1 tag_sim=1 d=1
│   ├── C T=0.07 w=1 tag_sim=1 d=1  [end: max depth]
│   └── B T=0.05 w=1 tag_sim=1 d=1  [end: max depth]
└── D T=0.3 w=1 tag_sim=1 d=1  [end: nothing above threshold or all visited]
`
	if got := Tree(res, TreeOptions{}); got != want {
		t.Errorf("Tree =\n%s\nwant\n%s", got, want)
	}
}

// TestTreeMinimalWidth draws minimalResult with TextWidth 10.
//
// Expected:
//
//	seed S1 R=0.6: 1 path, max depth 1, frontier_exhausted
//	S1 (UserRequest) R=0.6 "Plan the…"
//	└── N1 (DataSource) T=0.12 w=0.8 tag_sim=0.5 d=4 "Q1 sales"  [end: nothing above threshold or all visited]
//
// Why: T = 0.6 × 0.8 / √4 × 0.5 = 0.12; "Plan the spring campaign" (24
// runes) is cut to 9 runes "Plan the " minus its trailing space, plus "…";
// "Q1 sales" (8 runes) fits in 10. One path reads "1 path".
func TestTreeMinimalWidth(t *testing.T) {
	want := `seed S1 R=0.6: 1 path, max depth 1, frontier_exhausted
S1 (UserRequest) R=0.6 "Plan the…"
└── N1 (DataSource) T=0.12 w=0.8 tag_sim=0.5 d=4 "Q1 sales"  [end: nothing above threshold or all visited]
`
	if got := Tree(minimalResult(), TreeOptions{TextWidth: 10}); got != want {
		t.Errorf("Tree =\n%s\nwant\n%s", got, want)
	}
}

// TestTreeMissingWeight draws missingWeightResult.
//
// Expected:
//
//	seed M0 R=1: 1 path, max depth 1, max_depth
//	M0 (Note) R=1 "root"
//	└── M1 (Note) T=0.01 w=0.01(missing) tag_sim=1 d=1 "leaf"  [end: max depth]
//
// Why: T = 1 × 0.01 / √1 × 1 = 0.01, and the weight is marked missing as
// in the LLM context.
func TestTreeMissingWeight(t *testing.T) {
	want := `seed M0 R=1: 1 path, max depth 1, max_depth
M0 (Note) R=1 "root"
└── M1 (Note) T=0.01 w=0.01(missing) tag_sim=1 d=1 "leaf"  [end: max depth]
`
	if got := Tree(missingWeightResult(), TreeOptions{}); got != want {
		t.Errorf("Tree =\n%s\nwant\n%s", got, want)
	}
}

// TestTreeErrorAndNotFound covers results that did not finish normally.
//
// Scenario 1: minimalResult ended by an error "neo4j: connection
// refused\n  retry later" after its first level.
// Expected: the header says "error", then "error: neo4j: connection
// refused retry later" (white space collapsed to keep one line), then the
// tree as in TestTreeMinimalWidth at the default width.
// Scenario 2: seed S9 (R = 0.7) not found.
// Expected: only "seed S9 R=0.7: 0 paths, max depth 0, seed_not_found".
// Why: there is no node to root a tree at.
func TestTreeErrorAndNotFound(t *testing.T) {
	res := minimalResult()
	res.TerminatedReason, res.Error = activation.TerminatedError, "neo4j: connection refused\n  retry later"
	want := `seed S1 R=0.6: 1 path, max depth 1, error
error: neo4j: connection refused retry later
S1 (UserRequest) R=0.6 "Plan the spring campaign"
└── N1 (DataSource) T=0.12 w=0.8 tag_sim=0.5 d=4 "Q1 sales"  [end: nothing above threshold or all visited]
`
	if got := Tree(res, TreeOptions{}); got != want {
		t.Errorf("Tree =\n%s\nwant\n%s", got, want)
	}
	nf := activation.Result{Seed: retriever.Seed{NodeID: "S9", Score: 0.7}, TerminatedReason: activation.TerminatedSeedNotFound, Paths: []activation.Path{}}
	if got, want := Tree(nf, TreeOptions{}), "seed S9 R=0.7: 0 paths, max depth 0, seed_not_found\n"; got != want {
		t.Errorf("Tree = %q, want %q", got, want)
	}
}

// TestTreeTrickyIDs draws trickyResult (testdata/tree_tricky_ids.golden).
//
// Expected: a chain of six lines under the header, each id written with
// DisplayID ("say \"hi\"", "C:\\dir\\", "two\nlines\tand\rcr",
// "nul\x00\x1b\x7f", "rocket 🚀", then cafe◌́ raw), each hop
// T=1 w=1 tag_sim=1 d=1, the last ending "[end: max depth]".
// Why: escaped ids keep the tree one line per node; each T is
// 1 × 1 / √1 × 1 = 1.
func TestTreeTrickyIDs(t *testing.T) {
	golden(t, "tree_tricky_ids", Tree(trickyResult(), TreeOptions{}))
}

// TestShareOf: how close a near miss came, in whole percent.
//
// Expected: 0.0024016 of 0.005 → "48% of 0.005" (48.03%); 0.00002337 of
// 0.005 → "<1% of 0.005" (0.47% rounds to 0); 0.004999 → "99% of 0.005"
// (99.98% would round to 100, but the energy is still below); 0.005 itself
// (at the threshold, so not kept) → "100% of 0.005".
func TestShareOf(t *testing.T) {
	for v, want := range map[float64]string{0.0024016: "48% of 0.005", 0.00002337: "<1% of 0.005", 0.004999: "99% of 0.005", 0.005: "100% of 0.005"} {
		if got := ShareOf(v, 0.005); got != want {
			t.Errorf("ShareOf(%v) = %q, want %q", v, got, want)
		}
	}
}
