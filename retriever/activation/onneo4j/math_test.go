package onneo4j

import (
	"math"
	"slices"
	"testing"

	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
	"github.com/memoria-graph/memoria/testkit/neo4jfix"
)

// Query tags of scenario A (docs/DEMO_GRAPH.md).
var tagsA = []string{"demand_forecasting", "stockout", "safety_stock", "inventory_policy"}

// TestTransferEnergyPerEdge checks T = R × w / √d × tag_sim on five edges
// across the demo graph, against the float64 values of docs/DEMO_GRAPH.md
// (computed in the Cypher's operation order, so they must match exactly)
// and against activation.TransferEnergy on the edge's documented weight,
// degree and tags:
//
//   - N2006 → N2003 (scenario A, level 1): R 0.85, w 0.82, d(N2006) = 4
//     (N2003, N2004, N2005, N2007), E = {inventory_policy, recommendation,
//     analysis_dependency}, Q = scenario A's four tags: |E∩Q| = 1, |E∪Q| = 6,
//     tag_sim = 0.15 + 0.85/6 = 7/24; T = 0.85 × 0.82 / √4 × 7/24 =
//     0.3485 × 0.291667 = 0.101646 (float64 0.10164583333333331).
//   - N2006 → N2004: w 0.58, E = {demand_forecasting}: |E∩Q| 1, |E∪Q| 4,
//     tag_sim 0.3625; T = 0.85 × 0.58 / 2 × 0.3625 = 0.08935625.
//   - T3000 → T3004 (scenario B): R 0.9, w 0.70, d(T3000) = 4, E = {creative,
//     campaign}, Q = {campaign}: tag_sim 0.15 + 0.85/2 = 0.575;
//     T = 0.9 × 0.7 / 2 × 0.575 = 0.181125.
//   - N2002 → N2013 (scenario C): R 0.8, w 0.78, d(N2002) = 2 (its MENTIONS
//     edge from N2006 does not count), E = {safety_stock, recommendation},
//     Q = {safety_stock}: tag_sim 0.575; T = 0.8 × 0.78 / √2 × 0.575 = 0.253710.
//   - T3001 → T3006 (scenario B2, level 2): R = T(T3000 → T3001) =
//     0.15600000000000003, w 0.85, d(T3001) = 5, E = {campaign, budget}:
//     tag_sim 0.575; T = 0.156 × 0.85 / √5 × 0.575 = 0.0340978.
func TestTransferEnergyPerEdge(t *testing.T) {
	c := openConn(t, fx.Demo(t))
	cases := []struct {
		parent   string
		r        float64
		visited  []string
		tags     []string
		neighbor string
		w        float64
		d        int64
		edgeTags []string
		want     float64
	}{
		{"N2006", 0.85, nil, tagsA, "N2003", 0.82, 4, []string{"inventory_policy", "recommendation", "analysis_dependency"}, 0.10164583333333331},
		{"N2006", 0.85, nil, tagsA, "N2004", 0.58, 4, []string{"demand_forecasting"}, 0.08935624999999998},
		{"T3000", 0.9, nil, []string{"campaign"}, "T3004", 0.70, 4, []string{"creative", "campaign"}, 0.18112499999999998},
		{"N2002", 0.8, nil, []string{"safety_stock"}, "N2013", 0.78, 2, []string{"safety_stock", "recommendation"}, 0.2537099130897333},
		{"T3001", 0.15600000000000003, []string{"T3000", "T3002", "T3004"}, []string{"campaign"}, "T3006", 0.85, 5, []string{"campaign", "budget"}, 0.03409780058889429},
	}
	for _, tc := range cases {
		cands := neo4jfix.Expand(t, c, neo4jfix.ExpandReq(map[string]float64{tc.parent: tc.r}, tc.visited, tc.tags, 0.005, 0.15))
		got := one(t, cands, tc.parent, tc.neighbor)
		ts := activation.TagSim(tc.edgeTags, retriever.NormalizeTags(tc.tags), 0.15)
		byHand := activation.TransferEnergy(tc.r, tc.w, tc.d, ts)
		if got.TransferEnergy != tc.want || got.TransferEnergy != byHand {
			t.Errorf("%s -> %s: T = %v, want %v (documented) = %v (by hand)", tc.parent, tc.neighbor, got.TransferEnergy, tc.want, byHand)
		}
		if got.Degree != tc.d || got.TagSim != ts || got.Edge.Weight == nil || *got.Edge.Weight != tc.w ||
			!slices.Equal(got.Edge.Tags, tc.edgeTags) || got.Activation != tc.r {
			t.Errorf("%s -> %s: degree %d tag_sim %v weight %v tags %v activation %v; want %d %v %v %v %v",
				tc.parent, tc.neighbor, got.Degree, got.TagSim, got.Edge.Weight, got.Edge.Tags, got.Activation, tc.d, ts, tc.w, tc.edgeTags, tc.r)
		}
		if got.Edge.SourceID != tc.parent || got.Edge.TargetID != tc.neighbor || got.Edge.Type != "RELATES" {
			t.Errorf("%s -> %s: edge %s -[%s]-> %s", tc.parent, tc.neighbor, got.Edge.SourceID, got.Edge.Type, got.Edge.TargetID)
		}
	}
	// The formula of docs/ALGORITHM.md rule 1 for the first edge: 0.85 × 0.82 / √4 × 7/24.
	if want := 0.85 * 0.82 / math.Sqrt(4) * (7.0 / 24); math.Abs(0.10164583333333331-want) > 1e-15 {
		t.Errorf("hand formula %v", want)
	}
}

