package render

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/memoria-graph/memoria/graph"
	"github.com/memoria-graph/memoria/retriever"
)

// hostileType is a relationship type Cypher cannot write: a backtick
// (which a Cypher name could escape), a newline and a screen clear (which
// it could not).
const hostileType = "FIX`ES\n" + hostileClear

// feedersRanking is a spreading-like ranking, by hand:
//
//   - #1 H (score 0.9), fed by A over RELATES pinned by element id
//     "4:db:10" (weight 0.82, brought 0.574), by B over SUP`PORTS (a type
//     written between backticks) pinned by its properties {note: "x",
//     weight: 0.5} (brought 0.25), and by hostileIDs[0] over hostileType
//     with a property key "k\n" (neither type nor properties can be
//     written: unpinned; weight 0.01, brought 0.007);
//   - #2 R (0.5), no feeders, a route A -[FIXES]-> R (by properties {});
//   - #3 S (0.4), an initial hit with neither feeders nor a route.
func feedersRanking() retriever.Ranking {
	w := 0.82
	return retriever.Ranking{
		Retriever: "spreading",
		Seeds:     []retriever.SeedStatus{{NodeID: "A", Score: 1, Found: true}},
		Hits: []retriever.Hit{
			{Rank: 1, NodeID: "H", Score: 0.9, Seed: "A", Origin: retriever.OriginExpanded, Node: graph.Node{ID: "H"},
				Route: []retriever.Hop{{From: "A", To: "H", Type: graph.Relates, Weight: 0.82, Factor: 0.574,
					Edge: graph.Edge{SourceID: "A", TargetID: "H", Type: graph.Relates, Weight: &w, ElementID: "4:db:10"}}},
				Feeders: []retriever.Hop{
					{From: "A", To: "H", Type: graph.Relates, Weight: 0.82, Factor: 0.574,
						Edge: graph.Edge{SourceID: "A", TargetID: "H", Type: graph.Relates, Weight: &w, ElementID: "4:db:10"}},
					{From: "B", To: "H", Type: "SUP`PORTS", Weight: 0.5, Factor: 0.25,
						Edge: graph.Edge{SourceID: "B", TargetID: "H", Type: "SUP`PORTS", Properties: map[string]any{"note": "x", "weight": 0.5}}},
					{From: hostileIDs[0], To: "H", Type: hostileType, Weight: 0.01, Factor: 0.007,
						Edge: graph.Edge{SourceID: hostileIDs[0], TargetID: "H", Type: hostileType, Properties: map[string]any{"k\n": int64(1)}}},
				}},
			{Rank: 2, NodeID: "R", Score: 0.5, Seed: "A", Origin: retriever.OriginExpanded, Node: graph.Node{ID: "R"},
				Route: []retriever.Hop{{From: "A", To: "R", Type: "FIXES", Weight: 1, Factor: 1, Edge: graph.Edge{SourceID: "A", TargetID: "R", Type: "FIXES"}}}},
			{Rank: 3, NodeID: "S", Score: 0.4, Seed: "S", Origin: retriever.OriginInitial, Node: graph.Node{ID: "S"}, Route: []retriever.Hop{}},
		},
	}
}

