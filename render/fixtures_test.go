package render

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/memoria-graph/memoria/retriever/activation"
	goldenfile "github.com/memoria-graph/memoria/testkit/golden"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
)

// golden compares got with testdata/<name>.golden (testkit/golden; -update
// rewrites it).
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name+".golden"), got)
}

func node(id, label string, props map[string]any) graph.Node {
	if props == nil {
		props = map[string]any{}
	}
	props["id"] = id
	return graph.Node{ID: id, Labels: []string{label}, Properties: props}
}

func weight(w float64) *float64 { return &w }

// edge is a RELATES edge from → to; w nil means no weight property.
func edge(from, to string, w *float64, tags ...string) graph.Edge {
	props := map[string]any{"tags": tags}
	if w != nil {
		props["weight"] = *w
	}
	return graph.Edge{SourceID: from, TargetID: to, Type: graph.Relates, Properties: props, Weight: w, Tags: tags}
}

// hop is the step from → to over e, with the parent's activation r, degree d
// and tag similarity ts; the transfer energy is r × w / √d × ts, w being the
// effective weight (docs/ALGORITHM.md rule 1).
func hop(from, to graph.Node, e graph.Edge, r float64, d int64, ts float64) activation.Step {
	w := 0.01 // the weight used for an edge without one (docs/ALGORITHM.md, rule 1)
	if e.Weight != nil {
		w = *e.Weight
	}
	return activation.Step{
		FromNode: from, Edge: e, ToNode: to, Weight: w, Activation: r, Degree: d, TagSim: ts,
		TransferEnergy: r * w / math.Sqrt(float64(d)) * ts,
	}
}

// path chains steps into a path ending for reason.
func path(reason activation.EndReason, steps ...activation.Step) activation.Path {
	var p activation.Path
	for _, s := range steps {
		p = p.Extend(s)
	}
	p.EndReason = reason
	return p
}

// minimalResult is docs/EXPORTS.md test B's minimal input: seed S1 with R = 0.6
// and one hop S1 → N1 with w = 0.8, d(S1) = 4, tag_sim = 0.5, so
// T = 0.6 × 0.8 / √4 × 0.5 = 0.48 / 2 × 0.5 = 0.24 × 0.5 = 0.12.
func minimalResult() activation.Result {
	s1 := node("S1", "UserRequest", map[string]any{"text": "Plan the spring campaign"})
	n1 := node("N1", "DataSource", map[string]any{"title": "Q1 sales"})
	return activation.Result{
		Seed: retriever.Seed{NodeID: "S1", Score: 0.6}, SeedNode: &s1,
		TerminatedReason: activation.TerminatedFrontierExhausted, MaxDepthReached: 1,
		Paths: []activation.Path{path(activation.EndNoCandidates, hop(s1, n1, edge("S1", "N1", weight(0.8), "campaign"), 0.6, 4, 0.5))},
	}
}