// TestTagSimilarity checks tag_sim on two edges with different tag sets,
// R = 1 and the floor 0.15 unless said otherwise:
//
//   - N2006 → N2003, E = {inventory_policy, recommendation,
//     analysis_dependency} (w 0.82, d 4);
//   - T3000 → T3001, E = {campaign, channel, budget} (w 0.80, d 4);
//   - N2004 → N2001, an edge without a tags property (w 0.95, d 4).
//
// Empty query tags give exactly 1.0 (even on the untagged edge: the "no
// query tags" case comes first); non-overlapping tags give exactly the
// floor (and a floor of 0.3 gives 0.3); the untagged edge gives the floor;
// partial overlap gives floor + 0.85 × |E∩Q|/|E∪Q|: {inventory_policy,
// stockout} on the first edge is 1/4 → 0.3625, {campaign, budget, audience}
// on the second is 2/4 → 0.575; full overlap (Q = E) is 3/3 → 1.0.
// T is then R × w / 2 × tag_sim.
func TestTagSimilarity(t *testing.T) {
	c := openConn(t, fx.Demo(t))
	type tc struct {
		parent, neighbor string
		w                float64
		tags             []string
		floor            float64
		want             float64
	}
	cases := []tc{
		{"N2006", "N2003", 0.82, nil, 0.15, 1.0},
		{"T3000", "T3001", 0.80, nil, 0.15, 1.0},
		{"N2004", "N2001", 0.95, nil, 0.15, 1.0},
		{"N2006", "N2003", 0.82, []string{"holiday"}, 0.15, 0.15},
		{"T3000", "T3001", 0.80, []string{"holiday", "vpn"}, 0.15, 0.15},
		{"T3000", "T3001", 0.80, []string{"holiday"}, 0.3, 0.3},
		{"N2004", "N2001", 0.95, []string{"demand_forecasting"}, 0.15, 0.15},
		{"N2006", "N2003", 0.82, []string{"inventory_policy", "stockout"}, 0.15, activation.TagSimCounts(1, 4, 0.15)},
		{"T3000", "T3001", 0.80, []string{"campaign", "budget", "audience"}, 0.15, activation.TagSimCounts(2, 4, 0.15)},
		{"N2006", "N2003", 0.82, []string{"inventory_policy", "recommendation", "analysis_dependency"}, 0.15, activation.TagSimCounts(3, 3, 0.15)},
		{"T3000", "T3001", 0.80, []string{"budget", "channel", "campaign"}, 0.15, activation.TagSimCounts(3, 3, 0.15)},
	}
	for _, tc := range cases {
		cands := neo4jfix.Expand(t, c, neo4jfix.ExpandReq(map[string]float64{tc.parent: 1.0}, []string{"N2006", "T3000"}, tc.tags, 0, tc.floor))
		got := one(t, cands, tc.parent, tc.neighbor)
		if got.TagSim != tc.want {
			t.Errorf("%s -> %s with %v, floor %v: tag_sim %v, want %v", tc.parent, tc.neighbor, tc.tags, tc.floor, got.TagSim, tc.want)
		}
		if want := activation.TransferEnergy(1.0, tc.w, 4, tc.want); got.TransferEnergy != want {
			t.Errorf("%s -> %s with %v: T %v, want %v", tc.parent, tc.neighbor, tc.tags, got.TransferEnergy, want)
		}
	}
	if math.Abs(activation.TagSimCounts(3, 3, 0.15)-1) > 1e-15 {
		t.Error("full overlap is not 1")
	}
}

