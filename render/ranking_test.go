package render

import (
	"context"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/graph/apoc"
	"github.com/memoria-graph/memoria/graph/inmem"
	"github.com/memoria-graph/memoria/retriever"
	"github.com/memoria-graph/memoria/retriever/expansion"
)

// workedRanking is the expansion's worked example (docs/RETRIEVERS.md):
// seeds A (0.95) and B (0.87) and a seed C not in the graph; A FIXES X and
// SUPPORTS Y (weight 0.5), B is RELATED to Z; X FOLLOWS W. H = 2:
//
//	X = 0.95 × 1.0 × 0.6 × 0.8 = 0.456
//	Y = 0.95 × (0.9 × 0.5) × 0.6 × 0.8 = 0.2052
//	Z = 0.87 × 0.7 × 0.6 × 0.8 = 0.29232
//	W = 0.95 × 1.0 × 0.8 × 0.6 × 0.64 = 0.29184
func workedRanking(t *testing.T) retriever.Ranking {
	t.Helper()
	g := &apoc.Graph{}
	for i, id := range []string{"A", "B", "X", "Y", "Z", "W"} {
		g.Nodes = append(g.Nodes, apoc.Node{InternalID: id, Labels: []string{"Memory"},
			Properties: map[string]any{"id": id, "text": "memory " + string(rune('a'+i))}})
	}
	for i, r := range []struct {
		from, typ, to string
		props         map[string]any
	}{{"A", "FIXES", "X", nil}, {"A", "SUPPORTS", "Y", map[string]any{"weight": 0.5}}, {"B", "RELATED", "Z", nil}, {"X", "FOLLOWS", "W", nil}} {
		props := r.props
		if props == nil {
			props = map[string]any{}
		}
		g.Rels = append(g.Rels, apoc.Relationship{InternalID: string(rune('0' + i)), Type: r.typ, Start: r.from, End: r.to, Properties: props})
	}
	ig, err := inmem.New(g, "worked")
	if err != nil {
		t.Fatal(err)
	}
	p := expansion.DefaultParams()
	p.MaxHops = 2
	q := retriever.Query{Seeds: []retriever.Seed{{NodeID: "A", Score: 0.95}, {NodeID: "B", Score: 0.87}, {NodeID: "C", Score: 0.5}}}
	r, err := expansion.Retrieve(context.Background(), ig, q, p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRankingFormats: the worked ranking in every format a ranking
// retriever prints, against goldens. The text lists A, B, X, Z, W, Y in
// that order (scores above), says seed C was not found, and draws A's
// routes as A → X → W and A → Y, B's as B → Z.
func TestRankingFormats(t *testing.T) {
	r := workedRanking(t)
	js, err := RankingJSON(r)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "ranking_worked_json", string(js))
	text := RankingText(r)
	golden(t, "ranking_worked", text)
	for _, want := range []string{"seed C not found", "#3   0.456", "└── -[FOLLOWS w=1 ×0.8]-> W #5 0.2918"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	golden(t, "ranking_worked_llm", RankingLLM(r))
	golden(t, "ranking_worked_cypher", Script(RankingCypher(r), FormBrowser))
	if qs := RankingCypher(r); len(qs) != 4 || qs[2].Query != "MATCH p = (n0 {id: $id0})-[r0:FIXES]-(n1 {id: $id1})-[r1:FOLLOWS]-(n2 {id: $id2}) WHERE properties(r0) = $r0 AND properties(r1) = $r1 RETURN p" {
		t.Errorf("W's query: %+v", qs)
	}
	d3 := RankingD3(r)
	if len(d3.Nodes) != 6 || len(d3.Links) != 4 || *d3.Links[0].Factor != 1 {
		t.Errorf("d3 %+v", d3)
	}
}

// TestFormula: X's score multiplied out, plain and named.
func TestFormula(t *testing.T) {
	r := workedRanking(t)
	var x retriever.Hit
	for _, h := range r.Hits {
		if h.NodeID == "X" {
			x = h
		}
	}
	plain, named := Formula(x)
	if plain != "0.95 × 1 × 0.6 × 0.8 = 0.456" || named != "R(A) 0.95 × FIXES 1 × f 0.6 × δ^1 0.8 = 0.456" {
		t.Errorf("formula %q / %q", plain, named)
	}
}

// TestRankingEscapesHostileText: ids, labels, types and texts planted with
// terminal attacks show as visible escapes in the text, LLM and Cypher
// formats, and the JSON \u-escapes them.
func TestRankingEscapesHostileText(t *testing.T) {
	seed := graph.Node{ID: hostileIDs[0], Labels: []string{hostileTitle}, Properties: map[string]any{"text": "ask " + hostileOSC52}}
	end := graph.Node{ID: hostileIDs[2], Labels: []string{"End\u202eLabel"}, Properties: map[string]any{"name": hostileBidi}}
	edge := graph.Edge{SourceID: seed.ID, TargetID: end.ID, Type: "FIX" + hostileClear, Properties: map[string]any{"note": hostileOSC52}}
	r := retriever.Ranking{
		Retriever: "expansion", Params: retriever.Fields{{Name: "k" + hostileTitle, Value: 1}},
		Seeds: []retriever.SeedStatus{{NodeID: seed.ID, Score: 1, Found: true}, {NodeID: hostileIDs[1], Score: 1}},
		Hits: []retriever.Hit{
			{Rank: 1, NodeID: seed.ID, Score: 1, Seed: seed.ID, Origin: retriever.OriginInitial, Node: seed, Route: []retriever.Hop{}},
			{Rank: 2, NodeID: end.ID, Score: 0.5, Seed: seed.ID, Origin: retriever.OriginExpanded, Node: end,
				Route: []retriever.Hop{{From: seed.ID, To: end.ID, Type: edge.Type, Weight: 1, Factor: 1, Edge: edge}},
				Terms: []retriever.Term{{Name: "R(" + seed.ID + ")", Value: 1}, {Name: edge.Type, Value: 1}}},
		},
		Stats: retriever.Fields{{Name: "skipped_by_type", Value: retriever.Fields{{Name: hostileOSC52, Value: 2}}}},
	}
	for name, out := range map[string]string{"text": RankingText(r), "llm": RankingLLM(r), "cypher": Script(RankingCypher(r), FormBrowser)} {
		assertSafeLines(t, out)
		if name != "cypher" && !strings.Contains(out, `FIX\x1b[2J\x1b[H`) {
			t.Errorf("%s does not show the type escaped:\n%s", name, out)
		}
	}
	if q := RankingCypher(r)[0]; !strings.Contains(q.Query, "-[r0]-") {
		t.Errorf("a type Cypher cannot write was written: %s", q.Query)
	}
	js, err := RankingJSON(r)
	if err != nil {
		t.Fatal(err)
	}
	assertSafeLines(t, string(js))
	_, named := Formula(r.Hits[1])
	assertSafeLines(t, named)
}

// TestFieldValue: how a ranking's fields read as text. A float 0.123456
// shows as 0.1235 (Num), a list of floats as [1 0.574], a nested Fields in
// braces, an int as it is, a list of records as its JSON, and a string
// holding a terminal escape escaped.
func TestFieldValue(t *testing.T) {
	type src struct {
		From   string  `json:"from"`
		Amount float64 `json:"amount"`
	}
	for _, c := range []struct {
		v    any
		want string
	}{
		{0.123456, "0.1235"},
		{[]float64{1, 0.574}, "[1 0.574]"},
		{retriever.Fields{{Name: "a", Value: 2}}, "{a=2}"},
		{7, "7"},
		{[]src{{From: "N2006", Amount: 0.5}}, `[{"from":"N2006","amount":0.5}]`},
		{"x" + hostileClear, `x\x1b[2J\x1b[H`},
	} {
		if got := FieldValue(c.v); got != c.want {
			t.Errorf("FieldValue(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}
