package oninmem_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/retriever/activation/oninmem"
	"github.com/memoria-graph/memoria/testkit/naive"
)

// The demo graph's scenarios (docs/DEMO_GRAPH.md §3) on the memory engine.
// Expected paths and energies are those of the doc's tables; the doc works
// three rows out by hand (§4) and this file repeats the arithmetic where a
// test leans on a number.

func demoGraph(t *testing.T) *inmem.Graph {
	t.Helper()
	g, err := inmem.LoadFile("../../../testdata/demo.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return g
}

type scenario struct {
	seed retriever.Seed
	tags []string
	cfg  func(*activation.Params)
}

func (s scenario) run(t *testing.T, g *inmem.Graph) (activation.Result, []activation.LevelEvent) {
	t.Helper()
	cfg := activation.DefaultParams()
	if s.cfg != nil {
		s.cfg(&cfg)
	}
	r, err := activation.New(oninmem.New(g), cfg, activation.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	res, levels, err := naive.Run(context.Background(), r, s.seed, s.tags)
	if err != nil {
		t.Fatal(err)
	}
	return res, levels
}

// wantPaths compares paths (tree order) and each hop's T against the doc's
// 4-significant-digit values.
func wantPaths(t *testing.T, res activation.Result, want map[string][]float64, order []string) {
	t.Helper()
	var got []string
	for _, p := range res.Paths {
		key := strings.Join(p.NodeIDs(), ">")
		got = append(got, key)
		ts, ok := want[key]
		if !ok {
			continue
		}
		for i, s := range p.Steps {
			if math.Abs(s.TransferEnergy-ts[i]) > 5e-4*ts[i] {
				t.Errorf("%s hop %d: T = %.6g, doc says %.4g", key, i+1, s.TransferEnergy, ts[i])
			}
		}
	}
	if !slices.Equal(got, order) {
		t.Fatalf("paths\n got  %v\n want %v", got, order)
	}
}

var scenarioATags = []string{"demand_forecasting", "stockout", "safety_stock", "inventory_policy"}

// TestDemoScenarioA is docs/ALGORITHM.md "Worked example"'s diagram, exactly.
//
// Seed N2006, R 0.85, tags {demand_forecasting, stockout, safety_stock,
// inventory_policy}, defaults. d(N2006) = 4 (its MENTIONS edge is not
// counted). First hop N2006→N2003: w 0.82, edge tags {inventory_policy,
// recommendation, analysis_dependency}, |E∩Q| 1, |E∪Q| 6, tag_sim
// 0.15 + 0.85/6 = 7/24, T = 0.85 × 0.82 / 2 × 7/24 = 0.1016458.
// Level 1 keeps N2003 (0.1016), N2004 (0.08936), N2005 (0.06933) and
// N2007 (0.03188) meets a full parent: branch_limit. Level 2: N2003→N2001
// (0.02588) is kept, N2004→N2001 (untagged, 0.006367) is claimed by N2003,
// N2004 still keeps N2008 (0.01377). The result is exactly paths A, B, C,
// frontier_exhausted after level 4, max_depth_reached 3.
func TestDemoScenarioA(t *testing.T) {
	res, levels := scenario{seed: retriever.Seed{NodeID: "N2006", Score: 0.85}, tags: scenarioATags}.run(t, demoGraph(t))
	wantPaths(t, res, map[string][]float64{
		"N2006>N2003>N2001>N2010": {0.1016, 0.02588, 0.006873},
		"N2006>N2004>N2008":       {0.08936, 0.01377},
		"N2006>N2005":             {0.06933},
	}, []string{"N2006>N2003>N2001>N2010", "N2006>N2004>N2008", "N2006>N2005"})
	if res.TerminatedReason != activation.TerminatedFrontierExhausted || res.MaxDepthReached != 3 || len(levels) != 4 {
		t.Errorf("reason %s, depth %d, %d levels; want frontier_exhausted, 3, 4", res.TerminatedReason, res.MaxDepthReached, len(levels))
	}
	if got := res.Paths[0].Steps[0].TransferEnergy; math.Abs(got-0.85*0.82/2*7/24) > 1e-15 {
		t.Errorf("N2006→N2003 T = %v, want 0.85 × 0.82 / 2 × 7/24", got)
	}
	fate := func(l activation.LevelEvent) []string {
		var out []string
		for _, o := range l.Outcomes {
			out = append(out, o.Candidate.ParentID+">"+o.Candidate.NeighborNode.ID+":"+string(o.Fate)+o.ClaimedBy)
		}
		return out
	}
	if got := fate(levels[0]); !slices.Equal(got, []string{"N2006>N2003:kept", "N2006>N2004:kept", "N2006>N2005:kept", "N2006>N2007:branch_limit"}) {
		t.Errorf("level 1 fates %v", got)
	}
	if got := fate(levels[1]); !slices.Equal(got, []string{"N2003>N2001:kept", "N2004>N2008:kept", "N2004>N2001:claimedN2003"}) {
		t.Errorf("level 2 fates %v", got)
	}
}

// TestDemoSingleDepthB1 is docs/DEMO_GRAPH.md scenario B1: T3000 (R 0.9, [campaign]),
// MAX_DEPTH 1, MAX_BRANCHES 2: four candidates above threshold, exactly two
// one-hop paths, by T descending. T3000→T3002 carries [campaign, campaign,
// launch]: distinct E = {campaign, launch}, tag_sim 0.15 + 0.85 × 1/2 =
// 0.575, d(T3000) = 4, w 0.9: T = 0.9 × 0.9 / 2 × 0.575 = 0.232875.
func TestDemoSingleDepthB1(t *testing.T) {
	res, levels := scenario{seed: retriever.Seed{NodeID: "T3000", Score: 0.9}, tags: []string{"campaign"},
		cfg: func(c *activation.Params) { c.MaxDepth, c.MaxBranches = 1, 2 }}.run(t, demoGraph(t))
	wantPaths(t, res, map[string][]float64{"T3000>T3002": {0.2329}, "T3000>T3004": {0.1811}}, []string{"T3000>T3002", "T3000>T3004"})
	if got := res.Paths[0].Steps[0].TransferEnergy; math.Abs(got-0.232875) > 1e-15 {
		t.Errorf("T3000→T3002 T = %v, want 0.232875", got)
	}
	if len(levels) != 1 || len(levels[0].Outcomes) != 4 || res.TerminatedReason != activation.TerminatedMaxDepth {
		t.Errorf("levels %d, reason %s", len(levels), res.TerminatedReason)
	}
}

// TestDemoMultiDepthB2 is docs/DEMO_GRAPH.md scenario B2: T3000 → T3002 → T3003
// is kept at the defaults, max_depth_reached is the longest path (3), no
// node repeats within a path (the marketing cluster has triangles), and
// the off-topic T4001 (edge T3003–T4001 w 0.35, T 0.003353 ≤ 0.005) and
// every other T4xxx/P5xxx node are absent.
func TestDemoMultiDepthB2(t *testing.T) {
	res, _ := scenario{seed: retriever.Seed{NodeID: "T3000", Score: 0.9}, tags: []string{"campaign"}}.run(t, demoGraph(t))
	wantPaths(t, res, map[string][]float64{
		"T3000>T3002>T3003>T3012": {0.2329, 0.1106, 0.02203},
		"T3000>T3001>T3006>T3014": {0.1560, 0.03410, 0.006862},
	}, []string{
		"T3000>T3002>T3003>T3012", "T3000>T3002>T3007", "T3000>T3004>T3009",
		"T3000>T3001>T3006>T3014", "T3000>T3001>T3005", "T3000>T3001>T3008",
	})
	if res.MaxDepthReached != 3 {
		t.Errorf("max_depth_reached %d, want 3", res.MaxDepthReached)
	}
	for _, p := range res.Paths {
		ids := p.NodeIDs()
		seen := map[string]bool{}
		for _, id := range ids {
			if seen[id] {
				t.Errorf("%v repeats %s", ids, id)
			}
			seen[id] = true
			if strings.HasPrefix(id, "T4") || strings.HasPrefix(id, "P5") {
				t.Errorf("off-topic %s in %v", id, ids)
			}
		}
	}
}

// TestDemoThresholdSensitivityB3 is docs/DEMO_GRAPH.md scenario B3: at MIN_ACTIVATION
// 0.002 the path T3000 → T3002 → T3003 → T4001 appears (T3003→T4001:
// 0.1106 × 0.35 / √d(T3003) × tag_sim = 0.003353, in (0.002, 0.005]), and
// it is absent at 0.005 (TestDemoMultiDepthB2). T4001 is reachable only
// through T3003.
func TestDemoThresholdSensitivityB3(t *testing.T) {
	res, _ := scenario{seed: retriever.Seed{NodeID: "T3000", Score: 0.9}, tags: []string{"campaign"},
		cfg: func(c *activation.Params) { c.MinActivation = 0.002 }}.run(t, demoGraph(t))
	wantPaths(t, res, map[string][]float64{"T3000>T3002>T3003>T4001": {0.2329, 0.1106, 0.003353}}, []string{
		"T3000>T3002>T3003>T3012", "T3000>T3002>T3003>T4001", "T3000>T3002>T3007", "T3000>T3004>T3009",
		"T3000>T3001>T3006>T3014", "T3000>T3001>T3006>N2017", "T3000>T3001>T3005", "T3000>T3001>T3008",
	})
}

// TestDemoReasonableC: a UserPreference in the inventory cluster (N2002,
// R 0.8, [safety_stock]) reaches only inventory memories.
func TestDemoReasonableC(t *testing.T) {
	res, _ := scenario{seed: retriever.Seed{NodeID: "N2002", Score: 0.8}, tags: []string{"safety_stock"}}.run(t, demoGraph(t))
	wantPaths(t, res, map[string][]float64{"N2002>N2013>N2000": {0.2537, 0.01674}, "N2002>N2014": {0.2147}},
		[]string{"N2002>N2013>N2000", "N2002>N2013>N2015", "N2002>N2014"})
}

// TestDemoDegreePenaltyD: T4021, T4022, T4023 (degrees 2, 3, 4) each
// receive 1 × 0.6 / √3 = 0.34641 from T4020 and pass it over an edge of
// weight 0.5 with tag_sim 1: 0.34641 × 0.5 / √2 = 0.12247 > 0.34641 × 0.5
// / √3 = 0.1 > 0.34641 × 0.5 / √4 = 0.08660. Higher degree, less energy.
func TestDemoDegreePenaltyD(t *testing.T) {
	res, _ := scenario{seed: retriever.Seed{NodeID: "T4020", Score: 1}, tags: []string{"office_move"}}.run(t, demoGraph(t))
	r := 0.6 / math.Sqrt(3)
	want := map[string]float64{"T4024": r * 0.5 / math.Sqrt(2), "T4025": r * 0.5 / math.Sqrt(3), "T4026": r * 0.5 / 2}
	if len(res.Paths) != 3 {
		t.Fatalf("%d paths, want 3", len(res.Paths))
	}
	for _, p := range res.Paths {
		last := p.Steps[1]
		if w, ok := want[last.ToNode.ID]; !ok || math.Abs(last.TransferEnergy-w) > 1e-15 {
			t.Errorf("%v: T = %v, want %v", p.NodeIDs(), last.TransferEnergy, w)
		}
	}
}