// TestDuplicatedEdgeTag: T3000 → T3002 carries ["campaign","campaign","launch"]
// (w 0.90, d(T3000) = 4). Over distinct tags E = {campaign, launch}: with
// Q = {campaign}, |E∩Q| = 1, |E∪Q| = 2, tag_sim = 0.15 + 0.85 × 1/2 = 0.575
// and T = 0.9 × 0.9 / 2 × 0.575 = 0.232875 (scenario B, level 1); with
// Q = {campaign, launch} it is a full overlap, 1.0, T = 0.405. The edge's
// tags are returned as stored (with the duplicate).
func TestDuplicatedEdgeTag(t *testing.T) {
	c := openConn(t, fx.Demo(t))
	got := one(t, neo4jfix.Expand(t, c, neo4jfix.ExpandReq(map[string]float64{"T3000": 0.9}, nil, []string{"campaign"}, 0.005, 0.15)), "T3000", "T3002")
	if got.TagSim != 0.575 || got.TransferEnergy != 0.232875 {
		t.Errorf("Q={campaign}: tag_sim %v T %v, want 0.575 and 0.232875", got.TagSim, got.TransferEnergy)
	}
	if !slices.Equal(got.Edge.Tags, []string{"campaign", "campaign", "launch"}) {
		t.Errorf("tags %v", got.Edge.Tags)
	}
	got = one(t, neo4jfix.Expand(t, c, neo4jfix.ExpandReq(map[string]float64{"T3000": 0.9}, nil, []string{"campaign", "launch"}, 0.005, 0.15)), "T3000", "T3002")
	if got.TagSim != 1.0 || got.TransferEnergy != 0.405 {
		t.Errorf("Q={campaign,launch}: tag_sim %v T %v, want 1 and 0.405", got.TagSim, got.TransferEnergy)
	}
}

// TestDegreePenalty is scenario D, level 2: T4021, T4022 and T4023 each hold
// R = 0.6/√3 = 0.34641016151377546 and pass energy over an edge with the
// same weight 0.50 and tags ["office_move"] (tag_sim 1.0 for Q =
// {office_move}); their RELATES degrees are 2 (T4020, T4024), 3 (T4020,
// T4025, T4023) and 4 (T4020, T4026, T4022, T4027). So T = 0.3464 × 0.5 / √d:
// 0.1225 > 0.1000 > 0.08660 (1/√2 : 1/√3 : 1/√4). Seeding each directly with
// R = 1 gives 0.5/√2 = 0.3536 > 0.5/√3 = 0.2887 > 0.5/√4 = 0.25.
func TestDegreePenalty(t *testing.T) {
	c := openConn(t, fx.Demo(t))
	r := 0.34641016151377546
	cands := neo4jfix.Expand(t, c, neo4jfix.ExpandReq(map[string]float64{"T4021": r, "T4022": r, "T4023": r}, []string{"T4020"}, []string{"office_move"}, 0.005, 0.15))
	for _, tc := range []struct {
		parent, neighbor string
		d                int64
		want             float64
	}{
		{"T4021", "T4024", 2, 0.1224744871391589},
		{"T4022", "T4025", 3, 0.1},
		{"T4023", "T4026", 4, 0.08660254037844387},
	} {
		got := one(t, cands, tc.parent, tc.neighbor)
		if got.Degree != tc.d || got.TransferEnergy != tc.want || got.TransferEnergy != activation.TransferEnergy(r, 0.5, tc.d, 1.0) {
			t.Errorf("%s -> %s: d %d T %v, want d %d T %v", tc.parent, tc.neighbor, got.Degree, got.TransferEnergy, tc.d, tc.want)
		}
	}
	var direct []float64
	for _, p := range []struct{ parent, neighbor string }{{"T4021", "T4024"}, {"T4022", "T4025"}, {"T4023", "T4026"}} {
		got := one(t, neo4jfix.Expand(t, c, neo4jfix.ExpandReq(map[string]float64{p.parent: 1}, nil, []string{"office_move"}, 0.005, 0.15)), p.parent, p.neighbor)
		direct = append(direct, got.TransferEnergy)
	}
	if !(direct[0] > direct[1] && direct[1] > direct[2]) || direct[2] != 0.25 || math.Abs(direct[0]-0.5/math.Sqrt2) > 1e-15 {
		t.Errorf("seeded directly: %v, want 0.3536 > 0.2887 > 0.25", direct)
	}
}

