package render

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/activation"
)

func f(v float64) *float64 { return &v }

func indentJSON(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestToD3Minimal is docs/EXPORTS.md test B.1, the to_d3 minimal sanity case.
//
// Scenario: seed S1 (R = 0.6) and one hop S1 → N1 with w = 0.8, d = 4,
// tag_sim = 0.5.
// Expected: two nodes, S1 (seed, score 0.6, activation 0.6) then N1
// (activation 0.12, no score, not a seed), and one link S1 → N1 of type
// RELATES with weight 0.8, tags [campaign], transfer_energy 0.12 and the
// edge's properties.
// Why: the seed's activation is its score; N1's is the energy that reached
// it, T = 0.6 × 0.8 / √4 × 0.5 = 0.48 / 2 × 0.5 = 0.12.
func TestToD3Minimal(t *testing.T) {
	got := ToD3(minimalResult())
	want := D3Graph{
		Nodes: []D3Node{
			{ID: "S1", Labels: []string{"UserRequest"}, Properties: map[string]any{"id": "S1", "text": "Plan the spring campaign"}, Activation: f(0.6), Score: f(0.6), Seed: true},
			{ID: "N1", Labels: []string{"DataSource"}, Properties: map[string]any{"id": "N1", "title": "Q1 sales"}, Activation: f(0.12)},
		},
		Links: []D3Link{{
			Source: "S1", Target: "N1", Type: "RELATES", Weight: 0.8, Tags: []string{"campaign"}, TransferEnergy: 0.12,
			Properties: map[string]any{"weight": 0.8, "tags": []string{"campaign"}},
		}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ToD3 =\n%s\nwant\n%s", indentJSON(t, got), indentJSON(t, want))
	}
	js := indentJSON(t, got)
	if strings.Count(js, `"score"`) != 1 {
		t.Errorf("score must appear on the seed only:\n%s", js)
	}
}

// TestToD3ThreePaths renders docs/ALGORITHM.md "Worked example"'s three paths (threePathResult).
//
// Expected (testdata/d3_three_paths.golden): 7 nodes in order of first
// appearance N2006, N2003, N2001, N2010, N2004, N2008, N2005 and 6 links
// in step order. Activations are the seed's 0.85 and the energies of the
// hops into each node (0.1016458…, 0.0263009…, 0.0075615…, 0.0816,
// 0.009996, 0.031875, worked out on threePathResult). No "embedding" key
// and no "vector" key appear.
// Why: walking path A, B, C step by step meets each node first in that
// order; the seed's embedding is dropped by key and N2003's 20-number
// vector by length (> 16). The untagged N2006→N2005 edge (nil tags) shows
// "tags": [] both as a field and among its properties, never null.
func TestToD3ThreePaths(t *testing.T) {
	g := ToD3(threePathResult())
	var ids []string
	for _, n := range g.Nodes {
		ids = append(ids, n.ID)
	}
	if want := []string{"N2006", "N2003", "N2001", "N2010", "N2004", "N2008", "N2005"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("node order %v, want %v", ids, want)
	}
	if len(g.Links) != 6 {
		t.Errorf("%d links, want 6", len(g.Links))
	}
	js := indentJSON(t, g)
	if strings.Contains(js, "embedding") || strings.Contains(js, "vector") {
		t.Errorf("a vector leaked into the graph")
	}
	if strings.Contains(js, "null") {
		t.Errorf("null in the graph (N2005's untagged edge has nil tags)")
	}
	golden(t, "d3_three_paths", js)
}

// dedupResults are two seeds whose explorations overlap, a found seed
// without paths and a seed that was not found. Energies are given directly
// (the exporter copies them, it never recomputes):
//
//	S1 (R=0.9): S1→A T=0.2 →B T=0.1;  S1→S2 T=0.3
//	S2 (R=0.8): S2→A T=0.4 →B T=0.05; S2→S1 T=0.25
//	S3 (R=0.5): found, no paths
//	S4 (R=0.7): not found
//
// A's text is "A as first seen" in S1's result and "A as seen later" in
// S2's.
func dedupResults() []activation.Result {
	s1 := node("S1", "UserRequest", map[string]any{"text": "seed one"})
	s2 := node("S2", "UserRequest", map[string]any{"text": "seed two"})
	s3 := node("S3", "UserRequest", map[string]any{"text": "seed three"})
	a1 := node("A", "DataSource", map[string]any{"text": "A as first seen"})
	a2 := node("A", "DataSource", map[string]any{"text": "A as seen later"})
	b := node("B", "Event", map[string]any{"text": "B"})
	st := func(from, to graph.Node, w, T float64) activation.Step {
		return activation.Step{FromNode: from, ToNode: to, Edge: edge(from.ID, to.ID, weight(w)), Weight: w, Degree: 2, TagSim: 1, TransferEnergy: T}
	}
	return []activation.Result{
		{Seed: retriever.Seed{NodeID: "S1", Score: 0.9}, SeedNode: &s1, TerminatedReason: activation.TerminatedFrontierExhausted, MaxDepthReached: 2,
			Paths: []activation.Path{
				path(activation.EndNoCandidates, st(s1, a1, 0.5, 0.2), st(a1, b, 0.5, 0.1)),
				path(activation.EndNoCandidates, st(s1, s2, 0.5, 0.3)),
			}},
		{Seed: retriever.Seed{NodeID: "S2", Score: 0.8}, SeedNode: &s2, TerminatedReason: activation.TerminatedFrontierExhausted, MaxDepthReached: 2,
			Paths: []activation.Path{
				path(activation.EndNoCandidates, st(s2, a2, 0.6, 0.4), st(a2, b, 0.7, 0.05)),
				path(activation.EndNoCandidates, st(s2, s1, 0.5, 0.25)),
			}},
		{Seed: retriever.Seed{NodeID: "S3", Score: 0.5}, SeedNode: &s3, TerminatedReason: activation.TerminatedFrontierExhausted, Paths: []activation.Path{}},
		{Seed: retriever.Seed{NodeID: "S4", Score: 0.7}, TerminatedReason: activation.TerminatedSeedNotFound, Paths: []activation.Path{}},
	}
}

// TestToD3Dedup merges dedupResults.
//
// Expected nodes, in order: S1 (seed, score 0.9, activation 0.9), A
// (activation 0.4, text "A as first seen"), B (activation 0.1), S2 (seed,
// score 0.8, activation 0.8), S3 (seed, score 0.5, activation 0.5); no S4.
// Expected links: S1→A 0.2, A→B 0.1 (weight 0.5), S1→S2 0.3, S2→A 0.4,
// S2→S1 0.25 — five, not six.
// Why: nodes are unique by id with the first occurrence's properties;
// activation is the highest energy that reached the node: A max(0.2, 0.4)
// = 0.4, B max(0.1, 0.05) = 0.1, and for seeds max(score, energies in):
// S1 max(0.9, 0.25) = 0.9, S2 max(0.8, 0.3) = 0.8. S2's A→B repeats the
// key (A, B, RELATES) so S1's link (T 0.1, w 0.5) stays; S2→S1 differs from
// S1→S2 in direction, so both stay (the key is directed, as docs/EXPORTS.md
// specifies). S3 was found, so it appears though it has no path; S4 has
// no node to show.
func TestToD3Dedup(t *testing.T) {
	g := ToD3(dedupResults()...)
	type nodeRow struct {
		id          string
		seed        bool
		score, act  float64
		text        string
		scoreIsNull bool
	}
	var rows []nodeRow
	for _, n := range g.Nodes {
		r := nodeRow{id: n.ID, seed: n.Seed, act: *n.Activation, text: n.Properties["text"].(string), scoreIsNull: n.Score == nil}
		if n.Score != nil {
			r.score = *n.Score
		}
		rows = append(rows, r)
	}
	wantRows := []nodeRow{
		{"S1", true, 0.9, 0.9, "seed one", false},
		{"A", false, 0, 0.4, "A as first seen", true},
		{"B", false, 0, 0.1, "B", true},
		{"S2", true, 0.8, 0.8, "seed two", false},
		{"S3", true, 0.5, 0.5, "seed three", false},
	}
	if !reflect.DeepEqual(rows, wantRows) {
		t.Errorf("nodes\n%+v\nwant\n%+v", rows, wantRows)
	}
	type linkRow struct {
		s, t string
		w, T float64
	}
	var links []linkRow
	for _, l := range g.Links {
		links = append(links, linkRow{l.Source, l.Target, l.Weight, l.TransferEnergy})
	}
	wantLinks := []linkRow{{"S1", "A", 0.5, 0.2}, {"A", "B", 0.5, 0.1}, {"S1", "S2", 0.5, 0.3}, {"S2", "A", 0.6, 0.4}, {"S2", "S1", 0.5, 0.25}}
	if !reflect.DeepEqual(links, wantLinks) {
		t.Errorf("links\n%+v\nwant\n%+v", links, wantLinks)
	}
	golden(t, "d3_dedup", indentJSON(t, g))
}

// TestToD3Empty checks the empty cases.
//
// Scenario: no results; a seed-not-found result alone.
// Expected: both encode as {"nodes":[],"links":[]}.
// Why: slices are never nil, so a D3 consumer never sees null, and a seed
// that was not found has no node to show.
func TestToD3Empty(t *testing.T) {
	notFound := activation.Result{Seed: retriever.Seed{NodeID: "X", Score: 0.5}, TerminatedReason: activation.TerminatedSeedNotFound}
	for name, g := range map[string]D3Graph{"none": ToD3(), "not found": ToD3(notFound)} {
		b, err := json.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != `{"nodes":[],"links":[]}` {
			t.Errorf("%s: %s", name, b)
		}
	}
}

// TestToD3NoNulls checks nil slices and maps in the input.
//
// Scenario: a found seed whose Labels and Properties are nil and a hop to a
// node likewise bare over an edge with nil Tags and Properties.
// Expected: the JSON has no `null`: labels [], properties {}, tags [].
// Why: D3 code iterates these fields; null would throw.
func TestToD3NoNulls(t *testing.T) {
	a := graph.Node{ID: "a"}
	b := graph.Node{ID: "b"}
	res := activation.Result{
		Seed: retriever.Seed{NodeID: "a", Score: 1}, SeedNode: &a,
		Paths: []activation.Path{{Steps: []activation.Step{{FromNode: a, ToNode: b, Edge: graph.Edge{SourceID: "a", TargetID: "b", Weight: weight(1)}, Weight: 1, TransferEnergy: 0.5}}}},
	}
	b2, err := json.Marshal(ToD3(res))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b2), "null") {
		t.Errorf("null in %s", b2)
	}
	if want := `"type":"RELATES"`; !strings.Contains(string(b2), want) {
		t.Errorf("an edge without a type should read as RELATES: %s", b2)
	}
}