// threePathResult is docs/ALGORITHM.md "Worked example"'s exploration of N2006 (R = 0.85), with
// the query tags demand_forecasting, stockout, safety_stock and
// inventory_policy (|Q| = 4) and TAG_SIM_FLOOR 0.15:
//
//	A: N2006 → N2003 → N2001 → N2010   (ends: nothing above threshold or all visited)
//	B: N2006 → N2004 → N2008           (ends: its candidate was claimed)
//	C: N2006 → N2005                   (ends: nothing above threshold or all visited)
//
// Hop by hop, tag_sim = 0.15 + 0.85 × |E∩Q|/|E∪Q| and T = R × w / √d × tag_sim:
//
//	N2006→N2003 w=0.82 d=4 E={inventory_policy,recommendation,analysis_dependency}
//	            1/6: tag_sim = 0.15 + 0.141666… = 0.291666… (0.2917)
//	            T1 = 0.85 × 0.82 / 2 × 0.291666… = 0.3485 × 7/24 = 0.1016458…
//	N2003→N2001 w=0.9  d=4 E={demand_forecasting,inventory_policy}
//	            2/4: tag_sim = 0.15 + 0.425 = 0.575
//	            T2 = 0.1016458… × 0.9 / 2 × 0.575 = 0.1016458… × 0.25875 = 0.0263009…
//	N2001→N2010 w=1.0  d=4 E={stockout,safety_stock}
//	            2/4: tag_sim = 0.575
//	            T3 = 0.0263009… × 1 / 2 × 0.575 = 0.0263009… × 0.2875 = 0.0075615…
//	N2006→N2004 w=0.6  d=4 E={stockout,escalation}
//	            1/5: tag_sim = 0.15 + 0.17 = 0.32
//	            T4 = 0.85 × 0.6 / 2 × 0.32 = 0.255 × 0.32 = 0.0816
//	N2004→N2008 w=0.75 d=9 E={demand_forecasting,stockout,seasonality}
//	            2/5: tag_sim = 0.15 + 0.34 = 0.49
//	            T5 = 0.0816 × 0.75 / 3 × 0.49 = 0.0204 × 0.49 = 0.009996
//	N2006→N2005 w=0.5  d=4 E={} (untagged): tag_sim = 0.15
//	            T6 = 0.85 × 0.5 / 2 × 0.15 = 0.2125 × 0.15 = 0.031875
//
// Rounded to 4 significant digits (render.Num): 0.1016, 0.0263, 0.007561,
// 0.0816, 0.009996, 0.03188. The seed's children in energy order are N2003
// (0.1016) > N2004 (0.0816) > N2005 (0.03188): paths A, B, C. The seed node carries an embedding and N2003 a
// 20-number vector, which no exporter may show.
func threePathResult() activation.Result {
	vec := make([]any, 20)
	for i := range vec {
		vec[i] = float64(i) / 20
	}
	n2006 := node("N2006", "UserRequest", map[string]any{
		"text":       "Why did we run out of stock on SKU-118 last March, and how do we prevent it?",
		"created_at": "2024-03-18",
		"embedding":  []float64{0.12, -0.4, 0.33},
	})
	n2003 := node("N2003", "DataSource", map[string]any{
		"title":       "Inventory ledger 2024-Q1",
		"description": "Daily on-hand, on-order and allocated quantities per SKU",
		"rows":        1200,
		"vector":      vec,
	})
	n2001 := node("N2001", "AgentAnswer", map[string]any{
		"text": "Safety stock for SKU-118 was 40 units, below the \"2-week cover\" policy of 65 units, so the reorder point fired four days late.",
	})
	n2010 := node("N2010", "DataSource", map[string]any{"name": "supplier_lead_times.csv"})
	n2004 := node("N2004", "AgentAction", map[string]any{"description": "Ran the demand forecast for SKU-118 with the March promo flag"})
	n2008 := node("N2008", "UserPreference", map[string]any{"text": "Prefers conservative safety stock over lower holding cost"})
	n2005 := node("N2005", "Event", nil)

	s1 := hop(n2006, n2003, edge("N2006", "N2003", weight(0.82), "inventory_policy", "recommendation", "analysis_dependency"), 0.85, 4, 0.15+0.85*1/6)
	s2 := hop(n2003, n2001, edge("N2003", "N2001", weight(0.9), "demand_forecasting", "inventory_policy"), s1.TransferEnergy, 4, 0.15+0.85*2/4)
	s3 := hop(n2001, n2010, edge("N2001", "N2010", weight(1.0), "stockout", "safety_stock"), s2.TransferEnergy, 4, 0.15+0.85*2/4)
	s4 := hop(n2006, n2004, edge("N2006", "N2004", weight(0.6), "stockout", "escalation"), 0.85, 4, 0.15+0.85*1/5)
	s5 := hop(n2004, n2008, edge("N2004", "N2008", weight(0.75), "demand_forecasting", "stockout", "seasonality"), s4.TransferEnergy, 9, 0.15+0.85*2/5)
	s6 := hop(n2006, n2005, edge("N2006", "N2005", weight(0.5)), 0.85, 4, 0.15)
	return activation.Result{
		Seed: retriever.Seed{NodeID: "N2006", Score: 0.85}, SeedNode: &n2006,
		TerminatedReason: activation.TerminatedFrontierExhausted, MaxDepthReached: 3,
		Paths: []activation.Path{
			path(activation.EndNoCandidates, s1, s2, s3),
			path(activation.EndAllClaimed, s4, s5),
			path(activation.EndNoCandidates, s6),
		},
	}
}

// missingWeightResult is seed M0 (R = 1) with one hop M0 → M1 over an edge
// without a weight property, d(M0) = 1 and no query tags (tag_sim = 1):
// T = 1 × 0.01 / √1 × 1 = 0.01, ended by MAX_DEPTH = 1.
func missingWeightResult() activation.Result {
	m0 := node("M0", "Note", map[string]any{"text": "root"})
	m1 := node("M1", "Note", map[string]any{"text": "leaf"})
	return activation.Result{
		Seed: retriever.Seed{NodeID: "M0", Score: 1}, SeedNode: &m0,
		TerminatedReason: activation.TerminatedMaxDepth, MaxDepthReached: 1,
		Paths: []activation.Path{path(activation.EndMaxDepth, hop(m0, m1, edge("M0", "M1", nil), 1, 1, 1))},
	}
}

// Ids that must survive every format.
const (
	idQuote     = `say "hi"`
	idBackslash = `C:\dir\`
	idControl   = "two\nlines\tand\rcr"
	idNUL       = "nul\x00\x1b\x7f"
	idEmoji     = "rocket 🚀"
	idCombining = "cafe\u0301" // e + COMBINING ACUTE ACCENT
)

// trickyResult is one path through nodes with the ids above, in that
// order, seed R = 1; each hop has w = 1, d = 1, tag_sim = 1, so every T is
// 1 × 1 / √1 × 1 = 1 and the labels are the only text.
func trickyResult() activation.Result {
	ids := []string{idQuote, idBackslash, idControl, idNUL, idEmoji, idCombining}
	nodes := make([]graph.Node, len(ids))
	for i, id := range ids {
		nodes[i] = node(id, "Thing", nil)
	}
	var steps []activation.Step
	for i := 1; i < len(nodes); i++ {
		steps = append(steps, hop(nodes[i-1], nodes[i], edge(ids[i-1], ids[i], weight(1)), 1, 1, 1))
	}
	return activation.Result{
		Seed: retriever.Seed{NodeID: idQuote, Score: 1}, SeedNode: &nodes[0],
		TerminatedReason: activation.TerminatedMaxDepth, MaxDepthReached: 5,
		Paths: []activation.Path{path(activation.EndMaxDepth, steps...)},
	}
}