// TestMinActivationStrict: a candidate is returned only if T > MIN_ACTIVATION.
//
//   - Scenario A, level 2, frontier N2005 (R = 0.069328125, d 3; N2006 visited):
//     N2005 → N2007 (w 0.40, tags {supplier, lead_time}, tag_sim 0.15) has
//     T = 0.0024016 and N2005 → N2012 (no weight, tag_sim 0.32) 0.000128: both
//     absent at 0.005, both present at 0.0001.
//   - Scenario B2, level 3: T3006 → N2017 (R 0.03409780058889429, w 0.48,
//     d(T3006) 4, tag_sim 0.575) has T = 0.004705, the candidate closest
//     below 0.005: absent at 0.005, present at 0.0047.
//   - Exact equality, on a two-node graph S–X (w 0.5, no tags, d(S) = 1,
//     R = 1, no query tags): T = 1 × 0.5 / √1 × 1.0 = 0.5 exactly; with
//     MIN_ACTIVATION 0.5 it is absent, with the next float below it is there.
func TestMinActivationStrict(t *testing.T) {
	c := openConn(t, fx.Demo(t))
	visited := []string{"N2006", "N2003", "N2004"}
	if cands := neo4jfix.Expand(t, c, neo4jfix.ExpandReq(map[string]float64{"N2005": 0.069328125}, visited, tagsA, 0.005, 0.15)); len(cands) != 0 {
		t.Errorf("N2005 at 0.005: want no candidate, got %s", neo4jfix.CandList(cands))
	}
	cands := neo4jfix.Expand(t, c, neo4jfix.ExpandReq(map[string]float64{"N2005": 0.069328125}, visited, tagsA, 0.0001, 0.15))
	if got := one(t, cands, "N2005", "N2007"); got.TransferEnergy != 0.002401596697869722 {
		t.Errorf("N2005 -> N2007: T %v", got.TransferEnergy)
	}
	if got := one(t, cands, "N2005", "N2012"); got.TransferEnergy != 0.00012808515721971848 {
		t.Errorf("N2005 -> N2012: T %v", got.TransferEnergy)
	}
	r := 0.03409780058889429
	vis := []string{"T3000", "T3001", "T3002", "T3004"}
	if got := find(neo4jfix.Expand(t, c, neo4jfix.ExpandReq(map[string]float64{"T3006": r}, vis, []string{"campaign"}, 0.005, 0.15)), "T3006", "N2017"); len(got) != 0 {
		t.Errorf("T3006 -> N2017 at 0.005: present with T %v", got[0].TransferEnergy)
	}
	if got := one(t, neo4jfix.Expand(t, c, neo4jfix.ExpandReq(map[string]float64{"T3006": r}, vis, []string{"campaign"}, 0.0047, 0.15)), "T3006", "N2017"); got.TransferEnergy != 0.004705496481267412 {
		t.Errorf("T3006 -> N2017: T %v", got.TransferEnergy)
	}

	g := &apoc.Graph{
		Nodes: []apoc.Node{
			{InternalID: "0", Labels: []string{"Event"}, Properties: map[string]any{"id": "S"}},
			{InternalID: "1", Labels: []string{"Event"}, Properties: map[string]any{"id": "X"}},
		},
		Rels: []apoc.Relationship{{InternalID: "0", Type: "RELATES", Start: "0", End: "1", Properties: map[string]any{"weight": 0.5}}},
	}
	c = openConn(t, fx.Graph(t, g))
	if cands := neo4jfix.Expand(t, c, neo4jfix.ExpandReq(map[string]float64{"S": 1}, nil, nil, 0.5, 0.15)); len(cands) != 0 {
		t.Errorf("T = 0.5 at MIN_ACTIVATION 0.5: want nothing, got %s", neo4jfix.CandList(cands))
	}
	got := one(t, neo4jfix.Expand(t, c, neo4jfix.ExpandReq(map[string]float64{"S": 1}, nil, nil, math.Nextafter(0.5, 0), 0.15)), "S", "X")
	if got.TransferEnergy != 0.5 {
		t.Errorf("T %v, want exactly 0.5", got.TransferEnergy)
	}
}