// TestFeedersCypher: a hit with feeders gets the query of the hit and its
// feeders, a hit without them its route's, a hit with neither none.
//
// Expected, for feedersRanking: two queries. H's is
//
//	MATCH (h {id: $id}) OPTIONAL MATCH (h)-[r0:RELATES]-(f0 {id: $f0}) WHERE elementId(r0) = $r0 OPTIONAL MATCH (h)-[r1:`SUP``PORTS`]-(f1 {id: $f1}) WHERE properties(r1) = $r1 OPTIONAL MATCH (h)-[r2]-(f2 {id: $f2}) RETURN h, r0, f0, r1, f1, r2, f2
//
// with parameters id H, f0 A, f1 B, f2 hostileIDs[0], r0 "4:db:10", r1
// {note: "x", weight: 0.5} and no r2; Unpinned says r2's key "k\n" cannot
// be written. The Browser form (testdata/feeders_cypher.golden) lists
// the parameters in the order id, f0, f1, f2, r0, r1, heads H's query
// "// Feeders 1: H <- A, B, "S\x1b]52;…"" and R's "// Path 2: A -> R",
// and holds no rune textsafe.Safe refuses, nor do the other forms. R's
// query is DebugCypherRoute's.
// Why: a pasted query must pin what the retriever counted, and graph text
// must never reach the terminal or the query raw.
func TestFeedersCypher(t *testing.T) {
	r := feedersRanking()
	qs := RankingCypher(r)
	if len(qs) != 2 {
		t.Fatalf("%d queries, want 2: %+v", len(qs), qs)
	}
	q := qs[0]
	want := "MATCH (h {id: $id}) OPTIONAL MATCH (h)-[r0:RELATES]-(f0 {id: $f0}) WHERE elementId(r0) = $r0 " +
		"OPTIONAL MATCH (h)-[r1:`SUP``PORTS`]-(f1 {id: $f1}) WHERE properties(r1) = $r1 " +
		"OPTIONAL MATCH (h)-[r2]-(f2 {id: $f2}) RETURN h, r0, f0, r1, f1, r2, f2"
	if q.Query != want {
		t.Errorf("H's query\n%s\nwant\n%s", q.Query, want)
	}
	wantParams := map[string]any{"id": "H", "f0": "A", "f1": "B", "f2": hostileIDs[0], "r0": "4:db:10",
		"r1": map[string]any{"note": "x", "weight": 0.5}}
	if !reflect.DeepEqual(q.Params, wantParams) {
		t.Errorf("params %#v, want %#v", q.Params, wantParams)
	}
	if want := []string{`r2 is not pinned: property key "k\n" holds a character a Cypher name cannot escape`}; !reflect.DeepEqual(q.Unpinned, want) {
		t.Errorf("unpinned %q, want %q", q.Unpinned, want)
	}
	if !q.Feeders || !reflect.DeepEqual(q.NodeIDs, []string{"H", "A", "B", hostileIDs[0]}) {
		t.Errorf("feeders %v, node ids %q", q.Feeders, q.NodeIDs)
	}
	if route := DebugCypherRoute(r.Hits[1].Route); !reflect.DeepEqual(qs[1], route) {
		t.Errorf("R's query %+v, want its route's %+v", qs[1], route)
	}
	if q, ok := HitCypher(r.Hits[2]); ok || q.Query != "" {
		t.Errorf("S (no feeders, no route) has a query: %+v", q)
	}

	script := Script(qs, FormBrowser)
	golden(t, "feeders_cypher", script)
	assertSafeLines(t, script)
	lines := strings.Split(script, "\n")
	if len(lines) < 4 || lines[1] != `// r2 is not pinned: property key "k\n" holds a character a Cypher name cannot escape` || lines[0] != `// Feeders 1: H <- A, B, "S\x1b]52;c;SEFDS0VE\a"` {
		t.Fatalf("script head %q", lines[:min(4, len(lines))])
	}
	keys, m, err := parseParamsLine(lines[2])
	if err != nil {
		t.Fatalf("%v in %q", err, lines[2])
	}
	if !reflect.DeepEqual(keys, []string{"id", "f0", "f1", "f2", "r0", "r1"}) || m["f2"] != hostileIDs[0] {
		t.Errorf("keys %v, f2 %q", keys, m["f2"])
	}
	if !strings.Contains(script, "\n// Path 2: A -> R\n") {
		t.Errorf("R's query is not headed as a path:\n%s", script)
	}
	for _, f := range []CypherForm{FormShell, FormDriver} {
		assertSafeLines(t, Script(qs, f))
	}
	d, err := q.Driver()
	if err != nil {
		t.Fatal(err)
	}
	var back DriverQuery
	if err := json.Unmarshal([]byte(d), &back); err != nil || back.Query != want || back.Parameters["f2"] != hostileIDs[0] {
		t.Errorf("driver form %s: %v", d, err)
	}
}

// TestFeedersCypherEmpty: a hit without feeders has an empty feeders
// query (its id alone in NodeIDs, no parameters), which Script heads and
// leaves empty.
func TestFeedersCypherEmpty(t *testing.T) {
	q := FeedersCypher(retriever.Hit{NodeID: "S"})
	if q.Query != "" || len(q.Params) != 0 || !reflect.DeepEqual(q.NodeIDs, []string{"S"}) || q.Browser() != "" {
		t.Errorf("%+v", q)
	}
}

// TestRankingTextFeeders: the text lists each hit's feeders under it,
// strongest first, one line each: "fed by" the node, the type and weight,
// and the amount brought (Num), ids with DisplayID and types escaped. A
// hit without feeders has no such line; the JSON carries them as
// "feeders" (from, to, type, weight, factor) and leaves the key out
// without them.
func TestRankingTextFeeders(t *testing.T) {
	r := feedersRanking()
	text := RankingText(r)
	assertSafeLines(t, text)
	want := "  #1   0.9       H  from A -[RELATES w=0.82 ×0.574]-> H\n" +
		"       fed by A -[RELATES w=0.82]- brought 0.574\n" +
		"       fed by B -[SUP`PORTS w=0.5]- brought 0.25\n" +
		"       fed by \"S\\x1b]52;c;SEFDS0VE\\a\" -[FIX`ES\\n\\x1b[2J\\x1b[H w=0.01]- brought 0.007\n" +
		"  #2   0.5       R  from A -[FIXES w=1 ×1]-> R\n" +
		"  #3   0.4       S  initial\n"
	if !strings.Contains(text, want) {
		t.Errorf("text:\n%s\nwant within it:\n%s", text, want)
	}
	js, err := RankingJSON(r)
	if err != nil {
		t.Fatal(err)
	}
	assertSafeLines(t, string(js))
	var back struct {
		Hits []struct {
			NodeID  string           `json:"node_id"`
			Feeders []map[string]any `json:"feeders"`
		} `json:"hits"`
	}
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	f := back.Hits[0].Feeders
	if len(f) != 3 || !reflect.DeepEqual(f[1], map[string]any{"from": "B", "to": "H", "type": "SUP`PORTS", "weight": 0.5, "factor": 0.25}) {
		t.Errorf("H's feeders in JSON: %v", f)
	}
	if strings.Count(string(js), `"feeders"`) != 1 {
		t.Errorf("feeders written for a hit without them:\n%s", js)
	}
}