// TestToD3MissingWeight renders missingWeightResult.
//
// Expected: the link M0 → M1 has weight 0.01, weight_missing true and
// transfer_energy 0.01; M1's activation is 0.01.
// Why: the math uses coalesce(r.weight, 0.01) (activation.MissingWeight),
// so T = 1 × 0.01 / √1 × 1 = 0.01, and the flag keeps the fact that the
// weight was made up.
func TestToD3MissingWeight(t *testing.T) {
	g := ToD3(missingWeightResult())
	l := g.Links[0]
	if l.Weight != 0.01 || !l.WeightMissing || l.TransferEnergy != 0.01 || *g.Nodes[1].Activation != 0.01 {
		t.Errorf("link %+v, M1 activation %v", l, *g.Nodes[1].Activation)
	}
	if js := indentJSON(t, ToD3(minimalResult())); strings.Contains(js, "weight_missing") {
		t.Errorf("weight_missing must be omitted when the weight exists:\n%s", js)
	}
}

// TestDisplayProperties is the vector filter shared by every exporter.
//
// Scenario / expected, per key:
//   - "embedding", "textEmbedding", "EMBEDDING_v2": dropped whatever the
//     value (even a string or 3 numbers), since the key names an embedding
//     in any case;
//   - 17 numbers as []float64, []float32, []int, []any, [17]float64 or
//     json.Number: dropped (17 > 16);
//   - 16 numbers as []float64: kept (16 is not more than 16);
//   - 17 values in []any with one string, 20 strings: kept (not all
//     numbers, so not a vector);
//   - "text", "rows": kept;
//   - "nil_list" ([]string(nil)), "nil_map" (map[string]any(nil)): kept,
//     as an empty list and map, so JSON shows [] and {} and never null.
//
// Also: the input map is not modified, and a nil map gives an empty,
// non-nil map.
func TestDisplayProperties(t *testing.T) {
	n := func(k int) []float64 { return make([]float64, k) }
	mixed := make([]any, 17)
	for i := range mixed {
		mixed[i] = i
	}
	mixed[16] = "x"
	anyNums := make([]any, 17)
	jsonNums := make([]any, 17)
	for i := range anyNums {
		anyNums[i] = float64(i)
		jsonNums[i] = json.Number("1.5")
	}
	in := map[string]any{
		"embedding": []float64{1, 2, 3}, "textEmbedding": "opaque", "EMBEDDING_v2": 1,
		"v_float64": n(17), "v_float32": make([]float32, 17), "v_int": make([]int, 17), "v_any": anyNums,
		"v_array": [17]float64{}, "v_json": jsonNums,
		"short": n(16), "mixed": mixed, "strings": make([]string, 20), "text": "hello", "rows": 3,
		"nil_list": []string(nil), "nil_map": map[string]any(nil),
	}
	before := len(in)
	got := DisplayProperties(in)
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	want := map[string]bool{"short": true, "mixed": true, "strings": true, "text": true, "rows": true, "nil_list": true, "nil_map": true}
	if len(got) != len(want) {
		t.Errorf("kept %v, want %v", keys, want)
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			t.Errorf("dropped %q", k)
		}
	}
	if b, err := json.Marshal(map[string]any{"l": got["nil_list"], "m": got["nil_map"]}); err != nil || string(b) != `{"l":[],"m":{}}` {
		t.Errorf("nil values encode as %s (%v)", b, err)
	}
	if len(in) != before {
		t.Errorf("input modified")
	}
	if m := DisplayProperties(nil); m == nil || len(m) != 0 {
		t.Errorf("DisplayProperties(nil) = %#v", m)
	}
}