// TestMissingWeight: a RELATES edge without a weight property counts as
// 0.01 and its candidate has a nil Weight.
//
//   - N2005 → N2012 (scenario A, level 2): R 0.069328125, d(N2005) = 3,
//     E = {stockout, supplier} vs Q of scenario A: |E∩Q| 1, |E∪Q| 5, tag_sim
//     0.32; T = 0.069328 × 0.01 / √3 × 0.32 = 0.000128.
//   - T4003 → T4007 (scenario E): R 1, d(T4003) = 3 (two parallel edges to
//     T4004 and T4007), tags {it_support} = Q: T = 0.01 / √3 = 0.005774,
//     above 0.005.
func TestMissingWeight(t *testing.T) {
	c := openConn(t, fx.Demo(t))
	got := one(t, neo4jfix.Expand(t, c, neo4jfix.ExpandReq(map[string]float64{"N2005": 0.069328125}, []string{"N2006"}, tagsA, 0, 0.15)), "N2005", "N2012")
	if got.Edge.Weight != nil || activation.EffectiveWeight(got.Edge) != 0.01 || got.TagSim != activation.TagSimCounts(1, 5, 0.15) ||
		got.TransferEnergy != activation.TransferEnergy(0.069328125, 0.01, 3, got.TagSim) || got.TransferEnergy != 0.00012808515721971848 {
		t.Errorf("N2005 -> N2012: weight %v tag_sim %v T %v", got.Edge.Weight, got.TagSim, got.TransferEnergy)
	}
	got = one(t, neo4jfix.Expand(t, c, neo4jfix.ExpandReq(map[string]float64{"T4003": 1}, nil, []string{"it_support"}, 0.005, 0.15)), "T4003", "T4007")
	if got.Edge.Weight != nil || got.Degree != 3 || got.TransferEnergy != 0.005773502691896258 {
		t.Errorf("T4003 -> T4007: weight %v d %d T %v", got.Edge.Weight, got.Degree, got.TransferEnergy)
	}
}

// TestMentionsIgnored: only RELATES relationships count. N2006 has four
// RELATES edges (N2003, N2004, N2005, N2007) and a MENTIONS edge to N2002
// (weight 0.90, tags ["safety_stock"], attractive on purpose): even at
// MIN_ACTIVATION 0 N2002 is no candidate and every candidate reports d = 4,
// not 5. Likewise T3012 (RELATES to T3003 and T3013, MENTIONS to T3005):
// candidates T3003 and T3013 only, d = 2.
func TestMentionsIgnored(t *testing.T) {
	c := openConn(t, fx.Demo(t))
	cands := neo4jfix.Expand(t, c, neo4jfix.ExpandReq(map[string]float64{"N2006": 0.85}, nil, tagsA, 0, 0.15))
	var ids []string
	for _, cd := range cands {
		ids = append(ids, cd.NeighborNode.ID)
		if cd.Degree != 4 {
			t.Errorf("N2006 -> %s: degree %d, want 4", cd.NeighborNode.ID, cd.Degree)
		}
	}
	slices.Sort(ids)
	if !slices.Equal(ids, []string{"N2003", "N2004", "N2005", "N2007"}) {
		t.Errorf("N2006's candidates %v", ids)
	}
	cands = neo4jfix.Expand(t, c, neo4jfix.ExpandReq(map[string]float64{"T3012": 1}, nil, []string{"campaign"}, 0, 0.15))
	ids = nil
	for _, cd := range cands {
		ids = append(ids, cd.NeighborNode.ID)
		if cd.Degree != 2 {
			t.Errorf("T3012 -> %s: degree %d, want 2", cd.NeighborNode.ID, cd.Degree)
		}
	}
	slices.Sort(ids)
	if !slices.Equal(ids, []string{"T3003", "T3013"}) {
		t.Errorf("T3012's candidates %v", ids)
	}
}

// TestSelfLoop: T4030 has a RELATES self-loop (w 0.30, ["reminder"]) and an
// edge to T4028 (w 0.75, ["reminder","parking"]). The loop counts once:
// d(T4030) = 2, so with R 1 and no query tags T4030 → T4028 is
// 0.75 / √2 = 0.53033. The loop itself never yields a candidate (T4030 is
// visited). T4028's only edge gives d(T4028) = 1, T = 0.75.
func TestSelfLoop(t *testing.T) {
	c := openConn(t, fx.Demo(t))
	cands := neo4jfix.Expand(t, c, neo4jfix.ExpandReq(map[string]float64{"T4030": 1}, nil, nil, 0, 0.15))
	got := one(t, cands, "T4030", "T4028")
	if len(cands) != 1 || got.Degree != 2 || got.TransferEnergy != activation.TransferEnergy(1, 0.75, 2, 1) {
		t.Errorf("T4030: %s", neo4jfix.CandList(cands))
	}
	got = one(t, neo4jfix.Expand(t, c, neo4jfix.ExpandReq(map[string]float64{"T4028": 1}, nil, nil, 0, 0.15)), "T4028", "T4030")
	if got.Degree != 1 || got.TransferEnergy != 0.75 {
		t.Errorf("T4028 -> T4030: d %d T %v", got.Degree, got.TransferEnergy)
	}
}
